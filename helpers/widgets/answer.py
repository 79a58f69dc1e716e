"""4. Check your answer: type a value you computed and be told at once whether it is right."""

from __future__ import annotations

import html

import ipywidgets as widgets

from helpers.checking import answers as answer_check
from helpers.checking import class_record
from helpers.core.data import parse_row
from helpers.core.layernorm import DEFAULT_EPS
from helpers.core.validation import eps_from_text
from helpers.widgets.base import (
    LABEL_FITS,
    MESSAGE_COLOUR,
    LessonWidget,
    as_text,
    never_raises,
    refuse_decimal_comma,
    sentence,
)


class AnswerChecker(LessonWidget):
    """Type a value you computed and be told at once whether it is right. Made by :func:`answer_checker`."""

    _KIND_MARKS = {
        answer_check.RIGHT: "✓ Right",
        answer_check.ROUNDING: "≈ Right up to rounding",
        answer_check.WRONG: "✗ Not yet",
    }

    def __init__(self, row, quantity, index=None, eps=DEFAULT_EPS, places=None, gamma=None, beta=None):
        super().__init__()
        answer_check.check_places(places)  # refused here, in the cell, not on every answer typed
        self.places = places
        self.row = parse_row(as_text(row))
        self.eps = eps_from_text(eps)
        self.gamma, self.beta = gamma, beta
        self.question = answer_check.question_text(self.row, quantity, index, self.eps, gamma=gamma, beta=beta)
        if places is not None:
            self.question += f" Give at least {places} decimal place{'s' if places != 1 else ''}."
        self.quantity, self.index = quantity, index
        self.verdict: answer_check.Verdict | None = None
        self._answer_text = ""
        self.answer_box = widgets.Text(
            description="your answer:",
            placeholder="e.g. 0.446",
            continuous_update=False,
            layout=widgets.Layout(width="300px"),
            **LABEL_FITS,
        )
        self.check_button = widgets.Button(description="Check", layout=widgets.Layout(width="80px"))
        self.message_html = widgets.HTML()
        self.verdict_html = widgets.HTML()
        self.answer_box.observe(self._on_answer, names="value")
        self.check_button.on_click(self._on_answer)
        self.children = [
            widgets.HTML(f"<b>Check your answer.</b> {html.escape(self.question)}"),
            widgets.HBox(
                [self.answer_box, self.check_button, self.message_html], layout=widgets.Layout(align_items="center")
            ),
            self.verdict_html,
        ]

    def check(self, text):
        """Type ``text`` and press Check. Returns the verdict, or None when the text is not a number."""
        if self.answer_box.value == as_text(text):
            self.check_button.click()
        else:
            self.answer_box.value = as_text(text)
        return None if self._problems else self.verdict

    @never_raises
    def _on_answer(self, _change=None) -> None:
        text = self.answer_box.value
        # The last verdict goes first: a bad entry, or a check that fails, leaves no stale "✓ Right" under the warning.
        self.verdict, self.verdict_html.value = None, ""
        try:
            verdict = answer_check.diagnose(
                self.row,
                self.quantity,
                refuse_decimal_comma(text),
                index=self.index,
                eps=self.eps,
                places=self.places,
                gamma=self.gamma,
                beta=self.beta,
            )
        except ValueError as problem:
            message = str(problem)
            self._problems = {"answer": message if message[0].isupper() else sentence(f"Your answer {message}")}
        else:
            self.verdict, self._answer_text, self._problems = verdict, text.strip(), {}
            class_record.record_answer(verdict)  # on the class hub, the verdict also goes to the lecturer's page
        self._render()

    def _render(self) -> None:
        self._show_problems()
        if self.verdict is not None:
            colour = "#005a87" if self.verdict.is_right else MESSAGE_COLOUR
            self.verdict_html.value = (
                f'<div style="color:{colour}"><b>{self._KIND_MARKS[self.verdict.kind]}</b> '
                f"({html.escape(self._answer_text)}): {html.escape(self.verdict.hint)}</div>"
            )

    def text(self) -> str:
        lines = [f"Check your answer: {self.question}"]
        if self.verdict is not None:
            lines.append(f"  your answer: {self._answer_text}")
            lines.append(f"  {self._KIND_MARKS[self.verdict.kind]}: {self.verdict.hint}")
        else:
            lines.append("  (type your answer and press Enter or Check)")
        return "\n".join(lines + [f"⚠ {text}" for text in self._problems.values()])  # no last result kept


def answer_checker(row, quantity, index=None, eps=DEFAULT_EPS, places=None, gamma=None, beta=None) -> AnswerChecker:
    """A check-your-answer box for ``quantity`` ("mean", "variance", "std", "normalised" or "output",
    the last two with ``index`` counted from 0 picking the value, "output" with ``gamma`` and ``beta``)
    of ``row``; the verdict comes from :func:`helpers.checking.answers.diagnose`. ``places`` is how many
    decimal places the question asks for (see ``answer_check.diagnose``). Introduced in notebook 02.
    """
    return AnswerChecker(row, quantity, index=index, eps=eps, places=places, gamma=gamma, beta=beta)
