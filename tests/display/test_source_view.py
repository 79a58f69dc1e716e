"""helpers.display.source: a function's source shown whole, in a box that scrolls sideways and says what it is.

From the module's docstring: the text form is the source itself; the HTML keeps every line whole in the
scrolling box every wide table uses (a region named for what it holds), with the line above it only when the
code is wider than a laptop's output.
"""

from __future__ import annotations

import html
import re

import helpers.display.source as source_module
from helpers.display.source import SourceView, show_source

WIDE = "⇆ On a narrow screen this code scrolls sideways."


def region_name(markup: str) -> str:
    return html.unescape(re.search(r'role="region" tabindex="0" aria-label="([^"]*)"', markup).group(1))


def hint_line(markup: str) -> str | None:
    found = re.search(r'<div class="layernorm-scroll-hint"[^>]*>([^<]*)</div>', markup)
    return html.unescape(found.group(1)) if found else None


def test_the_text_form_is_the_code_with_only_its_final_newlines_dropped():
    assert str(SourceView("limit = MAX\n\n")) == "limit = MAX"
    assert repr(SourceView("pad = 1\t\n")) == "pad = 1\t"


def test_code_with_no_name_is_a_region_called_code():
    assert region_name(SourceView("x = 1\n")._repr_html_()) == "code, scrolls sideways"


def test_empty_code_is_an_empty_box_with_no_line_above():
    markup = SourceView("")._repr_html_()
    assert hint_line(markup) is None and "<pre" in markup


def test_a_line_wider_than_a_laptops_output_gets_the_line_above_and_nothing_more():
    markup = SourceView("x = " + "1 + " * 40 + "1\n", "sums")._repr_html_()
    assert hint_line(markup) == WIDE
    assert markup.startswith('<div class="layernorm-scroll-hint"')
    assert hint_line(SourceView("x = 1\n", "sums")._repr_html_()) is None


def test_the_box_is_named_for_the_function_or_class_it_shows():
    assert region_name(show_source(hint_line)._repr_html_()) == "the source of hint_line, scrolls sideways"
    assert region_name(show_source(SourceView.__repr__)._repr_html_()) == (
        "the source of SourceView.__repr__, scrolls sideways"
    )


def test_a_module_has_no_qualified_name_and_is_called_the_code():
    assert region_name(show_source(source_module)._repr_html_()) == "the source of the code, scrolls sideways"
