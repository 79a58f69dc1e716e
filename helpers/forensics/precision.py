"""The floating-point types a fingerprint judges in: each one's rounding, range and tolerance.

Used by ``helpers.forensics.fingerprints`` (which type a function computes in, and how finely to judge it) and by
``helpers.forensics.display`` (what a table shows as rounding). Pure maths: numpy only.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.core.tolerance import PROBE_NOISE

# Each type: machine ε (torch.finfo(t).eps), largest finite value, smallest normal value.
PRECISIONS = {
    "float64": (2.0**-52, 1.7976931348623157e308, 2.0**-1022),
    "float32": (2.0**-23, 3.4028234663852886e38, 2.0**-126),
    "float16": (2.0**-10, 65504.0, 2.0**-14),
    "bfloat16": (2.0**-7, 3.3895313892515355e38, 2.0**-126),
}
MATCH_TOLERANCE = PROBE_NOISE  # relative: "equals F.layer_norm to float64 precision" (float64 rounding is ~1e-16)


def roundoff(dtype: str) -> float:
    """The machine ε of a floating-point type (float64 for anything else)."""
    return PRECISIONS.get(dtype, PRECISIONS["float64"])[0]


def tolerance_of(dtype: str) -> float:
    """Differences below this are rounding in ``dtype``: 1e-9 for float64, else a power of 10 near 100 × its ε
    (float32 1e-5, float16 0.01, bfloat16 0.1). Also how "matches PyTorch" is judged and what displays hide."""
    if dtype not in PRECISIONS or dtype == "float64":
        return MATCH_TOLERANCE
    return 10.0 ** math.floor(math.log10(100 * roundoff(dtype)))


def lowest(*dtypes) -> str:
    """The least precise of the floating-point types given (others, e.g. int64 or None, are ignored)."""
    known = [t for t in dtypes if t in PRECISIONS]
    return max(known, key=roundoff) if known else "float64"


def rounded(x: np.ndarray, dtype: str) -> np.ndarray:
    """``x`` (float64) rounded to the values ``dtype`` stores; bfloat16 by keeping 8 significant bits."""
    if dtype == "bfloat16":
        mantissa, exponent = np.frexp(x)
        return np.ldexp(np.round(mantissa * 256) / 256, exponent)
    return np.asarray(x, dtype=np.float64).astype(dtype).astype(np.float64)
