"""Running a whole fingerprint in a forked copy of the process, so that its time limit holds for any call.

A signal or a helper thread can stop a Python loop, never one long C call (a huge numpy or torch
operation, a C library that sleeps). A child process can always be stopped: :func:`run_isolated`
forks, runs ``work`` in the child, and kills the child at the deadline. Fork copies the learner's
notebook as it is, lambdas and closures included (nothing is pickled on the way in; only the result,
plain data, comes back), and whatever the probes do to ``fn`` (a module's state, a counter) stays
in the copy.

Where there is no fork (Windows), or fork is unsafe (macOS: its system libraries may hold locks taken by
other threads, and a forked copy that does not exec a new program can hang or crash; Python 3.12 warns
and uses spawn there by default), :data:`AVAILABLE` is False and the caller runs in-process with a
limit that stops Python code only. In the child, torch (if loaded) is set to one thread: OpenMP's
thread pool does not survive a fork, and the probes' tiny matrices do not need it. Introduced in
notebook 13 (used by :func:`helpers.forensics.fingerprints.fingerprint`).
"""

from __future__ import annotations

import io
import os
import pickle
import select
import signal
import struct
import sys
import time
import warnings

AVAILABLE = hasattr(os, "fork") and sys.platform not in ("emscripten", "darwin")  # no fork, or fork unsafe
_HEADER = struct.Struct("<Q")


class Outcome:
    """What came back from the child: ``value`` (finished), else ``timed_out`` or ``crashed`` (a sentence)."""

    def __init__(self, value=None, timed_out: bool = False, crashed: str | None = None, last: str | None = None):
        self.value, self.timed_out, self.crashed, self.last = value, timed_out, crashed, last


def _send(fd: int, message) -> None:
    data = pickle.dumps(message)
    data = _HEADER.pack(len(data)) + data
    while data:
        data = data[os.write(fd, data) :]


def _child(work, fd: int) -> None:
    try:
        sys.stdout = sys.stderr = io.StringIO()  # the learner's prints stay in the copy (not in the kernel's streams)
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(1)  # OpenMP's pool did not survive the fork
        try:
            message = ("done", work(lambda text: _send(fd, ("calling", text))))
        except BaseException as problem:  # noqa: BLE001 (sent back as words)
            message = ("failed", f"{type(problem).__name__}: {problem}")
        try:
            _send(fd, message)
        except Exception as problem:  # noqa: BLE001 (a result that cannot be pickled)
            _send(fd, ("failed", f"its result could not be sent back ({type(problem).__name__})"))
    finally:
        os._exit(0)  # never run the parent's clean-up (Jupyter's sockets, atexit) in the copy


def run_isolated(work, time_limit: float) -> Outcome:
    """``work(progress)`` in a forked child, killed after ``time_limit`` s. ``progress(text)`` names the
    call under way, so that a timeout can say which one it was."""
    read, write = os.pipe()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # Python 3.12+: "fork() of a multi-threaded process"
        pid = os.fork()
    if pid == 0:  # pragma: no cover (the child: covered by what it sends back)
        os.close(read)
        _child(work, write)
    os.close(write)
    deadline = time.monotonic() + time_limit
    buffer, last, outcome = b"", None, None
    try:
        while outcome is None:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not select.select([read], [], [], remaining)[0]:
                outcome = Outcome(timed_out=True, last=last)
                break
            chunk = os.read(read, 1 << 16)
            if not chunk:  # the child ended without a result
                break
            buffer += chunk
            while len(buffer) >= _HEADER.size:
                (size,) = _HEADER.unpack_from(buffer)
                if len(buffer) < _HEADER.size + size:
                    break
                kind, content = pickle.loads(buffer[_HEADER.size : _HEADER.size + size])
                buffer = buffer[_HEADER.size + size :]
                if kind == "calling":
                    last = content
                elif kind == "done":
                    outcome = Outcome(value=content, last=last)
                else:
                    outcome = Outcome(crashed=f"fingerprint itself failed: {content}", last=last)
    finally:
        os.close(read)
        try:
            os.kill(pid, signal.SIGKILL)  # at the deadline, or already finished: it has nothing left to do
        except ProcessLookupError:
            pass
        _, status = os.waitpid(pid, 0)
    if outcome is None:
        how = f"signal {os.WTERMSIG(status)}" if os.WIFSIGNALED(status) else f"exit code {os.WEXITSTATUS(status)}"
        outcome = Outcome(crashed=f"the process it was probed in ended abruptly ({how})", last=last)
    return outcome
