"""`run.py test` ends by naming its ten slowest tests, over both halves: each pytest run writes a JUnit
report (its per-test times: set-up, call and tear-down together), and this merges them. Standard library
only."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree
from pathlib import Path

SHOWN = 10


def report_option(extra: list[str], path: Path) -> list[str]:
    """The pytest option that writes ``path``; none when the command line already asks for a JUnit report."""
    if any(arg.startswith("--junit-xml") or arg.startswith("--junitxml") for arg in extra):
        return []
    return [f"--junitxml={path}"]


def slowest(reports: list[Path], count: int = SHOWN) -> list[tuple[float, str]]:
    """The ``count`` slowest tests in these JUnit reports (missing or unreadable ones are left out)."""
    times = []
    for report in reports:
        try:
            root = ElementTree.parse(report).getroot()
        except (OSError, ElementTree.ParseError):
            continue
        for case in root.iter("testcase"):
            name = f"{case.get('classname', '')}::{case.get('name', '')}"
            times.append((float(case.get("time") or 0), name))
    return sorted(times, reverse=True)[:count]


def print_slowest(reports: list[Path], say) -> None:
    found = slowest(reports)
    if not found:
        return
    lines = [
        f"The {len(found)} slowest tests (set-up, run and tear-down; a module's shared set-up counts for its first):"
    ]
    lines += [f"  {seconds:7.1f} s  {name}" for seconds, name in found]
    say("\n".join(lines))
