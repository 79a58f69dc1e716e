"""Does a learner's function loop in Python? Read from its code's structure, never from its timing.

Notebook 07 asks for ``layer_norm`` "with no loop over the rows". :func:`python_loops` parses the
function's own source (``inspect.getsource`` and ``ast``) and lists each Python loop in it: a ``for`` or
``while`` statement, a comprehension, or a call that loops in Python for you (``map``,
``np.apply_along_axis``, ``np.vectorize``), each with its line (one over a few things written out in the
code, ``for f in (np.mean, np.var)``, is marked ``fixed``: it runs as often whatever the data) and whether it runs over the rows (it
iterates over the matrix itself, ``range(len(x))`` or ``range(x.shape[0])``); and, two calls deep, the
loops of the notebook's own functions it calls (a helper that loops over the rows is still a loop).
Pure reading: no numpy.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from dataclasses import dataclass

LOOPING_CALLS = ("map", "apply_along_axis", "vectorize")


@dataclass(frozen=True)
class Loop:
    """One Python loop: its ``line`` in the function (1 is the ``def`` line), the ``text`` of that line,
    and whether it goes ``over_rows`` (over the function's first argument, the matrix)."""

    line: int
    text: str
    over_rows: bool
    inside: str = ""  # the function of the notebook it calls that has the loop, if not its own
    fixed: bool = False  # over a few things written out in the code (np.mean, np.var): not over the data


def python_loops(fn, depth: int = 2) -> list[Loop] | None:
    """The Python loops in ``fn``'s source, in order, and in the functions of its own module (the notebook)
    it calls, ``depth`` calls deep; None when its source cannot be read. Never raises."""
    found = _own_loops(fn)
    if found is None or depth <= 0:
        return found
    for name, line, text, first in _calls(fn):
        callee = getattr(fn, "__globals__", {}).get(name)
        if inspect.isfunction(callee) and callee is not fn and callee.__module__ == getattr(fn, "__module__", None):
            inner = data_loops(python_loops(callee, depth - 1) or [])
            if inner:
                found.append(Loop(line, text, any(loop.over_rows for loop in inner) and first, name))
    return sorted(found, key=lambda loop: loop.line)


def _calls(fn):
    """(called name, line, the line's text, whether the matrix is its first argument) for each call of a
    plain name in ``fn``'s source."""
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except Exception:  # noqa: BLE001
        return []
    function = next((node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.Lambda))), None)
    if function is None:
        return []
    arguments = function.args.posonlyargs + function.args.args
    matrix = arguments[0].arg if arguments else None
    lines = source.splitlines()
    found = []
    for node in ast.walk(function):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            first = bool(node.args) and isinstance(node.args[0], ast.Name) and node.args[0].id == matrix
            text = lines[node.lineno - 1].strip()[:80] if 0 < node.lineno <= len(lines) else ""
            found.append((node.func.id, node.lineno, text, first))
    return found


def _own_loops(fn) -> list[Loop] | None:
    try:
        source = textwrap.dedent(inspect.getsource(fn))
        tree = ast.parse(source)
    except Exception:  # noqa: BLE001 — a builtin, a lambda inside an expression, a function built by exec
        return None
    function = next((node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.Lambda))), None)
    if function is None:
        return None
    arguments = function.args.posonlyargs + function.args.args
    matrix = arguments[0].arg if arguments else None
    lines = source.splitlines()
    found = []
    for node in ast.walk(function):
        iterated = _iterated(node)
        if iterated is False:
            continue
        line = getattr(node, "lineno", 1)
        text = lines[line - 1].strip() if 0 < line <= len(lines) else ""
        fixed = bool(iterated) and all(_fixed(matrix, it) for it in iterated)  # over (np.mean, np.var)
        found.append(Loop(line, text[:80], any(_over(matrix, it) for it in iterated), fixed=fixed))
    return sorted(found, key=lambda loop: loop.line)


def _iterated(node):
    """False when ``node`` is no loop; else the expressions it iterates over (empty when unknown)."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [node.iter]
    if isinstance(node, ast.While):
        return [node.test]
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return [generator.iter for generator in node.generators]
    if isinstance(node, ast.Call):
        name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", None)
        if name in LOOPING_CALLS:
            return list(node.args)
    return False


def _fixed(matrix: str | None, expression) -> bool:
    """Whether ``expression`` is a tuple, list or set written out in the code (``(np.mean, np.var)``), none of
    whose items is a part of the matrix (``x[0]``): a loop over it runs a fixed number of times, whatever the
    data, as two lines written out would. ``range(3)`` is not one: a hard-coded count of rows is a loop."""
    if not isinstance(expression, (ast.Tuple, ast.List, ast.Set)) or any(
        isinstance(item, ast.Starred) for item in expression.elts
    ):
        return False
    return not any(
        isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == matrix
        for node in ast.walk(expression)
    )


def _over(matrix: str | None, expression) -> bool:
    """Whether ``expression`` runs over the rows of ``matrix``: ``x``, ``enumerate(x)`` (from any start),
    ``range(len(x))``, ``range(x.shape[0])``, ``zip(x, …)``."""
    if matrix is None:
        return False
    names = {node.id for node in ast.walk(expression) if isinstance(node, ast.Name)}
    if matrix not in names:
        return False
    text = ast.unparse(expression).replace(" ", "")
    if text == matrix or text in (f"{matrix}.tolist()", f"list({matrix})"):
        return True
    if isinstance(expression, ast.Call) and getattr(expression.func, "id", None) == "enumerate" and expression.args:
        return ast.unparse(expression.args[0]).replace(" ", "") == matrix
    rows = (f"len({matrix})", f"{matrix}.shape[0]", f"{matrix}.shape[-2]", f"{matrix}.size(0)")
    return any(row in text for row in rows) or text.startswith("zip(") and f"({matrix}," in text


def data_loops(loops: list[Loop]) -> list[Loop]:
    """The loops that run over the data: not those over a few things written out (``(np.mean, np.var)``)."""
    return [loop for loop in loops if not loop.fixed]


def loop_words(loops: list[Loop] | None) -> str:
    """The verdict's words about loops: '' when there is none, else which one and where."""
    if not loops:
        return ""
    first = next((loop for loop in loops if loop.over_rows), loops[0])
    kind = "a Python loop over the rows" if first.over_rows else "a Python loop"
    where = f", in `{first.inside}`, which it calls there" if first.inside else ""
    more = f" (and {len(loops) - 1} more)" if len(loops) > 1 else ""
    return f"{kind} (line {first.line} of the function, `{first.text}`{where}){more}"
