"""The line above a table that may scroll sideways (helpers/display/formatting.py, scroll_hint): none when
the table fits the narrowest output, NARROWEST_OUTPUT_PX wide; a sentence as soon as it is wider."""

from __future__ import annotations

from helpers.display.formatting import NARROWEST_OUTPUT_PX, scroll_hint


def test_a_table_exactly_as_wide_as_the_narrowest_output_fits_and_gets_no_line():
    assert scroll_hint(NARROWEST_OUTPUT_PX, last="output") == ""
    assert scroll_hint(NARROWEST_OUTPUT_PX - 1, last="output") == ""


def test_one_pixel_wider_gets_the_line_naming_the_last_column():
    hint = scroll_hint(NARROWEST_OUTPUT_PX + 1, last="output")
    assert hint == "⇆ On a narrow screen this table scrolls sideways to its last column, “output”."
    assert scroll_hint(NARROWEST_OUTPUT_PX + 1, last="output", pinned=True).endswith("“output”, stays in sight.")
