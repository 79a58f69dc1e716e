"""The probes run before any verdict: is the function deterministic, and does it keep state?

* determinism: the same matrix twice. Identical outputs give a noise floor of 0; otherwise the largest
  change (relative to the output's size) is the noise floor, and every later comparison allows for it,
  so a LayerNorm plus 1e-9 of noise is not read as "editing one token moved other tokens";
* state (after the type and edit probes): a matrix A, then B (A's rows in reverse order), then A again. A function of each call's input
  alone gives B's output as A's output reversed (a row-wise or a column-wise LayerNorm, or one over the
  whole matrix, all do), and A's output again. A function that caches its statistics (per shape, or
  from its first call), counts its calls or keeps running averages does not.

Used by :mod:`helpers.forensics.fingerprints`. Pure numpy.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from helpers.core.tolerance import FLOAT64_NOISE
from helpers.forensics.call import Caller
from helpers.forensics.precision import lowest, roundoff

SLACK = 8.0  # a later comparison allows this many times the noise floor


def relative_change(a: np.ndarray, b: np.ndarray) -> float:
    """Largest |a − b| relative to the largest |a|; NaN in one place and not the other is infinite."""
    nan_a, nan_b = ~np.isfinite(a), ~np.isfinite(b)
    if np.any(nan_a != nan_b):
        return math.inf
    keep = ~nan_a
    if not keep.any():
        return 0.0
    size = max(float(np.max(np.abs(a[keep]))), 1e-300)
    return float(np.max(np.abs(a[keep] - b[keep]))) / size


@dataclass(frozen=True)
class Behaviour:
    """What the determinism and state probes measured."""

    noise_floor: float  # largest change between two calls on the same matrix (0: identical)
    reorder_change: float  # B = A reversed: how far its output is from A's output reversed
    repeat_change: float  # A again after B: how far from A's first output
    tolerance: float  # changes above this are not rounding or noise
    reorder_tolerance: float = 1e-3  # … and for B: reversing the rows also reorders a column's sum

    def reordered(self) -> bool:
        return self.reorder_change > max(self.tolerance, self.reorder_tolerance)

    @property
    def deterministic(self) -> bool:
        return self.noise_floor == 0.0

    def moved(self, change: float | None) -> bool:
        return change is not None and change > self.tolerance


def tolerance_for(call: Caller, floor: float) -> float:
    """Above this a change is neither noise nor the rounding of the type it returns."""
    returned = lowest(*call.output_types.values())
    return max(SLACK * floor, 64 * roundoff(returned), FLOAT64_NOISE)


def noise_floor(call: Caller, base: np.ndarray, out: np.ndarray) -> float:
    """The determinism probe: call on A again (the first call gave ``out``)."""
    return relative_change(out, call(base))


def probe(call: Caller, base: np.ndarray, out: np.ndarray, floor: float, work: str, axis: str) -> Behaviour:
    """The state probe: B = A reversed, then A. Row by row (``axis``), a token's output does not depend on
    where it sits, so B is held to the same tolerance as A; a function of the columns, or of the whole matrix,
    computing in ``work`` may round a sum differently when the rows come in another order: up to 64 of its
    roundings, or 1e-3, are allowed (statistics cached from another matrix move the output by far more)."""
    reordered = call(base[::-1].copy())
    again = call(base)
    tolerance = tolerance_for(call, floor)
    return Behaviour(
        floor,
        relative_change(out[::-1], reordered),
        relative_change(out, again),
        tolerance,
        tolerance if axis == "rows" else max(1e-3, 64 * roundoff(work)),
    )


def state_sentence(behaviour: Behaviour, end_change: float | None = None) -> str:
    """Why the fingerprint cannot tell, in one sentence, from what moved."""
    if behaviour.moved(behaviour.repeat_change) or behaviour.moved(end_change):
        change = behaviour.repeat_change if behaviour.moved(behaviour.repeat_change) else end_change
        what = (
            f"the same matrix came out different the next time (by {_words(change)} of its size)"
            if behaviour.moved(behaviour.repeat_change)
            else f"the first matrix, called again after the other probes, came out different (by {_words(change)})"
        )
        return (
            f"Cannot tell whether it is a LayerNorm: it keeps state ({what}). A LayerNorm's output depends on "
            "the input it is given, not on earlier calls, so no probe can be judged."
        )
    return (
        "Cannot tell whether it is a LayerNorm: the same rows in reverse order did not come out as its output "
        f"in reverse order (they differ by {_words(behaviour.reorder_change)} of its size). It keeps something "
        "from an earlier call (statistics cached per shape, say), or its output for a token depends on where "
        "the token sits; a LayerNorm's does neither, so no probe can be judged."
    )


def _words(change: float | None) -> str:
    if change is None or not math.isfinite(change):
        return "NaN or infinity"
    return f"{change:.2g}"
