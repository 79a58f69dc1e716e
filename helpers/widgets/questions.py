"""5 and 7. Check-yourself questions: choose one of a few answers, or type one number."""

from __future__ import annotations

import html

import ipywidgets as widgets

from helpers.core.data import parse_number
from helpers.core.tolerance import within
from helpers.widgets.accessibility import name
from helpers.widgets.base import (
    LABEL_FITS,
    MESSAGE_COLOUR,
    LessonWidget,
    never_raises,
    number_argument,
    refuse_decimal_comma,
    sentence,
)


class _Question(LessonWidget):
    """What the check-yourself questions share: a verdict under the question, with ``explanation``
    after a right answer and ``hint`` after a wrong one. A subclass says whether the question is
    ``answered`` and ``right``, and how its verdict begins (``_verdict_start``)."""

    answered: bool
    right: bool

    def _verdict_start(self) -> str:
        raise NotImplementedError

    def _verdict(self) -> str:
        if not self.answered:
            return ""
        mark, words = ("✓", self.explanation) if self.right else ("✗", self.hint)
        return f"{mark} {self._verdict_start()}. {words}".strip()

    def _render(self) -> None:
        self._show_problems()
        colour = "#005a87" if self.right else MESSAGE_COLOUR
        self.verdict_html.value = f'<div style="color:{colour}">{html.escape(self._verdict())}</div>'


class MultipleChoice(_Question):
    """Choose one answer and be told at once whether it is right. Made by :func:`multiple_choice`."""

    def __init__(self, question, options, answer, explanation="", hint=""):
        super().__init__()
        self.options = [str(option) for option in options]
        if str(answer) not in self.options:
            raise ValueError(f"The answer {answer!r} is not one of the options: {', '.join(self.options)}.")
        self.question, self.answer = str(question), str(answer)
        self.explanation, self.hint = str(explanation), str(hint)
        self.choice: str | None = None
        self.message_html = widgets.HTML()
        self.buttons = widgets.RadioButtons(options=self.options, value=None, layout=widgets.Layout(width="auto"))
        self.buttons.observe(self._on_choice, names="value")
        self.verdict_html = widgets.HTML()
        self.children = [
            widgets.HTML(f"<b>Check yourself.</b> {html.escape(self.question)}"),
            self.buttons,
            self.message_html,
            self.verdict_html,
        ]

    @never_raises
    def choose(self, option) -> None:
        """Choose ``option``, as a click would (an option not on the list shows a message)."""
        if str(option) not in self.options:
            self._problems = {"choice": f"{option!r} is not one of the options: {', '.join(self.options)}."}
            self._show_problems()
            return
        self.buttons.value = str(option)

    @never_raises
    def _on_choice(self, change) -> None:
        self.choice, self._problems = change["new"], {}
        self._render()

    @property
    def answered(self) -> bool:
        return self.choice is not None

    @property
    def right(self) -> bool:
        return self.choice is not None and self.choice == self.answer

    def _verdict_start(self) -> str:
        # The choice quoted: "Not it divides by …" would read as a sentence that is not one.
        return f"Right: {self.answer}" if self.right else f"Not this one: “{self.choice}”"

    def text(self) -> str:
        lines = [f"Check yourself: {self.question}"]
        lines += [f"  {'(•)' if option == self.choice else '( )'} {option}" for option in self.options]
        lines.append(f"  {self._verdict()}" if self.choice is not None else "  (choose an answer)")
        return "\n".join(lines + [f"⚠ {text}" for text in self._problems.values()])


def multiple_choice(question, options, answer, explanation="", hint="") -> MultipleChoice:
    """A check-yourself question with ``options`` to choose from; ``explanation`` follows a right answer,
    ``hint`` a wrong one. For questions :func:`answer_checker` cannot ask. Introduced in notebook 01.
    """
    return MultipleChoice(question, options, answer, explanation=explanation, hint=hint)


class NumberQuestion(_Question):
    """Type one number and be told whether it is right. Made by :func:`number_question`."""

    def __init__(self, question, answer, tolerance, hint="", explanation="", mistakes=None):
        super().__init__()
        answer, tolerance = number_argument(answer, "The answer"), number_argument(tolerance, "The tolerance")
        if tolerance < 0:
            raise ValueError(f"The tolerance must be a number 0 or larger; got {tolerance:g}.")
        self.question, self.answer, self.tolerance = str(question), answer, tolerance
        self.hint, self.explanation = str(hint), str(explanation)
        pairs = mistakes.items() if isinstance(mistakes, dict) else (mistakes or ())
        self.mistakes = [(number_argument(value, "A mistake's value"), str(words)) for value, words in pairs]
        self.typed: float | None = None
        self.answer_box = name(
            widgets.Text(description="your answer:", placeholder="a number", continuous_update=False, **LABEL_FITS),
            "your answer",
        )
        self.answer_box.observe(self._on_answer, names="value")
        self.message_html, self.verdict_html = widgets.HTML(), widgets.HTML()
        self.children = [
            widgets.HTML(f"<b>Check yourself.</b> {html.escape(self.question)}"),
            widgets.HBox([self.answer_box, self.message_html]),
            self.verdict_html,
        ]

    def check(self, text) -> bool | None:
        """Check ``text`` as if typed into the box: True if right, False if wrong, None if not a number."""
        self.answer_box.value = str(text)
        return None if self.typed is None else self.right

    @property
    def answered(self) -> bool:
        return self.typed is not None

    @property
    def right(self) -> bool:
        return self.typed is not None and within(abs(self.typed - self.answer), self.tolerance)

    @never_raises
    def _on_answer(self, change) -> None:
        try:
            self.typed, self._problems = parse_number(refuse_decimal_comma(change["new"])), {}
        except ValueError as problem:
            self.typed, self._problems = None, {"answer": sentence(f"Your answer {problem}")}
        self._render()

    def _verdict_start(self) -> str:
        return "Right" if self.right else "Not yet"

    @property
    def mistake(self) -> str:
        """The named mistake the typed answer matches (within the tolerance), or "" for none."""
        if self.typed is None or self.right:
            return ""
        near = [(abs(self.typed - value), words) for value, words in self.mistakes]
        near = [item for item in near if within(item[0], self.tolerance)]
        return min(near)[1] if near else ""

    def _verdict(self) -> str:
        if self.mistake:  # what this wrong answer comes from, instead of the general hint
            return f"✗ {self._verdict_start()}. {self.mistake}"
        return super()._verdict()

    def text(self) -> str:
        verdict = self._verdict() or "(type your answer and press Enter)"
        return "\n".join(
            [f"Check yourself: {self.question}", f"  {verdict}"] + [f"⚠ {text}" for text in self._problems.values()]
        )


def number_question(question, answer, tolerance, hint="", explanation="", mistakes=None) -> NumberQuestion:
    """A check-yourself question whose answer is one number, right within ``tolerance``.

    For questions :func:`answer_checker` cannot ask; ``hint`` follows a wrong answer, ``explanation``
    a right one. ``mistakes`` maps the numbers common mistakes give to what went wrong
    (``{x_hat[2]: "That is x̂₃: now scale it by γ₃ and shift it by β₃."}``): a wrong answer within
    ``tolerance`` of one is told that sentence instead of the hint. Introduced in notebook 11.
    """
    return NumberQuestion(question, answer, tolerance, hint=hint, explanation=explanation, mistakes=mistakes)
