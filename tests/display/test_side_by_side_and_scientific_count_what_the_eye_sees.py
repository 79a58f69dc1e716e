"""Two small rules of helpers.display that only odd inputs reach.

side_by_side: blocks "side by side, line by line", each block as wide as its widest line on screen: a combining
accent (the hat of x̂) takes no column (text_width), so a block of x̂s is narrower than its character count.
scientific: "``value`` as ``1.2346e+200``: ``decimals`` digits after the point, never ``-0``".
"""

from __future__ import annotations

from helpers.display.formatting import scientific
from helpers.display.matrix import side_by_side


def test_a_block_of_combining_accents_is_as_wide_as_it_looks():
    hats = "x̂x̂x̂"  # 6 characters, 3 columns on screen
    assert side_by_side(f"{hats}\nab", "c\nd") == f"{hats}    c\nab     d"
    assert side_by_side("ab\ncd", f"{hats}", "e") == f"ab    {hats}    e\ncd"


def test_scientific_never_writes_minus_zero():
    assert scientific(-0.0) == "0.0000e+00"
    assert scientific(-0.0, 2) == "0.00e+00"


def test_scientific_keeps_the_sign_and_the_places_asked_for():
    assert scientific(-1.5e200, 2) == "-1.50e+200"
    assert scientific(1.23456e-300) == "1.2346e-300"
