"""helpers.forensics.table.mystery_question: notebook 13's check-yourself question, answered by the fingerprint."""

from __future__ import annotations

from helpers.forensics.gallery import mystery
from helpers.forensics.table import mystery_question


def test_the_question_the_learner_reads_with_its_answer_hint_and_explanation():
    assert mystery_question(mystery) == {
        "question": (
            "Fingerprint mystery in a new cell (fingerprint(mystery)). How does it differ from PyTorch's LayerNorm?"
        ),
        "options": [
            "it divides the variance by n − 1",
            "it adds ε to the standard deviation",
            "it adds no ε at all",
            "it computes the variance in one pass",
            "it normalises the wrong axis",
        ],
        "answer": "it adds no ε at all",
        "explanation": "Its fingerprint lists exactly this difference, and a row of equal values gives NaN or an error.",
        "hint": "Run fingerprint(mystery) and read the line 'Differences from PyTorch's LayerNorm'.",
    }
