"""PyTorch side by side with ``helpers``: the lesson's module in our own words, and comparisons.

Imports torch, so ``import helpers`` does not import this module; use ``import helpers.reference``.
Introduced in notebook 08.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from helpers.core.layernorm import DEFAULT_EPS, layer_norm
from helpers.core.tolerance import FLOAT64_NOISE, agree_in_float64

CLOSE_TOLERANCE = FLOAT64_NOISE  # float64 results this near each other agree up to rounding noise


class LessonLayerNorm(nn.Module):
    """LayerNorm as the lesson writes it: a learnable scale (γ) and shift (β) per feature.

    The statistics are taken over the last axis with the biased variance (divide by n), and eps
    sits inside the square root, exactly like ``torch.nn.LayerNorm``. Introduced in notebook 08.
    """

    def __init__(self, features: int, eps: float = DEFAULT_EPS):
        super().__init__()
        self.eps = eps
        self.scale = nn.Parameter(torch.ones(features))  # γ, starts at 1
        self.shift = nn.Parameter(torch.zeros(features))  # β, starts at 0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(dim=-1, keepdim=True)
        variance = x.var(dim=-1, keepdim=True, unbiased=False)
        normalised = (x - mean) / torch.sqrt(variance + self.eps)
        return self.scale * normalised + self.shift


class UnbiasedVarianceLayerNorm(LessonLayerNorm):
    """The classic mistake: ``x.var()``'s default divides by n − 1, which LayerNorm does not.

    Introduced in notebook 08.
    """

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        mean = x.mean(dim=-1, keepdim=True)
        variance = x.var(dim=-1, keepdim=True)  # unbiased by default: the mistake
        normalised = (x - mean) / torch.sqrt(variance + self.eps)
        return self.scale * normalised + self.shift


@dataclass(frozen=True)
class Agreement:
    """How one implementation's output compares with the reference's."""

    name: str
    exact: bool
    close: bool
    max_difference: float
    expected_to_match: bool = True

    @property
    def as_expected(self) -> bool:
        return self.close == self.expected_to_match


def compare(name: str, result, reference, expected_to_match: bool = True) -> Agreement:
    """Exact, close (within 1e-12) and largest difference of ``result`` against ``reference``."""
    ours = _to_numpy(result)
    theirs = _to_numpy(reference)
    if ours.shape != theirs.shape:
        raise ValueError(f"{name}: shape {ours.shape} does not match the reference's {theirs.shape}.")
    difference = float(np.max(np.abs(ours - theirs))) if ours.size else 0.0
    return Agreement(
        name, bool(np.array_equal(ours, theirs)), agree_in_float64(difference), difference, expected_to_match
    )


@dataclass(frozen=True)
class ComparisonReport:
    """Every implementation run on one matrix, compared with ``torch.nn.LayerNorm``."""

    shape: tuple
    eps: float
    reference_name: str
    rows: tuple

    def __str__(self) -> str:
        from helpers.display import comparison_text

        return comparison_text(self)

    __repr__ = __str__

    def _repr_html_(self) -> str:
        from helpers.display import comparison_html

        return comparison_html(self)


def compare_implementations(x, eps: float = DEFAULT_EPS) -> ComparisonReport:
    """Run LayerNorm four ways on ``x`` (float64) and the unbiased-variance mistake, against torch.

    The reference is ``torch.nn.LayerNorm`` with its default γ = 1 and β = 0. "exact" means bit-for-bit
    equal; implementations that add in another order differ in the last bit (and which ones do can
    depend on the processor), so "close" is the check that matters. Introduced in notebook 08.
    """
    values = np.asarray(x, dtype=np.float64)
    tensor = torch.from_numpy(values.copy())
    features = values.shape[-1]
    with torch.no_grad():
        reference = nn.LayerNorm(features, eps=eps, dtype=torch.float64)(tensor)
        rows = (
            compare("lesson's module (LessonLayerNorm)", LessonLayerNorm(features, eps).double()(tensor), reference),
            compare(
                "torch.nn.functional.layer_norm", nn.functional.layer_norm(tensor, (features,), eps=eps), reference
            ),
            compare("helpers.layer_norm (numpy)", layer_norm(values, eps=eps), reference),
            compare(
                "unbiased variance (the classic mistake)",
                UnbiasedVarianceLayerNorm(features, eps).double()(tensor),
                reference,
                expected_to_match=False,
            ),
        )
    return ComparisonReport(tuple(values.shape), eps, "torch.nn.LayerNorm", rows)


def _to_numpy(value) -> np.ndarray:
    if isinstance(value, torch.Tensor):
        return value.detach().cpu().double().numpy()
    return np.asarray(value, dtype=np.float64)
