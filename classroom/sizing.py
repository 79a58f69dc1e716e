"""Size the class's JupyterHub from measurement: data/class_results.json -> classroom/values.yaml.

The hub simulation writes data/class_results.json (MiB and seconds). From it this module derives the
per-student numbers that classroom/values.yaml gives Kubernetes, and how many students fit on one server:

    singleuser.memory.guarantee = numpy RSS p95, rounded up to a multiple of 64 MiB
    singleuser.memory.limit     = torch RSS max x 1.5, rounded up to a multiple of 128 MiB
    singleuser.cpu.guarantee    = CPU seconds per student p95 / 60 s, rounded up to 0.05 core

"numpy" is a student's server plus a kernel that ran notebook 02; "torch" adds a kernel that ran notebook 08.
The guarantee is what the scheduler reserves, so a typical student (numpy notebooks) always has it; the
limit is where the kernel is OOM-killed, so it sits well above the largest torch student. A value that is
already a multiple stays as it is. Memory is written as "<n>M" (JupyterHub reads M as MiB).

    python3 classroom/sizing.py            # print the numbers
    python3 classroom/sizing.py --write    # rewrite the tagged lines of classroom/values.yaml
    python3 classroom/sizing.py --check    # exit 1 if classroom/values.yaml is stale

Standard library only. The lines it rewrites end in a "# sizing: <key>" comment, so it never needs a YAML
parser and every other line and comment of values.yaml is left as it is.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "data" / "class_results.json"
VALUES = ROOT / "classroom" / "values.yaml"

# The JupyterHub that the chart's own hub image runs (chart 4.4.0); the students' image must match it.
CHART_VERSION = "4.4.0"
CHART_HUB_JUPYTERHUB = "5.5.0"
OS_AND_HUB_MIB = 2048  # kept free on a one-server hub for the OS, the hub, the proxy and the page cache
BURST_SECONDS = 60  # one exercise's burst of work lands within a minute of class time

# A managed line: "<indent><name>: <value>  # sizing: <key>".
TAGGED = re.compile(r"^(?P<head>\s*[A-Za-z]+:\s*)(?P<value>\S+)(?P<tail>\s+# sizing: (?P<key>\S+).*)$")


def round_up(value: float, step: int) -> int:
    # round() first, so that float noise (e.g. 150.00000000000003 millicores) does not add a whole step
    return math.ceil(round(value / step, 9)) * step


def load_results(path: Path = RESULTS) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def sizing(results: dict) -> dict[str, str]:
    """The values.yaml entries the measurement gives, keyed by their dotted path."""
    memory = results["memory_mib"]
    guarantee = round_up(memory["numpy"]["rss"]["p95"], 64)
    limit = round_up(memory["torch"]["rss"]["max"] * 1.5, 128)
    # In millicores, so that 0.15 stays 0.15 and not 0.15000000000000002.
    cpu_millicores = max(50, round_up(results["cpu_seconds_per_student"]["p95"] / BURST_SECONDS * 1000, 50))
    return {
        "singleuser.memory.guarantee": f"{guarantee}M",
        "singleuser.memory.limit": f"{limit}M",
        "singleuser.cpu.guarantee": f"{cpu_millicores / 1000:g}",
    }


def students_per_server(memory_gib: float, cores: float, results: dict) -> dict:
    """How many students one server holds, bound by memory or by CPU.

    Memory: (memory_gib x 1024 - 2048 MiB kept for the OS and the hub) divided by the PSS median of one
    student, for the "numpy" and the "torch" case. PSS, not RSS: on one server the students' kernels share
    the pages of numpy, torch and Python itself, and PSS counts each shared page once across them.

    CPU: cores divided by one student's active share, the CPU seconds per student (median: starting their
    server, opening notebook 02's kernel, running its check) over 60 s. That is how many students can all
    arrive within one minute of each other; it assumes their arrivals are spread over that minute rather
    than all on the same second (the hub's own share is :func:`hub_starts_per_minute`).

    Returns {"memory_numpy": n, "memory_torch": n, "cpu": n, "binding": name of the smallest, "students": it}.
    """
    free_mib = max(0.0, memory_gib * 1024 - OS_AND_HUB_MIB)
    memory = results["memory_mib"]
    active_share = results["cpu_seconds_per_student"]["median"] / BURST_SECONDS
    per_student = {name: memory[name]["pss"]["median"] for name in ("numpy", "torch")}
    if min(per_student.values()) <= 0 or active_share <= 0:
        raise ValueError("the measured memory and CPU per student must be positive")
    counts = {
        "memory_numpy": math.floor(free_mib / per_student["numpy"]),
        "memory_torch": math.floor(free_mib / per_student["torch"]),
        "cpu": math.floor(cores / active_share),
    }
    binding = min(counts, key=counts.get)
    return {**counts, "binding": binding, "students": counts[binding]}


def hub_starts_per_minute(results: dict) -> int:
    """How many students the hub process itself lets in per minute: it is one Python process, so one
    core, whatever the server has; its CPU per arriving student was measured with the proxy's and the
    culler's (login, token, spawn, the progress stream, routing, logout)."""
    per_student = results["hub_cpu_seconds"] / results["students"]
    return math.floor(60 / per_student)


SERVERS = ((16, 4), (32, 8), (64, 16), (128, 32))  # (GiB, cores) of the servers the table sizes
README = ROOT / "classroom" / "README.md"
BEGIN = "<!-- measured: written by `python3 classroom/sizing.py --write` from data/class_results.json; do not edit -->"
END = "<!-- /measured -->"


def measured_section(results: dict) -> str:
    """The README's figures and sizing table, every number from ``results``."""
    m, mem = results["machine"], results["memory_mib"]
    numpy, torch = mem["numpy"], mem["torch"]

    def s(key: str) -> str:
        v = results[key]
        return f"{v['median']:.1f} s / {v['p95']:.1f} s / {v['max']:.1f} s"

    lines = [
        BEGIN,
        f"Measured on {results['date']} with `sudo .venv/bin/python benchmarks/bench_class.py --students "
        f"{results['students']} --torch {results['torch_students']} --save`: {results['students']} simulated "
        f"students arriving at once on one machine of {m['cores']} cores and {m['memory_gib']} GiB (load "
        f"{m['load_before']} before the run), {results['failures']} failures, {results['wall_seconds']:.0f} s from "
        "the first login to the last logout.",
        "",
        "| What | median / p95 / max |",
        "|---|---|",
        f"| log in (form, first password) and get a token | {s('login_seconds')} |",
        f"| start the server (all {results['students']} at once) | {s('spawn_seconds')} |",
        f"| nbgitpuller clone into the home | {s('pull_seconds')} |",
        f"| open notebook 02, run its set-up and two checks | {s('check_seconds')} |",
        "",
        "| Per student, from their own processes | RSS median (max) | PSS median (max) |",
        "|---|---|---|",
        f"| server + notebook 02's kernel (numpy) | {numpy['rss']['median']:.0f} MiB ({numpy['rss']['max']:.0f}) "
        f"| {numpy['pss']['median']:.0f} MiB ({numpy['pss']['max']:.0f}) |",
        f"| server + notebook 08's kernel (torch; {torch['students']} students) | {torch['rss']['median']:.0f} MiB "
        f"({torch['rss']['max']:.0f}) | {torch['pss']['median']:.0f} MiB ({torch['pss']['max']:.0f}) |",
        "",
        f"CPU per student: {results['cpu_seconds_per_student']['median']:.2f} s to arrive and do the first "
        f"exercise (of which {results['cpu_seconds_server_start']['median']:.2f} s starting the server; one check "
        f"{results['cpu_seconds_per_check']['median']:.3f} s). The hub, proxy and culler together: "
        f"{results['hub_cpu_seconds'] / results['students']:.2f} s per student, on one core.",
        "",
        "| Server | students, numpy notebooks | students, torch notebook open | arriving within a minute (CPU) "
        "| holds |",
        "|---|---|---|---|---|",
    ]
    for gib, cores in SERVERS:
        c = students_per_server(gib, cores, results)
        limit = {"memory_numpy": "memory", "memory_torch": "memory (torch)", "cpu": "CPU"}[c["binding"]]
        lines.append(
            f"| {gib} GiB, {cores} cores | {c['memory_numpy']} | {c['memory_torch']} | {c['cpu']} "
            f"| **{c['students']}** ({limit}) |"
        )
    lines += [
        "",
        f"The hub process lets in about {hub_starts_per_minute(results)} students a minute whatever the server's "
        "size, so a class larger than that should arrive over a few minutes (see the rush, below).",
        END,
    ]
    return "\n".join(lines)


def with_measured(text: str, results: dict) -> str:
    if BEGIN not in text or END not in text:
        raise ValueError(f"{README} has no {BEGIN!r} … {END!r} section")
    head, rest = text.split(BEGIN, 1)
    return head + measured_section(results) + rest.split(END, 1)[1]


def tagged_values(text: str) -> dict[str, str]:
    """The value on each "# sizing: <key>" line of values.yaml."""
    found = {}
    for line in text.splitlines():
        match = TAGGED.match(line)
        if match:
            found[match["key"]] = match["value"]
    return found


def rewrite(text: str, wanted: dict[str, str]) -> str:
    missing = set(wanted) - set(tagged_values(text))
    if missing:
        raise ValueError(f"values.yaml has no '# sizing:' line for {', '.join(sorted(missing))}")

    def replace(line: str) -> str:
        match = TAGGED.match(line)
        if not match or match["key"] not in wanted:
            return line
        return match["head"] + wanted[match["key"]] + match["tail"]

    return "".join(replace(line.rstrip("\n")) + "\n" for line in text.splitlines())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--write", action="store_true", help="rewrite the '# sizing:' lines of values.yaml")
    action.add_argument("--check", action="store_true", help="exit 1 if values.yaml does not match the results")
    parser.add_argument("--results", type=Path, default=RESULTS, help="default: data/class_results.json")
    parser.add_argument("--values", type=Path, default=VALUES, help="default: classroom/values.yaml")
    args = parser.parse_args(argv)

    results = load_results(args.results)
    wanted = sizing(results)
    if args.write:
        text = args.values.read_text(encoding="utf-8")
        args.values.write_text(rewrite(text, wanted), encoding="utf-8")
        README.write_text(with_measured(README.read_text(encoding="utf-8"), results), encoding="utf-8")
        print(f"wrote {', '.join(f'{key}={value}' for key, value in wanted.items())} to {args.values}")
        return 0
    if args.check:
        have = tagged_values(args.values.read_text(encoding="utf-8"))
        stale = {key: (have.get(key), value) for key, value in wanted.items() if have.get(key) != value}
        readme = README.read_text(encoding="utf-8")
        if with_measured(readme, results) != readme:
            stale["README.md measured section"] = ("stale", "regenerated")
        for key, (old, new) in stale.items():
            print(f"{args.values}: {key} is {old}, {args.results} gives {new}", file=sys.stderr)
        if stale:
            print("run: python3 classroom/sizing.py --write", file=sys.stderr)
        return 1 if stale else 0
    for key, value in wanted.items():
        print(f"{key}: {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
