"""The live page's own promises about itself (classroom/service/page.py's docstring): "Large type (28 px,
nothing under 24 px) for a 1280×720 projector"; "all inline: nothing is fetched from the internet"; a CSV
link to the service's own results.csv; the hub's XSRF token in its meta tag. Read from the page's text;
tests/classroom/test_class_service_page.py measures the same in a real browser on a real hub.
"""

from __future__ import annotations

import re

from classroom.service import page

HTML = page.render("the-token")
STYLE = re.search(r"<style>(.*)</style>", HTML, re.S).group(1)


def rules() -> dict[str, str]:
    """{selector: declarations} of the page's style sheet."""
    return {selector.strip(): body for selector, body in re.findall(r"([^{}]+)\{([^}]*)\}", STYLE)}


def test_the_body_type_is_28_px():
    assert re.search(r"\bfont:\s*28px/", rules()["body"])


def test_no_type_is_set_under_24_px():
    sizes = [int(size) for size in re.findall(r"font-size:\s*(\d+)px", STYLE)]
    assert sizes and min(sizes) >= 24, sizes
    assert not re.search(r"font-size:\s*[\d.]+(em|rem|%|pt)", STYLE)  # only pixel sizes, all checked above
    assert "small" not in STYLE


def test_the_headings_are_larger_than_the_text():
    assert "font-size: 36px" in rules()["h1"] and "font-size: 30px" in rules()["h2"]


def test_nothing_is_fetched_from_anywhere_but_the_service():
    assert not re.search(r"https?:|//[a-z]", HTML.replace("http-equiv", ""), re.I)
    assert not re.search(r"<(link|img|iframe|script\s+src)\b", HTML, re.I)
    assert "@import" not in STYLE and "url(" not in STYLE
    assert re.findall(r'href="([^"]*)"', HTML) == ["api/results.csv"]
    assert re.findall(r'fetch\("([^"]*)"', HTML) == ["api/summary"]


def test_the_page_carries_the_hubs_xsrf_token_once():
    assert HTML.count('<meta name="xsrf" content="the-token">') == 1
    assert "__XSRF__" not in HTML


def test_the_legend_says_what_a_bar_is_a_share_of():
    assert (
        '<p id="legend">Each bar: how many of the students who tried the exercise passed it, or made that mistake.</p>'
        in HTML
    )
