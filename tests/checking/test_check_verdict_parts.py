"""The parts of a "Your turn" verdict (helpers/checking/exercises.py), from the module's docstring and its
functions': the ✓ counts every unseen input and describes them as they are (each part read off the cases
themselves); a ✗ shows the input, what was expected and what came back, with digits enough to tell them apart;
a stub gets one sentence and no case; a named mistake's advice is computed for the case shown (its ε)."""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.checking.cases import Case, cases
from helpers.checking.exercises import _arguments, _failure, _first_difference, _summary, check
from helpers.checking.reading import a_type


def row_case(values, dtype=np.float64, step="mean"):
    row = np.asarray(values, dtype=dtype)
    return Case("a row", (row,), np.asarray(np.mean(row, dtype=np.float64)), dtype, step)


def matrix_case(values, dtype=np.float64):
    x = np.asarray(values, dtype=dtype)
    return Case("a matrix", (x, 1e-5), np.zeros(x.shape), dtype, "layer_norm")


# ---------------------------------------------------------------- the ✓'s description of the inputs


def test_the_widths_are_listed_in_order_and_joined_as_a_sentence_joins_them():
    assert _summary([row_case([1, 2, 4])]) == "rows with 3 values per row, in float64 only"
    found = [row_case(np.arange(n) ** 2) for n in (7, 3, 5, 3)]
    assert _summary(found) == "rows with 3, 5 and 7 values per row, in float64 only"
    assert _summary([matrix_case([[1, 2, 4], [0, 1, 3]]), row_case([1, 2])]).startswith("matrices with 2 and 3 ")


def test_a_constant_row_is_found_in_a_matrix_among_rows_that_are_not():
    assert _summary([matrix_case([[1, 2, 4], [0, 0, 0]])]) == (
        "matrices with 3 values per row, a constant row, in float64 only"
    )
    assert "a constant row" not in _summary([matrix_case([[1, 2, 4], [1, 2, 4]])])
    assert "a constant row" in _summary([row_case([0.5, 0.5, 0.5])])


@pytest.mark.parametrize("zeros, far_out", [(20, False), (29, True)])  # one 1 among k zeros sits √k σ out
def test_one_value_far_out_means_more_than_five_of_its_rows_std_from_its_mean(zeros, far_out):
    said = f"rows with {zeros + 1} values per row" + (", one value far out" if far_out else "") + ", in float64 only"
    assert _summary([row_case([1.0] + [0.0] * zeros)]) == said


def test_a_value_far_out_is_found_beside_a_row_of_a_much_larger_spread():
    """Each row's own std: a row of a far larger spread beside it does not hide its far value."""
    summary = _summary([matrix_case([[1.0] + [0.0] * 29, list(range(0, 3000, 100))])])
    assert "one value far out" in summary, summary


def test_each_row_is_measured_against_its_own_mean_and_std():
    """Rows far apart from each other are not a value far out: the spread is each row's own."""
    summary = _summary([matrix_case([[0, 1, 2], [1000, 1001, 1002], [-1000, -999, -998]])])
    assert "one value far out" not in summary and "a constant row" not in summary, summary


@pytest.mark.parametrize(
    "found, words",
    [
        ([row_case([1000.0, 1000.5, 1001.0], np.float32)], "values far from zero (in float32)"),
        ([row_case([1000.0, 1000.5, 1001.0])], "values far from zero (in float64)"),
        (
            [row_case([1000.0, 1000.5, 1001.0], np.float32), row_case([1000.0, 1000.5, 1001.0])],
            "values far from zero (in float32 and float64)",
        ),
        ([row_case([1000.0, 1000.0, 1000.0])], "values far from zero, "),  # a constant row: no one-pass failure
    ],
)
def test_values_far_from_zero_name_the_precisions_where_they_are(found, words):
    assert words in _summary(found)


def test_the_precisions_are_those_of_the_cases():
    assert _summary([row_case([1, 2, 4], np.float32), row_case([1, 2, 4])]).endswith(", in float32 and float64")
    assert _summary([row_case([1, 2, 4])]).endswith(", in float64 only")


def right_layer_norm(x, eps):
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)


@pytest.mark.parametrize("step", ["mean", "std", "scale_shift", "layer_norm"])
def test_a_check_mark_counts_every_unseen_input_and_describes_them(step):
    right = {
        "mean": lambda row: np.mean(row),
        "std": lambda row, eps: np.sqrt(np.var(row) + eps),
        "scale_shift": lambda x_hat, gamma, beta: gamma * x_hat + beta,
        "layer_norm": right_layer_norm,
    }[step]
    found = cases(step)
    result = check(step, right)
    assert result.passed is True and result.count == len(found), result
    said = f"right on all {len(found)} unseen inputs: {_summary(found)}"
    ending = "; no Python loop (read from its code)." if step == "layer_norm" else "."
    assert result.diagnosis == said + ending, result


# ---------------------------------------------------------------- where a ✗ says the results differ


def test_the_largest_difference_is_named_by_its_place():
    assert _first_difference(np.array([10.0, 2.0, 10.0]), np.array([10.0, 1.0, 10.0])).startswith(
        "at feature 2 (expected 1, got 2); check each step"
    )
    assert _first_difference(np.array([1.0, 3.0]), np.array([1.0, 2.0])).startswith("at feature 2 (expected 2, got 3)")
    matrix = np.zeros((2, 3))
    wrong = matrix.copy()
    wrong[1, 0] = 0.5
    assert _first_difference(wrong, matrix).startswith("at row 2, feature 1 (expected 0, got 0.5)")
    assert _first_difference(np.float64(2.5), np.float64(2.0)).startswith("(expected 2, got 2.5)")


def test_a_difference_past_six_digits_is_printed_with_its_size():
    assert _first_difference(np.float64(1.0000001), np.float64(1.0)) == (
        "(expected 1, got 1.0000001: 1.0e-07 apart, more than rounding explains); check each step against the "
        "formula above"
    )


def test_the_arguments_are_shown_with_their_precision():
    case = Case("a row", (np.array([1.0, 2.5], dtype=np.float32), 1e-5), np.zeros(2), np.float32, "normalise")
    assert _arguments(case) == "[1, 2.5] (float32), 1e-05"
    case = Case("a row", (np.array([1.0, 2.5]), 0.01), np.zeros(2), np.float64, "normalise")
    assert _arguments(case) == "[1, 2.5], 0.01"


# ---------------------------------------------------------------- what a ✗ shows


def right_normalise(row, eps):
    return (row - np.mean(row)) / np.sqrt(np.var(row) + eps)


def mutating(row, eps):
    row -= np.mean(row)
    return row / np.sqrt(np.var(row) + eps)


SHOWN = {
    "a difference in the 8th digit": ("mean", lambda row: np.mean(row) * (1 + 1e-7), None),
    "a list around the number": ("mean", lambda row: [np.mean(row)], "list-not-number"),
    "one value short": ("normalise", lambda row, eps: right_normalise(row, eps)[:-1], "wrong-length"),
    "its input changed": ("normalise", mutating, "mutates-input"),
    "NaN": ("normalise", lambda row, eps: (row - np.mean(row)) / np.sqrt(np.var(row) - 1), "nan"),
    "float32": ("normalise", lambda row, eps: right_normalise(row, eps).astype(np.float32), "float32-precision"),
}


@pytest.mark.parametrize("step, fn, key", SHOWN.values(), ids=SHOWN.keys())
def test_a_failure_shows_the_input_what_was_expected_and_what_came_back(step, fn, key):
    result = check(step, fn)
    assert (result.step, result.passed, result.mistake) == (step, False, key), result
    assert result.case and result.arguments and result.expected and result.got, result
    assert (result.expected != result.got) is (key != "mutates-input"), result  # that one's values are right


def test_each_plain_failure_sentence_says_what_happened():
    assert check("normalise", mutating).diagnosis == (
        "Your function changed the array it was given (it mutates its input): work on a copy, e.g. `row = row - "
        "mean` instead of `row -= mean`."
    )
    nan = check("normalise", SHOWN["NaN"][1])
    assert nan.diagnosis == (
        "Your function returned NaN (not a number), which comes from 0 / 0 or the root of a negative number."
    )
    assert "nan" in nan.got
    assert check("normalise", SHOWN["float32"][1]).diagnosis.startswith(
        "Your result is right only to float32's precision (about 7 significant digits) on a float64 input"
    )


def test_what_is_not_numbers_is_shown_as_its_repr_cut_to_120_characters_or_by_its_type():
    returned = {"a": "x" * 300}
    result = check("mean", lambda row: returned)
    assert result.passed is False and result.got == repr(returned)[:120], result

    class Unprintable:
        def __repr__(self):
            raise RuntimeError("no repr")

    result = check("mean", lambda row: Unprintable())
    assert result.passed is False and result.got == a_type(Unprintable()), result


@pytest.mark.parametrize("step", ["mean", "layer_norm"])
def test_a_stub_gets_one_sentence_and_no_case(step):
    def stub(*args):
        raise NotImplementedError

    result = check(step, stub)
    assert (result.step, result.passed, result.mistake) == (step, False, "not-written"), result
    assert (result.case, result.arguments, result.expected, result.got) == ("", "", "", ""), result
    assert result.diagnosis.startswith("Not written yet: replace `raise NotImplementedError`")


@pytest.mark.parametrize("step", ["std", "normalise", "layer_norm"])
def test_the_advice_for_a_fixed_eps_names_the_eps_of_the_case_shown(step):
    def fixed(x, eps):
        x = np.asarray(x, dtype=np.float64)
        mean, var = x.mean(-1, keepdims=True), x.var(-1, keepdims=True)
        return float(np.sqrt(var + 1e-5)[0]) if step == "std" else (x - mean) / np.sqrt(var + 1e-5)

    result = check(step, fixed)
    assert result.passed is False and result.mistake == "eps-ignored", result
    shown = re.search(r"with ε = ([\d.e-]+)", result.case)
    assert shown and f"(here {shown[1]})" in result.diagnosis, result


@pytest.mark.parametrize("spelled", ["Normalize", "  NORMALIZE ", "normalise"])
def test_normalize_is_the_normalise_exercise(spelled):
    result = check(spelled, right_normalise)
    assert result.step == "normalise" and result.passed, result


def test_a_difference_in_the_seventh_digit_is_printed_with_its_size_too():
    assert _first_difference(np.float64(1.000001), np.float64(1.0)).startswith(
        "(expected 1, got 1.000001: 1.0e-06 apart, more than rounding explains)"
    )


def test_expected_and_got_are_printed_to_the_same_digits_when_they_differ_past_six():
    case = Case("a row", (np.array([1.0, 2.0, 4.0]),), np.asarray(7 / 3), np.float64, "mean")
    result = _failure("mean", case, "differs", got=np.float64(7 / 3 + 1e-8))
    assert (result.expected, result.got) == ("2.33333333", "2.33333334"), result
    text = _failure("mean", case, "differs", got="2.3333333433")  # text is shown as nothing, not as numbers
    assert (text.expected, text.got) == ("", ""), text


def test_a_loop_over_the_rows_is_told_how_numpy_does_every_row_at_once():
    def looped(x, eps):
        out = np.empty_like(x, dtype=np.float64)
        for i, row in enumerate(x):
            out[i] = (row - row.mean()) / np.sqrt(row.var() + eps)
        return out

    result = check("layer_norm", looped)
    assert result.passed is False and result.mistake == "python-loop", result
    assert result.diagnosis.endswith(
        ": notebook 07 asks for no loop, so that numpy does every row at once; x.mean(axis=-1, keepdims=True) is "
        "each row's mean as a column."
    ), result
