"""What a student costs the machine, read from /proc: memory and CPU of every process they own.

RSS counts every page a process maps, shared libraries included, so it is what one student
alone (or a container with its own copy of the libraries) needs; PSS divides each shared page
among the processes that share it, so its sum over a class is what the class really takes on one
server. CPU is user + system time, including children that have finished (git, for nbgitpuller).
Linux only; reading other users' processes needs root.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from classroom.hub.accounts import processes_of

PAGE = os.sysconf("SC_PAGE_SIZE")
TICK = os.sysconf("SC_CLK_TCK")


@dataclass(frozen=True)
class Usage:
    processes: int
    rss_mib: float
    pss_mib: float
    cpu_seconds: float


def _kib(text: str, field: str) -> int:
    for line in text.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    return 0


def usage(uid: int) -> Usage:
    rss = pss = ticks = count = 0
    for pid in processes_of(uid):
        try:
            status = Path(f"/proc/{pid}/status").read_text()
            rollup = Path(f"/proc/{pid}/smaps_rollup").read_text()
            stat = Path(f"/proc/{pid}/stat").read_text()
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            continue
        rss += _kib(status, "VmRSS")
        pss += _kib(rollup, "Pss")
        fields = stat.rsplit(")", 1)[1].split()  # after "(command)", which may hold spaces
        ticks += sum(int(value) for value in fields[11:15])  # utime stime cutime cstime
        count += 1
    return Usage(count, rss / 1024, pss / 1024, ticks / TICK)
