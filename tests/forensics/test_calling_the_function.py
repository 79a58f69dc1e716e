"""helpers.forensics.call: calling a learner's numpy or torch LayerNorm safely (notebook 13).

What the docstrings promise: a problem becomes one plain sentence naming the matrix it was called on,
a torch module (and only torch code) is handed tensors, a function that refuses numpy gets a tensor
of the same type, the types it returns are recorded, and the time limit is shared by every call.
"""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

from helpers.forensics.call import Caller, CallProblem, as_numbers, feature_count, module_dtype

torch = pytest.importorskip("torch")

X = np.array([[1.0, 2.0, 4.0], [0.5, -1.0, 3.0]])  # 2 tokens × 3 features: the shape a sentence names


def layer_norm(x):
    d = x - x.mean(axis=-1, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=-1, keepdims=True) + 1e-5)


def problem_of(call, *args) -> str:
    with pytest.raises(CallProblem) as raised:
        call(*args)
    return str(raised.value)


# --- Parameters: numbers, or None --------------------------------------------------------------


def test_a_parameter_is_read_as_float64_numbers():
    assert as_numbers([1, 2, 3]).dtype == np.float64
    assert as_numbers(torch.ones(3, dtype=torch.float16)).dtype == np.float64
    np.testing.assert_array_equal(as_numbers(2), np.array(2.0))


@pytest.mark.parametrize(
    "value", ["weights", [1.0, np.nan], [np.inf, 1.0], None], ids=["text", "NaN", "infinity", "None"]
)
def test_a_parameter_that_is_not_finite_numbers_is_none(value):
    assert as_numbers(value) is None


class Described:
    """An object that says how many features it is built for, as a LayerNorm module does."""

    def __init__(self, **attributes):
        self.__dict__.update(attributes)

    def __call__(self, x):
        return layer_norm(x)


@pytest.mark.parametrize(
    "attributes, features",
    [
        (dict(normalized_shape=(5,)), 5),
        (dict(normalized_shape=[2, 7]), 7),
        (dict(normalized_shape=6), 6),
        (dict(normalized_shape=(5,), weight=np.ones(3)), 5),  # normalized_shape first
        (dict(weight=np.ones(6)), 6),
        (dict(gamma=torch.ones(2)), 2),
        (dict(weight=np.ones(1)), None),  # one γ for every feature says nothing about their number
        (dict(weight=np.ones((2, 3))), None),  # not a γ per feature
        (dict(normalized_shape=()), None),
        (dict(normalized_shape=("x",)), None),
        (dict(normalized_shape=(4.0,)), None),
        (dict(), None),
    ],
    ids=lambda v: repr(v) if not isinstance(v, dict) else ",".join(f"{k}={v[k]!r}" for k in v) or "nothing",
)
def test_the_feature_count_is_what_the_function_says(attributes, features):
    assert feature_count(Described(**attributes)) == features


# --- What a problem reads as ---------------------------------------------------------------------


def test_something_that_is_not_a_function_is_named_by_its_type():
    with pytest.raises(CallProblem) as raised:
        Caller(3, None)
    assert str(raised.value) == (
        "It is not a function: got int; pass something to call, like a function or a torch module."
    )


def test_a_wrong_shape_is_one_sentence_naming_the_matrix():
    assert problem_of(Caller(lambda x: x.mean(axis=-1), None), X) == (
        "It returned an array of shape (2,) for a 2 × 3 float64 matrix; a LayerNorm returns the shape it was given."
    )


def test_a_long_error_message_is_cut_to_its_first_line():
    def fails(x):
        raise ValueError("shapes do not match\n  in line 3 of the learner's cell")

    assert problem_of(Caller(fails, None), X.astype(np.float32)) == (
        "Calling it on a 2 × 3 float32 matrix raised ValueError: shapes do not match"
    )


@pytest.mark.parametrize("stop", [SystemExit, KeyboardInterrupt])
def test_a_stop_raised_by_the_function_is_passed_on_as_it_is(stop):
    def stops(x):
        raise stop("the learner's own stop")

    with pytest.raises(stop):
        Caller(stops, None)(X)


def test_progress_is_told_which_matrix_each_call_gets():
    told = []
    call = Caller(lambda x: x, None)
    call.progress = told.append
    call(X)
    call(X.astype(np.float16))
    call(X, "bfloat16")
    assert told == ["a 2 × 3 float64 matrix", "a 2 × 3 float16 matrix", "a 2 × 3 bfloat16 matrix"]


# --- The time limit ------------------------------------------------------------------------------


def test_a_time_limit_under_a_second_lets_a_quick_call_run():
    np.testing.assert_allclose(Caller(layer_norm, 0.5)(X), layer_norm(X))


def test_once_the_shared_time_is_spent_the_function_is_not_called_again():
    calls = []
    call = Caller(lambda x: calls.append(x) or x, 0.0)
    assert problem_of(call, X) == "It did not finish within 0 s on a 2 × 3 float64 matrix; it may loop forever."
    assert calls == []


def test_a_timed_call_runs_in_a_thread_named_for_the_forensics():
    """A call still running after its limit shows in threading.enumerate() under this name."""
    names = []
    Caller(lambda x: names.append(threading.current_thread().name) or x, 5.0)(X)
    assert names == ["helpers.forensics.fingerprints call"]


def test_zero_over_zero_is_measured_as_nan_whatever_numpys_error_settings():
    def divides(x):
        return np.divide(x - x, x - x)  # numpy's division, on a tensor too

    with np.errstate(all="raise"):
        out = Caller(divides, None)(X)
    assert np.isnan(out).all()


# --- numpy or torch: what the function is handed -------------------------------------------------


def test_a_torch_module_is_handed_tensors_even_if_it_takes_numpy():
    seen = []

    class Passes(torch.nn.Module):  # the learner's own module, straight from nn.Module
        def forward(self, x):
            seen.append(type(x).__name__)
            return x

    module = Passes()
    np.testing.assert_array_equal(Caller(module, None)(X), X)
    assert seen == ["Tensor"]


def test_a_numpy_class_named_module_is_handed_numpy():
    seen = []

    class Module:  # not torch's
        def __call__(self, x):
            seen.append(type(x).__name__)
            return layer_norm(x)

    call = Caller(Module(), None)
    np.testing.assert_allclose(call(X), layer_norm(X))
    assert seen == ["ndarray"] and module_dtype(Module()) is None


def test_a_torch_module_that_cannot_be_copied_is_called_as_it_is():
    class Uncopyable(torch.nn.Module):
        def forward(self, x):
            return torch.nn.functional.layer_norm(x, x.shape[-1:], eps=1e-5)

        def __deepcopy__(self, memo):
            raise TypeError("cannot copy this module")

    np.testing.assert_allclose(Caller(Uncopyable(), None)(X), layer_norm(X), rtol=1e-12)


def torch_only(received):
    """A function that refuses numpy arrays (torch.nn.functional needs tensors), recording what it gets."""

    def fn(x):
        received.append(x.dtype if isinstance(x, torch.Tensor) else type(x).__name__)
        return torch.nn.functional.layer_norm(x, x.shape[-1:], eps=1e-5)

    return fn


def test_a_function_that_refuses_numpy_gets_a_tensor_of_the_same_type_from_then_on():
    received = []
    call = Caller(torch_only(received), None)
    np.testing.assert_allclose(call(X), layer_norm(X), rtol=1e-12)
    call(X.astype(np.float32))
    assert received == ["ndarray", torch.float64, torch.float32]  # numpy once, then tensors only
    assert call.output_types == {"float64": "float64", "float32": "float32"}
    assert call.output_dtypes == {"float64", "float32"}


def test_a_bfloat16_matrix_is_sent_as_a_bfloat16_tensor():
    received = []
    call = Caller(torch_only(received), None)
    call(X, "bfloat16")
    assert received == [torch.bfloat16] and call.output_types == {"bfloat16": "bfloat16"}


def test_a_bfloat16_matrix_reaches_numpy_code_as_a_tensor_when_torch_is_loaded():
    received = []

    def numpy_code(x):
        received.append(x.dtype)
        return x - x.mean(axis=-1, keepdims=True)  # works on tensors too

    call = Caller(numpy_code, None)
    call(X, "bfloat16")
    assert received == [torch.bfloat16] and call.output_types == {"bfloat16": "bfloat16"}


def test_a_function_that_failed_everywhere_before_still_gets_float64_tensors():
    """Written for 3 features: on 4 it refuses numpy and every tensor; on 3 it is given float64, not float32."""
    received = []
    gamma = torch.ones(3, dtype=torch.float64)
    fn = torch_only(received)

    def three_features(x):
        return gamma * fn(x)

    call = Caller(three_features, None)
    assert problem_of(call, np.ones((2, 4))).startswith("Calling it on a 2 × 4 float64 matrix raised TypeError")
    received.clear()
    call(X)
    assert received[-1] == torch.float64 and call.output_types == {"float64": "float64"}


def test_the_types_returned_are_recorded_and_a_list_has_none():
    call = Caller(lambda x: x.astype(np.float32), None)
    call(X)
    assert call.output_types == {"float64": "float32"} and call.output_dtypes == {"float32"}
    listing = Caller(lambda x: x.tolist(), None)
    np.testing.assert_array_equal(listing(X), X)
    assert listing.output_types == {"float64": None} and listing.output_dtypes == set()


def test_without_torch_a_bfloat16_matrix_is_refused_in_one_sentence(monkeypatch):
    """Where torch was never imported, numpy code is not handed a bfloat16 tensor (torch is not imported for it)."""
    monkeypatch.delitem(sys.modules, "torch")
    assert (
        problem_of(Caller(lambda x: x, None), X, "bfloat16") == "numpy has no bfloat16 type, and it is not torch code."
    )
    assert "torch" not in sys.modules
