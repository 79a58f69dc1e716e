"""The processes below a process, read from /proc (Linux; elsewhere none), and ending them.

Used by Hub.stop (what a killed hub leaves running) and by the tests' own servers. Standard library only.

A process is known by its id *and* its start time (:func:`snapshot`): between reading a hub's processes and
ending what is left of them, seconds or minutes can pass, and on a busy machine an id is given to a new process
within that time (Linux hands out at most 32,768 by default). Ending a bare id once killed another test's nbgrader
(exit −15, in a busy run); an id whose start time has changed is someone else's and is left alone.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def _stat(pid: str | int) -> tuple[str, int, int] | None:
    """(state, parent id, start time in clock ticks since boot) of ``pid``; None when there is no such process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()  # after "(command)"
        return fields[0], int(fields[1]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def started(pid: int) -> int | None:
    """When ``pid`` started (clock ticks since boot): with the id, what tells one process from a later one."""
    found = _stat(pid)
    return None if found is None else found[2]


def snapshot(pids) -> dict[int, int]:
    """Each of ``pids`` that runs now, with its start time: the processes themselves, not their ids."""
    found = {pid: started(pid) for pid in pids}
    return {pid: start for pid, start in found.items() if start is not None}


def alive(pid: int, start: int | None = None) -> bool:
    """Running, not a zombie that has exited already; and, given its ``start`` time, the same process."""
    found = _stat(pid)
    return found is not None and found[0] != "Z" and (start is None or found[2] == start)


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        found = _stat(entry.name)
        if found is not None and found[0] != "Z":
            children.setdefault(found[1], []).append(int(entry.name))
    below, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in below:
                below.add(child)
                todo.append(child)
    return below


def end_processes(processes: dict[int, int], grace: float = 5.0) -> list[int]:
    """SIGTERM, then SIGKILL for any still running after ``grace`` seconds, to each of ``processes`` (id: start
    time, from :func:`snapshot`) that is still that process; returns the ids of those it signalled."""
    signalled = set()
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid, start in processes.items():
            if not alive(pid, start):  # ended, or its id is another process's now
                continue
            try:
                os.kill(pid, sig)
                signalled.add(pid)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + grace
        while any(alive(pid, start) for pid, start in processes.items()) and time.monotonic() < deadline:
            time.sleep(0.1)
    return sorted(signalled)
