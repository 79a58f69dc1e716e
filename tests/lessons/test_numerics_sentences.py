"""Notebook 09's generated sentences (helpers/lessons/numerics/words.py), read whole as a learner reads them:
every number with the digits it is printed with, worked out here from the inputs, and which verdict appears
on which side of each threshold: exactly at it and one float step either side, in both orders."""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.lessons.numerics import lowprec, words
from helpers.lessons.numerics.errors import ErrorSplit, StageErrors, float16_stage_errors, split_error
from helpers.lessons.numerics.lowprec import EpsInFloat16, ResidualDrift

UP, DOWN = math.inf, 0.0  # directions for math.nextafter

# --- storing_vs_arithmetic -------------------------------------------------------------------------------

HALF_SPREAD = np.array([9_999.5, 10_000.5])  # mean 10,000, σ = 0.5: |δμ|/σ is twice |δμ|
U32 = 2.0**-24  # float32's unit roundoff


def split(storing, arithmetic, mean_error=1e-4, stored=HALF_SPREAD, total=None):
    total = storing + arithmetic if total is None else total
    return ErrorSplit(10_000.0, "float32", "two-pass", stored, storing, arithmetic, total, mean_error)


def test_storing_sentence_reads_every_number_off_the_split():
    text = words.storing_vs_arithmetic(split(1e-5, 4e-4, mean_error=-1e-4))
    share = f"{4e-4 / 4.1e-4:.0%}"  # 97.6 %
    assert share == "98%"
    assert text == (
        "At +10,000, two-pass in float32 is off by 4.1e-04 in all. Storing the row in float32 alone (exact "
        "arithmetic on the stored values) moves the output by 1.0e-05; float32 arithmetic on the stored row moves "
        f"it by 4.0e-04 ({share} of the total), and the float32 mean is off by -1.0e-04. A mean off by that moves "
        "every output by |δμ|/σ = 2.0e-04, less than the arithmetic's whole error (one rounding of a number that "
        f"size costs at most u·|μ| = {U32 * 10_000:.1e}). So most of the change is the method's own arithmetic, "
        "not the input it was given."
    )
    assert f"{U32 * 10_000:.1e}" == "6.0e-04"


@pytest.mark.parametrize(
    ("mean_error", "fits"),
    [(5e-4, "1.0e-03, more than"), (2e-4, "4.0e-04, about"), (1e-4, "2.0e-04, less than")],
)
def test_the_mean_error_is_weighed_against_the_arithmetic_in_units_of_sigma(mean_error, fits):
    """|δμ|/σ with σ = 0.5 against an arithmetic error of 4e-4: 1e-3 is more, 4e-4 about, 2e-4 less."""
    text = words.storing_vs_arithmetic(split(1e-5, 4e-4, mean_error=mean_error))
    assert f"moves every output by |δμ|/σ = {fits} the arithmetic's whole error (" in text


def test_sigma_of_one_and_below_still_divides():
    """σ = 1 exactly and σ = 0.25: |δμ|/σ is a number, not NaN."""
    one = words.storing_vs_arithmetic(split(1e-5, 4e-4, mean_error=3e-4, stored=np.array([9_999.0, 10_001.0])))
    assert "|δμ|/σ = 3.0e-04, about the arithmetic" in one
    quarter = words.storing_vs_arithmetic(split(1e-5, 4e-4, mean_error=1e-4, stored=np.array([9_999.75, 10_000.25])))
    assert "|δμ|/σ = 4.0e-04, about the arithmetic" in quarter


def test_a_constant_stored_row_has_no_sigma_to_divide_by():
    text = words.storing_vs_arithmetic(split(1e-5, 4e-4, stored=np.full(4, 10_000.0)))
    assert "moves every output by |δμ|/σ = nan," in text
    assert text.endswith("So most of the change is the method's own arithmetic, not the input it was given.")


ARITHMETIC = "So most of the change is the method's own arithmetic, not the input it was given."
STORING = "So most of the change comes from storing the input, not from the method."
NEITHER = "Storing and arithmetic are of the same size: neither explains most of it alone."
SMALL = 2.0**-12  # twice it is exact in binary


@pytest.mark.parametrize(
    ("storing", "arithmetic", "verdict"),
    [
        (SMALL, 2 * SMALL, ARITHMETIC),  # exactly twice: "at least twice" holds
        (SMALL, math.nextafter(2 * SMALL, UP), ARITHMETIC),
        (SMALL, math.nextafter(2 * SMALL, DOWN), NEITHER),
        (2 * SMALL, SMALL, STORING),
        (math.nextafter(2 * SMALL, UP), SMALL, STORING),
        (math.nextafter(2 * SMALL, DOWN), SMALL, NEITHER),
        (SMALL, SMALL, NEITHER),
        (0.0, SMALL, ARITHMETIC),
        (SMALL, 0.0, STORING),
    ],
)
def test_one_cause_accounts_for_most_at_twice_the_other(storing, arithmetic, verdict):
    assert words.DOMINANT == 2.0
    text = words.storing_vs_arithmetic(split(storing, arithmetic))
    assert text.endswith(" " + verdict)
    assert text.count("So most") + text.count("neither explains") == 1  # the verdict only once, at the end
    assert text.startswith("At +10,000, two-pass in float32 is off by")


CANNOT_TELL = "With a NaN among them, which of storing and arithmetic explains most of it cannot be told."


@pytest.mark.parametrize(("storing", "arithmetic"), [(1e-3, math.nan), (math.nan, 1e-3), (math.nan, math.nan)])
def test_a_nan_error_is_not_of_the_same_size_as_anything(storing, arithmetic):
    text = words.storing_vs_arithmetic(split(storing, arithmetic, total=math.nan))
    assert text.endswith("). " + CANNOT_TELL)
    assert "same size" not in text and "So most" not in text


def test_one_pass_where_it_fails_says_it_cannot_tell():
    """The notebook's row at +17,800, where one-pass float32 gives NaN (its sweep's first NaN offset)."""
    measured = split_error(np.array([1.133, -0.299, 0.503]), 17_800, np.float32, "one-pass")
    assert math.isnan(measured.arithmetic_error) and measured.storing_error > 0
    text = words.storing_vs_arithmetic(measured)
    moved = abs(measured.mean_error) / np.std(measured.stored)
    assert f"|δμ|/σ = {moved:.1e}, which cannot be weighed against the arithmetic's whole error (" in text
    assert text.endswith(CANNOT_TELL)


def test_nothing_changed_is_not_most_of_anything():
    text = words.storing_vs_arithmetic(split(0.0, 0.0, mean_error=0.0))
    assert text.endswith(
        "|δμ|/σ = 0.0e+00, which cannot be weighed against the arithmetic's whole error (one rounding of a number "
        f"that size costs at most u·|μ| = {U32 * 10_000:.1e}). Neither storing nor arithmetic changes the output here."
    )


@pytest.mark.parametrize(("mean_error", "arithmetic"), [(1e-4, 0.0), (0.0, 4e-4), (1e-4, math.nan)])
def test_a_mean_error_against_zero_or_nan_is_not_weighed(mean_error, arithmetic):
    text = words.storing_vs_arithmetic(split(1e-5, arithmetic, mean_error=mean_error, total=4e-4))
    moved = f"{2 * mean_error:.1e}"  # σ = 0.5
    assert (
        f"moves every output by |δμ|/σ = {moved}, which cannot be weighed against the arithmetic's whole error ("
        in text
    )


# --- float16_stages ----------------------------------------------------------------------------------------

STEP_NEAR_3802 = 2  # float16 keeps 11 significant bits: between 2¹¹ and 2¹² it steps by 2¹¹⁻¹⁰


def stages(mean, variance, normalise, together, squares=3_802.0, exact=4_120.0):
    return StageErrors({"mean": mean, "variance": variance, "normalise": normalise}, together, squares, exact)


def test_stage_sentence_names_the_variance_stage_with_its_running_sum():
    text = words.float16_stages(stages(0.01, 0.15, 0.002, 0.16), "Near 4")
    assert text == (
        "Near 4: all-float16 is off by 1.6e-01; in float16 with the rest exact, the mean alone 1.0e-02, the variance "
        "alone 1.5e-01, the normalise alone 2.0e-03. The variance stage alone reaches "
        f"{0.15 / 0.16:.0%} of the whole error (its float16 running sum of squared differences reaches 3,802 against "
        f"the exact 4,120; near there float16 steps by {STEP_NEAR_3802})."
    )


def test_stage_sentence_names_the_largest_stage_by_its_error_not_its_name():
    """The mean is the largest here; "variance" and "normalise" come after it in the alphabet."""
    text = words.float16_stages(stages(0.15, 0.01, 0.002, 0.16), "x")
    assert text.endswith(f"The mean stage alone reaches {0.15 / 0.16:.0%} of the whole error.")
    normalise = words.float16_stages(stages(0.05, 0.06, 0.07, 0.16), "x")
    assert normalise.endswith(
        f"No single stage reaches most of it: the largest, the normalise, reaches {0.07 / 0.16:.0%}."
    )


def test_only_the_variance_stage_brings_its_running_sum():
    mixed = words.float16_stages(stages(0.05, 0.07, 0.06, 0.16), "x")
    assert mixed.endswith(
        f"No single stage reaches most of it: the largest, the variance, reaches {0.07 / 0.16:.0%} (its float16 "
        f"running sum of squared differences reaches 3,802 against the exact 4,120; near there float16 steps by "
        f"{STEP_NEAR_3802})."
    )
    assert "running sum" not in words.float16_stages(stages(0.07, 0.05, 0.06, 0.16), "x")


@pytest.mark.parametrize(
    ("worst", "names_it"),
    [(0.8, True), (math.nextafter(0.8, UP), True), (math.nextafter(0.8, DOWN), False)],
)
def test_a_stage_reaches_most_of_the_error_from_80_percent(worst, names_it):
    """Against a whole error of 1, the mean's share is its error: all three print as 80 %."""
    text = words.float16_stages(stages(worst, 0.1, 0.05, 1.0), "x")
    verdict = (
        "The mean stage alone reaches 80% of the whole error."
        if names_it
        else "No single stage reaches most of it: the largest, the mean, reaches 80%."
    )
    assert text.endswith(". " + verdict)


def test_nan_stages_are_printed_as_nan_and_all_named():
    text = words.float16_stages(stages(math.nan, math.nan, 0.002, math.nan), "Near 20")
    assert text == (
        "Near 20: all-float16 is off by NaN; in float16 with the rest exact, the mean alone NaN, the variance alone "
        "NaN, the normalise alone 2.0e-03. The NaN comes from the mean and variance alone."
    )


def test_an_exact_float16_layer_norm_has_no_error_to_attribute():
    """A constant row: every stage, and all of them together, give exactly LayerNorm's zeros."""
    measured = float16_stage_errors(np.full(8, 1.0))
    assert measured.together == 0
    assert words.float16_stages(measured, "Constant") == (
        "Constant: all-float16 is off by 0.0e+00; in float16 with the rest exact, the mean alone 0.0e+00, the variance "
        "alone 0.0e+00, the normalise alone 0.0e+00. All-float16 comes out exact here: there is no error to attribute "
        "to a stage."
    )
    cancelling = words.float16_stages(stages(0.0, 0.0, 5e-6, 0.0), "x")  # a stage's error undone by the others
    assert cancelling.endswith(
        "the normalise alone 5.0e-06. All-float16 comes out exact here: there is no error to attribute to a stage."
    )


def test_a_nan_that_no_stage_gives_alone_is_not_attributed():
    text = words.float16_stages(stages(0.01, 0.02, 0.03, math.nan), "x")
    assert text.endswith("the normalise alone 3.0e-02. No stage alone gives the NaN: it comes from them together.")
    assert "%" not in text


# --- bound_reading -----------------------------------------------------------------------------------------


def bound(measured, bounds):
    return words.bound_reading(np.array(measured, dtype=float), np.array(bounds, dtype=float), "two-pass")


def test_bound_sentence_whole():
    text = bound([1.0, 50.0, 0.5, math.nan, 3.0], [1_000.0, 100.0, 1_000.0, 1.0, math.inf])
    assert text == (
        "two-pass: under its bound at all 3 offsets with a number and a finite bound; within a factor 10 of it at 1, "
        "more than 1,000 times below it at 1; NaN at 1."
    )


@pytest.mark.parametrize(
    ("measured", "over"), [(1_000.0, 0), (math.nextafter(1_000.0, UP), 1), (math.nextafter(1_000.0, DOWN), 0)]
)
def test_an_error_equal_to_its_bound_does_not_break_it(measured, over):
    text = bound([measured], [1_000.0])
    if over:
        assert text.startswith("two-pass: above its bound at 1 of 1 offsets (the bound is wrong); within a factor 10")
    else:
        assert text.startswith("two-pass: under its bound at all 1 offsets with a number and a finite bound;")


@pytest.mark.parametrize(
    ("measured", "near"),
    [(100.0, 1), (math.nextafter(100.0, UP), 1), (math.nextafter(100.0, DOWN), 0), (95.0, 0)],
)
def test_within_a_factor_10_of_the_bound_includes_exactly_a_tenth(measured, near):
    """Against a bound of 1,000: 100 is a factor 10 below it; 95 is more than a factor 10 (it is 10.5)."""
    assert f"within a factor 10 of it at {near}, more than 1,000 times below it at 0." in bound([measured], [1_000.0])


@pytest.mark.parametrize(
    ("measured", "far"),
    [(1.0, 0), (math.nextafter(1.0, DOWN), 1), (math.nextafter(1.0, UP), 0), (0.9995, 1)],
)
def test_more_than_1000_times_below_excludes_exactly_1000(measured, far):
    """Against a bound of 1,000: 1 is exactly 1,000 times below, not more; 0.9995 is 1,000.5 times below."""
    assert bound([measured], [1_000.0]).endswith(f"more than 1,000 times below it at {far}.")


# --- history_40302 -----------------------------------------------------------------------------------------


def test_40302_sentence_with_some_zero_rows():
    true = np.array([1e-4, 2e-4, 1e-4, 5e-5])
    kernel = np.array([0.0, 0.0, 2e-3, 4e-3])  # the others: 2e-3 / 1e-4 = 20 and 4e-3 / 5e-5 = 80 times
    text = words.history_40302({"true": true, "kernel": kernel}, features=32_768)
    assert text == (
        "4 rows of 32,768 values randn·0.01 + 100: the true variances lie between 5.00e-05 and 2.00e-04; the "
        "reconstructed kernel gives exactly 0 for 2 of them and 2.00e-03 to 4.00e-03 (up to 80 times too big) for the "
        "others. Reproduced: the issue's zero variance, for some rows; the others are wrong another way."
    )


def test_40302_sentence_all_zero_and_no_zero():
    true = np.array([1e-4, 2e-4])
    zeros = words.history_40302({"true": true, "kernel": np.zeros(2)}, features=10)
    assert zeros == (
        "2 rows of 10 values randn·0.01 + 100: the true variances lie between 1.00e-04 and 2.00e-04; the "
        "reconstructed kernel gives exactly 0 for 2 of them. Reproduced: all zeros, as the issue reported."
    )
    none = words.history_40302({"true": true, "kernel": np.array([1e-3, 1e-3])}, features=10)
    assert none.endswith(
        "exactly 0 for 0 of them and 1.00e-03 to 1.00e-03 (up to 10 times too big) for the others. "
        "Reproduced: not the issue's zeros."
    )


# --- history_51102 -----------------------------------------------------------------------------------------

REPORTED = 20.0  # 1 away from it is exactly 5 %, in binary too


def worst_row(worst):
    kernel = np.array([0.99, 0.99, worst])
    return words.history_51102({"expected": np.full(3, 0.99), "kernel": kernel}, REPORTED)


def test_51102_sentence_whole():
    assert worst_row(40.0) == (
        "3 rows of 4 values randn + 2000: a LayerNorm's output should have variance just under 1 (between 0.9900 and "
        "0.9900 here); the reconstructed kernel gives above 100 for 0 rows, at most 40, and within 1 % of the right "
        "value for only 2. Its worst row is larger than the issue's worst, 20.0000."
    )


@pytest.mark.parametrize(
    ("worst", "size"),
    [
        (21.0, "5.0% away from"),  # exactly 5 % above
        (math.nextafter(21.0, DOWN), "5.0% away from"),
        (math.nextafter(21.0, UP), "near"),
        (19.0, "5.0% away from"),  # exactly 5 % below
        (math.nextafter(19.0, UP), "5.0% away from"),
        (math.nextafter(19.0, DOWN), "near"),
        (25.0, "near"),
        (30.0, "near"),  # exactly 1.5 times: still about the same
        (math.nextafter(30.0, UP), "larger than"),
        (13.5, "near"),  # 1.5 times it is 20.25
        (13.25, "smaller than"),  # 1.5 times it is 19.875
    ],
)
def test_51102_worst_row_within_5_percent_is_given_as_a_percentage(worst, size):
    assert worst_row(worst).endswith(f"Its worst row is {size} the issue's worst, 20.0000.")


# --- eps_reading -------------------------------------------------------------------------------------------


def eps_text(eps_values, variances):
    cases = lowprec.eps_in_float16(eps_values=eps_values, variances=variances)
    return words.eps_reading(cases, [lowprec.constant_row_float16(case.eps) for case in cases])


def f16(value):
    return float(np.float16(value))


def added(variance, eps):
    return float(np.float16(np.float16(variance) + np.float16(eps))) - f16(variance)


def test_eps_sentence_of_the_notebook_whole():
    s6, s5 = f16(1e-6), f16(1e-5)
    assert added(1e-2, 1e-6) == 0 and added(1e-4, 1e-6) == s6 and added(1e-4, 1e-5) == s5
    text = eps_text((1e-12, 1e-6, 1e-5), (0.0, 1e-4, 1e-2))
    assert text == (
        "ε = 1e-12 is 0 in float16, and a constant row comes out NaN; "
        f"ε = 1e-06 is a subnormal float16, stored as {s6:.4e} ({abs(s6 - 1e-6) / 1e-6:.2%} off), adds nothing to a "
        "variance of 0.01, and a constant row comes out finite; "
        f"ε = 1e-05 is a subnormal float16, stored as {s5:.4e} ({abs(s5 - 1e-5) / 1e-5:.2%} off), adds only "
        f"{added(1e-2, 1e-5):.1e} to a variance of 0.01, and a constant row comes out finite."
    )
    assert f"{s6:.4e} ({abs(s6 - 1e-6) / 1e-6:.2%}" == "1.0133e-06 (1.33%"


def test_a_normal_float16_eps_is_just_stored():
    assert f16(1e-3) >= 2.0**-14  # float16's smallest normal number
    assert (
        eps_text((1e-3,), (0.0, 1e-2))
        == f"ε = 0.001 is stored as {f16(1e-3):.4e}, and a constant row comes out finite."
    )


def test_eps_lost_at_two_variances_and_rounded_at_two_others():
    """ε = 1e-5 vanishes next to 0.1 (float16 steps by 2⁻¹⁴ there) and arrives as one step next to 0.01 and 0.02."""
    assert added(0.1, 1e-5) == 0 and added(0.2, 1e-5) == 0
    rounded = [added(0.01, 1e-5), added(0.02, 1e-5)]
    assert all(abs(r - f16(1e-5)) > 0.1 * f16(1e-5) for r in rounded)
    text = eps_text((1e-5,), (0.0, 0.01, 0.02, 0.1, 0.2))
    assert text == (
        f"ε = 1e-05 is a subnormal float16, stored as {f16(1e-5):.4e} ({abs(f16(1e-5) - 1e-5) / 1e-5:.2%} off), adds "
        f"nothing to a variance of 0.1 or 0.2, adds only {rounded[0]:.1e} to a variance of 0.01 and {rounded[1]:.1e} "
        "to a variance of 0.02, and a constant row comes out finite."
    )


STORED = 5 * 2.0**-17  # a tenth of it is 2⁻¹⁸, exactly


@pytest.mark.parametrize(
    ("arrives", "rounded"),
    [
        (STORED + 2.0**-18, False),  # exactly 10 % more: not "much changed"
        (STORED - 2.0**-18, False),
        (math.nextafter(STORED + 2.0**-18, UP), True),
        (math.nextafter(STORED - 2.0**-18, DOWN), True),
    ],
)
def test_eps_counts_as_rounded_when_more_than_10_percent_off(arrives, rounded):
    assert abs(STORED + 2.0**-18 - STORED) == 0.1 * STORED
    case = EpsInFloat16(4e-5, STORED, True, abs(STORED - 4e-5) / 4e-5, {0.0: STORED, 0.01: arrives})
    text = words.eps_reading([case], [np.zeros(4)])
    clause = f", adds only {arrives:.1e} to a variance of 0.01"
    assert (clause in text) is rounded
    assert text.endswith(", and a constant row comes out finite.")


def test_eps_lost_is_said_only_for_an_eps_float16_keeps():
    """ε = 1e-12 is 0 in float16: it "adds nothing" anywhere, which the clause "is 0 in float16" already says."""
    assert eps_text((1e-12,), (0.0, 1e-2)) == "ε = 1e-12 is 0 in float16, and a constant row comes out NaN."


# --- residual_reading --------------------------------------------------------------------------------------


def drift(norm_error, last=1e-3):
    return ResidualDrift("any", stream_error=np.array([9e-9, last]), norm_error=norm_error)


def test_residual_sentence_whole_when_float32_is_worse():
    """The comparison is with the worst of the other types, never float32 with itself."""
    text = words.residual_reading({"float16": drift(1e-3, 2e-3), "float32": drift(1e-2, 8e-10)}, blocks=64)
    assert text == (
        "kept in float16, the stream is off by 2.0e-03 (relative) after 64 blocks and LayerNorm of it by 1.0e-03; "
        "kept in float32, the stream is off by 8.0e-10 (relative) after 64 blocks and LayerNorm of it by 1.0e-02. "
        "With the residual kept in float32, LayerNorm's output is off more than with it kept in float16."
    )


@pytest.mark.parametrize(
    ("other", "reading"),
    [
        (1.5e-3, "off no less"),  # exactly 1.5 times float32's 1e-3
        (math.nextafter(1.5e-3, UP), "off 1.5e+00 times less"),
        (math.nextafter(1.5e-3, DOWN), "off no less"),
        (1e-3 / 1.5, "off no less"),
        (math.nextafter(1e-3 / 1.5, DOWN), "off more"),
    ],
)
def test_residual_verdict_at_one_and_a_half_times(other, reading):
    assert 1.5 * 1e-3 == 1.5e-3
    text = words.residual_reading({"bfloat16": drift(other), "float32": drift(1e-3)}, blocks=1)
    assert text.endswith(
        f"With the residual kept in float32, LayerNorm's output is {reading} than with it kept in bfloat16."
    )


def test_residual_sentence_that_cannot_tell():
    text = words.residual_reading({"float16": drift(0.0), "float32": drift(0.0)}, blocks=2)
    assert text == (
        "kept in float16, the stream is off by 1.0e-03 (relative) after 2 blocks and LayerNorm of it by 0.0e+00; "
        "kept in float32, the stream is off by 1.0e-03 (relative) after 2 blocks and LayerNorm of it by 0.0e+00. "
        "Which residual type is better cannot be told from these errors."
    )


# --- normalise_forms_reading -------------------------------------------------------------------------------


def forms(factored, folded, fused, rows=3):
    return words.normalise_forms_reading(np.array([[factored, folded, fused]] * rows), 10_000)


def test_forms_sentence_whole():
    assert forms(2.0, 1.0, 2.44) == (
        "On 3 random rows at +10,000, the median largest error is 2.0e+00 for (x − μ)·rstd, 1.0e+00 for the folded "
        "form with a rounded product (smaller than it; 0.50 times) and 2.4e+00 with a fused multiply-add (larger than "
        "it; 1.22 times)."
    )
    assert forms(2.0, 2.44, 1.0).endswith(
        "2.4e+00 for the folded form with a rounded product (larger than it; 1.22 times) and 1.0e+00 with a fused "
        "multiply-add (smaller than it; 0.50 times)."
    )
    assert forms(2.0, 2.1, 2.1).endswith(
        "(about the same as it; 1.05 times) and 2.1e+00 with a fused multiply-add (about the same as it; 1.05 times)."
    )


def test_forms_sentence_reads_the_medians():
    errors = np.array([[1.0, 1.0, 1.0], [2.0, 9.0, 2.0], [3.0, 2.0, 2.2]])  # medians 2, 2, 2
    assert words.normalise_forms_reading(errors, 1).startswith(
        "On 3 random rows at +1, the median largest error is 2.0e+00 for (x − μ)·rstd, 2.0e+00 for the folded form "
        "with a rounded product (about the same as it; 1.00 times)"
    )


@pytest.mark.parametrize("column", [1, 2])
@pytest.mark.parametrize(
    ("factored", "other", "verdict"),
    [
        (1.0, 1.1, "about the same as"),  # exactly 1.1 times
        (1.0, math.nextafter(1.1, UP), "larger than"),
        (1.0, math.nextafter(1.1, DOWN), "about the same as"),
        (1.0, 1.2, "larger than"),  # within 1.5 times, but medians are held to 1.1
        (1.1, 1.0, "about the same as"),
        (math.nextafter(1.1, UP), 1.0, "smaller than"),
        (1.2, 1.0, "smaller than"),
    ],
)
def test_forms_medians_are_the_same_only_up_to_1_1_times(column, factored, other, verdict):
    assert words.MEDIANS_SAME * 1.0 == 1.1
    values = [factored, factored, factored]
    values[column] = other
    name = "for the folded form with a rounded product" if column == 1 else "with a fused multiply-add"
    assert f"{other:.1e} {name} ({verdict} it; {other / factored:.2f} times)" in forms(*values)


def test_forms_with_a_zero_median_give_no_ratio():
    """Constant rows: the factored and folded forms are exact, the fused one is not (notebook 09)."""
    assert forms(0.0, 0.0, 0.06) == (
        "On 3 random rows at +10,000, the median largest error is 0.0e+00 for (x − μ)·rstd, 0.0e+00 for the folded "
        "form with a rounded product (cannot be compared with it) and 6.0e-02 with a fused multiply-add (cannot be "
        "compared with it)."
    )
    assert forms(1.0, 0.0, 1.0).endswith(
        "0.0e+00 for the folded form with a rounded product (cannot be compared with it) and 1.0e+00 with a fused "
        "multiply-add (about the same as it; 1.00 times)."
    )


# --- torch_form_reading ------------------------------------------------------------------------------------

FORMS = ("(x − μ)·rstd", "x·rstd − μ·rstd", "fused")


def torch_form(best, others):
    matches = dict(zip(FORMS, (best, others, 0.0)))
    return words.torch_form_reading(matches, 20, 256, 10_000, "float32")


def test_torch_form_sentence_whole():
    assert torch_form(1.0, 0.0004) == (
        "On 20 rows of 256 values near 10,000, PyTorch's float32 output equals, bit for bit, each form computed from "
        "its own saved mean and rstd: (x − μ)·rstd in 100.00%, x·rstd − μ·rstd in 0.04%, fused in 0.00%; so its "
        "float32 kernel computes (x − μ)·rstd."
    )
    assert torch_form(0.9, 0.0).endswith(
        ": (x − μ)·rstd in 90.00%, x·rstd − μ·rstd in 0.00%, fused in 0.00%; "
        "so these rows cannot tell which form it computes."
    )


@pytest.mark.parametrize(
    ("best", "others", "names_it"),
    [
        (0.99, 0.5, True),  # both exactly at their edges
        (math.nextafter(0.99, DOWN), 0.5, False),
        (0.99, math.nextafter(0.5, UP), False),
        (0.99, math.nextafter(0.5, DOWN), True),
    ],
)
def test_torch_form_named_from_99_percent_with_no_other_above_half(best, others, names_it):
    ending = (
        "so its float32 kernel computes (x − μ)·rstd."
        if names_it
        else "so these rows cannot tell which form it computes."
    )
    assert torch_form(best, others).endswith("; " + ending)


# --- rounding_only -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "verdict"),
    [
        (3e-3, "more than"),
        (1.5e-3, "the same as"),  # exactly 1.5 times the rounding
        (math.nextafter(1.5e-3, UP), "more than"),
        (1e-3 / 1.5, "the same as"),
        (math.nextafter(1e-3 / 1.5, DOWN), "less than"),
        (2e-4, "less than"),
    ],
)
def test_rounding_only_sentence_whole(error, verdict):
    assert words.rounding_only(error, 1e-3, "bfloat16") == (
        f"bfloat16 stored, float32 statistics: largest error {error:.1e}; rounding the exact output to bfloat16 alone "
        f"gives 1.0e-03, so the error is {verdict} the output's own rounding."
    )


@pytest.mark.parametrize(("error", "rounding"), [(0.0, 1e-3), (1e-3, 0.0), (math.nan, 1e-3)])
def test_rounding_only_with_a_zero_or_nan_cannot_tell(error, rounding):
    assert words.rounding_only(error, rounding, "float16") == (
        f"float16 stored, float32 statistics: largest error {error:.1e}; rounding the exact output to float16 alone "
        f"gives {rounding:.1e}, so whether the error is more than the output's own rounding cannot be told."
    )
