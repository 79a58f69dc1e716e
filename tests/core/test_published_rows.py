"""helpers.core.published_table at its edges: a value exactly half a printed unit off, a value on the row's
mean, each fit naming its convention, the eps a convention needs for a scale, and refusals in whole sentences.

From the module's docstring: a table printed to 2 places can be off by up to 0.005 in each value, so every
check allows exactly that much and no more; the scale c of a convention is 1/√(var + eps) (eps inside the
root) or 1/(√var + eps) (outside), var biased (÷ n) or unbiased (÷ n − 1).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.core.published_table import CONVENTIONS, check_published_output, smallest_zero_sum_squares
from helpers.core.validation import InputError

from conftest import EPS, LESSON_X
from conftest import PUBLISHED_OUTPUT as PUBLISHED


def true_layer_norm(row, eps=EPS):
    """γ = 1, β = 0, biased variance, eps inside the root: written out here, not read from the code."""
    row = np.asarray(row, dtype=np.float64)
    differences = row - row.mean()
    return differences / math.sqrt(float(np.mean(differences**2)) + eps)


def test_each_row_holds_the_true_output_of_its_row_of_x():
    check = check_published_output(PUBLISHED, LESSON_X, eps=EPS)
    for row, x_row in zip(check.rows, LESSON_X):
        np.testing.assert_allclose(row.true_output, true_layer_norm(x_row), rtol=0, atol=1e-12)


def test_every_fit_names_its_convention_in_order_whether_it_fits_or_not():
    x = [[1.0, 2.0, 3.0]]  # its middle value is its mean
    tables = {
        "fits": [[-1.22, 0.0, 1.22]],
        "a value on the mean printed away from 0": [[-1.22, 0.5, 1.22]],
        "no scale fits": [[-1.22, 0.0, 2.0]],
    }
    for table in tables.values():
        fits = check_published_output(table, x).rows[0].eps_fits
        assert [fit.convention for fit in fits] == list(CONVENTIONS)
    assert check_published_output(tables["fits"], x).rows[0].eps_fits[0].fits


@pytest.mark.parametrize("middle", [0.005, -0.005])
def test_a_value_on_the_mean_printed_exactly_half_a_unit_from_0_still_fits(middle):
    """x = (1, 2, 3): its middle value is its mean, so LayerNorm gives exactly 0 there; ±0.005 is off by exactly
    the 0.005 that printing to 2 places allows."""
    row = check_published_output([[-1.22, middle, 1.22]], [[1.0, 2.0, 3.0]]).rows[0]
    assert [fit.fits for fit in row.eps_fits] == [True, False, True, False]  # ÷ n fits; ÷ (n − 1) cannot


def test_a_value_after_one_on_the_mean_still_counts():
    """Only the last value is wrong (5.00 where about 1.22 belongs): no eps gives this row."""
    row = check_published_output([[-1.22, 0.0, 5.0]], [[1.0, 2.0, 3.0]]).rows[0]
    assert not any(fit.fits for fit in row.eps_fits)


def test_digits_exactly_half_a_unit_beyond_the_largest_scale_still_fit_at_eps_0():
    """x = (−1, 1): at eps = 0 the biased conventions give exactly ∓1, which −1.005 and 1.005 are exactly half a
    unit away from: the largest scale, reached only at eps = 0, so that is the one eps that fits."""
    row = check_published_output([[-1.005, 1.005]], [[-1.0, 1.0]]).rows[0]
    biased = [fit for fit in row.eps_fits if not fit.convention.unbiased]
    assert all(fit.fits for fit in biased)
    assert all(fit.eps_low == 0.0 and fit.eps_high == pytest.approx(0.0, abs=1e-12) for fit in biased)


@pytest.mark.parametrize("convention", CONVENTIONS, ids=lambda c: c.short_name)
@pytest.mark.parametrize("scale", [0.25, 0.5, 0.9])
def test_the_eps_for_a_scale_gives_that_scale(convention, scale):
    """Scales under 1 (a row with a large spread) too: eps_for_scale undoes the convention's scale c."""
    variance = 0.5
    eps = convention.eps_for_scale(scale, variance)
    back = 1 / math.sqrt(variance + eps) if convention.eps_inside_root else 1 / (math.sqrt(variance) + eps)
    assert back == pytest.approx(scale, rel=1e-12)


def test_upper_ends_that_sum_to_0_are_the_one_zero_sum_row():
    """low < y < high with Σy = 0: when the upper ends themselves sum to 0, they are the only such row."""
    high = np.array([0.5, -0.5])
    assert smallest_zero_sum_squares(high - 0.01, high) == pytest.approx(0.5)


def test_a_float32_x_is_checked_as_the_same_numbers_in_float64():
    x32 = LESSON_X.astype(np.float32)
    single = check_published_output(PUBLISHED, x32).rows
    double = check_published_output(PUBLISHED, x32.astype(np.float64)).rows
    for a, b in zip(single, double):
        np.testing.assert_array_equal(a.true_output, b.true_output)
        assert (a.max_difference, a.bound, a.eps_fits) == (b.max_difference, b.bound, b.eps_fits)


def test_places_must_be_given_and_a_bad_one_is_named():
    with pytest.raises(InputError, match=r"^places must be given: the decimal places the table was printed to\.$") as e:
        check_published_output(PUBLISHED, LESSON_X, places=None)
    assert e.value.argument == "places"
    with pytest.raises(InputError) as bad:
        check_published_output(PUBLISHED, LESSON_X, places=2.5)
    assert bad.value.argument == "places"


@pytest.mark.parametrize(
    "published, x, sentence",
    [
        ([[0.0, "a"]], [[1.0, 2.0]], "The published table is not a rectangular table of numbers."),
        (
            [[1.0, 2.0]],
            LESSON_X,
            "The published table has shape (1, 2) but x has shape (5, 3); they need the same rows and columns.",
        ),
        ([[1.0, float("inf"), 0.0]], [[1.0, 2.0, 3.0]], "The published table contains NaN or infinity."),
        (
            [[1.0]],
            [[1.0]],
            "Checking needs at least 2 features per row (with 1, the unbiased variance divides by 0).",
        ),
    ],
)
def test_a_table_that_cannot_be_checked_is_refused_in_one_whole_sentence(published, x, sentence):
    with pytest.raises(ValueError) as refused:
        check_published_output(published, x)
    assert str(refused.value) == sentence
