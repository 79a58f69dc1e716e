"""helpers.core.published_table: could a table be a LayerNorm output? (notebook 07)

Every expected value is computed here independently: the lesson's numbers are written out, the
true output comes from torch in float64, and the four LayerNorm conventions are written out in
torch below, so a claim such as "no eps fits" is checked by trying eps values, not by re-reading
the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import helpers
from helpers.core.published_table import CONVENTIONS, check_published_output, smallest_zero_sum_squares

from conftest import EPS, LESSON_X, examples, torch_layer_norm
from conftest import PUBLISHED_OUTPUT as PUBLISHED

HALF_UNIT = 0.005  # the table is printed to 2 places


def layer_norm_under(x, eps=EPS, unbiased=False, eps_inside_root=True):
    """LayerNorm (γ = 1, β = 0) in torch float64 under one of the four conventions."""
    t = torch.tensor(np.asarray(x, dtype=np.float64))
    differences = t - t.mean(dim=-1, keepdim=True)
    variance = t.var(dim=-1, keepdim=True, unbiased=unbiased)
    if eps_inside_root:
        return (differences / torch.sqrt(variance + eps)).numpy()
    return (differences / (torch.sqrt(variance) + eps)).numpy()


def prints_as(values, digits) -> bool:
    """Would ``values`` print as ``digits`` at 2 places (allowing a value exactly on a boundary)?"""
    return bool(np.all(np.abs(np.asarray(values) - np.asarray(digits)) <= HALF_UNIT + 1e-9))


TRUE_OUTPUT = torch_layer_norm(LESSON_X)  # F.layer_norm in float64
TRUE_ROUNDED = np.array([[float(f"{v:.2f}") for v in row] for row in TRUE_OUTPUT])


@pytest.fixture(scope="module")
def published_check():
    return check_published_output(helpers.load_published_output(), helpers.load_residual(), eps=EPS)


def test_the_data_files_hold_the_lesson_numbers():
    np.testing.assert_array_equal(helpers.load_residual(), LESSON_X)
    np.testing.assert_array_equal(helpers.load_published_output(), PUBLISHED)


def test_row_sums_and_sums_of_squares_are_the_pencil_ones(published_check):
    for row, check in zip(PUBLISHED, published_check.rows):
        assert check.row_sum == pytest.approx(sum(row), abs=1e-12)
        assert check.sum_of_squares == pytest.approx(sum(v * v for v in row), abs=1e-12)
    # GUIDE.md: published row 1's squares sum to 4.28 > 3.
    assert f"{published_check.rows[0].sum_of_squares:.2f}" == "4.28"


def test_every_published_row_passes_check_1_and_rows_1_and_4_fail_check_2(published_check):
    assert [check.sums_to_zero for check in published_check.rows] == [True] * 5
    assert published_check.rows_where("squares_within_n") == [2, 3, 5]
    assert [row.row for row in published_check.rows if not row.could_be_layer_norm] == [1, 4]


def test_the_bound_is_what_the_true_outputs_squares_add_up_to(published_check):
    t = torch.tensor(LESSON_X)
    variance = t.var(dim=-1, unbiased=False).numpy()
    squares_of_truth = (TRUE_OUTPUT**2).sum(axis=1)
    for check, var, squares in zip(published_check.rows, variance, squares_of_truth):
        assert check.bound == pytest.approx(3 * var / (var + EPS), rel=1e-12)
        assert check.bound == pytest.approx(squares, rel=1e-12)
        assert check.bound < 3


def test_max_difference_and_only_row_3_is_close(published_check):
    for row_check, published, truth in zip(published_check.rows, PUBLISHED, TRUE_OUTPUT):
        assert row_check.max_difference == pytest.approx(np.max(np.abs(published - truth)), abs=1e-12)
        np.testing.assert_allclose(row_check.true_output, truth, atol=1e-12)
    assert published_check.rows_where("close") == [3]
    assert published_check.rows_where("matches") == []
    assert published_check.rows[2].verdict.startswith("close")


@pytest.mark.slow
def test_no_eps_under_any_convention_prints_any_published_row(published_check):
    # Try eps from 0 up to 1000 under each convention: none prints any published row.
    eps_values = [0.0, *np.logspace(-12, 3, 3001)]
    for convention, fits in zip(CONVENTIONS, zip(*(row.eps_fits for row in published_check.rows))):
        assert not any(fit.fits for fit in fits), convention.name
        for eps in eps_values:
            outputs = layer_norm_under(LESSON_X, eps, convention.unbiased, convention.eps_inside_root)
            assert not any(prints_as(out, digits) for out, digits in zip(outputs, PUBLISHED)), (convention.name, eps)


def test_the_true_output_rounded_passes_and_its_eps_ranges_are_right():
    check = check_published_output(TRUE_ROUNDED, LESSON_X, eps=EPS)
    assert check.rows_where("matches") == [1, 2, 3, 4, 5]
    assert all(row.verdict.startswith("right") for row in check.rows)
    for row, x_row, digits in zip(check.rows, LESSON_X, TRUE_ROUNDED):
        for convention, fit in zip(CONVENTIONS, row.eps_fits):

            def prints(eps, x_row=x_row, convention=convention, digits=digits):
                return prints_as(layer_norm_under(x_row, eps, convention.unbiased, convention.eps_inside_root), digits)

            if convention.unbiased:  # ÷ (n − 1) shrinks every output by √(2/3): nothing fits
                assert not fit.fits
                assert not any(prints(eps) for eps in [0.0, *np.logspace(-12, 1, 500)])
                continue
            assert fit.fits and fit.eps_low <= fit.eps_high
            inside = [fit.eps_low, (fit.eps_low + fit.eps_high) / 2, fit.eps_high]
            assert all(prints(eps) for eps in inside)
            assert not prints(fit.eps_high * 1.01 + 1e-9)  # just past the range it stops fitting
            if fit.eps_low > 0:
                assert not prints(fit.eps_low * 0.99)
        # PyTorch's own eps lies in the PyTorch convention's range.
        assert row.eps_fits[0].eps_low <= EPS <= row.eps_fits[0].eps_high
    # Rounding alone can push squares past n: the true row 2, printed, adds up to 3.0194.
    assert check.rows[1].sum_of_squares > 3 and check.rows[1].squares_within_n


def test_a_different_eps_is_recognised_as_possible_but_not_this_one():
    eps = 1e-2  # row 5's tiny variance makes this visibly different
    other = np.round(layer_norm_under(LESSON_X, eps), 2)
    check = check_published_output(other, LESSON_X, eps=EPS)
    row5 = check.rows[4]
    assert not row5.close and row5.could_be_layer_norm_of_x
    assert row5.eps_fits[0].eps_low <= eps <= row5.eps_fits[0].eps_high
    assert row5.verdict.startswith("wrong here")


@pytest.mark.parametrize(
    "convention",
    CONVENTIONS,
    ids=lambda c: ("unbiased" if c.unbiased else "biased") + ("-eps-inside" if c.eps_inside_root else "-eps-outside"),
)
@settings(max_examples=examples(60, fast=15), deadline=None)
@given(
    row=st.lists(st.floats(-100, 100, allow_nan=False), min_size=2, max_size=8),
    eps=st.sampled_from([0.0, 1e-12, 1e-5, 1e-3, 1.0, 100.0]),
)
def test_every_convention_sums_to_0_and_stays_within_its_bound(convention, row, eps):
    x = np.array(row)
    if np.ptp(x) < 1e-3:  # nearly constant rows: with eps = 0 the scale blows up
        return
    y = layer_norm_under(x, eps, convention.unbiased, convention.eps_inside_root)
    n = x.size
    assert abs(y.sum()) <= 1e-9 * n
    assert (y**2).sum() <= convention.largest_sum_of_squares(n) * (1 + 1e-12)
    if eps == 0:  # the bound is reached exactly at eps = 0
        assert (y**2).sum() == pytest.approx(convention.largest_sum_of_squares(n), rel=1e-9)


def brute_force_smallest(low, high, steps=401):
    """Least Σy² over a grid of (y1, y2) in their ranges with y3 = −y1 − y2 inside its range."""
    y1 = np.linspace(low[0], high[0], steps)[:, None]
    y2 = np.linspace(low[1], high[1], steps)[None, :]
    y3 = -y1 - y2
    ok = (y3 >= low[2] - 1e-12) & (y3 <= high[2] + 1e-12)
    squares = y1**2 + y2**2 + y3**2
    return float(squares[ok].min()) if ok.any() else None


@pytest.mark.parametrize("row", [*PUBLISHED, *TRUE_ROUNDED, [0.02, -0.01, -0.01], [0.3, 0.3, -0.59]])
def test_smallest_zero_sum_squares_against_a_grid(row):
    low, high = np.array(row) - HALF_UNIT, np.array(row) + HALF_UNIT
    ours = smallest_zero_sum_squares(low, high)
    grid = brute_force_smallest(low, high)
    assert grid is not None and ours is not None
    step = 2 * HALF_UNIT / 400
    assert ours <= grid + 1e-12
    assert ours >= grid - 6 * step * (np.abs(high).max() + 1)


def test_smallest_zero_sum_squares_none_when_no_row_sums_to_0():
    assert smallest_zero_sum_squares([0.1, 0.1, 0.1], [0.2, 0.2, 0.2]) is None
    check = check_published_output([[0.5, 0.5, 0.5]], [[1.0, 2.0, 3.0]])
    assert not check.rows[0].sums_to_zero and check.rows[0].verdict.startswith("impossible: the row does not sum")


def test_distances_for_the_circle_picture(published_check):
    row1 = published_check.rows[0]
    assert row1.distance_from_origin == pytest.approx(math.sqrt(4.2848))
    assert row1.distance_from_origin > math.sqrt(3)
    assert row1.distance_from_plane == pytest.approx(abs(PUBLISHED[0].sum()) / math.sqrt(3), abs=1e-15)


def test_a_constant_row_fits_only_zeros():
    x = [[0.5, 0.5, 0.5]]
    zeros = check_published_output([[0.0, 0.0, 0.0]], x).rows[0]
    assert zeros.eps_fits[0].fits and zeros.eps_fits[0].eps_high == math.inf
    assert not any(fit.fits for fit in check_published_output([[0.1, 0.0, -0.1]], x).rows[0].eps_fits)


@pytest.mark.parametrize(
    "published, x, kwargs, words",
    [
        ([[1.0, 2.0]], LESSON_X, {}, "shape"),
        ([[1.0, float("nan"), 0.0]], [[1.0, 2.0, 3.0]], {}, "NaN"),
        ([[1.0]], [[1.0]], {}, "at least 2 features"),
        ([[0.0, 0.0]], [[1.0, 2.0]], {"eps": -1.0}, "eps"),
        ([[0.0, 0.0]], [[1.0, 2.0]], {"places": 2.5}, "places"),
        ([[0.0, "a"]], [[1.0, 2.0]], {}, "not a rectangular table"),
    ],
)
def test_bad_input_is_explained(published, x, kwargs, words):
    with pytest.raises(ValueError, match=words):
        check_published_output(published, x, **kwargs)


def test_text_and_html_views(published_check):
    text = str(published_check)
    assert text == repr(published_check)
    lines = text.splitlines()
    row1 = next(line for line in lines if line.strip().startswith("1 "))
    for shown in ("1.40", "-1.52", "0.12", "0.00", "4.2848", "2.99991", "0.2493", "✗ impossible"):
        assert shown in row1
    row3 = next(line for line in lines if line.strip().startswith("3 "))
    assert "≈ close" in row3
    html = published_check._repr_html_()
    assert html.count("<tr") == 6 and "4.2848" in html and "&lt;" not in text
    fits = published_check.by_convention()
    assert str(fits).count("none") == 20
    assert fits._repr_html_().count("<tr") == 6
    right = check_published_output(TRUE_ROUNDED, LESSON_X)
    row5 = next(line for line in str(right.by_convention()).splitlines() if line.strip().startswith("5 "))
    fit = right.rows[4].eps_fits[0]  # its range is checked against torch above
    assert row5.split()[1:4] == [f"{fit.eps_low:.2g}", "to", f"{fit.eps_high:.2g}"]
    assert row5.count("none") == 2


# ---------------------------------------------------------------------------------------------
# The pencil's version of check 2 (the lecture's slide): each value moved half a unit towards 0


def _pencil_squares(row, half=HALF_UNIT) -> float:
    """Σ(|y| − h)² in exact decimals, each |y| − h floored at 0: as a student does it on paper."""
    from fractions import Fraction

    h = Fraction(str(half))
    return float(sum(max(abs(Fraction(f"{v:.2f}")) - h, Fraction(0)) ** 2 for v in row))


def test_pencil_squares_are_the_squares_with_each_value_moved_half_a_unit_to_0():
    check = check_published_output(PUBLISHED, LESSON_X)
    for row, printed in zip(check.rows, PUBLISHED):
        assert row.pencil_sum_of_squares == pytest.approx(_pencil_squares(printed), abs=1e-12)
    # row 2 is over 3 as printed (3.0062) but not once rounding is allowed for: the pencil must agree
    assert float(np.sum(PUBLISHED[1] ** 2)) > 3 and check.rows[1].pencil_squares_within_n


def test_the_pencil_catches_the_same_rows_as_the_exact_check_on_the_lessons_table():
    check = check_published_output(PUBLISHED, LESSON_X)
    assert [r.pencil_squares_within_n for r in check.rows] == [r.squares_within_n for r in check.rows]


@settings(max_examples=examples(200, fast=50), deadline=None)
@given(st.lists(st.integers(-250, 250), min_size=3, max_size=3))
def test_the_pencil_never_catches_a_row_the_exact_check_lets_pass(hundredths):
    row = np.array(hundredths, dtype=np.float64) / 100
    check = check_published_output(row[None, :], LESSON_X[:1])
    (checked,) = check.rows
    smallest = checked.smallest_sum_of_squares
    assert smallest is None or checked.pencil_sum_of_squares <= smallest + 1e-9


@settings(max_examples=30, deadline=None)
@given(st.lists(st.floats(-3, 3, allow_nan=False), min_size=2, max_size=6))
def test_the_distance_from_the_plane_is_the_distance_to_the_nearest_row_that_sums_to_0(values):
    """The nearest zero-sum row is the row minus its mean (its projection on the plane); the distance from the
    plane is how far the row is from it, and from the origin, Pythagoras of the two parts."""
    row = np.asarray(values)
    check = check_published_output([row], [np.arange(len(row), dtype=float)]).rows[0]
    nearest = row - row.mean()
    assert check.distance_from_plane == pytest.approx(np.linalg.norm(row - nearest), abs=1e-12)
    assert check.distance_from_origin**2 == pytest.approx(
        check.distance_from_plane**2 + np.linalg.norm(nearest) ** 2, abs=1e-9
    )
