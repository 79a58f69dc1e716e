"""The fast loop's modules, longest first: how two workers finish together.

`run.py test --fast` hands whole test modules to two pytest-xdist workers (``--dist loadfile``: a module's
fixtures start once). xdist hands them out in the order it is given (with ``--no-loadscope-reorder``; by
default it orders them by their number of tests, which put 8-second modules of 15 tests at the end), and
each worker takes the next one when it is free. Given the longest first, the last modules handed out are
the short ones, and the two workers end within a short module of each other (longest processing time
first, a classic rule for two machines).

The times are the last fast runs' own (their JUnit report), kept per module in ``DURATIONS`` (outside the
report folder, which every run empties). A module not timed yet goes first: it may be long, and running it
early costs nothing. Without a file (a fresh clone), the order is pytest's own. Pure Python.

Tried and dropped: two pytest processes, each given half of the modules by these times (each would import
only its own modules). Measured against this, interleaved, three pairs with 2,970 tests: 33.5 / 39.0 / 36.2 s
against 30.0 / 37.2 / 34.7 s, the same CPU time (54–62 s against 52–63 s): fixed halves cannot even out
what times measured on another run got wrong, and xdist's workers take the next module when they are free.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ElementTree
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DURATIONS = ROOT / "tests" / "_artifacts" / "fast-durations.json"
ENVIRONMENT = "LAYERNORM_FAST_DURATIONS"  # the file's path, set by the fast loop for its pytest processes


def module_of(nodeid: str) -> str:
    """``tests/core/test_x.py::test_y[1]`` → ``tests/core/test_x.py``."""
    return nodeid.split("::", 1)[0]


def report_durations(report: Path) -> dict[str, float]:
    """Seconds per test module in a JUnit report; {} when there is none or it cannot be read."""
    try:
        tree = ElementTree.parse(report)
    except (OSError, ElementTree.ParseError):
        return {}
    seconds: dict[str, float] = {}
    for case in tree.iter("testcase"):
        name = case.get("classname") or ""
        if not name:
            continue
        parts = name.split(".")
        # pytest's classname is the module's dotted path, then the class if there is one
        for end in range(len(parts), 0, -1):
            path = "/".join(parts[:end]) + ".py"
            if (ROOT / path).is_file():
                break
        else:
            continue
        try:
            seconds[path] = seconds.get(path, 0.0) + float(case.get("time") or 0.0)
        except ValueError:
            continue
    return seconds


def load(path: Path = DURATIONS) -> dict[str, float]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): float(v) for k, v in data.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}


def remember(report: Path, path: Path = DURATIONS) -> None:
    """Fold a run's times into the file: a module timed again takes its new time (a run of a few modules
    keeps the others'); a module no longer on disk is dropped."""
    known = load(path)
    known.update(report_durations(report))
    kept = {module: seconds for module, seconds in sorted(known.items()) if (ROOT / module).is_file()}
    if not kept:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(kept, indent=0, sort_keys=True) + "\n", encoding="utf-8")


def longest_first(nodeids: list[str], durations: dict[str, float]) -> list[int]:
    """The indexes of ``nodeids`` in the order to run them: modules by their time, longest first (one not
    timed before all), each module's tests together and in their own order."""
    first_seen: dict[str, int] = {}
    for index, nodeid in enumerate(nodeids):
        first_seen.setdefault(module_of(nodeid), index)

    def key(index: int) -> tuple:
        module = module_of(nodeids[index])
        return (module in durations, -durations.get(module, 0.0), first_seen[module], index)

    return sorted(range(len(nodeids)), key=key)
