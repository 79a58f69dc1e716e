"""The machine a speed run ran on: its caches, its load, what others used, and glibc's allocator."""

from __future__ import annotations

import ctypes
import datetime
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

from helpers.lessons.speed import timing as speed

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
# glibc's mallopt parameters (malloc/malloc.h) and the values the bench sets: large outputs come from
# the heap (≤ 32 MiB, glibc's largest mmap threshold on 64 bits) and freed memory stays in the process,
# so no call of a timed case gets fresh pages from the operating system once its buffers exist.
M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3
ALLOCATOR_SETTINGS = {"mmap_threshold": 32 * 2**20, "trim_threshold": -1, "top_pad": 64 * 2**20}  # -1: never trim
PREFAULT_BLOCK = 16 * 2**20  # below the mmap threshold, so the blocks come from (and stay in) the heap


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_average() -> float | None:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def under_load(load: float | None, cores: int, limit: float) -> bool:
    return load is not None and load > limit * cores


def tune_allocator() -> dict:
    """Set glibc malloc's thresholds (mallopt) so freed output buffers are reused, never unmapped.

    PyTorch's CPU allocator does not cache: ``c10/core/impl/alloc_cpu.cpp`` calls posix_memalign and
    free. Reuse of a freed block is glibc malloc's; above its mmap threshold (dynamic, at most 32 MiB)
    every block is new memory, and every page of it a page fault. Returns what was set."""
    try:
        libc = ctypes.CDLL("libc.so.6")
        ok = all(
            libc.mallopt(param, value) == 1
            for param, value in (
                (M_MMAP_THRESHOLD, ALLOCATOR_SETTINGS["mmap_threshold"]),
                (M_TRIM_THRESHOLD, ALLOCATOR_SETTINGS["trim_threshold"]),
                (M_TOP_PAD, ALLOCATOR_SETTINGS["top_pad"]),
            )
        )
    except (OSError, AttributeError):
        ok = False
    return {"glibc_mallopt": ok, **(ALLOCATOR_SETTINGS if ok else {})}


def prefault_heap(torch, total_bytes: int) -> int:
    """Grow glibc's heap by ``total_bytes`` and write every page of it once, then free it all.

    With trimming off, the memory stays in the process: when a ring of outputs, or freed blocks split
    by small allocations, makes the heap grow, it grows into pages already written, so no timed call
    pays a page fault for it. Returns the bytes prefaulted."""
    blocks = [torch.ones(PREFAULT_BLOCK // 4) for _ in range(max(1, -(-total_bytes // PREFAULT_BLOCK)))]
    done = sum(b.numel() * 4 for b in blocks)
    del blocks
    return done


def cpu_counters() -> dict:
    """Busy and steal seconds of the whole machine (/proc/stat), this process's CPU seconds, the clock."""
    busy = steal = None
    try:
        fields = [int(v) for v in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
        user, nice, system, _idle, _iowait, irq, softirq = fields[:7]
        busy = (user + nice + system + irq + softirq) / CLOCK_TICKS
        steal = (fields[7] if len(fields) > 7 else 0) / CLOCK_TICKS
    except (OSError, ValueError, IndexError):
        pass
    own = resource.getrusage(resource.RUSAGE_SELF)
    return {"busy": busy, "steal": steal, "self": own.ru_utime + own.ru_stime, "wall": time.perf_counter()}


def others(before: dict, after: dict) -> tuple[float, float, float]:
    """(wall seconds, cores others used, cores the hypervisor stole) between two readings."""
    wall = after["wall"] - before["wall"]
    if before["busy"] is None or after["busy"] is None or wall <= 0:
        return wall, 0.0, 0.0
    other = (after["busy"] - before["busy"]) - (after["self"] - before["self"])
    # /proc/stat counts in clock ticks, so over a short case this is ± a tick: not clipped at 0, so that
    # the noise cancels when by_threads adds the cases up
    return wall, other / wall, (after["steal"] - before["steal"]) / wall


def machine_info() -> dict:
    cpu = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    caches = {}
    for folder in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            if (folder / "type").read_text().strip() != "Instruction":
                caches[f"L{(folder / 'level').read_text().strip()}"] = (folder / "size").read_text().strip()
        except OSError:
            pass
    import torch

    return {
        "cpu": cpu,
        "caches": caches,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def last_level_cache(info: dict) -> int:
    sizes = [speed.cache_bytes(size) for size in info["caches"].values()]
    return max(sizes) if sizes else 32 * 2**20
