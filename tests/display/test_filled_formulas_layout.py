"""helpers.display.formulas_model: the filled formulas' one description, drawn as text and as HTML.

From the module's docstrings: one line per stage, its formula with the numbers filled in; ▶ (text) or blue and
bold (HTML) for the lines in focus; a line rounding moved ends with its exact values, shaded orange; a title only
when there is one, the notes (the legend) under the table only when there are any; an equation breaks after a
comma or before "=" or "≈", never inside a part. Read here through the HTML's structure, not its spelling.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

from helpers.display.formatting import FLAG_STYLE, HIGHLIGHT_STYLE
from helpers.display.formulas_model import FormulaLine, FormulasTable, render_formulas_html, render_formulas_text

PLAIN = FormulaLine("mean", "μ = (1 + 2) / 2 = 1.5")
MOVED = FormulaLine("variance", "σ² = 0.25 ≈ 0.2500", drift="≠ exact (0.2)")
FOCUSED = FormulaLine("std", "σ = 0.5", focused=True)
WIDE = FormulaLine("values", "x = " + "1.2345678901" * 7)  # one part of 74 characters: wider than the output


def parsed(table: FormulasTable) -> ET.Element:
    """The HTML as a tree: the outer block, its parts in order."""
    return ET.fromstring(render_formulas_html(table))


def words_only_in_their_elements(block: ET.Element) -> None:
    """No words between elements, and none in an element that holds others (a cell holds only its parts)."""
    for element in block.iter():
        assert (element.tail or "").strip() == "", element.tag
        if len(element):
            assert (element.text or "").strip() == "", element.tag


def rows(block: ET.Element) -> list[ET.Element]:
    return block.findall(".//tr")


def test_a_title_is_the_text_forms_first_line_and_the_htmls_bold_heading():
    table = FormulasTable((PLAIN,), title="Step 1")
    assert render_formulas_text(table).splitlines()[0] == "Step 1"
    heading = parsed(table)[0]
    assert (heading.tag, heading.text) == ("div", "Step 1") and "font-weight:600" in heading.get("style")


def test_without_a_title_the_block_starts_with_the_table_and_has_no_heading():
    block = parsed(FormulasTable((PLAIN,)))
    words_only_in_their_elements(block)
    assert [part.get("class") for part in block] == ["layernorm-scroll"]
    assert render_formulas_text(FormulasTable((PLAIN,))).splitlines()[0].split() == ["mean", *PLAIN.formula.split()]


def test_a_plain_line_is_unshaded_and_ends_with_its_formula():
    block = parsed(FormulasTable((PLAIN,)))
    (row,) = rows(block)
    assert row.get("style") is None
    cell = row.find("td")
    assert [span.get("style") for span in cell] == ["white-space:nowrap"] * 3  # its parts, no mark
    assert render_formulas_text(FormulasTable((PLAIN,))).endswith(PLAIN.formula)


def test_a_moved_line_is_orange_and_ends_with_its_exact_values_a_focused_one_blue_and_bold():
    block = parsed(FormulasTable((MOVED, FOCUSED)))
    moved, focused = rows(block)
    assert moved.get("style") == FLAG_STYLE
    assert moved.find("td")[-1].text == "≠ exact (0.2)"
    assert HIGHLIGHT_STYLE in focused.get("style") and "font-weight:700" in focused.get("style")


def test_an_equation_breaks_before_each_equals_and_approx_sign():
    cell = rows(parsed(FormulasTable((MOVED,))))[0].find("td")
    assert [span.text for span in cell][:3] == ["σ²", "= 0.25", "≈ 0.2500"]


def test_the_notes_are_one_line_each_under_the_table_and_absent_when_there_are_none():
    block = parsed(FormulasTable((PLAIN,), notes=("≈: rounded", "≠ exact: moved")))
    words_only_in_their_elements(block)
    notes = block[-1]
    assert [line.text for line in notes] == ["≈: rounded", "≠ exact: moved"] and notes.text is None
    assert "font-size:12px" in notes.get("style")
    assert parsed(FormulasTable((PLAIN,)))[-1].get("class") == "layernorm-scroll"


def test_the_table_holds_only_its_lines():
    table = parsed(FormulasTable((PLAIN, MOVED, FOCUSED))).find(".//table")
    assert [child.tag for child in table] == ["tr"] * 3 and all(row.tail is None for row in table)


def test_the_scrolling_box_is_named_for_the_title_and_says_when_it_scrolls():
    box = parsed(FormulasTable((PLAIN,), title="Step 1")).find("div[@role='region']")
    assert box.get("aria-label") == "Step 1, scrolls sideways"
    wide = parsed(FormulasTable((PLAIN, WIDE), title="Step 1"))
    hint = wide.find("div[@class='layernorm-scroll-hint']")
    assert hint.text == "⇆ On a narrow screen this table scrolls sideways."
    assert parsed(FormulasTable((PLAIN,))).find("div[@class='layernorm-scroll-hint']") is None
