"""How long does one edit in a widget take? Every stage recomputed and re-rendered, headless.

    python benchmarks/bench_widgets.py            # prints the medians against the targets
    python benchmarks/bench_widgets.py --repeats 50

Targets, as median CPU time per edit: without the plot ≤ 5 ms for a 3-value row and ≤ 20 ms for a
768-value row, by hand too (issue 13); with the number line redrawn (inline SVG since issue 33, a
matplotlib PNG before) ≤ 5 ms for 3 and for 768 values. Each plot edit is printed beside the same edit without the plot, with the
ratio, so the cost of the picture shows on any machine. An "edit" is what a person does: type a new
row into the paste field (it is parsed, every stage computed, the HTML table rebuilt, the value boxes
updated, the picture redrawn) or a new eps into its entry (the slider follows). The text form
(``repr``) is built only when shown; it is timed on its own line. CPU time is what the edit costs;
wall time also counts waiting for a busy machine, so it is shown but not judged. With ``--check`` the
exit status is 1 when a CPU median misses its target.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from anywhere without installing helpers
os.environ.setdefault("MPLBACKEND", "Agg")

from helpers import layer_norm_steps, load_residual, widgets  # noqa: E402
from helpers.display.number_line import number_line_svg  # noqa: E402


def median_ms(action, repeats: int) -> tuple[float, float]:
    """Median wall-clock and CPU time of one call, in ms. On a busy machine the wall time grows while
    the CPU time (what the edit itself costs) stays put: both are shown."""
    action(0)  # warm-up
    wall, cpu = [], []
    for i in range(1, repeats + 1):
        start, start_cpu = time.perf_counter(), time.process_time()
        action(i)
        cpu.append(time.process_time() - start_cpu)
        wall.append(time.perf_counter() - start)
    return 1000 * statistics.median(wall), 1000 * statistics.median(cpu)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="edits per measurement (the plot uses a quarter)")
    parser.add_argument("--check", action="store_true", help="exit with status 1 when a CPU median misses its target")
    arguments = parser.parse_args()
    repeats = arguments.repeats
    plot_repeats = max(5, repeats // 4)

    x = load_residual()
    rng = np.random.default_rng(0)
    long_rows = [rng.normal(size=768) for _ in range(2)]
    long_texts = [", ".join(repr(float(v)) for v in row) for row in long_rows]
    short_texts = [", ".join(repr(float(v)) for v in row) for row in x]
    eps_texts = ["1e-5", "1e-3"]

    short_records = [layer_norm_steps(row) for row in x]
    long_records = [layer_norm_steps(row) for row in long_rows]
    short = widgets.row_editor(x[0])
    long = widgets.row_editor(long_rows[0])
    plotted = widgets.row_editor(x[0], plot=True)
    plotted_long = widgets.row_editor(long_rows[0], plot=True)
    plain_short = median_ms(lambda i: short.set_row(short_texts[i % 5]), repeats)
    plain_long = median_ms(lambda i: long.set_row(long_texts[i % 2]), repeats)
    results = [
        ("3 values: new row typed", plain_short, 5, None),
        ("3 values: new eps typed", median_ms(lambda i: short.set_eps(eps_texts[i % 2]), repeats), 5, None),
        (
            "3 values, by hand (3 places): new eps",
            median_ms(lambda i: (short.set_decimals(3), short.set_eps(eps_texts[i % 2])), repeats),
            5,
            None,
        ),
        ("768 values: new row pasted", plain_long, 20, None),
        ("768 values: new eps typed", median_ms(lambda i: long.set_eps(eps_texts[i % 2]), repeats), 20, None),
        (
            "768 values, by hand (3 places): new eps",
            median_ms(lambda i: (long.set_decimals(3), long.set_eps(eps_texts[i % 2])), repeats),
            20,
            None,
        ),
        (
            "3 values with the plot: new row typed",
            median_ms(lambda i: plotted.set_row(short_texts[i % 5]), plot_repeats),
            5,
            plain_short,
        ),
        (
            "768 values with the plot: new row pasted",
            median_ms(lambda i: plotted_long.set_row(long_texts[i % 2]), plot_repeats),
            5,
            plain_long,
        ),
        ("768 values: text form (repr)", median_ms(lambda i: repr(long), repeats), None, None),
        (
            "number line SVG alone, 3 values",
            median_ms(lambda i: number_line_svg(short_records[i % 5]), repeats),
            5,
            None,
        ),
        (
            "number line SVG alone, 768 values",
            median_ms(lambda i: number_line_svg(long_records[i % 2]), repeats),
            5,
            None,
        ),
    ]
    width = max(len(name) for name, *_ in results)
    print(f"{'one edit'.ljust(width)}  cpu ms  (wall ms)  target  verdict  same edit without the plot")
    missed = 0
    for name, (wall, cpu), target, plain in results:
        verdict = "" if target is None else ("ok" if cpu <= target else "MISSED")
        missed += verdict == "MISSED"
        beside = "" if plain is None else f"{plain[1]:.2f} ms cpu: the plot costs {cpu / plain[1]:.1f}× the plain edit"
        print(
            f"{name.ljust(width)}  {cpu:6.2f}  ({wall:7.2f})  {'' if target is None else target:>6}  {verdict:7}  {beside}"
        )
    if hasattr(os, "getloadavg"):
        print(
            f"(medians of {repeats} edits, {plot_repeats} with the plot; load average "
            f"{os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)"
        )
    return 1 if missed and arguments.check else 0


if __name__ == "__main__":
    sys.exit(main())
