"""Issue 24: the checking code's tolerance edges, from the spec, so that a fresh one-line bug nobody planted
before fails a test. Each test here closes a mutation in tools/mutation/fresh_checking.py.

What they pin: a mistake is named within one unit in the last place typed (answer boxes) or within the
float64 tolerance (the code checker), and not just outside it; a forgotten ε and a NaN get their own
sentences. (The CSV tests are in tests/core/test_csv_import.py, the command line's in
tests/core/test_cli_output_matrix.py.)
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from helpers.checking import answers as answer_check
from helpers.checking import cases as exercise_cases
from helpers.checking.answers import diagnose, known_mistakes, typed_places
from helpers.checking.exercises import check

from conftest import EPS
from conftest import LESSON_X as LESSON  # the lesson's matrix as printed

ROOT = Path(__file__).resolve().parents[2]


# --- 2. a mistake is named within its tolerance, not outside it ---------------------------------


def _answer_box_cases():
    """(row, quantity, index, key, mistake's value, places) for every mistake whose value is far from the
    right answer and from every other candidate (so that only the tolerance decides), on the lesson's rows."""
    places = 4
    unit = 10.0**-places
    for row in LESSON:
        for quantity, index in (("variance", None), ("std", None), ("normalised", 0), ("normalised", 2)):
            expected = answer_check.expected_value(row, quantity, index=index, eps=EPS)
            found = known_mistakes(row, quantity, index=index, eps=EPS)
            kinds = set()  # one single mistake, one compound and one early rounding per question: enough, and fast
            for number, (key, value, _) in enumerate(found):
                kind = "rounding" if key == "rounding" else "+" in key
                others = [v for j, (_, v, _) in enumerate(found) if j != number]
                if (
                    kind in kinds
                    or abs(value - expected) <= 4 * unit
                    or any(abs(value - v) <= 4 * unit for v in others)
                ):
                    continue
                kinds.add(kind)
                yield row, quantity, index, key, value, places


def test_an_answer_box_names_a_mistake_one_unit_in_the_last_place_away_and_no_further():
    """diagnose names the mistake whose value is within one unit in the last place typed (closer is that
    mistake with a rounding slip): just inside is named, just outside is not."""
    inside = outside = 0
    for row, quantity, index, key, value, places in _answer_box_cases():
        unit = 10.0**-places
        base = round(value, places)
        for step in (-1, 1, 2):  # one of ±1 is just inside one unit, the other just outside; 2 is outside
            typed = f"{base + step * unit:.{places}f}"
            assert typed_places(typed) == places
            distance = abs(float(typed) - value) / unit  # in units of the last place typed
            if 0.98 < distance < 1.02:
                continue  # too close to the edge to say which side floating point puts it
            verdict = diagnose(row, quantity, typed, index=index, eps=EPS)
            if distance <= 0.98:
                assert verdict.mistake == key, (row, quantity, index, typed, value, verdict)
                inside += distance > 0.5  # not the mistake's own digits: named by the tolerance
            else:
                assert verdict.mistake != key, (row, quantity, index, typed, value, verdict)
                outside += distance < 3
    assert inside >= 25 and outside >= 60, (inside, outside)


def _var(row, ddof=0):
    row = np.asarray(row, dtype=np.float64)
    return float(np.sum((row - row.mean()) ** 2) / (len(row) - ddof))


# step → (the key, a function that makes exactly that mistake)
MISTAKEN = {
    "mean": ("n-1", lambda r: np.sum(np.asarray(r, dtype=np.float64)) / (len(r) - 1)),
    "variance": ("n-1", lambda r: _var(r, 1)),
    "std, n − 1": ("n-1", lambda r, eps: math.sqrt(_var(r, 1) + eps)),
    "std, ε forgotten": ("no-eps", lambda r, eps: math.sqrt(_var(r))),
    "std, ε outside": ("eps-outside-root", lambda r, eps: math.sqrt(_var(r)) + eps),
    "normalise, n − 1": (
        "n-1",
        lambda r, eps: (np.asarray(r, dtype=np.float64) - np.mean(r)) / math.sqrt(_var(r, 1) + eps),
    ),
    "layer_norm, ε forgotten": (
        "no-eps",
        lambda x, eps: (
            (x - x.mean(-1, keepdims=True)) / np.sqrt(((x - x.mean(-1, keepdims=True)) ** 2).mean(-1, keepdims=True))
        ),
    ),
}


@pytest.mark.parametrize("name", MISTAKEN)
def test_the_code_checker_names_a_mistake_within_the_float64_tolerance_and_no_further(name):
    """The code checker names a mistake when the learner's results are within the float64 tolerance
    (exercise_cases.FLOAT64_TOLERANCE, relative) of what that mistake gives: a third of it off is the
    mistake, three times it off is not. (float32 cases have more room; float64 ones decide.)"""
    step = name.split(",")[0]
    key, wrong = MISTAKEN[name]
    relative, _ = exercise_cases.FLOAT64_TOLERANCE
    assert check(step, wrong).mistake == key
    for factor, named in ((1 + relative / 3, True), (1 - relative / 3, True), (1 + 3 * relative, False)):
        result = check(step, lambda *a, factor=factor: np.asarray(wrong(*a), dtype=np.float64) * factor)
        assert not result.passed
        assert (result.mistake == key) is named, (factor, result)


def test_an_answer_box_names_a_single_mistake_before_two_at_once():
    """Of the mistakes within one unit of the answer (those with the answer's very digits first), a single
    mistake is named before two at once, even when the compound is nearer: the simpler explanation."""
    from helpers.checking.answers import _same_at

    checked = 0
    for row in LESSON[:2]:
        for quantity, index in (("std", None), ("normalised", 0)):
            found = known_mistakes(row, quantity, index=index, eps=EPS)
            expected = answer_check.expected_value(row, quantity, index=index, eps=EPS)
            for places in (3, 4):
                unit = 10.0**-places
                singles = {round(v, places) for k, v, _ in found if "+" not in k and k != "rounding"}
                for typed in sorted({f"{base + step * unit:.{places}f}" for base in singles for step in (-1, 0, 1)}):
                    value = float(typed)
                    near = [(k, v) for k, v, _ in found if abs(value - v) <= 0.98 * unit]
                    if abs(value - expected) <= 3 * unit or not near:
                        continue
                    same = [(k, v) for k, v in near if _same_at(value, v, places)] or near
                    if not any("+" not in k for k, _ in same) or not any("+" in k for k, _ in same):
                        continue  # no choice between a single mistake and a compound to make here
                    verdict = diagnose(row, quantity, typed, index=index, eps=EPS)
                    assert verdict.mistake in {k for k, _ in same if "+" not in k}, (
                        row,
                        quantity,
                        typed,
                        same,
                        verdict,
                    )
                    checked += 1
    assert checked >= 20, checked


# --- 3. the float64 tolerance: a near miss of 3 parts in a million fails --------------------------

RIGHT = {
    "mean": lambda r: float(np.mean(np.asarray(r, dtype=np.float64))),
    "variance": lambda r: _var(r),
    "std": lambda r, eps: math.sqrt(_var(r) + eps),
    "normalise": lambda r, eps: (np.asarray(r, dtype=np.float64) - np.mean(r)) / math.sqrt(_var(r) + eps),
    "layer_norm": lambda x, eps: (
        (x - x.mean(-1, keepdims=True)) / np.sqrt(((x - x.mean(-1, keepdims=True)) ** 2).mean(-1, keepdims=True) + eps)
    ),
}


@pytest.mark.parametrize("step", RIGHT)
def test_a_result_off_by_three_parts_in_a_million_fails_and_float64_noise_passes(step):
    right = RIGHT[step]
    assert check(step, right).passed
    assert check(step, lambda *a: np.asarray(right(*a), dtype=np.float64) * (1 + 2.0**-50)).passed  # float64 noise
    near_miss = check(step, lambda *a: np.asarray(right(*a), dtype=np.float64) * (1 + 3e-6))
    assert not near_miss.passed and "float64" not in near_miss.diagnosis, near_miss


# --- 4. a forgotten ε is told so, in its own words, computed for the row --------------------------


def test_a_forgotten_eps_reads_its_own_sentence_not_eps_outside_the_root():
    row = LESSON[4]  # the lesson's row of smallest spread: ε moves its std most
    var = float(np.mean((row - row.mean()) ** 2))
    no_eps = (f"{math.sqrt(var):.6g}", f"{math.sqrt(var + EPS):.6g}")
    for where, words in (
        ("answer box", diagnose(row, "std", f"{math.sqrt(var):.6f}", eps=EPS).hint),
        ("code checker", check("std", lambda r, eps: math.sqrt(_var(r))).diagnosis),
    ):
        assert "ε forgotten" in words and "Add ε to the variance before the square root" in words, (where, words)
        assert "ε outside" not in words and "not √σ² + ε" not in words, (where, words)
        if where == "answer box":
            assert f"from {no_eps[0]} to {no_eps[1]}" in words, words  # this row's std, without and with ε


# --- the code checker's NaN sentence, also when only part of the result is NaN --------------------


def test_nan_in_one_row_of_the_result_gets_the_nan_sentence():
    def careful(x, eps):  # scales each row first, so that its squares cannot overflow: 0 / 0 on a constant row
        d = x - x.mean(-1, keepdims=True)
        s = np.abs(d).max(-1, keepdims=True)
        z = d / s
        return z / np.sqrt((z * z).mean(-1, keepdims=True) + eps / (s * s))

    result = check("layer_norm", careful)
    assert not result.passed and result.mistake == "nan", result
    assert "NaN" in result.diagnosis and "0 / 0" in result.diagnosis and "constant row" in result.case
