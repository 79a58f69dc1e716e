"""helpers.display: text and HTML views of records and matrices.

What a learner reads must be the lesson's numbers, fixed places, never -0.000, the same on every
run, and short even for 768 features.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import numpy as np
import pytest

import helpers
from helpers import format_number, layer_norm_steps, show_matrix
from helpers.core.layernorm import STAGES
from helpers.display import (
    STAGE_LABELS,
    filled_formulas_text,
    format_eps,
    format_values,
    render_html,
    render_text,
    steps_html,
    steps_text,
    text_width,
)

from conftest import LESSON_X as X
from conftest import numpy_stages

VOID_ELEMENTS = {"br", "hr", "img", "input", "meta", "link", "col", "wbr"}


class TableReader(HTMLParser):
    """Checks tags are balanced and collects each table row's header and cells as text."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open_tags: list[str] = []
        self.problems: list[str] = []
        self.tables = 0
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag not in VOID_ELEMENTS:
            self.open_tags.append(tag)
        if tag == "table":
            self.tables += 1
        elif tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
            self._span = int(dict(attrs).get("colspan", 1))

    def handle_endtag(self, tag):
        if not self.open_tags or self.open_tags[-1] != tag:
            self.problems.append(f"</{tag}> closes {self.open_tags[-1:] or 'nothing'}")
            return
        self.open_tags.pop()
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self.rows[-1].extend([""] * (self._span - 1))  # a cell spanning k columns counts as k cells
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def read_html(markup: str) -> TableReader:
    reader = TableReader()
    reader.feed(markup)
    reader.close()
    assert reader.problems == []
    assert reader.open_tags == [], f"unclosed: {reader.open_tags}"
    return reader


# ---------------------------------------------------------------------------------------------
# Numbers


@pytest.mark.parametrize(
    "value, places, expected",
    [
        (1.1729, 4, "1.1729"),
        (-0.0004, 3, "0.000"),
        (-0.0, 4, "0.0000"),
        (-1e-20, 2, "0.00"),
        (-0.4, 0, "0"),
        (-0.0005, 3, "-0.001"),
        (0.097, 2, "0.10"),
        (1.172, 2, "1.17"),
        (-1.271, 2, "-1.27"),
        (12345.678, 1, "12345.7"),
        (float("nan"), 3, "nan"),
        (float("inf"), 3, "inf"),
        (float("-inf"), 3, "-inf"),
        (np.float32(0.5), 2, "0.50"),
    ],
)
def test_format_number(value, places, expected):
    assert format_number(value, places) == expected


def test_format_number_never_negative_zero_on_tiny_negatives():
    for places in range(0, 9):
        for value in (-1e-300, -5e-324, -0.0, -0.4 * 10.0**-places):
            assert not format_number(value, places).startswith("-"), (value, places)


@pytest.mark.parametrize("eps, expected", [(1e-5, "1e-05"), (1e-3, "0.001"), (0, "0"), (1e-12, "1e-12")])
def test_format_eps(eps, expected):
    assert format_eps(eps) == expected


def test_format_values_elides_long_rows_like_numpy():
    assert format_values(np.arange(10.0), 1) == [f"{v}.0" for v in range(10)]
    assert format_values(np.arange(11.0), 1) == ["0.0", "1.0", "2.0", "…", "8.0", "9.0", "10.0"]


def test_text_width_counts_combining_accents_as_nothing():
    assert text_width("x̂") == 1
    assert text_width("σ² + ε") == 6


# ---------------------------------------------------------------------------------------------
# One row's steps as text


def test_steps_text_row_1_exact_shows_the_true_numbers():
    text = steps_text(layer_norm_steps(X[0]))
    for number in (
        "1.1330",
        "-0.2990",
        "0.5030",
        "0.4457",
        "0.6873",
        "-0.7447",
        "0.0573",
        "0.3434",
        "0.5860",
        "1.1729",
        "-1.2707",
        "0.0978",
        "1e-05",
    ):
        assert number in text
    assert "exact, shown to 4 places" in text
    assert "≠ exact" not in text


def numbers_on(line: str) -> list[str]:
    return [word for word in line.split() if word[0].isdigit() or word[0] == "-"]


def stage_lines(text: str) -> dict[str, str]:
    """The stage lines of a steps table by their label (the text before the first two spaces)."""
    labels = {label for label, _, _ in STAGE_LABELS.values()}
    lines = {line.strip(" ▶").split("  ")[0]: line for line in text.splitlines()}
    return {label: line for label, line in lines.items() if label in labels}


def five(values) -> list[str]:
    """Values to 5 places, as a hand-rounded record shows the exact ones beside its own 3."""
    return [f"{value:.5f}" for value in np.atleast_1d(values)]


def test_steps_text_row_1_by_hand_shows_the_lessons_pencil_numbers_beside_the_exact_ones():
    text = steps_text(layer_norm_steps(X[0], decimals=3))
    lines = stage_lines(text)
    by_hand = {
        "mean": ["0.446"],
        "differences": ["0.687", "-0.745", "0.057"],
        "squares": ["0.472", "0.555", "0.003"],
        "variance": ["0.343"],
        "std": ["0.586"],
        "normalised": ["1.172", "-1.271", "0.097"],
    }
    exact = numpy_stages(X[0])
    for label, digits in by_hand.items():
        # σ² is shown at the places of σ² + ε beside it (6 for ε = 1e-5), so that their sum can be checked
        exact_digits = [f"{exact[label]:.6f}"] if label == "variance" else five(exact[label])
        assert numbers_on(lines[label]) == digits + exact_digits, label
    assert "rounded by hand to 3 places (halves away from zero)" in text
    assert text.splitlines()[1].split() == ["by", "hand", "(3", "places)", "exact"]
    # σ² + ε keeps ε's places (6), and at those its hand value 0.343010 is not the exact 0.343424: marked
    marked = [label for label, line in lines.items() if line.endswith("≠ exact")]
    assert marked == ["variance + ε"], marked
    assert text.splitlines()[-1] == "  ≠ exact: rounding to 3 places moved: variance + ε."


def test_steps_text_row_5_by_hand_marks_the_drift_and_sums_it_up_in_one_line():
    text = steps_text(layer_norm_steps(X[4], decimals=3))
    lines = stage_lines(text)
    marked = [label for label, line in lines.items() if line.endswith("≠ exact")]
    assert {"variance", "std", "normalised", "output"} <= set(marked)
    assert "mean" not in marked and "differences" not in marked
    exact = numpy_stages(X[4])
    assert numbers_on(lines["std"]) == ["0.055"] + five(exact["std"])  # the guide: std 0.055 by hand, 0.05862 true
    assert numbers_on(lines["normalised"]) == ["-0.618", "1.491", "-0.891"] + five(exact["normalised"])
    assert numbers_on(lines["variance"]) == ["0.003", "0.003427"]  # exactly: 0.003427 + 1e-05 = 0.003437
    assert numbers_on(lines["variance + ε"]) == ["0.003010", "0.003437"]  # by hand: 0.003 + 1e-05
    assert len(text.splitlines()) == 2 + len(lines) + 1  # title, heading, a line per stage, ONE summary line
    assert text.splitlines()[-1] == f"  ≠ exact: rounding to 3 places moved: {', '.join(marked)}."


def test_steps_text_by_hand_keeps_the_exact_column_and_the_marks_aligned():
    text = steps_text(layer_norm_steps(X[4], decimals=3))
    header, *lines = [strip_accents(line) for line in text.splitlines()[1:-1]]
    exact_column = header.index("exact")
    marks = set()
    for line in lines:
        assert line[exact_column - 3 : exact_column] == "   ", line  # three spaces, then the exact block
        if line.endswith("≠ exact"):
            marks.add(line.index("≠ exact"))
    assert len(marks) == 1  # every "≠ exact" in one column


def strip_accents(line: str) -> str:
    """The line as it sits on screen, one character per column (x̂'s accent takes none)."""
    return "".join(ch for ch in line if text_width(ch))


def test_steps_text_is_deterministic_and_is_the_records_str_and_repr():
    record = layer_norm_steps(X[2], eps=1e-6, gamma=[1, 2, 3], beta=[0.5, 0, -0.5])
    text = steps_text(record)
    assert text == steps_text(layer_norm_steps(X[2], eps=1e-6, gamma=[1, 2, 3], beta=[0.5, 0, -0.5]))
    assert str(record) == repr(record) == text
    assert "0x" not in text and "object at" not in text
    assert not re.search(r"-0\.0+(?![0-9])", text)


def test_steps_text_shows_gamma_and_beta_only_when_not_plain():
    plain = steps_text(layer_norm_steps(X[0]))
    assert "gamma" not in plain and "beta" not in plain
    scaled = steps_text(layer_norm_steps(X[0], gamma=[2, 2, 2]))
    assert "gamma" in scaled and "beta" in scaled


def test_steps_text_lines_are_aligned():
    visible = [s for s in STAGES if s not in ("gamma", "beta")]
    lines = steps_text(layer_norm_steps(X[0])).splitlines()[1 : 1 + len(visible)]
    assert len(lines) == len(visible)
    formula_starts, first_number_ends = set(), set()
    for stage, line in zip(visible, lines):
        label, formula, _ = STAGE_LABELS[stage]
        assert line.strip().startswith(label)
        start = line.index("  " + formula, len(label)) + 2
        formula_starts.add(text_width(line[:start]))
        after = line[start + len(formula) :]
        first_number_ends.add(
            text_width(line[: start + len(formula)]) + len(after) - len(after.lstrip()) + len(after.split()[0])
        )
    assert len(formula_starts) == 1  # the formulas form one column
    assert len(first_number_ends) == 1  # the first values are right-aligned in one column


def test_steps_text_with_chosen_stages():
    text = steps_text(layer_norm_steps(X[0]), stages=["mean", "std"])
    assert len(text.splitlines()) == 3
    assert "0.4457" in text and "0.5860" in text and "1.1729" not in text


# ---------------------------------------------------------------------------------------------
# One row's steps as HTML


def stage_rows(markup: str) -> list[list[str]]:
    reader = read_html(markup)
    assert reader.tables == 1
    return reader.rows


def test_steps_html_has_one_row_per_visible_stage():
    rows = stage_rows(layer_norm_steps(X[0])._repr_html_())
    assert [row[0] for row in rows] == [STAGE_LABELS[s][0] for s in STAGES if s not in ("gamma", "beta")]
    assert dict((row[0], row[2:]) for row in rows)["output"] == ["1.1729", "-1.2707", "0.0978"]


def test_steps_html_with_gamma_and_beta_shows_all_twelve_stages():
    rows = stage_rows(steps_html(layer_norm_steps(X[0], gamma=[1, 2, 3], beta=[0, 0, 1])))
    assert len(rows) == len(STAGES) == 12
    assert dict((row[0], row[2:]) for row in rows)["gamma"] == ["1.0000", "2.0000", "3.0000"]


def hand_and_exact(cells: list[str]) -> tuple[list[str], list[str]]:
    """A hand-rounded table row's cells split at the │ between the hand digits and the exact ones."""
    middle = cells.index("│")
    return [c for c in cells[:middle] if c], [c for c in cells[middle + 1 :] if c]


def test_steps_html_by_hand_row_1_and_row_5():
    header, *rows = stage_rows(layer_norm_steps(X[0], decimals=3)._repr_html_())
    assert [cell for cell in header if cell] == ["by hand (3 places)", "exact"]
    cells = {row[0]: row[2:] for row in rows}
    exact = numpy_stages(X[0])
    assert hand_and_exact(cells["mean"]) == (["0.446"], five(exact["mean"]))
    assert hand_and_exact(cells["normalised"]) == (["1.172", "-1.271", "0.097"], five(exact["normalised"]))
    assert len({row.index("│") for row in rows}) == 1  # the exact values start in one column
    markup = layer_norm_steps(X[4], decimals=3)._repr_html_()
    flagged = [row[0] for row in stage_rows(markup) if row[0].endswith("≠ exact")]
    assert {"variance ≠ exact", "std ≠ exact", "output ≠ exact"} <= set(flagged)
    moved = ", ".join(label.removesuffix(" ≠ exact") for label in flagged)
    assert f"≠ exact: rounding to 3 places moved: {moved}." in markup


def test_steps_html_shades_and_bolds_only_the_focused_stage():
    plain = layer_norm_steps(X[0])._repr_html_().split("<tr")[1:]
    focused = steps_html(layer_norm_steps(X[0]), focus="std").split("<tr")[1:]
    changed = [row for before, row in zip(plain, focused) if row != before]
    assert len(changed) == 1
    assert ">std</th>" in changed[0] and "background" in changed[0].split(">")[0] and "font-weight:700" in changed[0]


def test_steps_html_escapes_and_is_deterministic():
    markup = layer_norm_steps(X[1])._repr_html_()
    assert markup == layer_norm_steps(X[1])._repr_html_()
    assert "0x" not in markup and "<script" not in markup


# ---------------------------------------------------------------------------------------------
# Long rows and big matrices stay short


def test_768_value_row_is_elided():
    row = np.random.default_rng(0).normal(size=768)
    record = layer_norm_steps(row)
    text = str(record)
    assert "…" in text
    assert len(text) < 2000 and max(len(line) for line in text.splitlines()) < 150
    markup = record._repr_html_()
    assert "…" in markup and len(markup) < 12_000
    rows = stage_rows(markup)
    assert all(len(row) <= 2 + 7 for row in rows)  # label, formula, 3 + … + 3 values


def test_768_value_row_by_hand_is_elided_too():
    record = layer_norm_steps(np.linspace(-2, 3, 768), decimals=3)
    assert "…" in str(record) and len(str(record)) < 2600


def test_matrix_view_elides_100_by_100():
    values = np.arange(10_000, dtype=np.float64).reshape(100, 100) / 7
    view = show_matrix(values, "big")
    text = str(view)
    lines = text.splitlines()
    assert "…" in text
    assert len(lines) == 1 + 1 + 7  # title, column headers, 3 rows + … + 3 rows
    assert lines[1].split() == ["f1", "f2", "f3", "…", "f98", "f99", "f100"]
    assert lines[-1].startswith("row 100")
    reader = read_html(view._repr_html_())
    assert len(reader.rows) == 1 + 7
    assert len(view._repr_html_()) < 10_000


def test_show_matrix_of_the_lesson_matrix():
    view = show_matrix(X, "X", places=3, highlight_row=0)
    lines = str(view).splitlines()
    assert lines[0] == "X"
    assert lines[2].split() == ["row", "1", "1.133", "-0.299", "0.503", "◀"]
    assert lines[-1].split() == ["row", "5", "0.663", "0.779", "0.648"]
    assert repr(view) == str(view)
    reader = read_html(view._repr_html_())
    assert reader.rows[1] == ["row 1", "1.133", "-0.299", "0.503"]
    assert "background" in view._repr_html_().split("row 1")[0].rsplit("<tr", 1)[1]


def test_show_matrix_of_one_row_and_its_values_are_frozen():
    view = show_matrix([1.0, 2.0])
    assert view.values.shape == (1, 2)
    with pytest.raises(ValueError, match="read-only"):
        view.values[0, 0] = 5.0


def test_show_matrix_refuses_3d():
    with pytest.raises(ValueError, match=r"show_matrix shows a 2-D matrix; got shape \(2, 2, 2\)"):
        show_matrix(np.zeros((2, 2, 2)))


def test_show_matrix_never_negative_zero():
    text = str(helpers.show_matrix(np.array([[-1e-9, 0.0], [-0.0, -4e-5]])))
    assert not re.search(r"-0\.0+(?![0-9])", text)


def test_show_matrix_with_column_and_row_labels():
    view = show_matrix(
        [[0.44567, 0.34341], [0.29267, 0.20813]],
        places=5,
        column_labels=["mean μ", "variance σ²"],
        row_labels=["ε = 1e-05", "x̂ <b>"],
    )
    lines = str(view).splitlines()
    assert lines[0].split() == ["mean", "μ", "variance", "σ²"]
    assert lines[1].split() == ["ε", "=", "1e-05", "0.44567", "0.34341"]
    assert text_width(lines[1]) == text_width(lines[2])  # x̂'s accent takes no column
    reader = read_html(view._repr_html_())
    assert reader.rows[0][-2:] == ["mean μ", "variance σ²"]
    assert reader.rows[2][0] == "x̂ <b>"  # escaped, shown as text


def test_show_matrix_labels_must_match_the_shape():
    with pytest.raises(ValueError, match="column_labels needs one label per column: the matrix has 2 columns, got 1"):
        show_matrix([[1.0, 2.0]], column_labels=["a"])
    with pytest.raises(ValueError, match="row_labels needs one label per row: the matrix has 1 rows, got 2"):
        show_matrix([[1.0, 2.0]], row_labels=["a", "b"])


# --- σ² + ε is shown with enough places for ε to be seen (review fix)


def _cells_of(text: str, label: str) -> list[str]:
    (line,) = [line for line in text.splitlines() if line.strip().startswith(label + "  ")]
    return re.findall(r"-?\d+\.\d+", line)


@pytest.mark.parametrize("row", [X[4], [2.0, 2.0, 2.0]])
def test_variance_plus_eps_shows_eps_in_text_and_html(row):
    record = layer_norm_steps(row)
    expected = f"{np.var(np.asarray(row, dtype=np.float64)) + 1e-5:.6f}"  # ε = 1e-5 needs 6 places
    assert _cells_of(steps_text(record), "variance + ε") == [expected]
    assert f">{expected}<" in steps_html(record)
    assert expected != f"{np.var(np.asarray(row, dtype=np.float64)):.6f}"  # so ε is visible in the sum


def test_hand_rounded_variance_plus_eps_shows_eps_as_the_step_through_does():
    # By hand σ² + ε is kept unrounded (ε must not be rounded away): the row editor shows it as it is, with the
    # places that show ε, as the step-through does; 0.343 at 3 places would hide ε (and read 0.003 for row 5
    # where the step-through says 0.003010).
    record = layer_norm_steps(X[0], decimals=3)
    hand, exact = _cells_of(steps_text(record), "variance + ε")
    assert hand == f"{record.variance_plus_eps:.6f}" == "0.343010"
    assert "σ² + ε = 0.343 + 1e-05 = 0.343010" in filled_formulas_text(record, ["variance_plus_eps"])
    assert exact == f"{np.var(X[0]) + 1e-5:.6f}"  # the exact column is an exact record: ε shows


def test_show_matrix_with_no_rows_or_no_columns_is_refused_in_plain_words():
    for empty in (np.zeros((0, 3)), np.zeros((2, 0)), []):
        with pytest.raises(ValueError, match="at least one row and one column"):
            show_matrix(empty)


def test_hand_rounded_is_defined_once_on_the_record():
    assert layer_norm_steps(X[0], decimals=3).hand_rounded
    assert not layer_norm_steps(X[0]).hand_rounded
    assert not layer_norm_steps(X[0], decimals=3).exact.hand_rounded
    assert not hasattr(helpers.display, "_is_hand_rounded")


def test_a_table_view_is_described_once_and_both_renderings_say_the_same():
    from helpers.core.published_table import check_published_output
    from helpers.display import eps_fits_table, render_html, render_text

    from widget_driver import tables

    table = eps_fits_table(check_published_output(helpers.load_published_output(), X))
    text, page = render_text(table), render_html(table)
    (parsed,) = tables(page)
    assert [row.cells for row in parsed[1:]] == [[cell.text for cell in row.cells] for row in table.rows]
    for row in table.rows:
        assert " ".join(cell.text for cell in row.cells) in " ".join(text.split())  # the same cells, in order
    flagged = page.count("background:#fdf0d5")
    assert flagged == sum(cell.flagged for row in table.rows for cell in row.cells) and flagged > 0


def test_a_flattened_row_shows_its_tiny_variance_in_significant_digits():
    row = [0.663, 0.664, 0.665]
    variance = float(np.var(np.array(row)))  # 6.67e-7: "0.0000" at 4 places would hide it
    shown = f"{variance:.9f}"  # 3 significant digits
    assert shown == "0.000000667"
    record = layer_norm_steps(row)
    assert shown in steps_text(record) and shown in steps_html(record)
    from helpers.display import filled_formula

    assert filled_formula(record, "variance").endswith(f"= {shown}")


def test_published_check_marks_each_verdict_in_text_and_html():
    from helpers.core.published_table import check_published_output
    from helpers.display import published_check_html, published_check_text

    from widget_driver import tables

    check = check_published_output(helpers.load_published_output(), X)
    marks = {"impossible": "✗", "wrong": "✗", "close": "≈", "right": "✓"}
    text_rows = published_check_text(check).splitlines()[2 : 2 + len(check.rows)]
    (parsed,) = tables(published_check_html(check))
    for row, line, shown in zip(check.rows, text_rows, parsed[1:]):
        mark = next(m for word, m in marks.items() if row.verdict.startswith(word))
        assert f"{mark} {row.verdict}" in line and shown.cells[-1] == f"{mark} {row.verdict}"
        assert shown.highlighted == row.close and shown.flagged == (not row.close)
    assert any(row.close for row in check.rows) and not all(row.close for row in check.rows)


@pytest.mark.parametrize(
    "decimals, focus", [(None, ()), (None, ("mean", "std")), (2, ("variance",)), (2, ("std",)), (3, ())]
)
def test_the_steps_view_is_described_once_and_both_renderings_say_the_same(decimals, focus):
    from dataclasses import replace

    from helpers.display.model import render_steps_html, render_steps_text
    from helpers.display.steps import steps_table

    from widget_driver import tables

    record = layer_norm_steps(X[0], decimals=decimals)  # at 2 places rounding moves five stages
    table = steps_table(record, focus)
    assert steps_text(record, focus) == render_steps_text(table) and steps_html(record, focus) == render_steps_html(
        table
    )
    text_lines = steps_text(record, focus).splitlines()[2 if decimals else 1 :][: len(table.lines)]
    body = [row for row in tables(steps_html(record, focus))[0] if row.cells and row.cells[0]]
    assert len(body) == len(table.lines) == len(text_lines)
    for line, text, shown in zip(table.lines, text_lines, body):
        cells = [*line.numbers, *line.exact]
        assert " ".join(cells) in " ".join(text.split())  # the same numbers, in order, in the text
        assert [c for c in shown.cells[2:] if c not in ("│", "")] == cells  # ... and in the HTML
        assert text.lstrip().startswith("▶") == line.focused == shown.highlighted
        assert text.endswith("≠ exact") == line.drifted == ("≠ exact" in shown.cells[0])
    # at 3 places only σ² + ε moves: 0.343010 by hand beside 0.343424 exact, shown to 6 places
    assert any(line.drifted for line in table.lines) == (decimals is not None)
    # a change to the one description shows in both renderings
    changed = replace(
        table, lines=(replace(table.lines[0], numbers=("7.7777",) * len(table.lines[0].numbers)), *table.lines[1:])
    )
    assert "7.7777" in render_steps_text(changed) and "7.7777" in render_steps_html(changed)


@pytest.mark.parametrize("values, highlight", [(X, 2), (X, None), (np.arange(169.0).reshape(13, 13) / 7, 12)])
def test_the_matrix_view_is_described_once_and_both_renderings_say_the_same(values, highlight):
    from dataclasses import replace

    from helpers.display.model import render_grid_html, render_grid_text

    from widget_driver import tables

    view = show_matrix(values, title="X", highlight_row=highlight)
    grid = view.table()
    assert str(view) == render_grid_text(grid) and view._repr_html_() == render_grid_html(grid)
    text_lines = str(view).splitlines()[2:]
    (parsed,) = tables(view._repr_html_())
    assert parsed[0].cells[1:] == list(grid.column_headers)
    assert len(parsed[1:]) == len(grid.rows) == len(text_lines)
    for row, text, shown in zip(grid.rows, text_lines, parsed[1:]):
        assert text.split() == [
            *row.label.split(),
            *row.cells,
            *(["◀"] if row.highlighted else []),
        ]  # same cells, in order
        assert shown.cells == [row.label, *row.cells] and shown.highlighted == row.highlighted
    assert [row.label for row in grid.rows if row.highlighted] == ([f"row {highlight + 1}"] if highlight else [])
    changed = replace(grid, rows=(replace(grid.rows[0], cells=("7.7777",) * len(grid.rows[0].cells)), *grid.rows[1:]))
    assert "7.7777" in render_grid_text(changed) and "7.7777" in render_grid_html(changed)


def test_the_published_check_is_described_once_and_both_renderings_say_the_same():
    from helpers.core.published_table import check_published_output
    from helpers.display import published_check_html, published_check_text
    from helpers.display.verdicts import published_check_table

    from widget_driver import tables

    check = check_published_output(helpers.load_published_output(), X)
    table = published_check_table(check)
    assert published_check_text(check) == render_text(table) and published_check_html(check) == render_html(table)
    text_rows = published_check_text(check).splitlines()[2 : 2 + len(table.rows)]
    (parsed,) = tables(published_check_html(check))
    assert parsed[0].cells == list(table.header)
    assert len(parsed[1:]) == len(table.rows) == len(text_rows) == len(check.rows)
    for row, text, shown in zip(table.rows, text_rows, parsed[1:]):
        cells = [cell.text for cell in row.cells]
        assert " ".join(" ".join(cells).split()) == " ".join(text.split())  # the same cells, in order
        assert shown.cells == [cell.strip() for cell in cells]
        assert (shown.highlighted, shown.flagged) == (row.highlighted, row.flagged) and row.highlighted != row.flagged
    assert any(row.highlighted for row in table.rows) and any(row.flagged for row in table.rows)


@pytest.mark.parametrize("decimals, focus", [(None, ("mean",)), (2, ("std",)), (2, ())])
def test_the_filled_formulas_are_described_once_and_both_renderings_say_the_same(decimals, focus):
    from dataclasses import replace

    from helpers.display import filled_formulas_html, filled_formulas_table, filled_formulas_text
    from helpers.display.formulas_model import render_formulas_html, render_formulas_text

    from widget_driver import tables

    record = layer_norm_steps(X[0], decimals=decimals)  # at 2 places rounding moves five stages
    stages = ("mean", "differences", "variance", "std", "normalised")
    table = filled_formulas_table(record, stages, focus, title="step")
    assert filled_formulas_html(record, stages, focus, title="step") == render_formulas_html(table)
    assert filled_formulas_text(record, stages, focus) == render_formulas_text(replace(table, title=""))
    text_lines = filled_formulas_text(record, stages, focus).splitlines()[: len(stages)]
    (parsed,) = tables(filled_formulas_html(record, stages, focus, title="step"))
    assert len(parsed) == len(table.lines) == len(text_lines)
    for line, text, shown in zip(table.lines, text_lines, parsed):
        assert text.split() == [
            *(["▶"] if line.focused else []),
            *line.label.split(),
            *line.formula.split(),
            *line.drift.split(),
        ]  # the same words, in order
        assert shown.cells == [line.label, f"{line.formula} {line.drift}".strip()]
        assert shown.highlighted == line.focused and shown.flagged == (bool(line.drift) and not line.focused)
    assert any(line.drift for line in table.lines) == (decimals == 2)
    changed = replace(table, lines=(replace(table.lines[0], formula="μ = 7.7777"), *table.lines[1:]))
    assert "7.7777" in render_formulas_text(changed) and "7.7777" in render_formulas_html(changed)


# --- a student's laptop (issue 20): every result shows, or the table says it scrolls


def test_the_step_throughs_equations_break_between_their_parts_never_inside_one():
    from helpers.display import filled_formulas_html, filled_formulas_table

    record = layer_norm_steps(X[0])
    stages = ("mean", "differences", "normalised")
    markup = filled_formulas_html(record, stages)
    formula_cells = re.findall(r'<td style="([^"]*)">', markup)
    assert formula_cells and not any("nowrap" in style for style in formula_cells)  # the equation may break
    parts = re.findall(r'<span style="white-space:nowrap">(.*?)</span>', markup)
    for line in filled_formulas_table(record, stages).lines:
        assert line.formula in " ".join(parts)  # the same words, in order
    assert "= 0.4457" in parts  # the result is one unbreakable part: never "= 0.44"
    assert "-0.2990 − 0.4457," in parts  # an operation stays whole; the line may break after its comma
    assert not any(", " in part for part in parts)


def test_a_table_wider_than_a_laptops_output_says_it_scrolls_and_names_its_last_column():
    from helpers.core.published_table import check_published_output
    from helpers.display import published_check_html

    check = check_published_output(helpers.load_published_output(), X)
    markup = published_check_html(check)
    assert '<div class="layernorm-scroll-hint"' in markup
    assert "⇆ On a narrow screen this table scrolls sideways; its last column, “verdict”, stays in sight." in markup
    # ... pinned at the right edge of the box, header and every row, opaque over what scrolls beneath
    verdicts = re.findall(r'<t[hd] style="([^"]*)">(?:verdict|[✓✗≈][^<]*)</t[hd]>', markup)
    assert len(verdicts) == 1 + len(check.rows), verdicts
    assert all("position:sticky;right:0" in style and "background:" in style for style in verdicts)
    assert markup.index("layernorm-scroll-hint") < markup.index('class="layernorm-scroll"')  # above the table
    assert "layernorm-scroll-hint" not in show_matrix(X)._repr_html_()  # a table that fits says nothing
    assert "layernorm-scroll-hint" not in steps_html(layer_norm_steps(X[0]))


# --- one rule for numbers at any magnitude (issue 33)

from hypothesis import example as _example  # noqa: E402
from hypothesis import given as _given  # noqa: E402
from hypothesis import strategies as _st  # noqa: E402

from helpers.display.formatting import MOST_DIGITS, MOST_PLACES, places_for  # noqa: E402


@_given(
    _st.floats(allow_nan=False, allow_infinity=False, width=64),
    _st.integers(min_value=0, max_value=MOST_PLACES),
)
def test_a_number_is_true_at_the_precision_shown_and_short_at_any_magnitude(value, places):
    """Every number a view writes: within half a unit of its last shown digit of the value, never more
    significant digits than a float64 holds, never longer than a short line."""
    from decimal import Decimal

    text = format_number(value, places)
    shown = Decimal(text)
    if "e" in text:
        mantissa, exponent = text.split("e")
        decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
        unit = Decimal(10) ** (int(exponent) - decimals)
    else:
        unit = Decimal(10) ** -places
        digits = len(text.lstrip("-").replace(".", "").lstrip("0"))
        assert digits <= MOST_DIGITS, text
    assert abs(shown - Decimal(value)) <= unit / 2, (value, places, text)
    assert len(text) <= 24, text


def test_fixed_places_up_to_the_most_a_line_holds_and_scientific_past_it():
    """The two edges format_number decides (MOST_PLACES places, MOST_DIGITS significant digits): exactly
    at each it writes fixed places, one past it scientific notation."""
    assert MOST_PLACES == 12 and MOST_DIGITS == 15  # the edges below are written for these
    assert format_number(0.5, 12) == "0.500000000000"  # exactly MOST_PLACES: fixed
    assert format_number(0.5, 13) == "5.0000e-01"  # one more: scientific, at the usual 4 decimals
    assert format_number(1.5e-10, places_for([1.5e-10])) == "0.000000000150"  # a tiny row asks for 12 places
    assert format_number(1.5e-11, places_for([1.5e-11])) == "1.5000e-11"  # 13 places: scientific
    assert format_number(12345.5, 10) == "12345.5000000000"  # 5 digits + 10 places = MOST_DIGITS: fixed
    assert format_number(12345.5, 11) == "1.2346e+04"  # 16 digits: scientific
    assert format_number(-99999.5, 10) == "-99999.5000000000" and format_number(100000.5, 10) == "1.0000e+05"


def test_huge_and_tiny_rows_read_in_scientific_notation():
    assert format_number(1e200) == "1.0000e+200"
    assert format_number(-1.5e-300, places_for([1.5e-300])) == "-1.5000e-300"
    assert format_number(123.456) == "123.4560" and format_number(1e-300) == "0.0000"  # 4 places: true
    assert format_number(-1e-300, 4) == "0.0000"  # never -0.0000


@_given(
    _st.lists(_st.floats(min_value=-50, max_value=50, allow_nan=False), min_size=2, max_size=6).filter(
        lambda v: np.ptp(v) > 0.01
    ),
    _st.integers(min_value=0, max_value=5),
    _st.sampled_from([1e-5, 1e-3, 0.0, 0.5]),
)
@_example(row=[-3.9, -0.96875], decimals=2, eps=0.0)  # exactly one unit off, once taken as more
def test_by_hand_a_stage_is_marked_whenever_its_shown_digits_are_not_the_exact_value(row, decimals, eps):
    """Spec (issue 33): "≠ exact" whenever a shown hand value is off from the exact one by more than one unit
    of the last place shown; read back from the text a learner sees. "More than" as the series decides it
    (helpers.core.tolerance.past): a value exactly one unit off, which binary rounding left a hair over
    (0.99 against a normalised 1.0000000000000002, for the row -3.9, -0.96875), is not more than one unit."""
    from decimal import Decimal

    from helpers.core.tolerance import past

    try:
        record = layer_norm_steps(np.array(row), eps=eps, decimals=decimals)
    except ValueError:
        return  # rounded to 0 places a std may be 0: refused in words elsewhere
    lines = stage_lines(steps_text(record))
    for stage in ("mean", "differences", "squared_differences", "variance", "variance_plus_eps", "std", "normalised"):
        label = STAGE_LABELS[stage][0]
        hand = numbers_on(lines[label])[: 1 if stage in ("mean", "variance", "variance_plus_eps", "std") else len(row)]
        exact = np.atleast_1d(record.exact.stage(stage))
        off = any(
            past(
                float(abs(Decimal(text) - Decimal(float(value)))),
                10.0 ** -(len(text.split(".")[1]) if "." in text else 0),
            )
            for text, value in zip(hand, exact)
            if "e" not in text
        )
        if off:
            assert lines[label].endswith("≠ exact"), (label, lines[label])


def test_source_is_shown_with_every_line_whole_in_a_box_that_scrolls():
    """print(inspect.getsource(...)) wraps a long line inside a word on a laptop (JupyterLab's pre breaks
    anywhere); show_source keeps lines whole and says when the code scrolls sideways."""
    import inspect

    from helpers.display import show_source
    from helpers.formula import layer_norm_forward

    view = show_source(layer_norm_forward)
    assert repr(view) == inspect.getsource(layer_norm_forward).rstrip("\n")
    markup = view._repr_html_()
    assert "white-space:pre;" in markup and "overflow-x:auto" in markup
    assert "⇆ On a narrow screen this code scrolls sideways." in markup
    assert "def layer_norm_forward" in markup and "&lt;" not in repr(view)
    short = show_source(sentence_case)._repr_html_()  # lines that fit: no line above the code
    assert "layernorm-scroll-hint" not in short and "def sentence_case" in short


def sentence_case(text):
    return text[:1].upper() + text[1:]


def _half_unit(text: str):
    from decimal import Decimal

    mantissa, _, exponent = text.partition("e")
    places = (len(mantissa.split(".")[1]) if "." in mantissa else 0) - int(exponent or 0)
    return Decimal(5).scaleb(-places - 1)


@pytest.mark.parametrize("row", [[1e150, 2e150, 3.5e150], [1e-300, 2e-300, 4e-300], [-2.5e12, 1e12, 7e11]])
def test_the_equations_read_and_hold_at_any_magnitude(row):
    """Issue 33: every '=' in the step-through's equations true at the precision shown, in scientific notation
    where fixed places would lie, and a power of a number in that notation in brackets."""
    from decimal import Decimal, getcontext

    from helpers.display import filled_formulas_text
    from helpers.widgets.base import EXPLORER_STAGES

    getcontext().prec = 60
    text = filled_formulas_text(layer_norm_steps(np.array(row)), EXPLORER_STAGES)
    assert not re.search(r"\de[+-]\d+²", text), text  # 1.3e+150² would read as 1.3 · 10^(150²)
    mean = re.search(r"μ = \(x₁ \+ … \+ xₙ\) / n = \((.+)\) / 3 (=|≈) (\S+)", text)
    assert mean, text
    worked = sum(Decimal(v.strip("()")) for v in mean.group(1).split(" + ")) / 3
    if mean.group(2) == "=":
        assert abs(worked - Decimal(mean.group(3))) <= _half_unit(mean.group(3)), mean.group(0)
    root = re.search(r"√\(σ² \+ ε\) = √(\S+) (=|≈) (\S+)", text)
    if root.group(2) == "=":
        assert abs(Decimal(root.group(1)).sqrt() - Decimal(root.group(3))) <= _half_unit(root.group(3)), root.group(0)
    assert max(len(number) for number in re.findall(r"-?\d[\d.]*(?:e[+-]\d+)?", text)) <= 12, text


def test_by_hand_at_1e150_nothing_is_marked_where_the_digits_shown_agree():
    """Float noise at 1e150 is "more than 0.001" but shows in no digit: '≠ exact' beside equal digits is a lie."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the drift's norm of 1e300s overflows in core
        text = steps_text(layer_norm_steps(np.array([1e150, 2e150, 3.5e150]), decimals=3))
    assert "≠ exact" not in text, text
