"""Is the function being checked the one on the page? IPython's own record of the cells says.

A learner writes ``def normalise(...)``, runs it, checks it, then edits the cell and makes a syntax
error: ``normalise`` is still the old function, and a verdict about it would be about code that is no
longer on the page. :func:`off_the_page` finds the newest cell run that defines the function's name
(IPython's input history, ``In``), and, when that cell did not run or did not define this function
object, gives the one sentence the checker says instead of a verdict: which cell, the error and its
line. It uses IPython's own mechanisms only (the history, the compiler's map from a code object's file
name to its cell, and a ``post_run_cell`` event that notes each cell's error), so it works wherever an
IPython kernel runs the cells: JupyterLab, Notebook 7, Colab, Voilà. Outside IPython, or for a function
no cell defines (a library's, a lambda), it says nothing and changes nothing. It never raises.
"""

from __future__ import annotations

import ast
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


def _defines(source: str, name: str, found=None) -> bool:
    """Whether a cell's source defines ``name`` (a def or class statement, at any depth; not in a string or
    a comment). A cell that does not parse is read line by line."""
    pattern = rf"^[ \t]*(?:async[ \t]+def|def|class)[ \t]+{re.escape(name)}\b"
    if re.search(pattern, source, flags=re.MULTILINE) is None:
        return False
    try:
        transformed = found.transform_cell(source) if found is not None else source
        tree = ast.parse(transformed)
    except Exception:  # noqa: BLE001 — a syntax error: the line is all there is to go by
        return True
    kinds = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    return any(isinstance(node, kinds) and node.name == name for node in ast.walk(tree))


def _code_of(fn):
    """(the name a cell would define it by, a code object of it), or None (no Python code of its own)."""
    try:
        target = fn if inspect.isclass(fn) or inspect.isroutine(fn) else type(fn)
        target = inspect.unwrap(target) if not inspect.isclass(target) else target
        if inspect.isclass(target):
            codes = [getattr(inspect.unwrap(v), "__code__", None) for v in vars(target).values() if callable(v)]
            codes = [c for c in codes if c is not None]
            return (target.__name__, codes[0]) if codes else None
        code = getattr(target, "__code__", None)
        name = getattr(target, "__name__", "")
        return (name, code) if code is not None and name.isidentifier() else None
    except Exception:  # noqa: BLE001
        return None


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


def off_the_page(fn) -> str | None:
    """The sentence to say instead of a verdict when ``fn`` is not the function the newest cell defining
    its name defines (that cell failed, or did not define it); None when it is, or when it cannot tell."""
    try:
        return _off_the_page(fn)
    except Exception:  # noqa: BLE001 — never in the learner's way
        return None


def _off_the_page(fn) -> str | None:
    found = shell()
    if found is None:
        return None
    watch(found)
    named = _code_of(fn)
    if named is None:
        return None
    name, code = named
    history = list(getattr(found.history_manager, "input_hist_raw", []) or [])
    newest = next((n for n in range(len(history) - 1, 0, -1) if _defines(history[n], name, found)), None)
    if newest is None:
        return None
    origin = _cell_of(code, history)
    if origin is None or origin >= newest:
        return None  # not a cell's function (a library's), or the newest cell's own
    error = _ERRORS.get(newest) or _syntax(history[newest], found)
    what = "class" if inspect.isclass(fn) or not inspect.isroutine(fn) else "function"
    if error is not None:
        text, line = error
        where = f" at line {line}" if line else ""
        failed = "did not run" if text.split(":")[0] in _UNPARSED else "stopped before defining it"
        return (
            f"Cell [{newest}], the newest that defines `{name}`, {failed} ({text}{where}), so `{name}` is "
            f"still the {what} from cell [{origin}]: fix that cell and run it, then run this check again; "
            "nothing is judged until then."
        )
    return (
        f"`{name}` is the {what} cell [{origin}] defined, not the one cell [{newest}] defines now: run cell "
        f"[{newest}] again, then this check; nothing is judged until then."
    )
