"""Low precision beyond the variance: what ε becomes in float16, and a residual stream's drift.

Pure numpy (bfloat16 by ``helpers.lessons.numerics.precision.to_bfloat16``). Introduced in notebook 09.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core.layernorm import DEFAULT_EPS, layer_norm
from helpers.lessons.numerics.precision import stored_as


@dataclass(frozen=True)
class EpsInFloat16:
    """One ε as float16 holds it, and what σ² + ε becomes in float16 for a few small variances."""

    eps: float
    stored: float  # float16(ε), as a float
    subnormal: bool  # below float16's smallest normal number, 2⁻¹⁴: fewer significant bits
    relative_error: float  # |float16(ε) − ε| / ε
    effective: dict  # σ² → float16(σ² + ε) − float16(σ²): the ε the division really sees


def eps_in_float16(eps_values=(1e-12, 1e-6, 1e-5), variances=(0.0, 1e-4, 1e-2)) -> tuple[EpsInFloat16, ...]:
    """Store each ε in float16 and add it to each variance in float16. Introduced in notebook 09."""
    tiny = float(np.finfo(np.float16).tiny)
    out = []
    for eps in eps_values:
        stored = float(np.float16(eps))
        effective = {v: float(np.float16(v) + np.float16(eps)) - float(np.float16(v)) for v in variances}
        out.append(EpsInFloat16(float(eps), stored, 0 < stored < tiny, abs(stored - eps) / eps, effective))
    return tuple(out)


def constant_row_float16(eps: float, value: float = 1.0, n: int = 4) -> np.ndarray:
    """LayerNorm of a constant row (σ² = 0), every step in float16: (x − μ) / √(0 + ε).

    With an ε that float16 stores as 0 this is 0/0: NaN. Introduced in notebook 09."""
    x = np.full(n, value, dtype=np.float16)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):  # a large value overflows the float16 sum
        mean = x.mean(dtype=np.float16)
        diff = x - mean
        return (diff / np.sqrt((diff * diff).mean(dtype=np.float16) + np.float16(eps))).astype(np.float64)


RESIDUAL_TYPES = ("float16", "bfloat16", "float32")


@dataclass(frozen=True)
class ResidualDrift:
    """A residual stream h ← h + update over many blocks, kept in one type, against float64.

    ``stream_error``: relative error ‖h − h_exact‖ / ‖h_exact‖ after each block;
    ``norm_error``: largest error of LayerNorm(h) after the last block against LayerNorm(h_exact).
    """

    residual_type: str
    stream_error: np.ndarray
    norm_error: float


def residual_drift(blocks: int = 64, width: int = 1024, update_scale: float = 0.1, seed: int = 0) -> dict:
    """Add ``blocks`` branch outputs to a residual stream kept in float16, bfloat16 or float32.

    The start and the branch outputs are random, the same for every type, and rounded to bfloat16 (what
    a low-precision block hands back); only where the running sum is kept differs, as with
    ``residual_in_fp32`` in a fused add + LayerNorm. The exact stream adds the same outputs in
    float64. Returns ``{type: ResidualDrift}``. Introduced in notebook 09."""
    rng = np.random.default_rng(seed)
    start = stored_as(rng.standard_normal(width), "bfloat16")  # every type holds it exactly
    updates = stored_as(rng.standard_normal((blocks, width)) * update_scale, "bfloat16")
    exact = start + np.cumsum(updates, axis=0)
    out = {}
    for kind in RESIDUAL_TYPES:
        h = stored_as(start, kind)
        errors = []
        for k in range(blocks):
            h = stored_as(h + updates[k], kind)  # one rounding per add, to the kept type
            errors.append(np.linalg.norm(h - exact[k]) / np.linalg.norm(exact[k]))
        norm_error = float(np.max(np.abs(layer_norm(h, eps=DEFAULT_EPS) - layer_norm(exact[-1], eps=DEFAULT_EPS))))
        out[kind] = ResidualDrift(kind, np.array(errors), norm_error)
    return out
