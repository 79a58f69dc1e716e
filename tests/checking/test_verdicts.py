"""Issue 19: every verdict true. The words a learner reads, from the one mistake catalogue, in the
code checker and the answer boxes alike; the tolerances pinned; no answer in a learner's cell.

(The mutation test of the reference solutions is tests/checking/test_solution_mutants.py.)
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

from helpers.checking import answers as answer_check
from helpers.checking import cases as exercise_cases
from helpers.checking import mistakes as catalogue
from helpers.checking.answers import RIGHT, WRONG, diagnose, known_mistakes
from helpers.checking.exercises import check
from helpers.core.data import load_residual

ROOT = Path(__file__).resolve().parents[2]
X = load_residual()
EPS = 1e-5


# --- one catalogue ---------------------------------------------------------------------------


def test_one_catalogue_one_key_one_name_everywhere():
    from classroom.service.catalogue import MISTAKES

    for step in ("mean", "variance", "std", "normalise", "scale_shift", "layer_norm"):
        for mistake in exercise_cases.mistakes(step):
            assert mistake.entry.key == mistake.key and mistake.entry.name == mistake.name
            assert all(part in MISTAKES for part in mistake.key.split("+")), mistake.key
            assert mistake.key in MISTAKES and catalogue.name_of(mistake.key), mistake.key
    for quantity in answer_check.QUANTITIES:
        for key, _, hint in known_mistakes(X[0], quantity, index=0, gamma=[2, 1, 3], beta=[0, 0.5, -1]):
            assert key in MISTAKES, key
            assert hint.startswith("Looks like a known mistake: "), hint
    assert len(catalogue.KEYS) == len(set(catalogue.KEYS)) >= 25


@pytest.mark.parametrize("quantity", ["variance", "std", "normalised", "output"])
def test_an_answer_box_reads_the_catalogues_sentence_for_the_row_at_hand(quantity):
    """For every single mistake that can be told apart at 6 places, typing its value gives exactly
    the catalogue's name and sentence for this row, never another mistake's."""
    row, question = X[1], {"index": 0, "gamma": [2.0, 1.0, 3.0], "beta": [0.0, 0.5, -1.0]}
    if quantity not in ("normalised", "output"):
        question["index"] = None
    context = catalogue.Context(row, EPS)
    expected = answer_check.expected_value(row, quantity, eps=EPS, **question)
    told = 0
    for mistake in catalogue.singles(quantity):
        if mistake.signature or mistake.key == "eps-ignored":
            continue
        value = mistake.value(quantity, row, EPS, question["gamma"], question["beta"])
        if value is None or np.size(value) != (3 if question["index"] is not None else 1):
            continue
        value = float(np.ravel(value)[question["index"] or 0])
        if abs(round(value, 6) - round(expected, 6)) < 2.5e-6:
            continue  # the same digits as the right answer: nothing to tell
        verdict = diagnose(row, quantity, f"{value:.6f}", eps=EPS, **question)
        assert verdict.kind == WRONG
        if verdict.mistake == mistake.key:
            sentence = f"Looks like a known mistake: {mistake.name}. {mistake.advice(context)}"
            assert verdict.hint == sentence or (  # the same digits by hand: said too
                verdict.hint.startswith(sentence + " (Rounding every step to ")
            ), verdict.hint
            told += 1
        else:  # another mistake with the very same digits, named first in the catalogue's order
            other = [m for m in catalogue.for_quantity(quantity) if m.key == verdict.mistake]
            assert other and any(
                abs(
                    float(
                        np.ravel(m.value(quantity, row, EPS, question["gamma"], question["beta"]))[
                            question["index"] or 0
                        ]
                    )
                    - value
                )
                < 1e-6
                for m in other
            ), (mistake.key, verdict)
    assert told >= 4


def test_the_forgotten_eps_sentence_is_computed_for_the_row_and_true():
    row = np.array([0.886, 0.023, 0.952])  # notebook 04's question: σ² = 0.179, no "small variance"
    verdict = diagnose(row, "std", f"{math.sqrt(row.var()):.6f}", eps=EPS, places=6)
    assert verdict.mistake == "no-eps" and verdict.hint.startswith("Looks like a known mistake: ε forgotten.")
    assert "this small" not in verdict.hint and "ε outside" not in verdict.hint
    numbers = [float(v) for v in re.findall(r"from ([\d.]+) to ([\d.]+)", verdict.hint)[0]]
    assert numbers == pytest.approx([math.sqrt(row.var()), math.sqrt(row.var() + EPS)], abs=1e-6)
    assert "σ² = 0.1791" in verdict.hint
    constant = check("std", lambda r, eps: np.sqrt(np.var(r)))  # the code checker: a constant row divides 0 by 0
    assert constant.mistake == "no-eps" and "√(σ² + ε)" in constant.diagnosis


def test_no_eps_typed_to_six_places_is_named_not_called_rounding():
    row = (0.61, 0.616, 0.031)  # notebook 05's question asks for 3 places
    d = np.asarray(row) - np.mean(row)
    verdict = diagnose(row, "normalised", f"{d[0] / math.sqrt(np.mean(d * d)):.6f}", index=0, places=3)
    assert (verdict.kind, verdict.mistake) == (WRONG, "no-eps"), verdict
    assert diagnose(row, "normalised", "0.696", index=0, places=3).kind == RIGHT


def test_a_mistake_is_not_named_ten_units_away():
    row = X[1]
    for key, value, _ in known_mistakes(row, "std", eps=EPS):
        verdict = diagnose(row, "std", f"{value + 10e-4:.4f}", eps=EPS)
        assert verdict.mistake != key, (key, verdict)
    # the code checker: a known mistake's result, 10 × the float64 tolerance off, is not that mistake
    no_eps = check("std", lambda r, eps: np.sqrt(np.var(r)) * (1 + 1e-6))
    assert not no_eps.passed and no_eps.mistake != "no-eps", no_eps


# --- the code checker's words -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("step", "fn", "key", "words"),
    [
        (
            "std",
            lambda r, eps: np.sqrt(np.var(r, ddof=1)),
            "n-1+no-eps",
            ("dividing by n − 1 and ε forgotten", "unbiased=False", "√(σ² + ε)"),
        ),
        ("std", lambda r, eps: np.sqrt(np.var(r)) + np.sqrt(eps), "root-eps-outside", ("√ε", "np.sqrt(var + eps)")),
        ("mean", np.median, "median", ("median", "np.mean")),
        (
            "normalise",
            lambda r, eps: (r - r.min()) / (r.max() - r.min()),
            "min-max",
            ("min–max", "(x − μ) / √(σ² + ε)"),
        ),
        ("variance", lambda r: np.mean(r**2) - np.mean(r) ** 2, "one-pass", ("one-pass", "float32", "notebook 09")),
        ("std", lambda r, eps: np.sqrt(np.var(r, ddof=1) + eps), "n-1", ("torch.var", "correction=0")),
        (
            "layer_norm",
            lambda x, eps: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True)),
            "no-eps",
            ("ε forgotten",),
        ),
    ],
)
def test_the_checker_names_each_mistake_in_words(step, fn, key, words):
    result = check(step, fn)
    assert not result.passed and result.mistake == key, result
    for word in words:
        assert word in result.diagnosis, (word, result.diagnosis)


def test_the_one_pass_verdict_shows_the_float32_row_where_it_fails():
    result = check("variance", lambda r: np.mean(r * r) - np.mean(r) ** 2)
    assert "float32" in result.case and "far from zero" in result.case
    assert abs(float(result.got) - float(result.expected)) > 1e-3


def test_float32_two_pass_passes_far_from_zero():
    """The room for float32 is not so tight that a correct float32 function fails."""

    def variance(row):
        mu = sum(row) / len(row)
        return sum((v - mu) ** 2 for v in row) / len(row)

    assert check("variance", variance).passed
    assert check("normalise", lambda r, eps: (r - np.mean(r)) / np.sqrt(np.var(r) + eps)).passed
    assert check(
        "layer_norm", lambda x, eps: (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)
    ).passed


# --- tolerances, pinned ---------------------------------------------------------------------------


def test_float64_tolerance_is_pinned():
    case = next(c for c in exercise_cases.cases("std") if c.dtype == np.float64)
    assert case.tolerance[0] == 2.0**-43  # about 1000 units of float64's rounding
    assert exercise_cases.FLOAT64_TOLERANCE == (2.0**-43, 2.0**-49)
    assert exercise_cases.FLOAT32_RELATIVE == 1e-4


@pytest.mark.parametrize("step", ["mean", "variance", "std", "normalise", "layer_norm"])
def test_a_near_miss_of_three_parts_in_a_hundred_million_fails(step):
    """A few units of float64's rounding are noise; 3e-8 (float32's rounding) is a wrong result."""
    from lecturer.solutions import SOLUTIONS

    right = SOLUTIONS[step]
    assert check(step, lambda *a: np.asarray(right(*a)) * (1 + 2.0**-50)).passed  # float64 noise: still right
    result = check(step, lambda *a: np.asarray(right(*a)) * (1 + 3e-8))
    assert not result.passed, result


def test_float32_room_is_pinned_on_the_far_row():
    case = next(c for c in exercise_cases.cases("normalise") if c.far_from_zero and c.dtype == np.float32)
    rtol, atol = case.tolerance
    n, top = case.args[0].shape[-1], float(np.max(np.abs(case.args[0])))
    assert rtol == 1e-4
    assert float(np.max(atol)) == pytest.approx(
        1e-5 + 8 * n * 2.0**-24 * top / np.sqrt(np.var(case.args[0].astype(float)) + EPS)
    )
    assert float(np.max(atol)) < 5e-3  # tight enough for the one-pass variance (3 % off here)


# --- answer boxes: one behaviour, no answers in cells, exercises.md from the same rules --------


def test_notebook_06_box_behaves_like_the_others():
    row, gamma, beta = np.array([0.076, -0.313, -0.262]), [2.0, 1.0, 3.0], [0.0, 0.5, -1.0]
    ask = {"index": 2, "gamma": gamma, "beta": beta, "places": 2}
    exact = answer_check.expected_value(row, "output", index=2, gamma=gamma, beta=beta)
    right = diagnose(row, "output", f"{exact:.2f}", **ask)
    assert right.kind == RIGHT and "-2.66237" in right.hint
    assert diagnose(row, "output", "-2.6", **ask).mistake == "too-few-places"
    d = row - row.mean()
    n_minus_1 = gamma[2] * d[2] / math.sqrt(np.sum(d * d) / 2 + EPS) + beta[2]
    assert diagnose(row, "output", f"{n_minus_1:.2f}", **ask).mistake == "n-1"
    assert diagnose(row, "output", f"{gamma[2] * row[2] + beta[2]:.2f}", **ask).mistake == "not-normalised"


def _code_cells():
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
            if cell["cell_type"] == "code":
                yield path.name, "".join(cell["source"])


def test_no_question_cell_shows_its_answer_or_hints():
    makers = re.compile(r"\b(answer_checker|number_question|multiple_choice)\(")
    for name, source in _code_cells():
        if makers.search(source):
            for keyword in ("answer=", "hint=", "mistakes=", "explanation=", "tolerance="):
                assert keyword not in source, (name, keyword, source)


def test_exercises_md_promises_only_what_the_boxes_say():
    text = (ROOT / "lecturer" / "exercises.md").read_text(encoding="utf-8")
    assert "counted right within" not in text or "06" not in text.split("counted right within")[0][-300:]
    for section in text.split("**Check your answer.**")[1:]:
        section = section.split("\n### ")[0]
        answers = re.findall(r"^  \| (-?[\d.]+) \| ", section, re.M)
        listed = re.findall(r"(?:Typed to \d+ places|rounding every step to \d+ places), (-?[\d.]+):", section)
        assert len(answers) == len(set(answers)) and not set(answers) & set(listed), section[:200]  # each answer once
    assert "what rounding every step by hand gives counts as right" not in text  # not true of every row


def test_the_pass_sentence_is_read_off_the_cases():
    from lecturer.solutions import SOLUTIONS

    words = check("scale_shift", SOLUTIONS["scale_shift"]).diagnosis
    assert "float64 only" in words and "constant" not in words and "far from zero" not in words
    words = check("variance", SOLUTIONS["variance"]).diagnosis
    assert "far from zero (in float32 and float64)" in words and "constant row" in words and "128 values" in words
    assert "one value far out" in words


def test_the_class_page_names_a_key_in_words_true_for_every_step():
    from classroom.service.catalogue import MISTAKES

    assert MISTAKES["n-1"] == "dividing by n − 1"  # not the mean's "dividing the sum by n − 1"
    assert MISTAKES["n-1+no-eps"] == "dividing by n − 1 and ε forgotten"
    for key in MISTAKES:
        entries = [m for m in catalogue.MISTAKES if m.key == key]
        if len({m.name for m in entries}) > 1:
            assert key in catalogue.LABELS, key  # a key with several names gets one that fits every step


def test_a_sentence_about_a_batch_reads_its_tokens_as_rows():
    from helpers.checking.mistakes.sentences import Context

    rng = np.random.default_rng(3)
    batch = np.round(rng.normal(0, 1, (2, 4, 3)), 3)
    assert not Context(batch).constant  # no token is constant, though a column of tokens might look so
    batch[0, :, 0] = 1.0  # the first feature of every token of sequence 1: still no constant token
    assert not Context(batch).constant
    assert Context(batch).variance == pytest.approx(float(np.min(batch.reshape(-1, 3).var(axis=-1))))
    batch[1, 2] = 0.5  # one constant token
    assert Context(batch).constant
