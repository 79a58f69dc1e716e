"""The steps of one fingerprint (helpers/forensics/fingerprints.py), each from its module docstring: which
name it carries, which widths it tries, the sentence a function that cannot be measured gets, the type it
computes in and why, the state probes' verdict, and the numbers it keeps in ``Measurements``.

Every function probed here is a few lines of numpy written out below; the expected values are what the
docstring says, not what the code happens to return. ``time_limit=None`` runs the probes in this process;
the tests that need the forked child (the time limit, a function that ends the process) say "needs fork".
"""

from __future__ import annotations

import numpy as np
import pytest
from patience import time_limit_s

import helpers.forensics.fingerprints as fingerprints
from helpers.forensics.call import Caller
from helpers.forensics.fingerprints import fingerprint
from helpers.forensics.probes import base_matrix

needs_fork = pytest.mark.skipif(not fingerprints.ISOLATE, reason="needs fork")

WHOLE_MATRIX = (1, 2, 3, 4, 5, 6, 7)  # the 7 tokens of the ordinary 7 × 4 matrix, counted from 1
ALL_FEATURES = (1, 2, 3, 4)


def layer_norm(x, eps=1e-5):
    d = x - x.mean(axis=-1, keepdims=True)
    return d / np.sqrt((d * d).mean(axis=-1, keepdims=True) + eps)


def float32_output(x):
    return layer_norm(x).astype(np.float32)  # computes in float64, returns float32


def rounds_to_float16(x):
    return layer_norm(x.astype(np.float16).astype(np.float64))  # float64 output, float16 inputs


def rounds_to_float32(x):
    return layer_norm(x.astype(np.float32).astype(np.float64))


def whole_matrix_float32(x):
    x = x.astype(np.float32)
    return ((x - x.mean()) / x.std()).astype(np.float32)


def position_dependent(x):
    return layer_norm(x) + 1e-5 * np.arange(x.shape[0])[:, None]  # a token's output depends on where it sits


class DriftsAfterReversedRows:
    """Keeps state: once it has been given some earlier matrix's rows in reverse order, every later output
    is 1 % larger (the call that sees the reversed rows itself is still a LayerNorm's)."""

    def __init__(self):
        self.seen, self.scale = [], 1.0

    def __call__(self, x):
        out = self.scale * layer_norm(x)
        if any(x.shape == s.shape and not np.array_equal(x, s) and np.array_equal(x[::-1], s) for s in self.seen):
            self.scale = 1.01
        self.seen.append(x.copy())
        return out


class DriftsAfterALargeValue:
    """Keeps state: a LayerNorm until it has seen a value above 100 (the ordinary matrix has none; later
    probes do), 1 % larger after."""

    def __init__(self):
        self.scale = 1.0

    def __call__(self, x):
        out = self.scale * layer_norm(x)
        if np.abs(x).max() > 100:
            self.scale = 1.01
        return out


class Unnamed:
    """A callable with no __name__ of its own: named after its class."""

    def __call__(self, x):
        return layer_norm(x)


def _bfloat16(v):
    mantissa, exponent = np.frexp(v)
    return np.ldexp(np.round(mantissa * 256) / 256, exponent)


def column_wise_bfloat16(x):
    """A column-wise LayerNorm that rounds every step to bfloat16, summing the tokens one by one: reversing
    the rows reorders its sums, which moves its output by a few of bfloat16's roundings."""
    x = _bfloat16(x)
    total = 0.0
    for row in x:
        total = _bfloat16(total + row)
    d = _bfloat16(x - _bfloat16(total / x.shape[0]))
    squares = 0.0
    for row in d:
        squares = _bfloat16(squares + _bfloat16(row * row))
    variance = _bfloat16(squares / x.shape[0])
    return _bfloat16(d / _bfloat16(np.sqrt(_bfloat16(variance + 1e-3))))


def float32_after_the_matrix_mean(x):
    """Row by row a LayerNorm (taking the whole matrix's mean away first changes no row's centred values),
    but in float32 the other rows' rounding moves when one token is edited."""
    x = x.astype(np.float32)
    return layer_norm(x - x.mean()).astype(np.float32)


# names


def test_the_name_given_is_the_fingerprints_name():
    assert fingerprint(layer_norm, "mine", time_limit=None).name == "mine"


def test_without_a_name_a_function_is_named_by_its_own_name():
    assert fingerprint(layer_norm, time_limit=None).name == "layer_norm"


def test_without_a_name_a_callable_object_is_named_by_its_class():
    assert fingerprint(Unnamed(), time_limit=None).name == "Unnamed"


def test_something_that_is_not_a_function_is_named_by_its_type():
    found = fingerprint(42, time_limit=None)
    assert found.name == "int" and "It is not a function: got int" in found.problem


@needs_fork
def test_a_fingerprint_in_the_forked_child_keeps_the_name():
    assert fingerprint(layer_norm, "mine").name == "mine"


def test_every_verdict_keeps_the_name():
    # not measurable, state seen early, state seen at the end, neither rows nor columns
    assert fingerprint(lambda x: x * np.nan, "nan", time_limit=None).name == "nan"
    assert fingerprint(position_dependent, "early", time_limit=None).name == "early"
    assert fingerprint(DriftsAfterALargeValue(), "late", time_limit=None).name == "late"
    assert fingerprint(whole_matrix_float32, "whole", time_limit=None).name == "whole"


# problems: one sentence, never an exception


def _loops(x):
    while True:
        pass


@needs_fork
def test_a_loop_stopped_at_the_time_limit_names_the_call_it_was_in():
    limit = time_limit_s(0.2)  # the copy must start and make its first call within it
    found = fingerprint(_loops, "loop", time_limit=limit)
    assert found.name == "loop"
    assert found.problem == (
        f"It did not finish within {limit:g} s on a 7 × 4 float64 matrix; it may loop forever (it was stopped)."
    )
    assert found.differences == [found.problem]


def _exits(x):
    raise SystemExit("stop")


class ExitsBeforeAnyCall:
    """Ends the process as soon as the fingerprint asks how many features it takes."""

    @property
    def normalized_shape(self):
        raise SystemExit("stop")

    def __call__(self, x):
        return layer_norm(x)


@needs_fork
def test_a_function_that_ends_the_process_names_the_call_it_was_in():
    found = fingerprint(_exits, "exits")
    assert found.name == "exits"
    assert (
        found.problem
        == "It could not be measured: fingerprint itself failed: SystemExit: stop on a 7 × 4 float64 matrix."
    )


@needs_fork
def test_ending_the_process_before_any_call_names_no_call():
    found = fingerprint(ExitsBeforeAnyCall())
    assert found.name == "ExitsBeforeAnyCall"
    assert found.problem == "It could not be measured: fingerprint itself failed: SystemExit: stop."


def test_nan_for_the_ordinary_matrix_is_one_sentence_naming_its_shape():
    found = fingerprint(lambda x: x * np.nan, time_limit=None)
    assert found.problem == "It returned NaN or infinity for an ordinary 7 × 4 matrix of numbers between −2 and 2."
    assert found.differences == [found.problem] and found.is_layer_norm is None and found.matches_torch is False


def test_the_problem_at_the_first_width_is_reported_when_every_width_fails():
    def refuses_everything(x):
        raise ValueError(f"no {x.shape[1]}")

    found = fingerprint(refuses_everything, "refuses", time_limit=None)
    assert found.name == "refuses"
    assert found.problem == "Calling it on a 7 × 4 float64 matrix raised ValueError: no 4"


def test_every_call_is_announced_before_it_is_made():
    # what the forked child sends back, so that a time-out can say which call it stopped
    announced, shapes = [], []

    def layer_norm_seen(x):
        shapes.append(x.shape)
        return layer_norm(x)

    found = fingerprints._measure(layer_norm_seen, "seen", None, None, progress=announced.append)
    assert found.is_layer_norm is True
    assert announced[:2] == ["a 7 × 4 float64 matrix"] * 2  # the same matrix twice: is it deterministic?
    assert len(announced) >= len(shapes) > 2  # every call it was given was announced


# widths tried


class SaysFiveWorksOnThree:
    normalized_shape = (5,)

    def __call__(self, x):
        if x.shape[1] != 3:
            raise ValueError("three features only")
        return layer_norm(x)


def test_a_function_that_says_its_width_is_probed_at_that_width_only():
    found = fingerprint(SaysFiveWorksOnThree(), time_limit=None)  # never the lesson's 3: it said 5
    assert found.problem == "Calling it on a 8 × 5 float64 matrix raised ValueError: three features only"


def test_a_function_that_does_not_say_is_tried_at_4_then_at_the_lessons_3():
    def three_only(x):
        if x.shape[1] != 3:
            raise ValueError("three features only")
        return layer_norm(x)

    found = fingerprint(three_only, time_limit=None)
    assert found.problem is None and found.measured.features == 3 and found.is_layer_norm is True


def test_a_function_failing_on_4_for_any_reason_is_tried_on_3():
    # its own message may say anything, "did not finish" too: only the time limit stops the widths
    def three_only(x):
        if x.shape[1] != 3:
            raise RuntimeError("the reduction did not finish: 3 features expected")
        return layer_norm(x)

    found = fingerprint(three_only, time_limit=None)
    assert found.problem is None and found.measured.features == 3 and found.is_layer_norm is True


def test_a_loop_at_the_time_limit_is_not_tried_at_another_width(monkeypatch):
    monkeypatch.setattr(fingerprints, "ISOLATE", False)  # in this process, to see its calls
    calls = []

    def loops_on_4(x):
        calls.append(x.shape)
        while x.shape[1] == 4:
            pass
        return layer_norm(x)

    found = fingerprint(loops_on_4, "loops", time_limit=0.2)
    assert found.problem.startswith("It did not finish within 0.2 s on a 7 × 4 float64 matrix")
    assert (6, 3) not in calls  # the time was up: the lesson's width was not called


# the type it computes in, and why


def _working_type(fn, deterministic=True):
    call = Caller(fn, None)
    base = base_matrix(4)
    return fingerprints._working_type(call, base, call(base), deterministic)


def test_a_float64_layer_norm_computes_in_float64_for_no_reason_to_give():
    assert _working_type(layer_norm) == ("float64", "", "float64")
    found = fingerprint(layer_norm, time_limit=None)
    assert found.measured.computes_in == "float64" and found.measured.why_that_type == ""


def test_a_float32_output_is_the_type_it_computes_in_though_its_input_is_not_rounded():
    assert _working_type(float32_output) == ("float32", "its output is float32", "float64")
    found = fingerprint(float32_output, time_limit=None)
    assert found.measured.computes_in == "float32" and found.measured.why_that_type == "its output is float32"


def test_input_rounded_to_float16_is_the_type_it_computes_in_though_its_output_is_float64():
    assert _working_type(rounds_to_float16) == ("float16", "it rounds its input to float16", "float16")
    found = fingerprint(rounds_to_float16, time_limit=None)
    assert found.measured.computes_in == "float16"
    assert found.measured.why_that_type == "it rounds its input to float16"
    assert found.measured.output_dtypes == ("float64",)


def test_a_function_whose_output_varies_is_not_said_to_round_its_input():
    assert _working_type(rounds_to_float32) == ("float32", "it rounds its input to float32", "float32")
    assert _working_type(rounds_to_float32, deterministic=False) == ("float64", "", "float64")


def test_a_function_that_refuses_rounded_input_is_not_said_to_round_it():
    def lesson_numbers_only(x):
        if not isinstance(x, np.ndarray) or not np.array_equal(x, np.round(x, 3)):  # no tensors either
            raise ValueError("it takes numbers with 3 decimal places only")
        return layer_norm(x)

    assert _working_type(lesson_numbers_only) == ("float64", "", "float64")


def test_edits_are_judged_to_the_rounding_of_the_type_it_computes_in():
    # the other rows move by float32's rounding when token 1 is edited: still a row-by-row function
    found = fingerprint(float32_after_the_matrix_mean, time_limit=None)
    assert found.axis == "rows"
    assert found.measured.rows_changed == (1,) and found.measured.columns_changed == ALL_FEATURES


# state: "cannot tell", never a verdict


STATE = "Cannot tell whether it is a LayerNorm: it keeps state"


def test_output_that_depends_on_where_a_token_sits_cannot_be_told():
    found = fingerprint(position_dependent, time_limit=None)
    assert found.is_layer_norm is None and found.not_layer_norm_because == "state"
    assert found.matches_torch is False and found.axis is None and found.variance is None
    assert found.differences == [
        "Cannot tell whether it is a LayerNorm: the same rows in reverse order did not come out as its output "
        "in reverse order (they differ by 3.5e-05 of its size). It keeps something from an earlier call "
        "(statistics cached per shape, say), or its output for a token depends on where the token sits; "
        "a LayerNorm's does neither, so no probe can be judged."
    ]
    measured = found.measured
    assert measured.features == 4 and measured.output_dtypes == ("float64",)
    assert measured.noise_floor == 0.0 and measured.repeat_change == 0.0
    assert measured.reorder_change == pytest.approx(3.5e-5, rel=0.05)


def test_the_same_matrix_coming_out_different_later_is_state():
    found = fingerprint(DriftsAfterReversedRows(), "drifts", time_limit=None)
    assert found.is_layer_norm is None and found.not_layer_norm_because == "state"
    assert found.differences == [
        f"{STATE} (the same matrix came out different the next time (by 0.01 of its size)). A LayerNorm's "
        "output depends on the input it is given, not on earlier calls, so no probe can be judged."
    ]
    measured = found.measured
    assert measured.reorder_change == 0.0 and measured.repeat_change == pytest.approx(0.01)
    assert measured.end_change is None  # it was stopped before the other probes


def test_state_that_shows_only_after_every_probe_is_state():
    found = fingerprint(DriftsAfterALargeValue(), time_limit=None)
    assert found.name == "DriftsAfterALargeValue"
    assert found.is_layer_norm is None and found.not_layer_norm_because == "state"
    assert found.matches_torch is False and found.axis is None and found.variance is None
    assert found.differences == [
        f"{STATE} (the first matrix, called again after the other probes, came out different (by 0.01)). "
        "A LayerNorm's output depends on the input it is given, not on earlier calls, so no probe can be judged."
    ]
    measured = found.measured
    assert measured.end_change == pytest.approx(0.01)
    assert measured.features == 4 and measured.repeat_change == 0.0 and measured.reorder_change == 0.0


def test_a_column_wise_function_may_reorder_its_sums_by_a_few_of_its_roundings():
    found = fingerprint(column_wise_bfloat16, time_limit=None)
    assert found.measured.computes_in == "bfloat16"
    assert 1e-3 < found.measured.reorder_change < 64 * 2.0**-7  # more than float64's room, within bfloat16's
    assert found.not_layer_norm_because != "state" and found.axis == "columns" and found.is_layer_norm is True


# what a verdict keeps in Measurements


def test_a_layer_norm_keeps_every_probes_numbers():
    found = fingerprint(layer_norm, time_limit=None)
    assert found.is_layer_norm is True and found.matches_torch is True
    measured = found.measured
    assert measured.features == 4
    assert measured.rows_changed == (1,) and measured.columns_changed == ALL_FEATURES
    assert measured.noise_floor == 0.0 and measured.reorder_change == 0.0 and measured.repeat_change == 0.0
    assert measured.end_change == 0.0  # the first matrix once more, after every probe: unchanged


def test_a_whole_matrix_normaliser_keeps_what_the_edits_moved():
    found = fingerprint(whole_matrix_float32, time_limit=None)
    assert found.axis == "neither" and found.problem is None
    assert found.is_layer_norm is None and found.matches_torch is False
    assert found.centres is None and found.one_pass is None and found.gamma == "none"
    assert found.differences == [
        "It does not normalise one row or one column at a time: editing one token moved the output of "
        "other tokens and other features."
    ]
    measured = found.measured
    assert measured.features == 4
    assert measured.rows_changed == WHOLE_MATRIX and measured.columns_changed == ALL_FEATURES
    assert measured.computes_in == "float32" and measured.why_that_type == "its output is float32"
    assert measured.output_dtypes == ("float32",)
    assert measured.noise_floor == 0.0 and measured.reorder_change == 0.0 and measured.repeat_change == 0.0
