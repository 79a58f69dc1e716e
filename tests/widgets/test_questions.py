"""Number questions that name the mistake behind a wrong answer (notebooks 06, 11 and 12)."""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402


def ask(**extra):
    return widgets.number_question(
        "What is 2 · 1.5 + 1?", 4.0, tolerance=0.01, hint="Multiply, then add.", explanation="Well done.", **extra
    )


def test_a_wrong_answer_that_matches_a_mistake_is_told_that_mistake():
    question = ask(mistakes={3.0: "That is 2 · 1.5: add the 1 as well.", 5.0: "That is 2 · (1.5 + 1): multiply first."})
    assert question.check("3.004") is False
    assert "✗ Not yet. That is 2 · 1.5: add the 1 as well." in repr(question)
    assert "That is 2 · 1.5" in question.verdict_html.value and "Multiply, then add" not in repr(question)
    question.check("5")
    assert question.mistake == "That is 2 · (1.5 + 1): multiply first."
    question.check("7")  # no mistake of the list: the general hint
    assert question.mistake == "" and "✗ Not yet. Multiply, then add." in repr(question)
    question.check("4")
    assert question.right and question.mistake == "" and "✓ Right. Well done." in repr(question)


def test_mistakes_may_be_pairs_and_the_nearest_one_wins():
    question = ask(mistakes=[(3.0, "far"), (3.008, "near")])
    question.check("3.009")
    assert question.mistake == "near"
    question.check("abc")  # not a number: a message, no verdict and no mistake
    assert question.mistake == "" and "not a number" in question.message.lower()


def test_a_mistake_that_is_not_a_number_is_refused_in_one_sentence():
    with pytest.raises(ValueError, match="A mistake's value must be a number"):
        ask(mistakes={"three": "words"})


def test_a_wrong_choice_is_quoted_so_the_verdict_reads_as_a_sentence():
    """A choice that is a clause ("it divides by …") must not run into the verdict ("✗ Not it divides …")."""
    question = widgets.multiple_choice(
        "What does the mystery do?",
        ["it divides by the std without ε", "it adds ε twice"],
        "it adds ε twice",
        hint="Read its fingerprint.",
    )
    question.choose("it divides by the std without ε")
    assert "✗ Not this one: “it divides by the std without ε”. Read its fingerprint." in repr(question)
    assert "Not it divides" not in repr(question) and "Not it divides" not in question.verdict_html.value
