"""A class on the hub, measured: N students log in at once, start their servers, pull the series,
run notebook 02's exercise (a wrong and a right function) and log out; some also run the torch
notebook 08. Everything is real (JupyterHub, the proxy, nbgitpuller, Unix users, kernels).

    sudo .venv/bin/python benchmarks/bench_class.py                  # 60 students, 10 with torch
    sudo .venv/bin/python benchmarks/bench_class.py --students 120 --torch 20 --save

Prints spawn time (median, p95, max), memory per student from their processes (RSS and PSS, with
notebook 02 and with the torch notebook 08), CPU per student (server start, per check), the
hub's own CPU, the machine's peak memory and CPU use, and failures (which must be 0). ``--save``
writes data/class_results.json, from which classroom/sizing.py sizes classroom/values.yaml and
the sizing table in classroom/README.md. Traffic stays on 127.0.0.1; every wait is bounded.
Needs root (students are Unix users); without it, it says so and does nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import datetime
import json
import os
import pwd
import shutil
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from classroom.hub import accounts  # noqa: E402
from classroom.sim import lesson  # noqa: E402
from classroom.sim.classhub import PASSWORD, class_hub, names  # noqa: E402
from classroom.sim.processes import TICK  # noqa: E402

RESULTS = ROOT / "data" / "class_results.json"
HUB_LOG = Path("/tmp/layernorm-bench-hub.log")


class Machine(threading.Thread):
    """Samples the whole machine every half second: CPU busy share and memory in use."""

    def __init__(self):
        super().__init__(daemon=True)
        self.stop = threading.Event()
        self.peak_used_mib = 0.0
        self.busy = []

    @staticmethod
    def cpu() -> tuple[int, int]:
        fields = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
        idle = fields[3] + fields[4]
        return sum(fields) - idle, sum(fields)

    @staticmethod
    def used_mib() -> float:
        info = {line.split(":")[0]: int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines()}
        return (info["MemTotal"] - info["MemAvailable"]) / 1024

    def run(self):
        last = self.cpu()
        while not self.stop.wait(0.5):
            now = self.cpu()
            if now[1] > last[1]:
                self.busy.append((now[0] - last[0]) / (now[1] - last[1]))
            last = now
            self.peak_used_mib = max(self.peak_used_mib, self.used_mib())


def process_tree_cpu(pid: int, class_gid: int) -> float:
    """CPU seconds of ``pid`` and every live descendant (the hub, its proxy and its services), their own
    only: the students' servers are the hub's children too, and their time must not count twice."""
    students = {entry.pw_uid for entry in pwd.getpwall() if entry.pw_gid == class_gid}
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid in students:
                    continue
                parent = int(Path(f"/proc/{entry.name}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    total, todo = 0, [pid]
    while todo:
        current = todo.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += sum(int(v) for v in fields[11:13])  # utime, stime: not the students' servers it reaped
        except (FileNotFoundError, ProcessLookupError):
            pass
        todo += children.get(current, [])
    return total / TICK


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--students", type=int, default=60)
    parser.add_argument("--torch", type=int, default=10, help="how many of them also run notebook 08")
    parser.add_argument("--save", action="store_true", help=f"write {RESULTS.relative_to(ROOT)}")
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("bench_class: skipped: the class hub needs root (students are Unix users); run it with sudo.")
        return 0
    if not 1 <= args.torch <= args.students:
        parser.error("--torch must be between 1 and --students")
    students = names("bench-", args.students)
    load_before = os.getloadavg()[0]
    with class_hub(students, ["bench-teach"]) as hub:
        hub_cpu_before = process_tree_cpu(hub.process.pid, accounts.class_gid())
        machine = Machine()
        idle_used = machine.used_mib()
        machine.start()
        start = time.monotonic()
        results = asyncio.run(
            lesson.run_class(hub.url, students, PASSWORD, hub.settings.series_repo, set(students[: args.torch]))
        )
        wall = time.monotonic() - start
        machine.stop.set()
        machine.join()
        hub_cpu = process_tree_cpu(hub.process.pid, accounts.class_gid()) - hub_cpu_before
        shutil.copyfile(hub.log_path, HUB_LOG)  # kept for a look after the run
        left_running = [name for name in students if lesson.usage(pwd.getpwnam(name).pw_uid).processes]
    summary = lesson.summary(results, wall)
    busy = sorted(machine.busy)
    summary.update(
        {
            "torch_students": args.torch,
            "hub_cpu_seconds": round(hub_cpu, 2),
            "students_with_processes_left": len(left_running),
            "machine": {
                "cores": os.cpu_count(),
                "memory_gib": round(os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 2**30, 1),
                "load_before": round(load_before, 2),
                "peak_extra_memory_mib": round(machine.peak_used_mib - idle_used),
                "cpu_busy_median": round(busy[len(busy) // 2], 2) if busy else None,
            },
            "date": datetime.date.today().isoformat(),
        }
    )
    report(summary)
    if summary["failures"]:
        print(f"FAILED: {summary['failures']} of {summary['students']} students did not finish: {summary['errors']}")
        return 1
    if args.save:
        RESULTS.write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
        print(f"saved {RESULTS.relative_to(ROOT)}")
    return 0


def report(s: dict) -> None:
    m = s["machine"]
    print(
        f"class of {s['students']} ({s['torch_students']} with torch) on {m['cores']} cores, "
        f"{m['memory_gib']} GiB, load before {m['load_before']}: {s['wall_seconds']} s in all, "
        f"{s['failures']} failures"
    )
    for key in ("login_seconds", "spawn_seconds", "pull_seconds", "check_seconds"):
        v = s[key]
        print(
            f"  {key.replace('_seconds', ''):<6} median {v['median']:7.2f} s   p95 {v['p95']:7.2f} s   max {v['max']:7.2f} s"
        )
    for stage, label in (("numpy", "server + notebook 02 kernel"), ("torch", "server + notebook 08 kernel (torch)")):
        if stage in s["memory_mib"]:
            v = s["memory_mib"][stage]
            print(
                f"  memory, {label}: RSS median {v['rss']['median']:.0f} MiB (max {v['rss']['max']:.0f}), "
                f"PSS median {v['pss']['median']:.0f} MiB (max {v['pss']['max']:.0f})"
            )
    numpy, torch = s["memory_mib"].get("numpy"), s["memory_mib"].get("torch")
    if numpy and torch:
        print(
            f"  torch / numpy: {torch['rss']['median'] / numpy['rss']['median']:.2f}× RSS, "
            f"{torch['pss']['median'] / numpy['pss']['median']:.2f}× PSS"
        )
    print(
        f"  CPU per student: {s['cpu_seconds_per_student']['median']:.2f} s (server start "
        f"{s['cpu_seconds_server_start']['median']:.2f} s, one check {s['cpu_seconds_per_check']['median']:.3f} s); "
        f"hub, proxy and culler {s['hub_cpu_seconds']:.1f} s in all "
        f"({s['hub_cpu_seconds'] / s['students']:.2f} s per student)"
    )
    print(
        f"  machine: peak memory {m['peak_extra_memory_mib']} MiB above idle "
        f"({m['peak_extra_memory_mib'] / s['students']:.0f} MiB per student), CPU busy median {m['cpu_busy_median']}"
    )


if __name__ == "__main__":
    sys.exit(main())
