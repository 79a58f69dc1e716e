"""The line above a source view is there only when some line is wider than a laptop's output (helpers.display.source).

"with the line above it that says so when the code is wider than a laptop's output": the widest line decides,
at CHARACTER_PX (7.9 px) a character against NARROWEST_OUTPUT_PX (570 px), so 72 characters (568.8 px) fit and
73 (576.7 px) do not. Long code of short lines fits; a combining accent takes no column.
"""

from __future__ import annotations

from helpers.display.source import SourceView

HINT = "⇆ On a narrow screen this code scrolls sideways."


def test_many_short_lines_need_no_hint():
    code = "\n".join(f"value_{k} = {k}" for k in range(40)) + "\n"  # 40 lines, hundreds of characters
    assert len(code) > 400 and HINT not in SourceView(code)._repr_html_()


def test_a_line_of_72_characters_fits_and_one_of_73_does_not():
    assert HINT not in SourceView("x" * 72 + "\ny = 1\n")._repr_html_()
    assert HINT in SourceView("y = 1\n" + "x" * 73 + "\n")._repr_html_()


def test_combining_accents_take_no_width():
    assert HINT not in SourceView("x̂" * 72 + "\n")._repr_html_()  # 144 characters, 72 columns
