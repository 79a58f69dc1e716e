"""One submission's grade: the checker's verdict on the answer cell, turned into points per test.

A named mistake's test passes when the function is right, or when the checker named what it does
and it is another mistake (its values were compared and are not this mistake's). It fails, with the
checker's own sentence, when the checker names this mistake (alone or with another), and when the
function is wrong in a way the checker cannot name, raises, is not written or never returns: a ✓ is
given only where the verdict earns it. The hidden test is the full check on unseen cases.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from classroom.grading import judge, notebook, plan
from helpers.checking.mistakes import KEYS
from helpers.checking.mistakes.outcomes import MODULE_MISTAKES

RIGHT_VALUES = ("python-loop",)  # verdicts whose values were all right (only the code's shape is not)


@dataclass(frozen=True)
class Outcome:
    """One test's result: the :class:`plan.Test`, the points earned, and the sentence shown (when it
    failed, exactly the checker's sentence, or why nothing could be judged)."""

    test: plan.Test
    earned: int
    sentence: str

    @property
    def passed(self) -> bool:
        return self.earned == self.test.points


@dataclass
class Grade:
    """A submission's grade: ``outcomes`` per test, ``ignored`` sentences (tampering, edited tests),
    ``problem`` (why nothing could be judged, or "")."""

    step: str
    outcomes: list[Outcome]
    ignored: list[str] = field(default_factory=list)
    problem: str = ""
    seconds: float = 0.0
    peak_kib: int = 0

    @property
    def score(self) -> int:
        return sum(outcome.earned for outcome in self.outcomes)

    @property
    def max_score(self) -> int:
        return sum(outcome.test.points for outcome in self.outcomes)

    def points(self) -> dict[str, int]:
        return {outcome.test.grade_id: outcome.earned for outcome in self.outcomes}


def _named(mistake: str | None) -> set[str] | None:
    """The catalogue keys a verdict names (a compound names two), or None when it names none."""
    if mistake is None:
        return None
    if mistake in RIGHT_VALUES:
        return set()
    parts = set(mistake.split("+"))
    return parts if parts <= set(KEYS) | set(MODULE_MISTAKES) else None


def outcomes_of(step: str, verdict: judge.Verdict) -> list[Outcome]:
    """Points and sentences for every test of ``step`` from the checker's verdict."""
    found = []
    named = _named(verdict.mistake) if verdict.judged and not verdict.passed else set()
    why = verdict.diagnosis if verdict.judged else verdict.problem
    for test in plan.tests_for(step):
        if test.hidden:
            ok = verdict.judged and verdict.passed
            sentence = "Right on every unseen case." if ok else why
        elif not verdict.judged:
            ok, sentence = False, why
        elif named is not None and not plan.judged(step, named, test.key):
            ok, sentence = False, f"Not judged: the check stopped at an earlier problem. {why}"
        else:
            ok = named is not None and test.key not in named
            sentence = "Not made." if ok else why
        found.append(Outcome(test, test.points if ok else 0, sentence))
    return found


def grade_code(step: str, code: str, **limits) -> Grade:
    """The grade of an answer cell's ``code`` for ``step``, judged in a fresh process."""
    verdict = judge.judge(step, plan.function_name(step), code, **limits)
    grade = Grade(step, outcomes_of(step, verdict), list(verdict.ignored), verdict.problem)
    grade.seconds, grade.peak_kib = verdict.seconds, verdict.peak_kib
    return grade


def zero(step: str, problem: str) -> Grade:
    """No points: ``problem`` says why, once, on every test."""
    return Grade(step, [Outcome(test, 0, problem) for test in plan.tests_for(step)], [], problem)


def grade_notebook(path: Path, step: str, released: dict | None = None, **limits) -> Grade:
    """The grade of the submitted notebook at ``path``: its answer cell (by grade_id) judged alone;
    its test cells compared with ``released`` (the released notebook) and never run."""
    try:
        submitted = notebook.read(path)
        code = notebook.answer(submitted, plan.answer_id(step))
    except notebook.BadSubmission as error:
        return zero(step, str(error))
    grade = grade_code(step, code, **limits)
    if released is not None:
        edited = notebook.changed_tests(submitted, released, [t.grade_id for t in plan.tests_for(step)])
        if edited:
            grade.ignored.append(edited)
    return grade


def feedback_text(grade: Grade) -> str:
    """What the student reads: points, one line per test, then what was ignored."""
    lines = [f"{plan.function_name(grade.step)}: {grade.score} of {grade.max_score} points"]
    for outcome in grade.outcomes:
        mark = "✓" if outcome.passed else "✗"
        label = "Hidden test, the full check" if outcome.test.hidden else f"Mistake: {outcome.test.name}"
        lines.append(f"{mark} {label} ({outcome.earned}/{outcome.test.points}): {outcome.sentence}")
    lines += [f"Note: {sentence}" for sentence in grade.ignored]
    return "\n".join(lines)
