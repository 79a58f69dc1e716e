"""What notebook 12 times, and what each of those calls costs per value: one table, next to the code.

``benchmarks/bench_speed.py`` times the calls below; ``COUNTS`` says, for each implementation, how
many floating-point operations its code does per value of a rows × features float32 matrix and how
many bytes per value it must at least read and write (γ, β and the one-per-row statistics are
negligible next to a 1024-wide row). The roofline (``timing.intensity``), the achieved GFLOP/s and
the notebook's prose all read this table, so the count is always the timed code's.

The counts of PyTorch's kernels are read off its CPU source, ``aten/src/ATen/native/cpu/`` (torch
2.x): ``layer_norm_kernel.cpp`` and ``moments_utils.h`` for LayerNorm, ``layer_norm_backward_frame``
in the same file for the backward pass. Nothing here imports torch: the calls take it as an argument.

Introduced in notebook 12.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

EPS = 1e-5


@dataclass(frozen=True)
class Count:
    """Per value: floating-point operations, bytes read and bytes written (float32), and where from."""

    flops: int
    read: int
    written: int
    how: str

    @property
    def bytes(self) -> int:
        return self.read + self.written

    @property
    def intensity(self) -> float:
        """Flops per byte moved."""
        return self.flops / self.bytes


COUNTS = {
    "copy, numpy": Count(0, 4, 4, "np.copyto: read x, write y"),
    "copy, torch": Count(0, 4, 4, "Tensor.copy_: read x, write y"),
    "numpy two-pass, out=": Count(
        7, 4, 4, "Σx: 1; x − μ: 1; Σ(x − μ)² (einsum): 2; × 1/σ: 1; × γ: 1; + β: 1 (every step a pass of its own)"
    ),
    "numpy two-pass, new arrays": Count(
        7, 4, 4, "helpers.core.formula: Σx: 1; x − μ: 1; (x − μ)²: 1; Σ: 1; ÷ σ: 1; then × γ: 1, + β: 1"
    ),
    "native_layer_norm.out": Count(
        10, 4, 4, "PyTorch's forward kernel (10 flops) into a new tensor, then copy_ into out: a copy more"
    ),
    "torch LayerNorm": Count(
        10,
        4,
        4,
        "RowwiseMoments' Welford update, δ = x − m1, m1 += δ·c, m2 += δ·(x − m1): 6; then "
        "(x + (−μ))·rstd·γ + β: 4 (layer_norm_kernel.cpp, moments_utils.h)",
    ),
    "torch backward": Count(
        15,
        8,
        4,
        "layer_norm_backward_frame: dγ += dy·(a·x + b): 4; dβ += dy: 1; ds = Σ dy·x·γ: 3; db = Σ dy·γ: 2; "
        "dx = a·dy·γ + b·x + c: 5",
    ),
    "sum only, torch": Count(1, 4, 0, "torch.sum(x, dim=-1, out=): one add per value; one number per row out"),
    "multiply-add, torch": Count(2, 4, 4, "torch.addcmul(β, x, γ, out=): x·γ + β"),
    "F.rms_norm": Count(
        4, 4, 4, "x²: 1; mean: 1; × rstd: 1; × γ: 1, each a separate operator and pass over the tensor on the CPU"
    ),
}


def base_name(implementation: str) -> str:
    """The table's key for a result's implementation: the name without its thread count."""
    return implementation.split(" (")[0]


def count(implementation: str) -> Count:
    """The ``COUNTS`` entry of an implementation (a plain-words KeyError if it has none)."""
    key = base_name(implementation)
    if key not in COUNTS:
        raise KeyError(f"No flop and byte count for {implementation!r}; COUNTS has {', '.join(COUNTS)}.")
    return COUNTS[key]


# ---- the timed code ------------------------------------------------------------------------------


def numpy_out(x, out, gamma, beta):
    """Two-pass in numpy with ``out=`` wherever numpy has it (only the per-row statistics are new)."""
    mean = x.mean(axis=-1, keepdims=True)
    np.subtract(x, mean, out=out)
    var = np.einsum("ij,ij->i", out, out)[:, None] / np.float32(x.shape[-1])
    np.multiply(out, 1 / np.sqrt(var + np.float32(EPS)), out=out)
    np.multiply(out, gamma, out=out)
    np.add(out, beta, out=out)
    return out


def numpy_formula(x, gamma, beta):
    """helpers.core.formula.layer_norm_forward, then γ and β: clear, but every step is a new array."""
    from helpers.core.formula import layer_norm_forward

    return layer_norm_forward(x, EPS)[0] * gamma + beta


def torch_forward_out(torch, x, gamma, beta, y, mean, rstd):
    """``native_layer_norm.out``: a wrapper PyTorch generates; it computes into new tensors and then
    copies them into the outputs (torch.profiler lists the copy_ calls), so it costs a copy more."""
    torch.ops.aten.native_layer_norm.out(x, [x.shape[-1]], gamma, beta, EPS, out0=y, out1=mean, out2=rstd)
    return y


def torch_forward(torch, x, gamma, beta):
    """``F.layer_norm``: PyTorch's CPU kernel, writing into a tensor it allocates."""
    return torch.nn.functional.layer_norm(x, (x.shape[-1],), gamma, beta, EPS)


def torch_backward(torch, dy, x, mean, rstd, gamma, beta):
    """The backward kernel itself, all three gradients (dx, dγ, dβ) into tensors it allocates."""
    return torch.ops.aten.native_layer_norm_backward(dy, x, [x.shape[-1]], mean, rstd, gamma, beta, [True, True, True])


def torch_rms_norm(torch, x, gamma):
    """``F.rms_norm``: on the CPU in torch 2.x a composite of separate operators (pow, mean, rsqrt, mul)."""
    return torch.nn.functional.rms_norm(x, (x.shape[-1],), gamma, EPS)
