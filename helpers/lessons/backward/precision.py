"""How LayerNorm's backward pass rounds: two arrangements of dx, and the long sums behind dγ and dβ.

The same gradient can be arranged two ways. The *x̂ form* (``helpers.lessons.backward.gradients``) subtracts the mean
first: ``dx = rstd · (g − mean(g) − x̂ · mean(g · x̂))`` with ``g = dy · γ``. PyTorch's CPU kernel
(aten/src/ATen/native/cpu/layer_norm_kernel.cpp, ``LayerNormBackwardKernelImplInternal``) never
forms x̂: per row it reduces ``ds = Σ dy · x · γ`` and ``db = Σ dy · γ``, then

    a = rstd,   b = (db · mean − ds) · rstd³ / n,   c = −b · mean − db · rstd / n,
    dx = a · dy · γ + b · x + c.

Algebraically the two are equal; in float32, far from zero, they are not, because ``ds`` and
``b · x`` are sums of numbers as large as x itself. dγ and dβ are sums down the rows, over every token
of a batch; how they are added (one after another, or in blocks) decides how much is lost.
Pure numpy; nothing here imports torch. Introduced in notebook 11.
"""

from __future__ import annotations

import numpy as np

from helpers.core.layernorm import per_feature


def vector_lanes(capability: str) -> int:
    """How many float32 numbers one of PyTorch's CPU vectors holds, for the name
    ``torch.backends.cpu.get_cpu_capability()`` returns: 16 with AVX-512, otherwise 8."""
    return 16 if str(capability).upper().startswith("AVX512") else 8


def _fused(p, q, r, dtype) -> np.ndarray:
    """p · q + r rounded once to dtype, as a fused multiply-add does (computed in a wider type)."""
    wider = np.float64 if np.dtype(dtype).itemsize < 8 else np.longdouble
    return (np.asarray(p, wider) * np.asarray(q, wider) + np.asarray(r, wider)).astype(dtype)


def _lane_sum(u: np.ndarray, v: np.ndarray, lanes: int) -> np.ndarray:
    """Σ u · v along each row as PyTorch's vectorised reductions add it: ``lanes`` running sums, one
    per vector lane, the last partial vector's addition fused (as the compiled kernel does), then the
    lanes halved pairwise. A row shorter than a vector is added left to right."""
    rows, n = u.shape
    if n < lanes:
        return np.cumsum(u * v, axis=1, dtype=u.dtype)[:, -1:]
    full = n - n % lanes
    acc = u[:, :lanes] * v[:, :lanes]
    for k in range(lanes, full, lanes):
        acc = acc + u[:, k : k + lanes] * v[:, k : k + lanes]
    if full < n:  # the kernel's last, partial vector: only its first n − full lanes change
        tail = n - full
        acc[:, :tail] = _fused(u[:, full:], v[:, full:], acc[:, :tail], u.dtype)
    step, lane = lanes // 2, np.arange(lanes)
    while step:  # the horizontal reduction: add the lane `step` away, halving each time
        acc = acc + acc[:, lane ^ step]
        step //= 2
    return acc[:, :1]


def layer_norm_backward_pytorch_form(x, grad_output, mean, rstd, gamma=None, dtype=np.float32, lanes: int = 8):
    """dx arranged as PyTorch's CPU kernel arranges it, every operation rounded to ``dtype``.

    From x, dy and the per-row ``mean`` and ``rstd`` the forward pass saved: ``ds`` and ``db`` are
    reduced in ``lanes`` vector lanes (``vector_lanes``), and the three multiply-adds the compiled
    kernel fuses are fused here too (each rounded once), so on an x86 build the float32 result can
    match ``torch.ops.aten.native_layer_norm_backward`` bit for bit. x is a matrix (rows × n).
    Introduced in notebook 11.
    """
    dtype = np.dtype(dtype).type
    values = np.asarray(x, dtype=dtype)
    if values.ndim != 2:
        raise ValueError(f"Give x as a matrix (rows × features); got shape {values.shape}.")
    upstream = np.asarray(grad_output, dtype=dtype)
    if upstream.shape != values.shape:
        raise ValueError(f"grad_output must have x's shape {values.shape}; got {upstream.shape}.")
    rows, n = values.shape
    mu = np.asarray(mean, dtype=dtype).reshape(rows, 1)
    a = np.asarray(rstd, dtype=dtype).reshape(rows, 1)
    scale = per_feature(gamma, "gamma", n, default=1.0, dtype=np.float64).astype(dtype)
    every_row = np.broadcast_to(scale, values.shape)
    if gamma is None:  # the kernel's path without γ: ds = Σ dy · x, db = Σ dy
        ds, db = _lane_sum(upstream, values, int(lanes)), _lane_sum(upstream, every_row, int(lanes))
    else:  # ds = Σ (dy · x) · γ, db = Σ dy · γ
        ds, db = _lane_sum(upstream * values, every_row, int(lanes)), _lane_sum(upstream, every_row, int(lanes))
    one_over_n = dtype(1) / dtype(n)
    b = _fused(db, mu, -ds, dtype) * a * a * a * one_over_n
    c = _fused(-b, mu, -(db * a * one_over_n), dtype)
    return _fused(b, values, (a * upstream) * scale, dtype) + c


def relative_error(values, reference) -> float:
    """Largest |values − reference| over the largest |reference|: one number for a whole array."""
    reference = np.asarray(reference, dtype=np.float64)
    return float(np.max(np.abs(np.asarray(values, dtype=np.float64) - reference)) / np.max(np.abs(reference)))


def sequential_sum(values, dtype=np.float32) -> np.ndarray:
    """Column sums with one running sum per column, adding one row after another, each addition
    rounded to ``dtype`` (what one thread does when it accumulates dβ = Σ dy row by row)."""
    values = np.asarray(values)
    if values.ndim != 2 or values.shape[0] == 0:
        raise ValueError(f"Give a matrix with at least one row (tokens × features); got shape {values.shape}.")
    return np.cumsum(values.astype(dtype, copy=False), axis=0, dtype=dtype)[-1]


def blocked_sum(values, block_rows: int, dtype=np.float32) -> tuple[np.ndarray, np.ndarray]:
    """Column sums in two steps: each block of ``block_rows`` rows is summed sequentially into its own
    partial sum, then the partial sums are added, all in ``dtype``. Returns ``(partials, total)``."""
    values = np.asarray(values)
    if values.ndim != 2 or values.shape[0] == 0:
        raise ValueError(f"Give a matrix with at least one row (tokens × features); got shape {values.shape}.")
    if int(block_rows) != block_rows or block_rows < 1:
        raise ValueError(f"block_rows must be a whole number of at least 1; got {block_rows!r}.")
    block_rows = int(block_rows)
    partials = np.stack([sequential_sum(values[s : s + block_rows], dtype) for s in range(0, len(values), block_rows)])
    return partials, sequential_sum(partials, dtype)
