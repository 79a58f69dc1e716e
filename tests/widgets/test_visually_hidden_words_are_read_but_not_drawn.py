"""``visually_hidden_html`` (helpers.widgets.accessibility): text "for a screen reader only ("" for none)",
by "the usual visually hidden rules (not display:none, which hides from both)": a 1-pixel, clipped, absolutely
placed box that does not wrap. Its words are escaped and end with a space, so that the visible sentence after
it is read as a sentence of its own.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("ipywidgets")

from helpers.widgets.accessibility import status_html, visually_hidden_html  # noqa: E402


def style_of(span: str) -> dict:
    (style,) = re.findall(r'style="([^"]*)"', span)
    return dict(rule.split(":", 1) for rule in style.split(";") if rule)


def test_no_words_is_nothing_at_all():
    assert visually_hidden_html("") == ""


def test_the_words_are_kept_in_a_one_pixel_clipped_box_never_display_none():
    span = visually_hidden_html("Value 2 'abc' is not a number.")
    style = style_of(span)
    assert style["position"] == "absolute"
    assert style["width"] == style["height"] == "1px"
    assert style["overflow"] == "hidden"
    assert style["clip"] == "rect(0,0,0,0)"
    assert style["white-space"] == "nowrap"
    assert "display" not in style and "visibility" not in style  # either would hide it from a screen reader too


def test_the_words_are_escaped_and_end_with_a_space_before_what_follows():
    span = visually_hidden_html("x < 1 & y > 2")
    assert re.fullmatch(r'<span style="[^"]*">x &lt; 1 &amp; y &gt; 2 </span>', span)
    region = status_html("⚠ The numbers shown are the last good ones.", visually_hidden_html("ε must be 0 or larger."))
    words = re.sub(r"<[^>]+>", "", region)
    assert words == "ε must be 0 or larger. ⚠ The numbers shown are the last good ones."
