"""Notebook 12's check-yourself question on the bytes a float32 backward pass moves (speed.bytes_question):
what a learner who types an answer is told, for the right count and for each usual miscount.

The arithmetic is the lesson's, done here by hand: the backward pass reads x and dy and writes dx, three
arrays of 1024 × 1024 float32 numbers at 4 bytes each: 12,582,912 bytes, 12.58 MB (12 MiB).
"""

import pytest

from helpers.lessons.speed import timing as speed
from helpers.widgets import number_question

QUESTION = "Backward pass, 1024 × 1024 float32: how many MB (millions of bytes) must at least move?"
HINT = "Count the arrays the backward pass must read and write, at 4 bytes per float32 number."
ONE = "That is one array: the backward pass reads x and dy and writes dx."
TWO = "That is two arrays: it reads x and dy and writes dx, three in all."
FOUR = "That is four arrays: x̂ need not be read; a kernel recomputes it from x and the saved mean and 1/σ."
MIB = "That is in MiB (2²⁰ bytes); the question asks for MB, 10⁶ bytes."
FLOAT64 = "That counts 8 bytes per number (float64); float32 has 4."


@pytest.fixture
def question():
    return number_question(**speed.bytes_question(1024, 1024))


TOLD = [
    ("12.58", "✓ Right."),
    ("12.582912", "✓ Right."),
    ("4.19", f"✗ Not yet. {ONE}"),
    ("8.39", f"✗ Not yet. {TWO}"),
    ("16.78", f"✗ Not yet. {FOUR}"),
    ("12", f"✗ Not yet. {MIB}"),
    ("25.17", f"✗ Not yet. {FLOAT64}"),
    ("3", f"✗ Not yet. {HINT}"),
    ("12.6", f"✗ Not yet. {HINT}"),  # 0.017 off: outside the 0.01 tolerance
]


@pytest.mark.parametrize("typed, told", TOLD, ids=[typed for typed, _ in TOLD])
def test_the_learner_is_told_which_miscount_an_answer_is(question, typed, told):
    question.check(typed)
    assert question.text() == f"Check yourself: {QUESTION}\n  {told}"


def test_the_default_question_is_the_notebooks():
    assert speed.bytes_question() == speed.bytes_question(1024, 1024)


def test_another_size_gets_its_own_question_answer_and_miscounts():
    got = speed.bytes_question(512, 768)
    one_array = 512 * 768 * 4 / 10**6  # 1.572864 MB
    mistakes = sorted(got.pop("mistakes").items())
    assert got == {
        "question": "Backward pass, 512 × 768 float32: how many MB (millions of bytes) must at least move?",
        "answer": pytest.approx(3 * one_array, rel=1e-12),
        "tolerance": 0.01,
        "hint": HINT,
    }
    assert [value for value, _ in mistakes] == pytest.approx(
        [one_array, 2 * one_array, 3 * 512 * 768 * 4 / 2**20, 4 * one_array, 6 * one_array], rel=1e-12
    )
    assert [words for _, words in mistakes] == [ONE, TWO, MIB, FOUR, FLOAT64]
