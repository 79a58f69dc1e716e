"""5 and 7. Check-yourself questions: choose one of a few answers, or type one number."""

from __future__ import annotations

import html

import ipywidgets as widgets

from helpers.accessibility import name
from helpers.data import parse_number
from helpers.widgets.base import _MESSAGE_COLOUR, _WIDE, NumbersBox, _never_raises, _number_argument


class _Question(NumbersBox):
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
        colour = "#005a87" if self.right else _MESSAGE_COLOUR
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

    @_never_raises
    def choose(self, option) -> None:
        """Choose ``option``, as a click would (an option not on the list shows a message)."""
        if str(option) not in self.options:
            self._problems = {"choice": f"{option!r} is not one of the options: {', '.join(self.options)}."}
            self._show_problems()
            return
        self.buttons.value = str(option)

    @_never_raises
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
        return f"Right: {self.answer}" if self.right else f"Not {self.choice}"

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

    def __init__(self, question, answer, tolerance, hint="", explanation=""):
        super().__init__()
        answer, tolerance = _number_argument(answer, "The answer"), _number_argument(tolerance, "The tolerance")
        if tolerance < 0:
            raise ValueError(f"The tolerance must be a number 0 or larger; got {tolerance:g}.")
        self.question, self.answer, self.tolerance = str(question), answer, tolerance
        self.hint, self.explanation = str(hint), str(explanation)
        self.typed: float | None = None
        self.answer_box = name(
            widgets.Text(description="your answer:", placeholder="a number", continuous_update=False, **_WIDE),
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
        return self.typed is not None and abs(self.typed - self.answer) <= self.tolerance

    @_never_raises
    def _on_answer(self, change) -> None:
        try:
            self.typed, self._problems = parse_number(change["new"]), {}
        except ValueError as problem:
            self.typed, self._problems = None, {"answer": f"Your answer {problem}."}
        self._render()

    def _verdict_start(self) -> str:
        return "Right" if self.right else "Not yet"

    def text(self) -> str:
        verdict = self._verdict() or "(type your answer and press Enter)"
        return "\n".join(
            [f"Check yourself: {self.question}", f"  {verdict}"] + [f"⚠ {text}" for text in self._problems.values()]
        )


def number_question(question, answer, tolerance, hint="", explanation="") -> NumberQuestion:
    """A check-yourself question whose answer is one number, right within ``tolerance``.

    For questions :func:`answer_checker` cannot ask; ``hint`` follows a wrong answer, ``explanation``
    a right one. Introduced in notebook 11.
    """
    return NumberQuestion(question, answer, tolerance, hint=hint, explanation=explanation)
