"""The mistake catalogue, built afresh, names in each step the mistakes lecturer/exercises.md lists, in its order,
and tells a learner, for each of the notebooks' questions, the words and the number exercises.md prints.

``MISTAKES = _catalogue()`` runs once, at import; these tests build the catalogue again (``built``) and let every
checker read that one, so that a change to a mistake's name, sentence, quantities or formula settings is seen
at run time (mutmut switches to a mutant only after the import: tools/mutation/mutmut_triage.md). The
expectations are read from lecturer/exercises.md, the lecturer's published list, never from the catalogue.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from helpers.checking import cases
from helpers.checking import mistakes as catalogue
from helpers.checking.mistakes.sentences import Context

ROOT = Path(__file__).resolve().parents[2]
EXERCISES = (ROOT / "lecturer" / "exercises.md").read_text(encoding="utf-8")
ROUNDING = "rounding along the way"  # the formula's mistakes come before it in each list; outcomes after
WORDS = {
    "mean μ": "mean",
    "variance σ²": "variance",
    "standard deviation √(σ² + ε)": "std",
    "normalised value x̂": "normalised",
    "output y": "output",
}


@pytest.fixture
def built(monkeypatch):
    """The catalogue built now, read by every checker instead of the one built at import."""
    fresh = catalogue._catalogue()
    monkeypatch.setattr(catalogue, "MISTAKES", fresh)
    return fresh


def _published_lists() -> dict[str, list[str]]:
    """Each code exercise's step, with the formula's mistakes exercises.md says its checker names."""
    found = {}
    for step, names in re.findall(
        r'helpers\.exercises\.check\("(\w+)", \w+\)`.*?Mistakes the checker names: (.*?)\.\n', EXERCISES, re.S
    ):
        if step != "module":  # its list starts with the module's own mistakes (tools/build/lecturer_exercises.py)
            found[step] = names.split("; ")[: names.split("; ").index(ROUNDING)]
    return found


def _numbers(text: str) -> list[float]:
    return [float(v) for v in text.split(", ")]


def _published_answers() -> list[tuple]:
    """Every check-your-answer question's (row, quantity, index, γ, β, ε) with each "known mistake" answer
    exercises.md lists for it: (typed answer, the mistake's name, its sentence)."""
    found = []
    for section in EXERCISES.split("**Check your answer.** ")[1:]:
        question = section.split("\n")[0]
        words = re.match(r"What is the (.+?) (?:for feature (\d+) )?of x = \(([^)]*)\)", question)
        quantity = WORDS[words[1]]
        index = int(words[2]) - 1 if words[2] else None
        affine = re.search(r"with γ = \(([^)]*)\) and β = \(([^)]*)\)", question)
        gamma, beta = (_numbers(affine[1]), _numbers(affine[2])) if affine else (None, None)
        eps = re.search(r"\(ε = ([^)]+)\)", question)
        eps = float(eps[1]) if eps else 1e-5
        table = section.split("\n### ")[0].split("\n## ")[0]
        rows = re.findall(r"^  \| (-?[\d.]+) \| ✗ Not yet: Looks like a known mistake: (.+?)\. (.*) \|$", table, re.M)
        answers = [(answer, name, sentence) for answer, name, sentence in rows if name != ROUNDING]
        found.append((np.array(_numbers(words[3])), quantity, index, gamma, beta, eps, answers))
    return found


def test_exercises_md_is_read_whole():
    """The parsing above finds what the file holds: six code exercises and nine questions, most with mistakes."""
    assert set(_published_lists()) == {"mean", "variance", "std", "normalise", "scale_shift", "layer_norm"}
    questions = _published_answers()
    assert len(questions) == 9 and sum(len(q[-1]) for q in questions) > 150
    assert {q[1] for q in questions} == {"mean", "variance", "std", "normalised", "output"}


@pytest.mark.parametrize("step", ["mean", "variance", "std", "normalise", "scale_shift", "layer_norm"])
def test_each_step_names_the_mistakes_exercises_md_lists_in_its_order(built, step):
    """Which mistakes show in which quantity (a matrix adding the axes), their names, and which come first."""
    named = list(dict.fromkeys(m.name for m in cases.mistakes(step)))
    assert named[: named.index(ROUNDING)] == _published_lists()[step]


@pytest.mark.parametrize("question", _published_answers(), ids=lambda q: f"{q[1]} of {q[0].tolist()}")
def test_each_published_wrong_answer_is_what_its_mistake_gives_and_says(built, question):
    """For each wrong answer exercises.md lists: the catalogue's mistake of that name shows in the question's
    quantity, its formula gives that answer (to its last place), and its sentence is the one printed."""
    row, quantity, index, gamma, beta, eps, answers = question
    context = Context(row, eps)
    for answer, name, sentence in answers:
        named = [m for m in catalogue.for_quantity(quantity) if m.name == name]
        assert named, (quantity, name)
        for mistake in named:
            assert mistake.advice(context) == sentence, name
            value = np.ravel(mistake.value(quantity, row, eps, gamma, beta))[index or 0]
            unit = 10.0 ** -len(answer.split(".")[1])
            assert abs(value - float(answer)) <= 0.5 * unit + 1e-12, (name, value, answer)
