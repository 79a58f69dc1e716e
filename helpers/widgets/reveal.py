"""A question first, its answers on the next clicks: stages shown one at a time, each in place of the last.

The lecture's checks (the published table, the PyTorch comparison) ask the room before they answer. The
Voilà presenter's PageDown presses the slide's enabled "Next ▶" and PageUp its "◀ Previous", so a clicker
steps through the stages here with no change to the presenter; at either end the button is disabled and
the clicker moves to the next or previous slide.

Each stage replaces the one before it, so the slide never grows taller than its tallest stage. The offline
slides (reveal.js) show a live widget as its HTML children one after another; each stage's HTML therefore
carries reveal.js fragment classes, and a style rule (inert outside reveal.js) keeps only the current
fragment on the canvas there too. Made by :func:`reveal`; used by the lecture only.
"""

from __future__ import annotations

import html
import re

import ipywidgets as widgets

from helpers.widgets.base import LessonWidget, never_raises

STAGE_CLASS = "layernorm-reveal-stage"
# reveal.js (the offline slides) only: a stage that is not the current fragment takes no room. Outside
# reveal.js no element has the class "reveal", so Voilà and JupyterLab ignore the rule.
REVEAL_JS_RULE = (
    "<style>"
    f".reveal .slides .{STAGE_CLASS}.fade-out.visible,"
    f".reveal .slides .{STAGE_CLASS}.fragment:not(.fade-out):not(.visible),"
    f".reveal .slides .{STAGE_CLASS}.fade-in-then-out.visible:not(.current-fragment)"
    "{display:none}"
    "</style>"
)


def _html_of(stage) -> str:
    """A stage as HTML: an HTML string as it is, or an object's rich HTML form."""
    if isinstance(stage, str):
        return stage
    if hasattr(stage, "_repr_html_"):
        return stage._repr_html_()
    raise TypeError(f"a stage is an HTML string or has _repr_html_; got {type(stage).__name__}")


def _text_of(stage) -> str:
    """A stage as plain text: an object's own text form, or the words of an HTML string."""
    if not isinstance(stage, str):
        return str(stage)
    text = re.sub(r"<style.*?</style>", "", stage, flags=re.S)
    text = re.sub(r"</(?:p|tr|div)>|<br\s*/?>", "\n", text)  # a paragraph or a table row: a line of its own
    text = re.sub(r"</t[dh]>", "  ", text)
    lines = (" ".join(html.unescape(re.sub(r"<[^>]+>", " ", line)).split()) for line in text.split("\n"))
    return "\n".join(line for line in lines if line)


def fragment_classes(position: int, count: int) -> tuple[str, int | None]:
    """(classes, reveal.js fragment index) of stage ``position`` of ``count``: the first is shown at once
    and fades out at the first click, the middle ones show for one click each, the last stays."""
    if position == 0:
        return (f"{STAGE_CLASS} fragment fade-out", 0) if count > 1 else (STAGE_CLASS, None)
    if position < count - 1:
        return f"{STAGE_CLASS} fragment fade-in-then-out", position - 1
    return f"{STAGE_CLASS} fragment", position - 1


class Reveal(LessonWidget):
    """Stages shown one at a time, each in place of the last: Next ▶ and ◀ Previous move between them."""

    def __init__(self, stages, prompts=None):
        super().__init__()
        self.stages = tuple(stages)
        if len(self.stages) < 2:
            raise ValueError("reveal needs a question and at least one answer: two stages or more.")
        self.prompts = tuple(prompts) if prompts is not None else ()
        if self.prompts and len(self.prompts) != len(self.stages):
            raise ValueError(f"{len(self.stages)} stages but {len(self.prompts)} prompts; give one per stage.")
        self._position = 0
        self.previous_button = widgets.Button(description="◀ Previous", layout=widgets.Layout(width="110px"))
        self.next_button = widgets.Button(description="Next ▶", layout=widgets.Layout(width="110px"))
        self.position_label = widgets.Label(layout=widgets.Layout(width="auto"))  # a Label: not in the handout
        self.message_html = widgets.HTML()
        self.stage_html = []
        for position, stage in enumerate(self.stages):
            classes, index = fragment_classes(position, len(self.stages))
            at = "" if index is None else f' data-fragment-index="{index}"'
            rule = REVEAL_JS_RULE if position == 0 else ""
            self.stage_html.append(widgets.HTML(f'{rule}<div class="{classes}"{at}>{_html_of(stage)}</div>'))
        self.previous_button.on_click(self._on_previous)
        self.next_button.on_click(self._on_next)
        self.children = [
            widgets.HBox(
                [self.previous_button, self.next_button, self.position_label],
                layout=widgets.Layout(align_items="center", flex_flow="row wrap"),
            ),
            self.message_html,
            *self.stage_html,
        ]
        self._render()

    @property
    def position(self) -> int:
        """The stage shown (0: the question)."""
        return self._position

    def next(self) -> None:
        """Press Next ▶ (nothing at the last stage, where it is disabled, as for a person)."""
        self.next_button.click()

    def previous(self) -> None:
        """Press ◀ Previous (nothing at the first stage)."""
        self.previous_button.click()

    # Button.click() from code runs the handlers even when the button is disabled: each handler checks.
    @never_raises
    def _on_next(self, _button=None) -> None:
        if not self.next_button.disabled:
            self._position += 1
            self._render()

    @never_raises
    def _on_previous(self, _button=None) -> None:
        if not self.previous_button.disabled:
            self._position -= 1
            self._render()

    def _label(self) -> str:
        if self.prompts:
            return self.prompts[self._position]
        return f"{self._position + 1} of {len(self.stages)}"

    def _render(self) -> None:
        self._show_problems()
        last = len(self.stages) - 1
        self.previous_button.disabled = self._position == 0
        self.next_button.disabled = self._position == last
        self.position_label.value = self._label()
        for position, box in enumerate(self.stage_html):
            box.layout.display = None if position == self._position else "none"

    def text(self) -> str:
        return f"{self._label()}\n{_text_of(self.stages[self._position])}"


def reveal(*stages, prompts=None) -> Reveal:
    """Show ``stages`` (HTML strings, or objects with an HTML form) one at a time, the first at once.

    Each Next ▶ shows the next stage in place of the one before; ◀ Previous goes back. ``prompts`` (one
    per stage) is the line beside the buttons, e.g. "pencils first: Next ▶ shows the checks". Buttons are
    disabled at the ends, so a clicker's PageDown then moves on to the next slide.
    """
    return Reveal(stages, prompts=prompts)
