"""The grading process: run one answer cell alone, then judge its function with the checker.

Started by :mod:`classroom.grading.judge` as ``python -I runner.py`` in an empty temporary folder,
with a time and memory limit. It reads one JSON object on stdin (``root``: the folder holding
``helpers``; ``step``; ``name``: the function to judge; ``code``: the answer cell's source;
``forbidden``: folders it must not read, such as ``lecturer/``) and writes one JSON line after the
marker :data:`MARK` and the job's random ``seal`` on stdout: the checker's verdict and the sentences saying what was ignored.

Nothing here imports the rest of ``classroom`` (this is a standalone script). For notebook 08's module,
torch is imported and a module of the grader's own is checked once before the hook, so that the native
libraries torch loads are loaded by the grader; torch's namespaces and its ``Tensor``, ``nn.Module`` and
``nn.Parameter`` classes are watched like numpy's. What the student's
code cannot do, enforced by an audit hook installed before it runs: write, delete or rename files,
start processes, open network connections, load native libraries, read the forbidden folders or
import ``lecturer``, use ctypes or ``gc``, or list every thread's frames. The student's cell and the
check run in a worker thread; the main thread holds the verdict's seal and runs none of the
student's code, so ``sys._getframe`` (which the standard library needs, and which stays allowed)
walks only up the worker's own stack, where no seal is. What it can do but is undone before the checker runs: replace or patch
``helpers``, ``numpy`` or builtins (their namespaces are snapshotted before the cell and put back
after it; a function that changes them while it is being judged earns nothing). Its prints and
warnings are kept from the verdict: a warning never costs a point.
"""

from __future__ import annotations

import ast
import builtins
import io
import json
import linecache
import os
import resource
import sys
import threading
import time
import warnings

MARK = "\x1egrading-verdict\x1e"
CELL_FILE = "<answer cell>"
WATCHED = ("numpy", "helpers", "builtins", "torch")  # torch: loaded only for the "module" step
TORCH_CLASSES = ("Tensor", "nn.Module", "nn.Parameter")  # Python classes whose methods a cell could replace
WRITE_EVENTS = {
    "os.remove": "deleted a file",
    "os.rename": "renamed a file",
    "os.rmdir": "deleted a folder",
    "os.mkdir": "made a folder",
    "os.chmod": "changed a file's permissions",
    "os.chown": "changed a file's owner",
    "os.link": "linked a file",
    "os.symlink": "linked a file",
    "os.truncate": "truncated a file",
    "os.utime": "changed a file's times",
    "shutil.rmtree": "deleted a folder",
    "shutil.copyfile": "copied a file",
    "subprocess.Popen": "started a process",
    "os.system": "started a process",
    "os.exec": "started a process",
    "os.posix_spawn": "started a process",
    "os.spawn": "started a process",
    "os.fork": "started a process",
    "os.forkpty": "started a process",
    "pty.spawn": "started a process",
    "socket.connect": "opened a network connection",
    "socket.bind": "opened a network connection",
    "ctypes.dlopen": "loaded a native library",
    "os.kill": "signalled a process",
    "gc.get_objects": "searched the grader's memory",
    "gc.get_referrers": "searched the grader's memory",
    "gc.get_referents": "searched the grader's memory",
}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


class CellTimeout(BaseException):
    """Raised in the main thread when the answer cell's own code (not the judged function) runs too long."""


def _guard(forbidden: list[str], refused: list[str], main_thread: int):
    """The audit hook: refuses writes, processes, connections and reads of ``forbidden``; notes each.
    Only the main thread (the watchdog, which runs no student code) is never refused: no flag that
    the student's code could find and turn off."""
    forbidden = [os.path.realpath(path) for path in forbidden]

    def inside(path) -> bool:
        if not isinstance(path, (str, bytes, os.PathLike)):
            return False
        text = os.fsdecode(path)
        full = os.path.realpath(text)
        return any(full == top or full.startswith(top + os.sep) for top in forbidden)

    def refuse(what: str):
        refused.append(what)
        raise PermissionError(f"Not allowed while grading: {what}.")

    def hook(event, args):
        if threading.get_ident() == main_thread:
            return
        if event == "open":
            path, mode, flags = args
            if inside(path):
                refuse("read the solutions or the course's files")
            writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                isinstance(flags, int) and flags & WRITE_FLAGS
            )
            if writing and path is not None:
                refuse("wrote a file")
        elif event == "import" and args and str(args[0]).split(".")[0] == "lecturer":
            refuse("read the solutions")
        elif event in ("os.listdir", "os.scandir", "glob.glob") and args and inside(args[0]):
            refuse("read the solutions or the course's files")
        elif event in WRITE_EVENTS:
            refuse(WRITE_EVENTS[event])
        elif event.startswith("ctypes."):
            refuse("reached into memory with ctypes")
        elif event == "sys._current_frames":  # the main thread's frame, which holds the seal
            refuse("searched the grader's memory")

    return hook


def _watched_modules() -> dict:
    return {
        name: module
        for name, module in list(sys.modules.items())
        if module is not None and name.split(".")[0] in WATCHED
    }


def _watched_classes() -> dict:
    """torch's Python classes (a cell could replace ``Tensor.mean``), when torch is loaded."""
    torch = sys.modules.get("torch")
    if torch is None:
        return {}
    found = {}
    for dotted in TORCH_CLASSES:
        owner = torch
        for part in dotted.split("."):
            owner = getattr(owner, part)
        found[f"torch.{dotted}"] = owner
    return found


def _snapshot() -> tuple[dict, dict, dict]:
    modules = _watched_modules()
    classes = {name: (cls, dict(vars(cls))) for name, cls in _watched_classes().items()}
    return modules, {name: dict(vars(module)) for name, module in modules.items()}, classes


def _restore_classes(classes: dict) -> list[str]:
    changed = []
    for name, (cls, before) in classes.items():
        space = dict(vars(cls))
        for key in set(space) | set(before):
            if key not in before:
                delattr(cls, key)
            elif key not in space or space[key] is not before[key]:
                setattr(cls, key, before[key])
            else:
                continue
            changed.append(f"{name}.{key}")
    return changed


def _restore(snapshot) -> list[str]:
    """Put every watched module and its namespace back as snapshotted; the names of those changed."""
    modules, spaces, classes = snapshot
    changed = _restore_classes(classes)
    for name, module in modules.items():
        if sys.modules.get(name) is not module:
            sys.modules[name] = module
            changed.append(name)
        space = vars(module)
        before = spaces[name]
        for key in set(space) | set(before):
            if key in ("__warningregistry__",):
                continue
            if key not in before:
                value = space[key]
                if isinstance(value, type(sys)) and sys.modules.get(f"{name}.{key}") is value:
                    continue  # a submodule imported since: how Python's imports work, not a change
                del space[key]
            elif key not in space or space[key] is not before[key]:
                space[key] = before[key]
            else:
                continue
            changed.append(f"{name}.{key}")
    return changed


def _patched_words(changed: list[str]) -> list[str]:
    words = []
    checker = [n for n in changed if n.startswith("helpers")]
    numpy = [n for n in changed if n.startswith("numpy")]
    builtin = [n for n in changed if n.startswith("builtins")]
    torch = [n for n in changed if n.startswith("torch")]
    if checker:
        words.append(f"replaced part of the checker ({', '.join(sorted(checker)[:3])})")
    if numpy:
        words.append(f"patched numpy ({', '.join(sorted(numpy)[:3])})")
    if builtin:
        words.append(f"patched Python's builtins ({', '.join(sorted(builtin)[:3])})")
    if torch:
        words.append(f"patched torch ({', '.join(sorted(torch)[:3])})")
    return words


def _run_cell(code: str, limit: float, namespace: dict, clock: dict) -> list[str]:
    """Execute the cell one top-level statement at a time, within ``limit`` seconds in all: a statement
    that raises or runs out of time is skipped and the rest still run (so a refused write before the
    ``def`` costs the function nothing). Sentences on what failed (empty: nothing). ``clock`` tells
    the main thread's watchdog until when the cell's own code may run."""
    linecache.cache[CELL_FILE] = (len(code), None, code.splitlines(True), CELL_FILE)
    try:
        tree = ast.parse(code, CELL_FILE)
    except SyntaxError as error:
        return [f"your cell has a syntax error on its line {error.lineno}: {error.msg}"]
    deadline = time.monotonic() + limit
    failed = []
    for statement in tree.body:
        if deadline - time.monotonic() <= 0:
            failed.append(f"your cell's own code did not finish within {limit:g} s (from its line {statement.lineno})")
            break
        unit = compile(ast.Module([statement], type_ignores=[]), CELL_FILE, "exec")
        clock["until"] = deadline
        try:
            exec(unit, namespace)  # noqa: S102 — the student's cell, guarded
        except CellTimeout:
            failed.append(f"your cell's own code did not finish within {limit:g} s (its line {statement.lineno})")
            break
        except BaseException as error:  # noqa: BLE001 — anything the student's code raises
            failed.append(f"your cell's line {statement.lineno} raised {type(error).__name__}: {str(error)[:160]}")
        finally:
            clock["until"] = None
    return failed


def _grade(job: dict, check, refused: list, clock: dict, box: dict) -> None:
    """The worker thread: the cell, then the check. The main thread, which holds the seal, never runs
    the student's code, so no frame the student's code can walk up to holds it."""
    quiet = io.StringIO()
    snapshot = _snapshot()
    namespace = {"__name__": "__answer__", "__builtins__": builtins}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sys.stdout, sys.stderr = quiet, quiet
        failed = _run_cell(job["code"], job.get("cell_limit", 10.0), namespace, clock)
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
        patched = _patched_words(_restore(snapshot))
        fn = namespace.get(job["name"])
        verdict = None
        during: list[str] = []
        if fn is not None:
            sys.stdout, sys.stderr = quiet, quiet
            verdict = check(job["step"], fn)
            sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
            during = sorted(_restore(snapshot))
            if during:
                verdict = None
    report = {
        "defined": fn is not None,
        "cell_failed": failed,
        "refused": list(dict.fromkeys(refused)),
        "patched": patched,
        "changed_while_judged": during[:3],
        "warnings": len(caught),
        "printed": len(quiet.getvalue()),
        "peak_kib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    if verdict is not None:
        report.update(
            passed=bool(verdict.passed),
            mistake=verdict.mistake,
            diagnosis=verdict.diagnosis,
            text=str(verdict),
        )
    box["report"] = json.dumps(report)


def _warm_up_module():
    """A torch LayerNorm module of tensor operations, checked once before the hook so that whatever torch
    loads on first use (forward, backward, float64) is loaded by the grader, not by the student's code."""
    import torch

    class Warm(torch.nn.Module):
        def __init__(self, n_features, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.weight = torch.nn.Parameter(torch.ones(n_features))
            self.bias = torch.nn.Parameter(torch.zeros(n_features))

        def forward(self, x):
            centred = x - x.mean(-1, keepdim=True)
            return centred / torch.sqrt((centred**2).mean(-1, keepdim=True) + self.eps) * self.weight + self.bias

    return Warm


def _mapped_bytes() -> int | None:
    """This process's address space now (VmSize), or None where /proc does not say."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _lower_memory_ceiling(headroom: int) -> None:
    """RLIMIT_AS (soft and hard, so the cell cannot raise it again) at what the grader has mapped plus
    ``headroom``: the student's code gets the same room whichever torch build the grader itself loaded."""
    mapped = _mapped_bytes()
    ceiling = headroom if mapped is None else mapped + headroom
    resource.setrlimit(resource.RLIMIT_AS, (ceiling, ceiling))


def main() -> None:
    job = json.loads(sys.stdin.read())
    seal = job.pop("seal", "")  # the judge reads only a verdict that carries it; only this frame holds it
    result_out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    sys.path.insert(0, job["root"])
    import numpy  # noqa: F401 — loaded before the cell, so the snapshot holds it

    import helpers.exercises  # noqa: F401 — the alias students use
    from helpers.checking.exercises import check

    check("mean", lambda row: sum(row) / len(row))  # load what the checker imports on first use
    if job["step"] == "module":  # torch loads native libraries: before the audit hook, never by the cell
        try:
            warm = check("module", _warm_up_module())  # and whatever torch and the module check load on first use
        except ImportError as error:
            warm = error
        if not getattr(warm, "passed", False):  # the grader's fault, not the student's: said so, nothing judged
            why = f"{type(warm).__name__}: {warm}" if isinstance(warm, Exception) else str(warm)
            result_out.write(MARK + seal + json.dumps({"grader_problem": why[:300]}) + "\n")
            result_out.flush()
            os._exit(0)
    _lower_memory_ceiling(int(job["memory"]))
    import ctypes
    import threading

    stop = ctypes.pythonapi.PyThreadState_SetAsyncExc  # looked up now: the watchdog and the checker use it
    refused: list[str] = []
    sys.addaudithook(_guard(job.get("forbidden", []), refused, threading.get_ident()))
    clock: dict = {"until": None}
    box: dict = {}
    worker = threading.Thread(target=_grade, args=(job, check, refused, clock, box), daemon=True)
    worker.start()
    stopped = False
    while worker.is_alive():  # the watchdog: the cell's own code past its time gets CellTimeout
        worker.join(0.05)
        until = clock["until"]
        if until is not None and time.monotonic() > until and not stopped:
            stop(ctypes.c_ulong(worker.ident), ctypes.py_object(CellTimeout))
            stopped = True
        elif until is None:
            stopped = False
    result_out.write(MARK + seal + box.get("report", "{}") + "\n")
    result_out.flush()
    os._exit(0)  # no atexit handler or thread of the student's runs after the verdict


if __name__ == "__main__":
    main()
