"""A result is a number or it is named, and the one-pass variance is named in every step and precision:
the scalar steps, the matrix step and the module, in float32 and in float64, with the input that shows it."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.exercises import check
from helpers.checking.reading import numbers_of


def _ln(x, eps):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(((x - mean) ** 2).mean(axis=-1, keepdims=True) + eps)


def _one_pass(x, dtype=None):
    x = np.asarray(x, dtype=dtype)
    return (x * x).mean(axis=-1, keepdims=True) - x.mean(axis=-1, keepdims=True) ** 2


@pytest.mark.parametrize("dtype", [None, np.float64], ids=["its-own-precision", "upcast-to-float64"])
@pytest.mark.parametrize(
    "step, make",
    [
        ("variance", lambda d: lambda r: float(_one_pass(r, d)[0])),
        ("std", lambda d: lambda r, eps: float(np.sqrt(_one_pass(r, d)[0] + eps))),
        ("normalise", lambda d: lambda r, eps: (r - np.mean(r)) / np.sqrt(_one_pass(r, d) + eps)),
        ("layer_norm", lambda d: lambda x, eps: (x - x.mean(-1, keepdims=True)) / np.sqrt(_one_pass(x, d) + eps)),
    ],
)
def test_the_one_pass_variance_is_named_with_the_input_that_shows_it(step, make, dtype):
    result = check(step, make(dtype))
    assert not result.passed and result.mistake == "one-pass", result
    assert "far from zero" in result.case
    if dtype is np.float64:  # computed in float64: only the row at 10⁸ shows it
        assert "float64" in result.case and "100,000,000" in result.case, result


def _module(one_pass=False, upcast=False, shape=lambda n: (n,)):
    torch = pytest.importorskip("torch")
    from torch import nn

    class Norm(nn.Module):
        def __init__(self, n, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.gamma = nn.Parameter(torch.ones(shape(n)))
            self.beta = nn.Parameter(torch.zeros(shape(n)))

        def forward(self, x):
            y = x.double() if upcast else x
            mean = y.mean(-1, keepdim=True)
            var = (y * y).mean(-1, keepdim=True) - mean**2 if one_pass else ((y - mean) ** 2).mean(-1, keepdim=True)
            return (self.gamma * (y - mean) / torch.sqrt(var + self.eps) + self.beta).to(x.dtype)

    return Norm


@pytest.mark.parametrize("upcast", [False, True])
def test_a_one_pass_module_is_named_in_float32_and_float64(upcast):
    result = check("module", _module(one_pass=True, upcast=upcast))
    assert not result.passed and result.mistake == "one-pass", result
    assert ("float64" if upcast else "float32") in result.case and "far from zero" in result.case


def test_a_module_with_scalar_gamma_and_beta_is_told_so_not_that_it_has_no_parameters():
    for module in (_module(shape=lambda n: ()), _module(shape=lambda n: ())(3)):
        result = check("module", module)
        assert not result.passed and result.mistake == "scalar-gamma", result
        assert "no learnable" not in result.diagnosis and "shape ()" in result.diagnosis


def test_a_module_with_gamma_of_shape_1_n_passes_and_is_told_why():
    result = check("module", _module(shape=lambda n: (1, n)))
    assert result.passed, result
    assert "(1, n)" in result.diagnosis and "broadcasts" in result.diagnosis


NOT_NUMBERS = {
    "text in a list": lambda y: [str(v) for v in np.ravel(y)],
    "an array of text": lambda y: np.asarray(y).astype(str),
    "booleans": lambda y: np.asarray(y) > 0,
    "a ragged list": lambda y: [[1.0, 2.0], [3.0]],
    "None": lambda y: None,
    "a dict": lambda y: {"out": y},
    "an object": lambda y: object(),
    "complex numbers": lambda y: np.asarray(y) + 0j,
    "a list holding None": lambda y: [None] * np.size(y),
}


@pytest.mark.parametrize("kind", sorted(NOT_NUMBERS))
@pytest.mark.parametrize("step", ["mean", "variance", "std", "normalise", "scale_shift", "layer_norm"])
def test_what_is_not_numbers_is_named_in_every_step(step, kind):
    right = {
        "mean": lambda r: np.mean(r),
        "variance": lambda r: np.var(r),
        "std": lambda r, eps: np.sqrt(np.var(r) + eps),
        "normalise": _ln,
        "scale_shift": lambda x, g, b: g * x + b,
        "layer_norm": _ln,
    }[step]
    wrong = NOT_NUMBERS[kind]
    result = check(step, lambda *args: wrong(right(*args)))
    assert not result.passed, result
    assert "right on" not in result.diagnosis and result.diagnosis.count("\n") == 0


def test_a_tensor_that_requires_grad_is_read_through_detach():
    torch = pytest.importorskip("torch")
    result = check("normalise", lambda r, eps: torch.tensor(_ln(r, eps), requires_grad=True))
    assert result.passed, result
    result = check("layer_norm", lambda x, eps: list(torch.tensor(_ln(x, eps), requires_grad=True)))
    assert result.passed, result
    wrong = check("normalise", lambda r, eps: torch.tensor(_ln(r, eps) * 2, requires_grad=True))
    assert not wrong.passed and wrong.got, wrong


@pytest.mark.parametrize(
    "value",
    [object(), [object()], "1.5", b"1", [[1], [2, 3]], {1, 2}, float("nan"), [np.nan], np.array([1 + 2j]), True],
)
def test_reading_a_result_never_raises(value):
    array, problem = numbers_of(value)
    assert (array is None) != (problem is None)
