"""helpers.display.model: one description of a table, drawn as aligned text and as HTML.

From the module's docstrings: a Table's rows may be flagged (pale orange) or highlighted (pale blue), a cell
flagged on its own or a row heading (<th>); numeric columns are right-aligned; ``nowrap`` keeps every cell on one
line; ``wrap`` lets only its columns break (never squeezed below 16 characters), every cell at the top of its row;
``compact`` narrows the padding; ``pin_last`` keeps the last column at the right edge. A record's steps mark the
lines in focus (▶, blue, bold) and those rounding moved (≠ exact, orange), a hand record's numbers beside the
exact ones under their headings. A matrix marks its current row (◀ and its words) and one column (▲ under its
last digit, and its words). A block scrolls sideways in a region named for its title, with a line above it when
it is wider than the narrowest output. Read here through the HTML's structure and its style properties.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from helpers.display.formatting import CELL_CSS, CHARACTER_PX, FLAG_STYLE, HIGHLIGHT_STYLE, NARROWEST_OUTPUT_PX
from helpers.display.model import (
    Cell,
    Grid,
    GridRow,
    Row,
    StageLine,
    StepsTable,
    Table,
    render_grid_html,
    render_grid_text,
    render_html,
    render_steps_html,
    render_steps_text,
    render_text,
    width_px,
)

FLAG = FLAG_STYLE.split(":")[1]
BLUE = HIGHLIGHT_STYLE.split(":")[1]
SCROLLS = "⇆ On a narrow screen this table scrolls sideways"


def tree(markup: str) -> ET.Element:
    """The block as a tree; one element, nothing after it."""
    return ET.fromstring(markup)


def css(element: ET.Element) -> dict[str, str]:
    """An element's style as properties (a later one wins, as in a browser)."""
    pairs = [part.split(":", 1) for part in (element.get("style") or "").split(";") if part]
    return {name: value for name, value in pairs}


def region(block: ET.Element) -> ET.Element:
    return block.find(".//div[@role='region']")


def hint(block: ET.Element) -> str | None:
    found = block.find(".//div[@class='layernorm-scroll-hint']")
    return None if found is None else found.text


def no_stray_text(table: ET.Element) -> None:
    """Nothing but cells between the tags: no text between rows or between the cells of a row."""
    assert (table.text or "").strip() == ""
    for row in table:
        assert row.tag == "tr" and (row.tail or "") == "" and (row.text or "") == ""
        for cell in row:
            assert (cell.tail or "") == ""


def words_only_in_cells(block: ET.Element) -> None:
    """No words between elements, and none in an element that holds others (a label's <th> holds its mark)."""
    for element in block.iter():
        assert (element.tail or "").strip() == "", element.tag
        if len(element) and element.tag != "th":
            assert (element.text or "").strip() == "", element.tag


def padding_px(style: str) -> int:
    """Left plus right padding of a cell style such as "padding:2px 10px;…"."""
    sideways = dict(part.split(":", 1) for part in style.split(";"))["padding"].split()[1]
    return 2 * int(sideways.removesuffix("px"))


# ---------------------------------------------------------------------------------------------
# Table


def table(**options) -> Table:
    rows = (
        Row((Cell("first", heading=True), Cell("1.5"), Cell("long text here"))),
        Row((Cell("second", heading=True), Cell("-12.25", flagged=True), Cell("x")), flagged=True),
        Row((Cell("third", heading=True), Cell("0"), Cell("y")), highlighted=True),
    )
    return Table("layernorm-test", "A title", ("name", "value", "words"), rows, **options)


def test_a_numeric_column_is_right_aligned_in_text_and_html_and_no_line_ends_in_spaces():
    text = render_text(table(numeric=(False, True, False)))
    lines = text.splitlines()
    ends = {line.index(value) + len(value) for line, value in zip(lines[1:], ("value", "1.5", "-12.25", "0"))}
    assert len(ends) == 1  # right-aligned: every value ends in the same column
    assert all(line == line.rstrip() for line in lines)
    starts = {line.index(word) for line, word in zip(lines[1:], ("words", "long text here", "x", "y"))}
    assert len(starts) == 1  # the text column is left-aligned: every cell starts in the same column
    cells = [row.findall("*") for row in tree(render_html(table(numeric=(False, True, False)))).iter("tr")]
    assert [css(row[1])["text-align"] for row in cells[1:]] == ["right"] * 3
    assert [css(row[2])["text-align"] for row in cells] == ["left"] * 4


def test_each_line_starts_two_spaces_in_then_its_first_column_aligned():
    lines = render_text(table(numeric=(True, False, False))).splitlines()
    assert lines[0] == "A title"
    assert [line[:2] for line in lines[1:]] == ["  "] * 4
    assert lines[2].startswith("   first  ") and lines[3].startswith("  second  ")  # right-aligned, 6 wide


def test_row_and_cell_marks_become_shades_and_a_row_heading_is_a_th():
    block = tree(render_html(table()))
    head, first, second, third = block.iter("tr")
    assert first.get("style") is None and head.get("style") is None
    assert css(second)["background"] == FLAG and css(third)["background"] == BLUE
    assert [cell.tag for cell in first] == ["th", "td", "td"]
    assert [cell.tag for cell in head] == ["th"] * 3
    assert css(second[1])["background"] == FLAG  # the flagged cell itself
    assert "background" not in css(first[1]) and "background" not in css(second[2])
    assert [[cell.text for cell in row] for row in (head, first)] == [
        ["name", "value", "words"],
        ["first", "1.5", "long text here"],
    ]
    no_stray_text(block.find(".//table"))


def test_cells_wrap_by_default_and_nowrap_keeps_every_cell_on_one_line():
    plain = tree(render_html(table(numeric=(False, True, False))))
    assert all("white-space" not in css(cell) for row in plain.iter("tr") for cell in row)
    kept = tree(render_html(table(numeric=(False, True, False), nowrap=True)))
    for row in list(kept.iter("tr"))[1:]:
        assert [css(cell)["white-space"] for cell in row] == ["nowrap", "pre", "nowrap"]


def test_compact_narrows_the_padding_of_every_cell():
    wide, narrow = (tree(render_html(table(numeric=(False, True, False), compact=c))) for c in (False, True))
    for row_wide, row_narrow in zip(list(wide.iter("tr"))[1:], list(narrow.iter("tr"))[1:]):
        assert [css(cell)["padding"] for cell in row_wide] == ["2px 10px"] * 3
        assert [css(cell)["padding"] for cell in row_narrow] == ["2px 6px"] * 3


def test_only_the_wrap_columns_break_never_narrower_than_16_characters_and_cells_sit_at_the_top():
    long = "a sentence of evidence that goes on for many words"
    rows = (Row((Cell("one"), Cell(long), Cell("short words"))), Row((Cell("two"), Cell("b"), Cell("c"))))
    block = tree(render_html(Table("t", "Evidence", ("name", "why", "what"), rows, wrap=(1, 2))))
    head = list(block.iter("tr"))[0]
    styles = [css(cell) for cell in head]
    assert styles[0]["white-space"] == "nowrap" and "min-width" not in styles[0]
    assert [style.get("min-width") for style in styles[1:]] == ["16ch", "11ch"]  # "short words": 11 characters
    assert all("white-space" not in style for style in styles[1:])
    assert {style["vertical-align"] for style in styles} == {"top"}
    assert hint(block) is None  # 3 + 16 + 11 characters and their padding fit


def test_the_pinned_last_column_stays_at_the_right_edge_in_its_rows_shade():
    block = tree(render_html(table(pin_last=True)))
    head, first, second, third = block.iter("tr")
    for row, background in ((head, "#fff"), (first, "#fff"), (second, FLAG), (third, BLUE)):
        last = css(row[-1])
        assert (last["position"], last["right"], last["background"]) == ("sticky", "0", background)
        assert all("position" not in css(cell) for cell in row[:-1])
    unpinned = tree(render_html(table()))
    assert all("position" not in css(cell) for row in unpinned.iter("tr") for cell in row)


def test_the_block_is_named_for_its_title_and_its_notes_are_one_line_each_under_it():
    block = tree(render_html(table(notes=("first note", "second note"))))
    words_only_in_cells(block)
    assert render_text(table(notes=("first note", "second note"))).splitlines()[-2:] == [
        "  first note",
        "  second note",
    ]
    words_only_in_cells(tree(render_html(table())))
    assert block.get("class") == "layernorm-test"
    assert block[0].text == "A title" and region(block).get("aria-label") == "A title, scrolls sideways"
    notes = block[-1]
    assert [line.text for line in notes] == ["first note", "second note"] and notes.text is None
    assert css(notes)["font-size"] == "12px"
    assert tree(render_html(table()))[-1].get("role") == "region"  # no notes: nothing under the table


def test_a_table_is_as_wide_as_its_longest_word_unless_it_keeps_its_lines():
    words = " ".join(["word"] * 40)  # 199 characters, no word longer than 4
    rows = (Row((Cell("a"), Cell(words))),)
    assert hint(tree(render_html(Table("t", "T", ("name", "text"), rows)))) is None
    assert hint(tree(render_html(Table("t", "T", ("name", "text"), rows, nowrap=True)))).startswith(SCROLLS)
    beside = Table("t", "T", ("name", "why", "text"), (Row((Cell("a"), Cell("b"), Cell(words))),), wrap=(1,))
    assert hint(tree(render_html(beside))).startswith(SCROLLS)  # beside a wrapping column, on one line
    one_word = (Row((Cell("a"), Cell("w" * 80))),)
    assert hint(tree(render_html(Table("t", "T", ("name", "text"), one_word)))).startswith(SCROLLS)


def test_an_empty_column_takes_only_its_padding():
    """Two columns: a word just short of the narrowest output with both paddings, and an empty one."""
    padding = padding_px(CELL_CSS)
    fits = int((NARROWEST_OUTPUT_PX - 2 * padding) / CHARACTER_PX)
    rows = (Row((Cell("w" * fits), Cell(""))),)
    assert hint(tree(render_html(Table("t", "T", ("", ""), rows)))) is None


def test_a_compact_table_is_measured_with_its_narrower_padding():
    columns = 10  # ten 5-character columns: over the narrowest output with the usual padding, not compact
    header = tuple(f"col{k:02d}" for k in range(columns))
    rows = (Row(tuple(Cell("12345") for _ in range(columns))),)
    assert 5 * columns * CHARACTER_PX + columns * padding_px(CELL_CSS) > NARROWEST_OUTPUT_PX
    assert 5 * columns * CHARACTER_PX + columns * 12 <= NARROWEST_OUTPUT_PX
    assert hint(tree(render_html(Table("t", "T", header, rows)))).startswith(SCROLLS)
    assert hint(tree(render_html(Table("t", "T", header, rows, compact=True)))) is None


def test_width_px_counts_characters_and_each_cells_padding():
    assert width_px([10, 5]) == pytest.approx(15 * CHARACTER_PX + 2 * padding_px(CELL_CSS))
    assert width_px([10, 5], compact=True) == pytest.approx(15 * CHARACTER_PX + 2 * 12)


# ---------------------------------------------------------------------------------------------
# A record's steps


def steps(hand: str = "", focus: bool = False, notes=()) -> StepsTable:
    lines = (
        StageLine("mean", "μ = a", "μ = a", ("1.00", "2.00"), ("1.004", "2.000") if hand else ()),
        StageLine("var", "σ²", "σ<sup>2</sup>", ("0.5",), ("0.49",) if hand else (), focused=focus, drifted=True),
    )
    return StepsTable("Row 1", lines, hand_heading=hand, notes=notes)


@pytest.mark.parametrize("focus", [False, True])
@pytest.mark.parametrize("hand", ["by hand", "rounded by hand, 2 places"])
def test_a_hand_records_headings_stand_over_their_numbers(hand, focus):
    heading, *lines = render_steps_text(steps(hand, focus)).splitlines()[1:3]
    mean = lines[0]
    assert heading.index(hand) == mean.index("1.00")
    assert heading.index("exact") == mean.index("1.004")


def test_in_focus_only_the_focused_line_is_marked_the_others_are_indented_as_far():
    lines = render_steps_text(steps(focus=True)).splitlines()
    assert lines[1].startswith("    mean  ") and lines[2].startswith("  ▶ var   ")
    plain = render_steps_text(steps()).splitlines()
    assert plain[1].startswith("  mean  ")


def test_a_moved_stage_ends_with_its_exact_values_and_the_mark_two_spaces_after():
    short = StepsTable(
        "T",
        (StageLine("s", "f", "f", ("1",), ("2",), drifted=True), StageLine("t", "g", "g", ("3",), ("4",))),
        hand_heading="h",
    )
    lines = render_steps_text(short).splitlines()
    assert lines[2].endswith("   2  ≠ exact") and lines[3].endswith("   4")


def test_the_steps_html_marks_focus_blue_and_bold_and_a_moved_stage_orange():
    block = tree(render_steps_html(steps(focus=False)))
    mean, var = block.iter("tr")
    assert mean.get("style") is None and css(var)["background"] == FLAG
    assert "font-weight" not in css(mean[0]) and "font-weight" not in css(var[0])
    assert css(mean[0])["text-align"] == css(var[0])["text-align"] == "left"
    focused = list(tree(render_steps_html(steps(focus=True))).iter("tr"))[1]
    assert css(focused)["background"] == BLUE and css(focused[0])["font-weight"] == "700"


def test_the_steps_html_has_a_label_a_formula_and_one_cell_per_column_of_numbers():
    block = tree(render_steps_html(steps(notes=("a note", "another"))))
    assert block.get("class") == "layernorm-steps"
    assert block[0].text == "Row 1" and block[0].tail is None
    table_element = block.find(".//table")
    no_stray_text(table_element)
    mean, var = table_element
    assert [cell.text for cell in mean] == ["mean", "μ = a", "1.00", "2.00"]
    assert [cell.get("colspan") for cell in var] == [None, None, None, "1"]  # one number: the other column empty
    assert [note.text for note in block[2:]] == ["a note", "another"] and all(not n.tail for n in block[2:])
    assert region(block).get("aria-label") == "Row 1, scrolls sideways"


def test_a_hand_records_html_has_its_headings_and_its_exact_numbers_in_grey():
    block = tree(render_steps_html(steps("by hand")))
    assert block.get("class") == "layernorm-steps layernorm-steps-hand"
    head, mean, _ = block.find(".//table")
    assert [cell.text for cell in head if cell.tag == "th"] == ["by hand", "exact"]
    exact = mean[-2:]
    assert [cell.text for cell in exact] == ["1.004", "2.000"]
    assert all((css(cell)["text-align"], css(cell)["color"]) == ("right", "#555") for cell in exact)


def _one_line(label: str, formula: str, numbers: int, drifted: bool = False, hand: bool = False) -> StepsTable:
    cells = ("1",) * numbers
    line = StageLine(label, formula, formula, cells, cells if hand else (), drifted=drifted)
    return StepsTable("T", (line,), hand_heading="h" if hand else "")


def _characters_that_fit(columns: int) -> int:
    """The most characters ``columns`` cells can hold, padding included, without passing the narrowest output."""
    return int((NARROWEST_OUTPUT_PX - columns * padding_px(CELL_CSS)) / CHARACTER_PX)


@pytest.mark.parametrize("extra, scrolls", [(0, False), (1, True)])
def test_the_moved_mark_after_a_label_counts_as_8_characters(extra, scrolls):
    """Label "a" with " ≠ exact" (8 characters), a formula and one number: 3 columns."""
    formula = "f" * (_characters_that_fit(3) - 1 - 8 - 1 + extra)
    block = tree(render_steps_html(_one_line("a", formula, 1, drifted=True)))
    assert (hint(block) is not None) == scrolls


def test_a_long_formula_makes_the_steps_scroll_with_or_without_a_hand_record():
    for hand in (False, True):
        block = tree(render_steps_html(_one_line("a", "f" * 80, 1, hand=hand)))
        assert hint(block) == SCROLLS + "."


@pytest.mark.parametrize("extra, scrolls", [(0, False), (1, True)])
def test_the_bar_between_a_hand_records_numbers_and_the_exact_ones_counts_as_one_character(extra, scrolls):
    """Label, formula, one number, the bar, one exact number: 5 columns."""
    formula = "f" * (_characters_that_fit(5) - 1 - 1 - 1 - 1 + extra)
    block = tree(render_steps_html(_one_line("a", formula, 1, hand=True)))
    assert (hint(block) is not None) == scrolls


# ---------------------------------------------------------------------------------------------
# A matrix


def grid(title: str = "", column: int | None = 1, column_mark: str = "this column", notes=()) -> Grid:
    rows = (
        GridRow("row 1", ("1.0", "-2.5", "3"), highlighted=True, mark="this row"),
        GridRow("row 2", ("10.25", "0", "-7")),
        GridRow("…", ("…", "…", "…"), elided=True),
    )
    return Grid(title, ("f1", "f2", "f3"), rows, highlighted_column=column, column_mark=column_mark, notes=notes)


def test_the_matrix_text_right_aligns_headers_over_numbers_and_marks_row_and_column():
    lines = render_grid_text(grid()).splitlines()
    header, first, second = lines[:3]
    for name, value in (("f1", "10.25"), ("f2", "-2.5")):
        row = second if value == "10.25" else first
        assert header.index(name) + len(name) == row.index(value) + len(value)
    assert first.endswith("◀ this row") and second == second.rstrip()
    last_digit = first.index("-2.5") + len("-2.5") - 1
    assert lines[4] == " " * last_digit + "▲ this column"
    first_column = render_grid_text(grid(column=0, column_mark="")).splitlines()[4]
    assert first_column == " " * (header.index("f1") + 1) + "▲"


def test_a_marked_row_without_words_is_marked_by_the_arrow_alone():
    rows = (GridRow("r", ("1",), highlighted=True),)
    assert render_grid_text(Grid("", ("c",), rows)).splitlines()[-1].endswith("1  ◀")
    block = tree(render_grid_html(Grid("", ("c",), rows)))
    assert len(list(block.iter("tr"))[1]) == 2  # its label and its number, no cell of words


def test_the_matrix_html_shades_the_current_row_and_column_and_writes_their_marks():
    block = tree(render_grid_html(grid(notes=("x.mean(axis=-1)",))))
    table_element = block.find(".//table")
    no_stray_text(table_element)
    head, first, second, elided, marks = table_element
    assert [cell.text for cell in head] == [None, "f1", "f2", "f3"]
    assert css(first)["background"] == BLUE and second.get("style") is None
    assert [cell.text for cell in first] == ["row 1", "1.0", "-2.5", "3", "◀ this row"]
    for row in (first, second, elided):
        shaded = [j for j, cell in enumerate(row[1:4]) if css(cell).get("background") == BLUE]
        assert shaded == [1]
    assert [cell.text for cell in marks] == [None, None, "▲ this column"]
    assert [cell.tag for cell in marks] == ["td"] * 3
    assert all(css(cell)["text-align"] == "right" for row in (first, second, elided) for cell in row[1:4])
    assert marks[-1].get("colspan") == "2"  # under f2 and on under f3
    assert [line.text for line in block[-1]] == ["x.mean(axis=-1)"]


def test_a_matrix_without_a_title_is_a_region_called_matrix_with_no_heading():
    block = tree(render_grid_html(grid(column=None)))
    words_only_in_cells(block)
    assert block[0].get("role") == "region" and region(block).get("aria-label") == "matrix, scrolls sideways"
    assert len(list(block.iter("tr"))) == 4  # no row of column marks
    titled = tree(render_grid_html(grid("Step 2")))
    assert titled[0].text == "Step 2" and region(titled).get("aria-label") == "Step 2, scrolls sideways"


def test_a_matrix_with_long_row_labels_says_it_scrolls():
    rows = (GridRow("l" * 80, ("1",)),)
    assert hint(tree(render_grid_html(Grid("", ("c",), rows)))) == SCROLLS + "."
