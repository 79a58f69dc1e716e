"""The checker's verdict as shown (helpers/checking/results.py, CheckResult), as text (what a terminal, a handout
or print() shows) and as HTML (the notebook's output). ✓ or ✗, the step and the diagnosis first, green for a
pass and red for a failure; then, for a failure, the input (its description, and its arguments when there are
any), what was expected and what was got: as lines, or as a table in a box named for the check."""

from __future__ import annotations

from html.parser import HTMLParser

from helpers.checking.results import CheckResult


def test_a_passed_check_is_one_line_with_a_tick():
    result = CheckResult("mean", True, "right on all 13 unseen inputs.")
    assert repr(result) == str(result) == "✓ mean: right on all 13 unseen inputs."


def test_a_failed_check_shows_its_input_with_its_arguments_and_what_was_expected_and_got():
    result = CheckResult(
        "std", False, "it ignores ε.", "eps-ignored", "a random row of 4 values", "[1, 2, 3, 4], 0.01", "1.1", "1.0"
    )
    assert repr(result).splitlines() == [
        "✗ std: it ignores ε.",
        "  input:    a random row of 4 values: [1, 2, 3, 4], 0.01",
        "  expected: 1.1",
        "  got:      1.0",
    ]


def test_an_input_without_arguments_is_shown_by_its_description_alone():
    result = CheckResult("layer_norm", False, "it raised an error.", "exception", "a random 4 × 3 matrix")
    assert repr(result).splitlines() == ["✗ layer_norm: it raised an error.", "  input:    a random 4 × 3 matrix"]


class _Shown(HTMLParser):
    """The verdict's HTML read back: the first line's colour and text, the table's rows, the box's name."""

    def __init__(self, page):
        super().__init__()
        self.colour, self.first, self.rows, self.box, self._in, self._cells = None, "", [], None, None, []
        self.text = ""  # every word shown
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        style = attrs.get("style") or ""
        if tag == "div" and style.startswith("color:"):
            self.colour, self._in = style.removeprefix("color:"), "first"
        elif tag == "div" and attrs.get("role") == "region":
            self.box = attrs.get("aria-label")
        elif tag == "tr":
            self._cells = []
        elif tag in ("th", "td"):
            self._in = "cell"
            self._cells.append("")

    def handle_endtag(self, tag):
        if tag == "tr":
            self.rows.append(tuple(self._cells))
        if tag in ("th", "td") or (tag == "div" and self._in == "first"):
            self._in = None

    def handle_data(self, data):
        self.text += data
        if self._in == "first":
            self.first += data
        elif self._in == "cell":
            self._cells[-1] += data


def _rgb(colour):
    assert len(colour) == 7 and colour.startswith("#"), colour
    return tuple(int(colour[i : i + 2], 16) for i in (1, 3, 5))


def test_a_passed_check_is_a_green_tick_with_no_table():
    shown = _Shown(CheckResult("mean", True, "right on all 13 unseen inputs.")._repr_html_())
    red, green, _ = _rgb(shown.colour)
    assert green > red and shown.first == "✓ mean: right on all 13 unseen inputs."
    assert shown.rows == [] and shown.box is None and shown.text == shown.first


def test_a_failed_check_is_a_red_cross_with_its_input_expected_and_got_in_a_named_box():
    result = CheckResult("std", False, "it ignores ε.", "eps-ignored", "a row", "[1, 2], 0.01", "1.1", "<1.0>")
    shown = _Shown(result._repr_html_())
    red, green, _ = _rgb(shown.colour)
    assert red > green and shown.first == "✗ std: it ignores ε."
    assert shown.rows == [("input", "a row: [1, 2], 0.01"), ("expected", "1.1"), ("got", "<1.0>")]
    assert shown.box == "std check, scrolls sideways"


def test_a_failure_shows_only_the_rows_it_has():
    shown = _Shown(CheckResult("layer_norm", False, "it raised an error.", "exception", "a matrix")._repr_html_())
    assert shown.rows == [("input", "a matrix")]
    assert _Shown(CheckResult("mean", False, "not written yet.", "not-written")._repr_html_()).rows == []
