"""``never_raises`` (helpers.widgets.base): "an unexpected error becomes a message, never a traceback in the
notebook" - even when showing that message fails too ("not even showing the message may raise"), and the
problems already noted are kept beside it.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

import ipywidgets  # noqa: E402

from helpers.widgets.base import LessonWidget, never_raises  # noqa: E402


class Broken(LessonWidget):
    """A widget whose callback fails; ``message_html`` is missing when ``shown`` is False."""

    def __init__(self, shown: bool):
        super().__init__()
        if shown:
            self.message_html = ipywidgets.HTML()

    def text(self) -> str:
        return "broken"

    @never_raises
    def press(self, value):
        if value == "boom":
            raise RuntimeError("the maths broke")
        return value


def test_a_callback_that_works_returns_its_result():
    assert Broken(shown=True).press(7) == 7


def test_an_error_in_a_callback_is_a_message_beside_the_problems_already_there():
    widget = Broken(shown=True)
    widget._problems = {"row": "Value 2 'abc' is not a number."}
    assert widget.press("boom") is None
    assert widget._problems == {
        "row": "Value 2 'abc' is not a number.",
        "general": "Something went wrong: the maths broke",
    }
    assert widget.message == "Value 2 'abc' is not a number. Something went wrong: the maths broke"
    assert "⚠ Something went wrong: the maths broke" in widget.message_html.value


def test_an_error_that_cannot_even_be_shown_is_still_not_raised():
    widget = Broken(shown=False)  # no message_html: showing the problem raises AttributeError
    assert widget.press("boom") is None
    assert widget.message == "Something went wrong: the maths broke"
