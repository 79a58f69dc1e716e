"""Stopping a learner's function that runs past its time limit in a helper thread (no maths here).

Used by helpers.checking.exercises (the checker) and helpers.forensics.call (fingerprint off the main thread).
On the main thread a SIGALRM stops a loop; in a helper thread only an exception raised *inside* that
thread can, which CPython offers as PyThreadState_SetAsyncExc. It takes effect at the thread's next
bytecode, so a Python loop stops within microseconds; code stuck inside one long C call (a huge numpy
operation) cannot be interrupted, and then the thread is left to finish on its own.
"""

from __future__ import annotations

import ctypes
import threading


class Stopped(BaseException):
    """Raised inside a helper thread to stop a function that ran past its time limit. A BaseException,
    like KeyboardInterrupt, so that no ``except Exception`` on the way (the learner's, or fingerprint's
    "it refused a numpy array: try a tensor") catches it and runs the endless loop again."""


def stop_thread(thread: threading.Thread, wait: float = 0.5) -> bool:
    """Raise :class:`Stopped` inside ``thread`` and wait up to ``wait`` s; True if it has ended."""
    if not thread.is_alive() or thread.ident is None:
        return True
    changed = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), ctypes.py_object(Stopped))
    if changed > 1:  # never expected: undo, as CPython's documentation asks
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread.ident), None)
        return False
    thread.join(wait)
    return not thread.is_alive()
