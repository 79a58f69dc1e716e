"""helpers.widgets.reveal: a question first, its answers on the next clicks, each stage in place of the last:
live (the buttons a clicker presses, the label the room reads) and in the offline slides (reveal.js).

In reveal.js the widget's HTML is all there is. reveal.js marks a fragment "visible" once the slide's
fragment step reaches its data-fragment-index, and "current-fragment" while the step is exactly that index;
the stages' own style rule (REVEAL_JS_RULE) then hides what is not the stage of the moment. That is played
out here click by click, from the HTML the widget holds, for every number of stages a lecture might use.
(The lecture's own reveals, run from its cells: tests/lessons/test_lecture_reveal.py.)"""

from __future__ import annotations

import re

import pytest

from helpers.widgets.reveal import REVEAL_JS_RULE, STAGE_CLASS, fragment_classes, reveal


def _stages(widget) -> list[tuple[set[str], int | None]]:
    """(classes, fragment index) of each stage's outer element, read from its HTML."""
    found = []
    for box in widget.stage_html:
        match = re.search(r'<div class="([^"]*)"(?: data-fragment-index="(\d+)")?>', box.value)
        assert match, box.value
        found.append((set(match[1].split()), None if match[2] is None else int(match[2])))
    return found


def _shown_at(stages, step: int) -> list[int]:
    """The stages on the canvas at fragment step ``step`` (−1: the slide as it opens)."""
    shown = []
    for position, (classes, index) in enumerate(stages):
        fragment = "fragment" in classes
        visible = fragment and index is not None and index <= step
        current = fragment and index == step
        hidden = (
            ("fade-out" in classes and visible)
            or (fragment and "fade-out" not in classes and not visible)
            or ("fade-in-then-out" in classes and visible and not current)
        )
        if not hidden:
            shown.append(position)
    return shown


@pytest.mark.parametrize("count", range(2, 8))
def test_each_click_shows_exactly_the_next_stage_and_nothing_else(count):
    stages = _stages(reveal(*[f"<p>stage {k + 1}</p>" for k in range(count)]))
    steps = sorted({index for _, index in stages if index is not None})
    assert steps == list(range(count - 1)), "one click per stage after the first, and no click that shows nothing"
    for step in range(-1, count - 1):
        assert _shown_at(stages, step) == [step + 1], f"{count} stages, after {step + 1} clicks"


def test_buttons_are_labelled_for_the_presenter_and_disabled_at_the_ends():
    widget = reveal("<p>question?</p>", "<p>answer one</p>", "<p>answer two</p>")
    assert (widget.previous_button.description, widget.next_button.description) == ("◀ Previous", "Next ▶")
    shown = []
    for _ in range(4):  # one press too many: nothing happens at the end
        shown.append(
            (
                widget.position,
                widget.previous_button.disabled,
                widget.next_button.disabled,
                [box.layout.display for box in widget.stage_html],
            )
        )
        widget.next()
    assert shown == [
        (0, True, False, [None, "none", "none"]),
        (1, False, False, ["none", None, "none"]),
        (2, False, True, ["none", "none", None]),
        (2, False, True, ["none", "none", None]),
    ]
    widget.previous()
    widget.previous()
    widget.previous()
    assert widget.position == 0 and widget.previous_button.disabled


def test_without_prompts_the_label_says_which_stage_of_how_many_counting_from_one():
    """What the room reads beside the buttons: "1 of 3" on the question, "3 of 3" on the last answer, in the
    widget and in its text form alike; with prompts, each stage's own prompt instead."""
    widget = reveal("<p>question?</p>", "<p>answer one</p>", "<p>answer two</p>")
    labels = []
    for _ in range(3):
        labels.append((widget.position_label.value, widget.text().splitlines()[0]))
        widget.next()
    assert labels == [("1 of 3", "1 of 3"), ("2 of 3", "2 of 3"), ("3 of 3", "3 of 3")]
    asked = reveal("<p>q</p>", "<p>a</p>", prompts=("Which rows?", "Rows 1 and 3."))
    asked.next()
    assert asked.position_label.value == "Rows 1 and 3."


def test_reveal_needs_an_answer_and_one_prompt_per_stage():
    with pytest.raises(ValueError) as refused:
        reveal("<p>only a question</p>")
    assert str(refused.value) == "reveal needs a question and at least one answer: two stages or more."
    with pytest.raises(ValueError, match="one per stage"):
        reveal("a", "b", prompts=("one",))


def test_the_text_form_is_the_label_and_the_words_of_the_stage_shown():
    """Where only text is shown (a terminal, a handout): the position, then the stage's words, a paragraph or
    a table row to a line, a table's cells apart, entities read, style sheets and tags left out."""
    question = "<style>\n.x {color: red}\n</style><p>Which rows   are <b>wrong</b>?</p><p>Say&nbsp;1 &amp; 3</p>"
    table = "<table><tr><th>row</th><th>ok</th></tr><tr><td>1</td><td>✗</td></tr></table>line<br>next<br/>last"

    class Rich:
        def _repr_html_(self):
            return "<div>rich <i>HTML</i></div>"

        def __str__(self):
            return "its own text"

    widget = reveal(question, table, Rich())
    assert widget.text() == "1 of 3\nWhich rows are wrong ?\nSay 1 & 3"  # every space, a no-break one too, is one
    widget.next()
    assert widget.text() == "2 of 3\nrow ok\n1 ✗\nline\nnext\nlast"
    widget.next()
    assert widget.text() == "3 of 3\nits own text"  # an object's own text form, not its HTML's
    assert "rich <i>HTML</i>" in widget.stage_html[2].value  # and its HTML form in the widget


def test_a_stage_that_is_neither_html_nor_has_an_html_form_is_refused_by_name():
    with pytest.raises(TypeError) as refused:
        reveal("<p>q</p>", 42)
    assert str(refused.value) == "a stage is an HTML string or has _repr_html_; got int"


def test_the_slides_style_rule_comes_once_with_the_first_stage_and_the_last_stage_stays():
    """The rule that hides what is not the stage of the moment travels with the first stage, once per widget;
    the last stage is a plain fragment ("the last stays"); a lone stage would be no fragment at all."""
    widget = reveal("<p>q</p>", "<p>a</p>", "<p>b</p>", "<p>c</p>")
    values = [box.value for box in widget.stage_html]
    assert values[0].startswith(REVEAL_JS_RULE + "<div") and all(v.startswith("<div") for v in values[1:])
    assert [re.search(r'data-fragment-index="(\d+)"', v)[1] for v in values] == ["0", "0", "1", "2"]
    assert _stages(widget)[-1][0] == {STAGE_CLASS, "fragment"}
    assert fragment_classes(0, 1) == (STAGE_CLASS, None)
    assert fragment_classes(0, 2) == (f"{STAGE_CLASS} fragment fade-out", 0)
    assert fragment_classes(1, 2) == (f"{STAGE_CLASS} fragment", 0)


def test_the_buttons_keep_their_place_while_the_label_changes():
    """Previous and Next have one fixed width, so neither moves under the presenter's pointer when the label
    beside them changes length; the label takes the width its words need; on a narrow page the row wraps."""
    widget = reveal("<p>q</p>", "<p>a</p>", prompts=("a short prompt", "a much longer prompt than the first one"))
    previous, following = widget.previous_button.layout.width, widget.next_button.layout.width
    assert previous == following and re.fullmatch(r"\d+px", previous)
    assert widget.position_label.layout.width == "auto"
    row = widget.children[0]
    assert list(row.children) == [widget.previous_button, widget.next_button, widget.position_label]
    assert (row.layout.flex_flow, row.layout.align_items) == ("row wrap", "center")
