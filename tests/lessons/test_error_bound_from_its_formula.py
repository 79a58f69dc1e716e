"""notebook 09's worst-case output error bound, worked out from its docstring's formula.

helpers.lessons.numerics.errors.output_error_bound: from the unit roundoff u and n features, with Higham's
γ_k = k·u / (1 − k·u) (the relative error bound of k roundings in a row): the mean is off by at most
δμ = γₙ·mean|x|; a two-pass variance lies in σ²(1 − γₙ₊₃) … (σ² + δμ²)(1 + γₙ₊₃); the output differs by at
most max|x − μ|·|r̂ − r| + (δμ + u·max|x − μ̂|)·r̂, r̂ between 1/√(σ²_hi + ε) and 1/√(σ²_lo + ε), widened by
γ₄. Worked out here in exact fractions, for a float16 row, where k·u is large enough that 1 − k·u and
1 + k·u are far apart (k·u ≈ 0.03 for 64 values).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from helpers.lessons.numerics.errors import output_error_bound

EPS = 1e-5


def gamma(k: int, u: Fraction) -> Fraction:
    return k * u / (1 - k * u)


def sqrt(value: Fraction) -> float:
    return float(value) ** 0.5


def two_pass_bound(row, u: Fraction) -> float:
    x = [Fraction(float(v)) for v in row]
    n = len(x)
    mean = sum(x) / n
    variance = sum((v - mean) ** 2 for v in x) / n
    spread = max(abs(v - mean) for v in x)
    d_mean = gamma(n, u) * sum(abs(v) for v in x) / n
    low = variance * (1 - gamma(n + 3, u))
    high = (variance + d_mean**2) * (1 + gamma(n + 3, u))
    eps = Fraction(EPS)
    r = 1 / sqrt(variance + eps)
    r_high = float(1 + gamma(4, u)) / sqrt(low + eps)
    r_low = float(1 - gamma(4, u)) / sqrt(high + eps)
    return float(spread) * max(r_high - r, r - r_low) + float(d_mean + u * (spread + d_mean)) * r_high


@pytest.mark.parametrize(("dtype", "u"), [("float16", Fraction(1, 2**11)), ("float32", Fraction(1, 2**24))])
@pytest.mark.parametrize("n", [4, 64])
def test_the_two_pass_bound_is_the_docstrings_formula_with_higham_gamma(dtype, u, n):
    row = np.round(np.random.default_rng(n).normal(3.0, 1.0, n), 2)
    assert output_error_bound(row, "two-pass", dtype, EPS) == pytest.approx(two_pass_bound(row, u), rel=1e-9)
