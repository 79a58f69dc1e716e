"""The processes below a process, read from /proc (Linux; elsewhere none), and ending them.

Used by Hub.stop (what a killed hub leaves running) and by the tests' own servers. Standard library only.
"""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def _state_and_parent(pid: str | int) -> tuple[str, int] | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()  # after "(command)"
    except (OSError, IndexError):
        return None
    return fields[0], int(fields[1])


def alive(pid: int) -> bool:
    """Running, not a zombie that has exited already."""
    found = _state_and_parent(pid)
    return found is not None and found[0] != "Z"


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        found = _state_and_parent(entry.name)
        if found is not None and found[0] != "Z":
            children.setdefault(found[1], []).append(int(entry.name))
    below, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in below:
                below.add(child)
                todo.append(child)
    return below


def end_processes(pids: list[int], grace: float = 5.0) -> list[int]:
    """SIGTERM, then SIGKILL for any still running after ``grace`` seconds; returns ``pids``."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        for pid in pids:
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        deadline = time.monotonic() + grace
        while any(alive(pid) for pid in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
    return pids
