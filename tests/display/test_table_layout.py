"""helpers.display: behaviour the other display tests left unpinned, found by mutmut (tools/mutation/mutmut_run.py).

Each test states a rule from a docstring or a column's meaning; expected text is built here with plain
f-strings from the record's own fields, never by calling the function under test a second time.
tools/mutation/mutmut_triage.md lists which survivor each test was written against.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from helpers.core.layernorm import STAGES, layer_norm, layer_norm_steps
from helpers.core.published_table import CONVENTIONS, check_published_output
from helpers.display import render_html, render_text
from helpers.display.formatting import format_row, places_for, rjust, scroll_box
from helpers.display.matrix import show_matrix, side_by_side
from helpers.display.steps import places_showing_eps, steps_html, steps_table, steps_text
from helpers.display.verdicts import (
    comparison_html,
    comparison_table,
    comparison_text,
    eps_fits_html,
    eps_fits_table,
    eps_fits_text,
    format_difference,
    format_eps_range,
    published_check_table,
)

from conftest import LESSON_X as X

# ---------------------------------------------------------------------------------------------
# formatting


def test_scroll_box_names_its_region_after_the_table_escaped_or_table():
    assert 'aria-label="a &amp; b, scrolls sideways"' in scroll_box("<table></table>", "a & b")
    assert 'aria-label="table, scrolls sideways"' in scroll_box("<table></table>", "")


def test_format_row_right_aligns_every_value_in_one_width_two_spaces_apart():
    assert format_row([1.133, -0.299, 0.503]) == " 1.1330  -0.2990   0.5030"  # width of "-0.2990"
    assert format_row([1.133, -0.299, 0.503], 2) == " 1.13  -0.30   0.50"
    assert format_row([1.5, 2.5], 1, width=5) == "  1.5    2.5"


def test_rjust_pads_on_the_left_to_screen_columns_and_never_cuts():
    assert rjust("x̂", 3) == "  x̂"  # the combining accent takes no column
    assert rjust("12345", 3) == "12345"
    assert rjust("ab", 2) == "ab"


@pytest.mark.parametrize(
    "values, expected",
    [
        ([], 4),  # nothing to show: the places asked for
        ([0.00005], 4),  # shows as 0.0001 at 4 places: no more needed
        ([0.0001], 4),
        ([0.00004], 7),  # would show as 0.0000: 3 significant digits, 0.0000400
        ([1e-14], 16),  # more than MOST_PLACES: format_number then writes 1.0000e-14
    ],
)
def test_places_for_adds_places_only_when_every_value_would_show_as_zero(values, expected):
    assert places_for(values, 4) == expected


# ---------------------------------------------------------------------------------------------
# matrix


def test_side_by_side_pads_each_block_to_its_widest_line_plus_the_gap():
    left, right = "a\nbb", "x̂\ny\nz"
    assert side_by_side(left, right) == "a     x̂\nbb    y\n      z"  # "bb" + 4, then the right block
    assert side_by_side(left, right, gap=1) == "a  x̂\nbb y\n   z"
    view = show_matrix([[1.0]])
    assert side_by_side(view, "|") == "\n".join(
        f"{line}{' ' * (max(len(v) for v in str(view).splitlines()) + 4 - len(line))}{mark}".rstrip()
        for line, mark in zip(str(view).splitlines(), ["|", "", ""])
    )


def test_an_empty_block_takes_only_the_gap():
    assert side_by_side("", "x") == "    x"
    assert side_by_side("", "x", gap=1) == " x"


def test_a_matrix_of_ten_rows_or_columns_shows_them_all_and_eleven_are_elided():
    ten = show_matrix(np.zeros((10, 10))).table()
    assert len(ten.rows) == 10 and len(ten.column_headers) == 10
    assert not any(row.elided for row in ten.rows)
    eleven = show_matrix(np.zeros((11, 11))).table()
    assert [row.elided for row in eleven.rows] == [False] * 3 + [True] + [False] * 3
    assert eleven.column_headers == ("f1", "f2", "f3", "…", "f9", "f10", "f11")


def test_show_matrix_holds_its_numbers_as_float64():
    view = show_matrix([[1, 2], [3, 4]])
    assert view.values.dtype == np.float64 and view.values.tolist() == [[1.0, 2.0], [3.0, 4.0]]


# ---------------------------------------------------------------------------------------------
# steps


def test_unknown_stage_names_are_refused_naming_the_argument_and_every_stage():
    record = layer_norm_steps([1.0, 2.0, 4.0])
    every = ", ".join(STAGES)
    with pytest.raises(ValueError) as caught:
        steps_text(record, focus=["nope", "mean", "also"])
    assert str(caught.value) == f"focus names stages that do not exist: 'nope', 'also'; the stages are {every}."
    with pytest.raises(ValueError) as caught:
        steps_text(record, stages="nope")
    assert str(caught.value) == f"stages names stages that do not exist: 'nope'; the stages are {every}."
    with pytest.raises(ValueError) as caught:
        steps_text(record, stages=[])
    assert str(caught.value) == "stages names no stage; name at least one, e.g. ['mean']."


def test_no_focus_is_the_same_as_an_empty_focus():
    record = layer_norm_steps([1.0, 2.0, 4.0])
    assert steps_text(record, focus=None) == steps_text(record)


def test_the_title_says_feature_for_one_value_and_features_for_more():
    one = steps_table(layer_norm_steps([2.0]))
    assert one.title == "LayerNorm of one row (1 feature, eps = 1e-05), exact, shown to 4 places"
    three = steps_table(layer_norm_steps([1.0, 2.0, 4.0], eps=0.001))
    assert three.title == "LayerNorm of one row (3 features, eps = 0.001), exact, shown to 4 places"


def test_eps_is_shown_as_people_write_it():
    lines = {line.label: line for line in steps_table(layer_norm_steps([1.0, 2.0, 4.0])).lines}
    assert lines["epsilon"].numbers == ("1e-05",)


def test_places_showing_eps_for_eps_0_and_a_tiny_eps():
    assert places_showing_eps(layer_norm_steps([1.0, 2.0, 4.0], eps=0), 4) == 4
    assert places_showing_eps(layer_norm_steps([1.0, 2.0, 4.0], eps=1e-15), 4) == 15  # at most 15
    assert "σ² + ε" in steps_text(layer_norm_steps([1.0, 2.0, 4.0], eps=0))


def test_steps_html_shows_only_the_stages_asked_for():
    record = layer_norm_steps([1.0, 2.0, 4.0])
    assert (
        steps_html(record, stages=["mean"]).count("<tr") == steps_html(record, stages=["mean", "std"]).count("<tr") - 1
    )


# ---------------------------------------------------------------------------------------------
# verdicts: a published table checked (notebook 07)


def _published():
    """Row 1 of the lesson twice: printed right (the true output to 2 places), then as the lesson printed it."""
    right = np.round(layer_norm(X[:1]), 2)
    return check_published_output(np.vstack([right, [[1.40, -1.52, 0.12]]]), np.vstack([X[:1], X[:1]]), places=2)


def _published_3():
    """To 3 places: the true row 1, and an all-positive row that does not sum to 0 (narrower, no least sum)."""
    right = np.round(layer_norm(X[:1]), 3)
    return check_published_output(np.vstack([right, [[0.661, 0.782, 0.653]]]), np.vstack([X[:1], X[:1]]), places=3)


@pytest.mark.parametrize("made", [_published, _published_3])
def test_each_published_row_is_shown_with_each_columns_own_places(made):
    check = made()
    places = check.places
    table = published_check_table(check)
    # the published values share one width across the rows, so that their columns line up
    width = max(len(f"{v:.{places}f}") for row in check.rows for v in row.published)
    for row, shown in zip(check.rows, table.rows):
        least = "—" if row.smallest_sum_of_squares is None else f"{row.smallest_sum_of_squares:.{2 * places}f}"
        expected = (
            str(row.row),
            "  ".join(f"{v:.{places}f}".rjust(width) for v in row.published),
            f"{row.row_sum:.{places}f}".replace(f"-0.{'0' * places}", f"0.{'0' * places}"),
            f"{row.sum_of_squares:.{2 * places}f}",  # squares of values kept to `places`: exact at twice the places
            least,
            f"{row.bound:.5f}",
            f"{row.max_difference:.4f}",
        )
        assert tuple(cell.text for cell in shown.cells[:7]) == expected
        assert shown.highlighted == row.close and shown.flagged == (not row.close)
    assert [row.row for row in check.rows] == [1, 2]
    assert table.css_class == "layernorm-published-check" and table.nowrap is True
    assert table.numeric == (False, True, True, True, True, True, True, False)  # row and verdict are words
    assert table.rows[0].cells[7].text == "✓ right: the true output, rounded"


def test_a_row_that_does_not_sum_to_zero_has_no_least_sum_of_squares():
    check = _published_3()
    assert check.rows[1].smallest_sum_of_squares is None
    assert published_check_table(check).rows[1].cells[4].text == "—"


def test_the_notes_of_a_one_row_check_count_its_values():
    check = check_published_output(np.round(layer_norm(X[:1]), 2), X[:1], places=2)
    assert published_check_table(check).notes[1].startswith("sum of squares: must be at most n = 3,")


def test_the_published_checks_notes_explain_each_column_for_this_table():
    notes = published_check_table(_published()).notes
    assert notes == (
        "row sum: must be 0 (rounding each of the 3 values by up to 0.005 allows ± 0.015).",
        "sum of squares: must be at most n = 3, whatever eps or variance (÷ n or ÷ (n − 1)) is used.",
        "least possible: the smallest sum of squares of a row that sums to 0 and prints as these digits.",
        "n·var/(var+ε): what the true output's squares add up to, for this row of x.",
        "max difference: from the true output; 'close' means within 0.05.",
    )


def test_a_row_that_sums_to_zero_shows_its_least_possible_sum_of_squares():
    check = _published()
    assert check.rows[0].smallest_sum_of_squares is not None  # the right row sums to 0
    assert published_check_table(check).rows[0].cells[4].text == f"{check.rows[0].smallest_sum_of_squares:.4f}"


@pytest.mark.parametrize(
    "fit, expected",
    [
        (SimpleNamespace(fits=False, eps_low=None, eps_high=None), "none"),
        (SimpleNamespace(fits=True, eps_low=0.0, eps_high=float("inf")), "0 to ∞"),
        (SimpleNamespace(fits=True, eps_low=1.234e-5, eps_high=0.0031), "1.2e-05 to 0.0031"),
        (SimpleNamespace(fits=True, eps_low=0.5, eps_high=1.0), "0.5 to 1"),
    ],
)
def test_format_eps_range(fit, expected):
    assert format_eps_range(fit) == expected


def test_the_eps_fits_table_has_a_row_name_then_a_range_per_convention():
    check = _published()
    table = eps_fits_table(check)
    assert table.css_class == "layernorm-eps-fits"
    assert table.header == ("row", *(c.short_name for c in CONVENTIONS))
    for row, shown in zip(check.rows, table.rows):
        assert shown.cells[0].text == str(row.row) and shown.cells[0].heading is True
        ranges = [format_eps_range(fit) for fit in row.eps_fits]
        assert [cell.text for cell in shown.cells[1:]] == ranges
        assert [cell.flagged for cell in shown.cells[1:]] == [text == "none" for text in ranges]
        assert not any(cell.heading for cell in shown.cells[1:])
    assert eps_fits_text(check) == render_text(table) and eps_fits_html(check) == render_html(table)


# ---------------------------------------------------------------------------------------------
# verdicts: implementations compared (helpers.reference, notebook 08)


@pytest.mark.parametrize(
    "difference, expected",
    [(0.0, "0"), (1e-13, "< 1e-12"), (1e-12, "< 1e-12"), (1.5e-12, "1.5e-12"), (0.21, "2.1e-01")],
)
def test_format_difference(difference, expected):
    assert format_difference(difference) == expected


def _report():
    def row(name, exact, close, difference, expected=True):
        return SimpleNamespace(
            name=name, exact=exact, close=close, max_difference=difference, expected_to_match=expected
        )

    rows = [
        row("mine", True, True, 0.0),
        row("n-1", False, False, 0.21, expected=False),
        row("noisy", False, True, 1e-13),
        row("broken", False, False, 0.5),
        row("lucky", False, True, 1e-3, expected=False),
    ]
    return SimpleNamespace(rows=rows, shape=(5, 3), eps=1e-5, reference_name="torch.nn.LayerNorm")


def test_the_comparison_table_says_per_implementation_whether_it_matches():
    table = comparison_table(_report())
    assert table.css_class == "layernorm-comparison"
    assert table.title == "LayerNorm on a 5×3 matrix (float64, eps = 1e-05) against torch.nn.LayerNorm"
    assert table.header == ("implementation", "exact", "close", "max difference", "verdict")
    assert [tuple(cell.text for cell in row.cells) for row in table.rows] == [
        ("mine", "yes", "yes", "0", "matches"),
        ("n-1", "no", "no", "2.1e-01", "DIFFERS (as it should)"),
        ("noisy", "no", "yes", "< 1e-12", "matches"),
        ("broken", "no", "no", "5.0e-01", "DIFFERS"),
        ("lucky", "no", "yes", "1.0e-03", "matches (unexpected!)"),
    ]
    assert [row.flagged for row in table.rows] == [False, True, False, True, False]  # flagged: not close


def test_the_comparison_text_and_html_render_that_table():
    report = _report()
    assert comparison_text(report) == render_text(comparison_table(report))
    assert comparison_html(report) == render_html(comparison_table(report))
