"""Notebook 13's check-yourself question (helpers.forensics.table.mystery_question): its answer is whatever
the fingerprint finds, never written down, so each option is the answer for a LayerNorm that breaks exactly
that convention, and a function breaking two is refused in a sentence that names what it breaks."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.forensics.table import mystery_question


def _centred(x):
    x = np.asarray(x, dtype=np.float64)
    return x - x.mean(-1, keepdims=True)


def unbiased(x):
    u = _centred(x)
    return u / np.sqrt((u * u).sum(-1, keepdims=True) / (x.shape[-1] - 1) + 1e-5)


def eps_on_std(x):
    u = _centred(x)
    return u / (np.sqrt((u * u).mean(-1, keepdims=True)) + 1e-5)


def no_eps(x):
    u = _centred(x)
    return u / np.sqrt((u * u).mean(-1, keepdims=True))


def one_pass(x):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt((x * x).mean(-1, keepdims=True) - mean * mean + 1e-5)


def columns(x):
    x = np.asarray(x, dtype=np.float64)
    u = x - x.mean(0, keepdims=True)
    return u / np.sqrt((u * u).mean(0, keepdims=True) + 1e-5)


@pytest.mark.parametrize(
    "fn, answer",
    [
        (unbiased, "it divides the variance by n − 1"),
        (eps_on_std, "it adds ε to the standard deviation"),
        (no_eps, "it adds no ε at all"),
        (one_pass, "it computes the variance in one pass"),
        (columns, "it normalises the wrong axis"),
    ],
    ids=["n - 1", "eps + std", "no eps", "one pass", "axis"],
)
def test_each_option_is_the_answer_for_the_one_convention_it_names(fn, answer):
    question = mystery_question(fn)
    assert question["answer"] == answer
    assert question["options"].count(answer) == 1


def test_a_function_breaking_two_conventions_is_refused_naming_both():
    def unbiased_on_std(x):
        u = _centred(x)
        return u / (np.sqrt((u * u).sum(-1, keepdims=True) / (x.shape[-1] - 1)) + 1e-5)

    with pytest.raises(ValueError) as problem:
        mystery_question(unbiased_on_std)
    assert str(problem.value) == (
        "The mystery should break exactly one of the listed conventions; it departs in: ÷ (n − 1), ε + std."
    )
