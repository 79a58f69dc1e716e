"""``check`` never raises, whatever the learner's function returns or raises (fuzzed with Hypothesis),
and what is not numbers never gets ✓."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.exercises import check

from conftest import examples

hypothesis = pytest.importorskip("hypothesis")
torch = pytest.importorskip("torch")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

STEPS = ("mean", "variance", "std", "normalise", "scale_shift", "layer_norm")


class Awkward:
    """An object whose every conversion raises."""

    def __array__(self, *args, **kwargs):
        raise RuntimeError("no array here")

    def __float__(self):
        raise RuntimeError("no float here")

    def __len__(self):
        raise RuntimeError("no length here")

    def __str__(self):
        raise RuntimeError("no str here")

    def __repr__(self):  # Hypothesis prints its examples: the raising repr is tested below, without it
        return "Awkward()"


class NoRepr(Awkward):
    def __repr__(self):
        raise RuntimeError("no repr here")


class Sneaky(float):
    """A float subclass whose comparisons raise."""

    def __eq__(self, other):
        raise RuntimeError("no comparing")

    __hash__ = float.__hash__


def tensors():
    dtypes = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64, torch.bool, torch.complex64]
    return st.builds(
        lambda shape, dtype, grad: torch.zeros(shape, dtype=dtype).requires_grad_(grad and dtype.is_floating_point),
        st.lists(st.integers(0, 4), max_size=3).map(tuple),
        st.sampled_from(dtypes),
        st.booleans(),
    )


def arrays():
    dtypes = ["float32", "float64", "int8", "bool", "complex128", "U3", "O", "datetime64[s]", "float16"]
    return st.builds(
        lambda shape, dtype: np.zeros(shape, dtype=dtype),
        st.lists(st.integers(0, 4), max_size=3).map(tuple),
        st.sampled_from(dtypes),
    )


leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.complex_numbers(),
    st.text(max_size=5),
    st.binary(max_size=5),
    st.just(Awkward()),
    st.just(Sneaky(1.0)),
    st.just(object()),
    st.just(print),
    arrays(),
    tensors(),
)
values = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.tuples(inner, inner), st.dictionaries(st.text(max_size=2), inner, max_size=2)
    ),
    max_leaves=8,
)
errors = st.sampled_from([ValueError("bad"), ZeroDivisionError(), SystemExit(3), KeyboardInterrupt(), RecursionError()])


@settings(max_examples=examples(300, fast=60), deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(step=st.sampled_from(STEPS), value=values, error=st.one_of(st.none(), errors))
def test_check_never_raises_and_gives_no_check_mark_to_what_is_not_numbers(step, value, error):
    def learner(*args):
        if error is not None:
            raise error
        return value

    result = check(step, learner)
    assert isinstance(result.diagnosis, str) and result.diagnosis
    assert not result.passed
    repr(result), result._repr_html_()


@settings(max_examples=examples(60, fast=15), deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(value=values)
def test_the_module_check_never_raises_whatever_forward_returns(value):
    from torch import nn

    class Odd(nn.Module):
        def __init__(self, n, eps=1e-5):
            super().__init__()
            self.gamma, self.beta = nn.Parameter(torch.ones(n)), nn.Parameter(torch.zeros(n))

        def forward(self, x):
            return value

    result = check("module", Odd)
    assert not result.passed and result.diagnosis


@pytest.mark.parametrize("value", [NoRepr(), [NoRepr()], (1.0, NoRepr())])
@pytest.mark.parametrize("step", STEPS)
def test_an_object_whose_repr_raises_is_named_all_the_same(step, value):
    result = check(step, lambda *args: value)
    assert not result.passed and result.diagnosis
    repr(result), result._repr_html_()


@pytest.mark.parametrize("step", [Awkward(), NoRepr()])
def test_a_step_whose_text_cannot_be_read_gets_a_sentence(step):
    result = check(step, lambda row: 0.0)
    assert not result.passed and "exercise" in result.diagnosis, result
