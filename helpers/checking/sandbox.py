"""Running someone else's function with a time limit: the one place that does (no maths here).

Used by helpers.checking.results (every call the "Your turn" checker and the module check make of the
learner's code) and helpers.forensics.call (notebook 13's Caller). :func:`run` calls the function in a
daemon helper thread, waits up to the time limit, and hands back a :class:`Run`: what it returned, what
it raised, or that it ran past the limit. It never raises because of the function, and it leaves the
function's prints alone: they go wherever the caller's prints go (the notebook cell), as a learner's
debugging prints should. Each caller words the outcome itself (:func:`describe` gives it an exception's
type and message).

A thread, not a SIGALRM, because a signal reaches the main thread only, and the checker and the
forensics also run off it (a widget's callback, a test's worker thread). A helper thread cannot be
killed; only an exception raised *inside* it can stop it, which CPython offers as
PyThreadState_SetAsyncExc. It takes effect at the thread's next bytecode, so a Python loop stops within
microseconds; code stuck inside one long C call (a huge numpy operation, a sleep) cannot be interrupted,
and neither can a loop that catches BaseException itself: then the thread is left to finish on its own,
and the Run says so. (helpers/forensics/isolate.py forks a child process where even those must stop.)
"""

from __future__ import annotations

import ctypes
import threading
from dataclasses import dataclass

STOP_WAIT = 0.5  # seconds a stopped function has to end before it is reported as left running


class Stopped(BaseException):
    """Raised inside a helper thread to stop a function that ran past its time limit. A BaseException,
    like KeyboardInterrupt, so that no ``except Exception`` on the way (the learner's, or fingerprint's
    "it refused a numpy array: try a tensor") catches it and runs the endless loop again."""


@dataclass(frozen=True)
class Run:
    """How one call went: it returned ``value``, or raised ``error`` (any exception, never :class:`Stopped`),
    or was still running at the time limit (``timed_out``, with neither). ``left_running``: timed out and
    could not be stopped, so it is still running in the background."""

    value: object = None
    error: BaseException | None = None
    timed_out: bool = False
    left_running: bool = False


def run(fn, *args, time_limit: float | None, name: str = "helpers.checking.sandbox run") -> Run:
    """``fn(*args)`` in a daemon thread called ``name``, stopped after ``time_limit`` seconds; never raises
    because of ``fn``. ``time_limit=None``: no limit, called in this thread (a forked child that is
    killed at its own deadline needs no other)."""
    if time_limit is None:
        return _call(fn, args)
    box: dict = {}

    def target():
        try:
            box["run"] = _call(fn, args)
        except Stopped:  # arrived after fn ended, just as its time was up: no traceback on the learner's stderr
            pass

    thread = threading.Thread(target=target, daemon=True, name=name)
    thread.start()
    thread.join(time_limit)
    if not thread.is_alive():
        return box["run"]
    return Run(timed_out=True, left_running=not stop_thread(thread))


def _call(fn, args) -> Run:
    # Anything: foreign code may raise SystemExit or KeyboardInterrupt. Stopped lands here too, after run()
    # has reported the call as timed out; it reads no Run of it, so Run.error is never Stopped.
    try:
        return Run(value=fn(*args))
    except BaseException as error:  # noqa: BLE001
        return Run(error=error)


def describe(error: BaseException, first_line: bool = False) -> str:
    """``"ZeroDivisionError: division by zero"``; ``first_line``: only the message's first line, at most
    160 characters (a long traceback-like message kept to one line of a table)."""
    text = str(error)
    if first_line:
        lines = text.strip().splitlines()
        text = lines[0] if lines else ""
        text = text if len(text) <= 160 else text[:157] + "..."
    name = type(error).__name__
    if isinstance(error, MemoryError) and not text.strip():
        return f"{name}: it asked for more memory than this process may use"
    return f"{name}: {text}" if text.strip() else f"{name} (with no message)"


def stop_thread(thread: threading.Thread) -> bool:
    """Raise :class:`Stopped` inside ``thread`` and wait up to :data:`STOP_WAIT` s; True if it has ended."""
    if not thread.is_alive() or thread.ident is None:
        return True
    changed = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(Stopped))
    if changed > 1:  # never expected: undo, as CPython's documentation asks
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), None)
        return False
    thread.join(STOP_WAIT)
    return not thread.is_alive()
