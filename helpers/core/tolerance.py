"""When two numbers count as the same: every "close enough" of the series, named for what it decides.

The checker's cases (helpers.checking.cases, results, module_*), the answer boxes (helpers.checking.answers),
the hand-rounding drift (helpers.core.layernorm), the published-table checks (helpers.core.published_table),
the reference comparison (helpers.reference) and the fingerprint's probes (helpers.forensics) all read their
room from here, so that one rule is decided in one place and its edges are tested once
(tests/core/test_tolerance.py). Pure maths: numpy only.

The rules, from strictest to loosest:

* :func:`result_room`: a learner's result is right when it is off by no more than a correct computation in
  the input's precision can be: a few units of that precision's rounding, scaled by the row's own sizes (a
  float64 result rounded to float32, or a variance with 1e-10 added, is past it; any correct float64
  summation order is inside it).
* :data:`FLOAT64_NOISE`: two float64 results this near each other agree up to rounding noise.
* :data:`EDGE`: a value exactly on a boundary (one unit in the last place, half a unit) counts as inside it,
  whatever binary rounding of the decimal numbers did.
* :func:`answer_slack`: an answer typed in a box equals the value when they differ only by floating-point noise.
* :data:`PROBE_NOISE`: the fingerprint's floor: a measured change below it is rounding noise.
* :data:`GRADIENT_ROOM`: a module's gradients against LayerNorm's, in float64.
* :data:`HAND_DRIFT`: rounding by hand moved a value when it is off by more than this share of its size.
* :data:`EPS_MATCH`: a measured ε is a known default (1e-5, 1e-6, …) when this near it.
* :data:`PUBLISHED_CLOSE`: a published table is "close" (right to one decimal place).
* :func:`stored_output_room`: how far a correct LayerNorm output stored in float32 or float16 can be from the
  exact one, so that a table of it is not read to more places than its own arithmetic holds.
"""

from __future__ import annotations

import math

import numpy as np

UNIT_ROUNDOFF = {"float64": 2.0**-53, "float32": 2.0**-24, "float16": 2.0**-11, "bfloat16": 2.0**-8}

# How much room a correct result gets in each precision: (relative, absolute floor). float32's are the
# series' (1e-4, 1e-6): a float32 learner may sum in any order, in numpy or torch. float64's are about
# 1000 and 16 units of its rounding: a float32 rounding (2^-24 ≈ 6e-8 relative) is far past them.
ROOM = {"float32": (1e-4, 1e-6), "float64": (2.0**-43, 2.0**-49)}
SUM_UNITS = 8  # a sum of n values is off by at most n units of rounding of its largest; eight times that

FLOAT64_NOISE = 1e-12  # float64 results this near each other agree up to rounding noise
EDGE = 1e-9  # a value exactly on a boundary counts as inside it (relative, or absolute for values near 1)
ANSWER_NOISE = (1e-9, 1e-15)  # (relative, absolute): an answer box's room for floating-point noise only
PROBE_NOISE = 1e-9  # the fingerprint's floor, relative: below it a measured change is float64 rounding noise
GRADIENT_ROOM = (1e-6, 1e-9)  # (relative, absolute): a module's gradients in float64 (finite differences)
HAND_DRIFT = 0.01  # rounding by hand moved a value when it is off by more than 1 % of its size
EPS_MATCH = 1e-3  # relative: an ε measured this near a known default (1e-5, 1e-6, …) is that default
PUBLISHED_CLOSE = 0.05  # a published table is "close" when every value is within this of the truth (1 place)


def unit_roundoff(dtype) -> float:
    """Half the machine ε of ``dtype`` (a numpy or torch dtype, or its name); float64's for anything else."""
    name = str(getattr(dtype, "__name__", dtype)).replace("torch.", "")
    name = np.dtype(name).name if name in ("float32", "float64", "float16", "single", "double", "half") else name
    return UNIT_ROUNDOFF.get(name, UNIT_ROUNDOFF["float64"])


def within(off: float, limit: float) -> bool:
    """``off`` ≤ ``limit``, a value exactly on the boundary counting as inside it (EDGE relative)."""
    return off <= limit * (1 + EDGE)


def past(off: float, limit: float) -> bool:
    """``off`` is beyond ``limit`` by more than binary rounding of decimal numbers: not :func:`within`."""
    return not within(off, limit)


def answer_slack(expected: float) -> float:
    """The room an answer box gives for floating-point noise alone around ``expected``."""
    relative, absolute = ANSWER_NOISE
    return relative * abs(expected) + absolute


def agree_in_float64(difference: float) -> bool:
    """Two float64 results ``difference`` apart agree up to rounding noise."""
    return difference <= FLOAT64_NOISE


def result_room(quantity: str, x, eps: float = 0.0, dtype=np.float64, scale=None):
    """(relative, absolute) room for a correct ``quantity`` computed from the input ``x`` in ``dtype``.

    ``quantity``: "mean", "variance", "std", "normalised" (x̂, row by row) or "output" (γ · x̂ + β, with
    ``scale`` the largest |γ| · |x̂| + |β| of each row). Besides the precision's relative room and floor
    (:data:`ROOM`), row by row: eight times the worst rounding of a sum of n values of the row's size
    (room = 8 n u), and what the mean's own rounding δ = n u max|x| does downstream (δ² in the variance);
    so a correct row far from zero passes in either precision, while the one-pass variance, whose error
    grows with μ² instead of μ, and a result rounded to a coarser precision do not. Absolute room is a
    0-d array for the scalar quantities, else one value per row."""
    name = "float32" if np.dtype(dtype) == np.float32 else "float64"
    relative, floor = ROOM[name]
    unit = UNIT_ROUNDOFF[name]
    x = np.asarray(x, dtype=np.float64)
    n = x.shape[-1]
    room = SUM_UNITS * n * unit
    if quantity == "output":
        size = np.max(np.abs(x), axis=-1, keepdims=True) if scale is None else np.asarray(scale, dtype=np.float64)
        return (relative, floor + room * size)
    top = np.max(np.abs(x), axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    delta = n * unit * top  # the mean's own rounding
    if quantity == "mean":
        atol = floor + room * top
    elif quantity == "variance":
        atol = floor + room * var + delta**2
    elif quantity == "std":
        atol = floor + room * np.sqrt(var) + delta**2 / (np.sqrt(var + eps + delta**2) + np.sqrt(var + eps))
    elif quantity == "normalised":  # x̂, row by row: the mean's rounding, u·|x|, divided by the row's std
        atol = 10 * floor + room * top / np.sqrt(var + eps)
    else:
        raise ValueError(f"No room is defined for {quantity!r}.")
    return (relative, atol.reshape(()) if quantity in ("mean", "variance", "std") else atol)


def float32_room(quantity: str, x, expected: float, eps: float = 0.0, scale=None) -> float:
    """How far a correct ``quantity`` of the row ``x``, computed in float32 (PyTorch's default type, as
    ``.item()`` hands it over), can be from the exact ``expected``: :func:`result_room`'s absolute room in
    float32 (its sums, the mean's rounding downstream, its floor) and the result's own storage, 2u·|expected|.
    Not its relative room: a mistake float32 can see (a forgotten ε) is never taken for its rounding. For
    "output", ``scale`` is the largest |γ| (x̂'s room, times it) and the output's own size."""
    if quantity == "output":
        gamma, size = (1.0, None) if scale is None else scale
        _, absolute = result_room("normalised", x, eps, np.float32)
        room = float(np.max(absolute)) * gamma
        if size is not None:
            room += float(np.max(result_room("output", x, eps, np.float32, size)[1]))
    else:
        room = float(np.max(result_room(quantity, x, eps, np.float32)[1]))
    return room + 2 * UNIT_ROUNDOFF["float32"] * abs(float(expected))


def half_unit(places: int) -> float:
    """Half a unit in the last of ``places`` decimal places: how far a value may be from the truth and still
    round as the truth does."""
    return 0.5 * 10.0**-places


def places_held(room: float) -> int:
    """The most decimal places at which a value within ``room`` of the truth still rounds as the truth does
    (half a unit of the last place at least ``room``); 0 or more."""
    return max(0, math.floor(-math.log10(2 * room))) if room > 0 else 17


def stored_output_room(x, dtype) -> float:
    """How far a correct LayerNorm output (γ = 1, β = 0) of ``x``, stored in ``dtype``, can be from the exact one.

    Row by row: ``x`` rounded to ``dtype`` moves x̂ by up to 2u·max|x|/σ; sums in float32 (PyTorch computes a
    float16 LayerNorm in float32 too) n·u₃₂·max|x|/σ; storing the output u·max|x̂|. Twice their sum, the
    largest over the rows with σ > 0 (0.0 when no row has one). float64's arithmetic counts as exact here."""
    x = np.asarray(x, dtype=np.float64)
    unit = unit_roundoff(dtype)
    if unit == UNIT_ROUNDOFF["float64"]:
        return 0.0
    n = x.shape[-1]
    sigma = np.sqrt(x.var(axis=-1))
    spread = sigma > 0
    if not spread.any():
        return 0.0
    top = np.max(np.abs(x), axis=-1)[spread] / sigma[spread]  # max|x| / σ
    largest = np.max(np.abs(x[spread] - x[spread].mean(axis=-1, keepdims=True)), axis=-1) / sigma[spread]
    sums = n * UNIT_ROUNDOFF["float32"]
    return float(np.max(2 * ((2 * unit + sums) * top + unit * largest)))


def close_at(value, expected, room) -> bool:
    """``value`` equals ``expected`` within ``room`` = (relative, absolute), NaN where both are NaN."""
    relative, absolute = room
    return bool(np.allclose(value, expected, rtol=relative, atol=absolute, equal_nan=True))
