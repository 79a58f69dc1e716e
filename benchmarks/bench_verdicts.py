"""How long a learner waits for a verdict: the checker on a correct function, a fingerprint, and the
norm-family lesson's training loop (targets from the issues that set them).

    python benchmarks/bench_verdicts.py        (or: python3 run.py bench)

These were timed assertions inside tests, which fail on a busy machine for reasons that are not the
product's. Here each is measured with a warm-up and a median of repeats and reported as PASS or MISS
against its target; it never fails on timing.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "lecturer"))

import solutions  # noqa: E402  (lecturer/solutions.py: the reference answers)

from helpers.checking.exercises import check  # noqa: E402

REPEATS = 7


def seconds_of(action) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def median_seconds(action, repeats: int = REPEATS) -> tuple[float, float, float]:
    """Median and range of ``repeats`` runs after one warm-up run (first-call costs are not what a learner
    waits for each time)."""
    action()
    times = sorted(seconds_of(action) for _ in range(repeats))
    return statistics.median(times), times[0], times[-1]


def measurements():
    yield "check('normalise', a correct function)", lambda: check("normalise", solutions.normalise), 0.2
    yield "check('layer_norm', a correct function)", lambda: check("layer_norm", solutions.layer_norm), 0.2
    try:
        import torch
    except ImportError:
        print("torch is not installed: the fingerprint is not measured")
    else:
        from helpers.forensics.fingerprints import fingerprint
        from helpers.forensics.gallery import LessonLayerNorm

        yield "fingerprint(torch.nn.LayerNorm(4))", lambda: fingerprint(torch.nn.LayerNorm(4)), 1.0
        yield "fingerprint(the lesson's LayerNorm)", lambda: fingerprint(LessonLayerNorm(3)), 1.0
        from helpers.lessons.norm_family import train_gamma_beta

        yield "train_gamma_beta(steps=100) (notebook 10)", lambda: train_gamma_beta(steps=100), 1.0


def main() -> int:
    rows = []
    for name, action, target in measurements():
        median, low, high = median_seconds(action)
        rows.append((name, median, low, high, target))
    width = max(len(name) for name, *_ in rows)
    print(f"{'measurement'.ljust(width)}  {'median':>10}  {'range':>19}  {'target':>9}  result")
    for name, median, low, high, target in rows:
        verdict = "PASS" if median < target else "MISS"
        span = f"{low * 1000:.0f}–{high * 1000:.0f} ms"
        print(f"{name.ljust(width)}  {median * 1000:>7.1f} ms  {span:>19}  {target * 1000:>6.0f} ms  {verdict}")
    print(f"(median of {REPEATS} after one warm-up; wall time on this machine, load {_load()})")
    return 0


def _load() -> str:
    try:
        import os

        return f"{os.getloadavg()[0]:.1f}"
    except (AttributeError, OSError):
        return "unknown"


if __name__ == "__main__":
    sys.exit(main())
