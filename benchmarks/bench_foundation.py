"""How fast the foundation is: `import helpers`, and one row's record plus its HTML table.

    python benchmarks/bench_foundation.py        (or: python3 run.py bench)

Prints a table of medians against the targets in issue 2; it never fails on timing (machines
differ), it reports PASS or MISS so a slow change is seen.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import helpers  # noqa: E402

IMPORT_RUNS = 5
RECORD_RUNS = 200


def import_seconds(module: str = "helpers") -> float:
    """Wall time of `import module` in a fresh Python, measured inside that Python."""
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    return float(result.stdout)


def import_added_seconds() -> tuple[float, float]:
    """`import helpers` and `import numpy`, each in a fresh Python, one after the other (so both see the
    same machine load); helpers imports numpy, so its own share is the difference."""
    return import_seconds("helpers"), import_seconds("numpy")


def record_and_html_seconds(row: np.ndarray, decimals: int | None) -> float:
    """One layer_norm_steps record and its _repr_html_, as Jupyter does when a cell shows it."""
    start = time.perf_counter()
    helpers.layer_norm_steps(row, decimals=decimals)._repr_html_()
    return time.perf_counter() - start


def median_of(runs: int, measure, *args) -> float:
    measure(*args)  # warm up: first-call costs (lazy imports) are not what a learner waits for each time
    return statistics.median(measure(*args) for _ in range(runs))


def main() -> int:
    row_3 = helpers.load_residual()[0]
    row_768 = np.random.default_rng(0).normal(0.0, 1.0, 768)
    pairs = [import_added_seconds() for _ in range(IMPORT_RUNS)]
    helpers_seconds = statistics.median(total for total, _ in pairs)
    numpy_seconds = statistics.median(numpy for _, numpy in pairs)
    added = statistics.median(total - numpy for total, numpy in pairs)
    measurements = [
        ("import helpers (fresh process)", helpers_seconds, 0.3, f"median of {IMPORT_RUNS}"),
        # issue 13: helpers may add at most a third of numpy's own import time
        (
            "import helpers minus import numpy",
            added,
            numpy_seconds / 3,
            f"median of {IMPORT_RUNS}; numpy alone {numpy_seconds * 1000:.0f} ms",
        ),
    ]
    for label, row, target in (("3-value row", row_3, 0.002), ("768-value row", row_768, 0.020)):
        for decimals in (None, 3):
            how = "exact" if decimals is None else "by hand, decimals=3"
            seconds = median_of(RECORD_RUNS, record_and_html_seconds, row, decimals)
            measurements.append((f"record + HTML, {label}, {how}", seconds, target, f"median of {RECORD_RUNS}"))

    name_width = max(len(name) for name, *_ in measurements)
    print(f"{'measurement'.ljust(name_width)}  {'time':>10}  {'target':>10}  result  runs")
    for name, seconds, target, runs in measurements:
        verdict = "PASS" if seconds < target else "MISS"
        print(f"{name.ljust(name_width)}  {seconds * 1000:>7.3f} ms  {target * 1000:>7.1f} ms  {verdict:<6}  {runs}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
