"""Is the function being checked the one on the page? IPython's own record of the cells says.

A learner writes ``def normalise(...)``, runs it, checks it, then edits the cell and makes a syntax
error: ``normalise`` is still the old function, and a verdict about it would be about code that is no
longer on the page. :func:`off_the_page` finds the newest cell run that defines the function's name at
its top level (IPython's input history, ``In``; a def inside a def or a class does not count, one under
a top-level if/for/with/try does), and, when that cell did not run or did not define this function
object, gives the one sentence the checker says instead of a verdict: which cell, the error and its
line. When the function's own cell cannot be traced (%%time and %%capture cells, exec, a wrapper
without functools.wraps, a partial, a library's function) and the newest cell defining its name (or the
exercise's name) failed, it says the function checked may be older code. It uses IPython's own
mechanisms only (the history, the compiler's map from a code object's file name to its cell, and a
``post_run_cell`` event that notes each cell's error), so it works wherever an IPython kernel runs the
cells: JupyterLab, Notebook 7, Colab, Voilà. Outside IPython, or when no failed cell defines the name,
a function no cell defines (a library's, a lambda) is judged as before. It never raises.
"""

from __future__ import annotations

import ast
import dis
import functools
import inspect
import linecache
import re
import sys

_ERRORS: dict[int, tuple[str, int | None]] = {}  # cell number -> (the error, its line), from post_run_cell
_UNPARSED = ("SyntaxError", "IndentationError", "TabError")  # a cell with these never ran at all
MAX_ERRORS = 500  # the cells' errors kept (the newest ones)


def shell():
    """The running IPython shell, or None (IPython not imported, or no shell: a plain script, a test)."""
    if "IPython" not in sys.modules:
        return None
    try:
        return sys.modules["IPython"].get_ipython()
    except Exception:  # noqa: BLE001
        return None


def watch(found=None) -> None:
    """Note every cell's error from now on (IPython's post_run_cell event); once per shell, never raises."""
    try:
        found = found or shell()
        if found is None or _after_cell in found.events.callbacks.get("post_run_cell", ()):
            return
        found.events.register("post_run_cell", _after_cell)
    except Exception:  # noqa: BLE001 — an odd shell: the history alone still tells syntax errors
        return


def _after_cell(result) -> None:
    try:
        error = getattr(result, "error_before_exec", None) or getattr(result, "error_in_exec", None)
        number = getattr(result, "execution_count", None)
        if number is None:
            return
        if error is None:
            _ERRORS.pop(number, None)
            return
        _ERRORS[number] = (_error_text(error), _error_line(error, number))
        for old in sorted(_ERRORS)[:-MAX_ERRORS]:
            del _ERRORS[old]
    except Exception:  # noqa: BLE001 — a hook must never disturb the learner's cells
        return


def _error_text(error: BaseException) -> str:
    text = str(getattr(error, "msg", None) or error).strip().splitlines()
    first = text[0] if text else ""
    return f"{type(error).__name__}: {first[:120]}" if first else type(error).__name__


def _error_line(error: BaseException, number: int) -> int | None:
    if isinstance(error, SyntaxError):
        return error.lineno
    cells = _filename_map()
    traceback = error.__traceback__
    while traceback is not None:  # the first frame in that cell: the cell's own line
        if cells.get(traceback.tb_frame.f_code.co_filename) == number:
            return traceback.tb_lineno
        traceback = traceback.tb_next
    return None


def _filename_map() -> dict:
    found = shell()
    return dict(getattr(getattr(found, "compile", None), "_filename_map", None) or {})


_BLOCKS = ("if", "for", "while", "with", "try", "match", "async for", "async with")


def _defines(source: str, name: str, found=None) -> str | None:
    """How a cell's source defines ``name`` at its top level: "top" (a def or class statement of the cell
    itself), "block" (one under an if/for/while/with/try of the cell's top level), or None (no such
    statement; one inside a def or a class, a string or a comment does not count). A cell that does
    not parse is read line by line."""
    pattern = rf"^[ \t]*(?:async[ \t]+def|def|class)[ \t]+{re.escape(name)}\b"
    if re.search(pattern, source, flags=re.MULTILINE) is None:
        return None
    try:
        transformed = found.transform_cell(source) if found is not None else source
        tree = ast.parse(transformed)
    except Exception:  # noqa: BLE001 — a syntax error: the lines are all there is to go by
        return _defines_by_lines(source, name)
    return _binds(tree.body, name, "top")


def _binds(body, name: str, depth: str) -> str | None:
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    found = None
    for node in body:
        if isinstance(node, kinds):
            if node.name == name:
                found = _outer(found, depth)
            continue  # what a def or a class holds is not the cell's own
        inner = [getattr(node, part, None) or [] for part in ("body", "orelse", "finalbody")]
        inner += [handler.body for handler in getattr(node, "handlers", None) or []]
        inner += [case.body for case in getattr(node, "cases", None) or []]
        for block in inner:
            if isinstance(block, list):
                found = _outer(found, _binds(block, name, "block"))
    return found


def _outer(first: str | None, second: str | None) -> str | None:
    """Of two ways a cell defines a name, the plainer: "top" over "block" over None."""
    return "top" if "top" in (first, second) else first or second


def _defines_by_lines(source: str, name: str) -> str | None:
    """``_defines`` for a cell that does not parse: a def line counts unless a def or class line encloses it
    (a line above it, less indented)."""
    lines = source.splitlines()
    header = re.compile(rf"^([ \t]*)(?:async[ \t]+def|def|class)[ \t]+{re.escape(name)}\b")
    found = None
    for index, line in enumerate(lines):
        match = header.match(line)
        if match is None:
            continue
        indent, depth = len(match.group(1).expandtabs()), "top"
        for above in reversed(lines[:index]):
            stripped = above.strip()
            width = len(above) - len(above.lstrip())
            if not stripped or stripped.startswith("#") or width >= indent:
                continue
            if re.match(r"(?:async\s+def|def|class)\b", stripped):
                depth = None
                break
            depth, indent = "block", width
            if width == 0:
                break
        found = _outer(found, depth)
    return found


def _code_of(fn):
    """(the name a cell would define it by or None, a code object of it or None): a partial is read through
    to its function, a decorated function through functools.wraps, a class through its own methods."""
    try:
        target = fn
        for _ in range(10):  # functools.partial(functools.partial(f)) …
            inner = getattr(target, "func", None) if isinstance(target, functools.partial) else None
            if inner is None:
                break
            target = inner
        target = target if inspect.isclass(target) or inspect.isroutine(target) else type(target)
        target = inspect.unwrap(target) if not inspect.isclass(target) else target
        name = getattr(target, "__name__", None)
        name = name if isinstance(name, str) and name.isidentifier() else None
        if inspect.isclass(target):
            codes = [getattr(inspect.unwrap(v), "__code__", None) for v in vars(target).values() if callable(v)]
            codes = [c for c in codes if c is not None]
            return name, (codes[0] if codes else None)
        return name, getattr(target, "__code__", None)
    except Exception:  # noqa: BLE001
        return None, None


def _cell_of(code, history) -> int | None:
    """The number of the cell whose code ``code`` is, or None (not a cell's)."""
    number = _filename_map().get(code.co_filename)
    if number is not None:
        return int(number)
    numbered = re.match(r"<ipython-input-(\d+)-", code.co_filename)  # IPython 7 names its cells so
    if numbered:
        return int(numbered.group(1))
    lines = linecache.getlines(code.co_filename)  # an older IPython: compare the cell's text
    if not lines or not code.co_filename.startswith(("<ipython-input-", "/tmp/ipykernel")):
        return None
    text = "".join(lines).strip()
    found = [i for i, source in enumerate(history) if source.strip() == text]
    return found[-1] if found else None


def _same_text(code, history, number: int, found) -> bool:
    """Whether the text IPython keeps for ``code``'s file is cell ``number``'s (as typed or as transformed);
    True when there is no text to compare."""
    kept = "".join(linecache.getlines(code.co_filename)).strip()
    if not kept or number >= len(history):
        return True
    source = history[number]
    try:
        transformed = found.transform_cell(source) if hasattr(found, "transform_cell") else source
    except Exception:  # noqa: BLE001
        transformed = source
    return kept in (source.strip(), transformed.strip())


def _syntax(source: str, found) -> tuple[str, int | None] | None:
    """The cell's syntax error (text, line), or None when it parses."""
    try:
        transformed = found.transform_cell(source) if hasattr(found, "transform_cell") else source
        ast.parse(transformed)
    except SyntaxError as error:
        return _error_text(error), error.lineno
    except Exception:  # noqa: BLE001 — a transformer's own failure: nothing to say
        return None
    return None


def off_the_page(fn, step: str | None = None) -> str | None:
    """The sentence to say instead of a verdict when ``fn`` may not be the function the newest cell defining
    its name defines (that cell failed, or did not define it); None when it is, or when nothing says
    otherwise. ``step``: the exercise's name, the name looked for when no cell defines ``fn``'s own."""
    try:
        return _off_the_page(fn, step)
    except Exception:  # noqa: BLE001 — never in the learner's way
        return None


def _newest(history, name, found):
    """(the newest cell that defines ``name`` at its top level, how: "top" or "block"), or (None, None)."""
    for number in range(len(history) - 1, 0, -1):
        how = _defines(history[number], name, found) if name else None
        if how:
            return number, how
    return None, None


def _off_the_page(fn, step) -> str | None:
    found = shell()
    if found is None:
        return None
    watch(found)
    name, code = _code_of(fn)
    history = list(getattr(found.history_manager, "input_hist_raw", []) or [])
    newest, how = _newest(history, name, found)
    if newest is None and step and step != name:  # a lambda, a wrapper: the exercise's own name
        said = _about(found, fn, step, code, history, *_newest(history, step, found))
        return said if said is not None or name is not None or code is None else _called(found, code, history)
    said = _about(found, fn, name, code, history, newest, how) if newest is not None else None
    if said is None and isinstance(fn, functools.partial) and step and step != name:
        newest, how = _newest(history, step, found)  # `normalise = partial(f)`: the cell binding the step's name
        return _about(found, fn, step, None, history, newest, how) if newest is not None else None
    return said if said is not None or name is not None or code is None else _called(found, code, history)


def _called(found, code, history) -> str | None:
    """For a lambda (``check('mean', lambda r: mean(tuple(r)))``): the sentence about the first function it
    calls by name whose newest defining cell failed, or None."""
    names = [i.argval for i in dis.get_instructions(code) if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")]
    for called in list(dict.fromkeys(names))[:20]:  # the names it reads as globals, not attributes (np.mean)
        bound = (getattr(found, "user_ns", None) or {}).get(called)
        if bound is None or not callable(bound):
            continue
        newest, how = _newest(history, called, found)
        _, inner = _code_of(bound)
        said = _about(found, bound, called, inner, history, newest, how) if newest is not None else None
        if said is not None:
            return said
    return None


def _about(found, fn, name, code, history, newest, how) -> str | None:
    """The sentence for ``fn`` (its ``code``), known by ``name``, against cell ``newest``, or None."""
    if newest is None:
        return None
    origin = _cell_of(code, history) if code is not None else None
    if origin is not None and not _same_text(code, history, origin, found):
        origin = None  # a cell magic's inner cell (%%capture) is filed under the next cell's number
    if origin is not None and origin >= newest:
        return None  # the newest cell's own, or a later cell's
    error = _ERRORS.get(newest) or _syntax(history[newest], found)
    what = "function" if inspect.isroutine(fn) or isinstance(fn, functools.partial) else "class"
    if error is not None:
        text, line = error
        where = f" at line {line}" if line else ""
        if origin is None:  # %%time, exec, a wrapper without functools.wraps, a library's: cannot tell whose
            return (
                f"Cell [{newest}], the newest that defines `{name}`, failed ({text}{where}), so the {what} checked "
                "may be older code: fix that cell and run it, then run this check again; nothing is judged until then."
            )
        if text.split(":")[0] in _UNPARSED:
            failed = "did not run"
        elif _now_from(found, name, history) == newest:
            return (
                f"The {what} checked is the one cell [{origin}] defined, not the `{name}` cell [{newest}] defines "
                f"now (which then raised {text}{where}): fix that cell, run it and check `{name}` itself; "
                "nothing is judged until then."
            )
        else:
            failed = "stopped before defining it"
        return (
            f"Cell [{newest}], the newest that defines `{name}`, {failed} ({text}{where}), so `{name}` is "
            f"still the {what} from cell [{origin}]: fix that cell and run it, then run this check again; "
            "nothing is judged until then."
        )
    if origin is None:
        return None  # it ran: nothing says the function is older
    if how == "block":
        return (
            f"Cell [{newest}] defines `{name}` only inside a block (an if, for, with or try), and the {what} "
            f"checked is still the one cell [{origin}] defined, not the one cell [{newest}] defines: that "
            f"block's definition did not run, or the name was bound again: run the cell defining the `{name}` "
            "you want checked, then this check again; nothing is judged until then."
        )
    return (
        f"The {what} checked is the one cell [{origin}] defined, not the one cell [{newest}] defines now (an "
        f"alias such as `old = {name}`, or a later assignment, still holds the older one): check `{name}` as "
        f"cell [{newest}] defines it; nothing is judged until then."
    )


def _now_from(found, name, history) -> int | None:
    """The cell the object now bound to ``name`` in the learner's namespace comes from, or None."""
    bound = (getattr(found, "user_ns", None) or {}).get(name)
    if bound is None:
        return None
    _, code = _code_of(bound)
    return _cell_of(code, history) if code is not None else None
