"""The offline slides (reveal.js) show a Reveal's stages one per click, each in place of the last.

reveal.js marks a fragment "visible" once the slide's fragment step reaches its data-fragment-index, and
"current-fragment" while the step is exactly that index; the stages' own style rule (REVEAL_JS_RULE) then
hides what is not the stage of the moment. Here that is played out click by click, from the HTML the widget
holds, for every number of stages a lecture might use."""

from __future__ import annotations

import re

import pytest

from helpers.widgets.reveal import reveal


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
