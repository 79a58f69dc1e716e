"""Each mistake of the catalogue, built afresh, computes what its name says, has its key, and tells the learner
the words that matter, on rows of 4 and 5 values, matrices and an ε other than the default.

Every mistaken formula is written out below in plain numpy from the mistake's name (the names are
lecturer/exercises.md's: tests/checking/test_catalogue_as_published.py), step by step as the notebooks
build LayerNorm: mean, variance, std, x̂, γ · x̂ + β, each mistake replacing one or two steps. The catalogue
is built again here (``_catalogue()``), because the one built at import is out of mutmut's reach
(tools/mutation/mutmut_triage.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from helpers.checking import mistakes as catalogue
from helpers.checking.mistakes.sentences import Context

QUANTITIES = ("mean", "variance", "std", "normalised", "output")
DEFAULT_EPS = 1e-5  # what "a fixed 1e-5" is


def _mean(x):
    return x.mean(axis=-1, keepdims=True)


def _square_mean(d):
    return (d * d).mean(axis=-1, keepdims=True)


def steps(x, eps, gamma, beta, *, mean=None, variance=None, shown_variance=None, std=None, x_hat=None, output=None):
    """LayerNorm's quantities, step by step; a mistake passes the steps it changes (each as a function of
    the steps before it). ``shown_variance`` is what the variance step returns when it differs from what the
    std is computed from."""
    mu = mean(x) if mean else _mean(x)
    var = variance(x, mu) if variance else _square_mean(x - mu)
    sigma = std(var, eps) if std else np.sqrt(var + eps)
    normalised = x_hat(x, mu, sigma) if x_hat else (x - mu) / sigma
    y = output(x, normalised, gamma, beta) if output else gamma * normalised + beta
    found = {"mean": mu, "variance": shown_variance(var, eps) if shown_variance else var, "std": sigma}
    return {**found, "normalised": normalised, "output": y}


def _median(x):
    return np.median(x, axis=-1, keepdims=True)


def _lost_mean(x):
    return x.mean(axis=-1)  # (m,): lines up with the columns, not the rows


@dataclass(frozen=True)
class Reference:
    key: str
    name: str
    formula: object  # (x, eps, gamma, beta) -> the quantities
    matrix_only: bool = False  # the axes, and γ and β per row: a square matrix


R = Reference
REFERENCES = [
    R(
        "n-1",
        "dividing the sum by n − 1",
        lambda x, e, g, b: steps(x, e, g, b, mean=lambda x: x.sum(-1, keepdims=True) / (x.shape[-1] - 1)),
    ),
    R(
        "sum-not-divided",
        "not dividing the sum by n",
        lambda x, e, g, b: steps(x, e, g, b, mean=lambda x: x.sum(-1, keepdims=True)),
    ),
    R(
        "hard-coded-width",
        "dividing by 3 whatever the row's length",
        lambda x, e, g, b: steps(x, e, g, b, mean=lambda x: x.sum(-1, keepdims=True) / 3),
    ),
    R("median", "the median instead of the mean", lambda x, e, g, b: steps(x, e, g, b, mean=_median)),
    R(
        "n-1",
        "dividing by n − 1",
        lambda x, e, g, b: steps(
            x, e, g, b, variance=lambda x, mu: ((x - mu) ** 2).sum(-1, keepdims=True) / (x.shape[-1] - 1)
        ),
    ),
    R(
        "sum-not-divided",
        "not dividing the sum of squares by n",
        lambda x, e, g, b: steps(x, e, g, b, variance=lambda x, mu: ((x - mu) ** 2).sum(-1, keepdims=True)),
    ),
    R(
        "hard-coded-width",
        "n written as 3 whatever the row's length",
        lambda x, e, g, b: steps(
            x,
            e,
            g,
            b,
            mean=lambda x: x.sum(-1, keepdims=True) / 3,
            variance=lambda x, mu: ((x - mu) ** 2).sum(-1, keepdims=True) / 3,
        ),
    ),
    R(
        "hard-coded-width",
        "dividing the variance by 3 whatever the row's length",
        lambda x, e, g, b: steps(x, e, g, b, variance=lambda x, mu: ((x - mu) ** 2).sum(-1, keepdims=True) / 3),
    ),
    R(
        "mean-not-subtracted",
        "squaring the values, not their differences from the mean",
        lambda x, e, g, b: steps(x, e, g, b, variance=lambda x, mu: _square_mean(x)),
    ),
    R(
        "mean-not-subtracted",
        "the mean not subtracted (that is RMSNorm)",
        lambda x, e, g, b: steps(x, e, g, b, variance=lambda x, mu: _square_mean(x), x_hat=lambda x, mu, s: x / s),
    ),
    R(
        "mean-not-subtracted",
        "the mean not subtracted from x",
        lambda x, e, g, b: steps(x, e, g, b, x_hat=lambda x, mu, s: x / s),
    ),
    R(
        "not-squared",
        "averaging distances without squaring them",
        lambda x, e, g, b: steps(x, e, g, b, variance=lambda x, mu: np.abs(x - mu).mean(-1, keepdims=True)),
    ),
    R(
        "one-pass",
        "the one-pass variance E[x²] − E[x]²",
        lambda x, e, g, b: steps(x, e, g, b, variance=lambda x, mu: _square_mean(x) - mu * mu),
    ),
    R("eps-added", "adding ε to the variance", lambda x, e, g, b: steps(x, e, g, b, shown_variance=lambda v, e: v + e)),
    R(
        "std-not-variance",
        "taking the square root",
        lambda x, e, g, b: steps(x, e, g, b, shown_variance=lambda v, e: np.sqrt(v)),
    ),
    R("no-eps", "ε forgotten", lambda x, e, g, b: steps(x, e, g, b, std=lambda v, e: np.sqrt(v))),
    R(
        "eps-outside-root",
        "ε outside the square root",
        lambda x, e, g, b: steps(x, e, g, b, std=lambda v, e: np.sqrt(v) + e),
    ),
    R(
        "root-eps-outside",
        "√ε added outside the square root",
        lambda x, e, g, b: steps(x, e, g, b, std=lambda v, e: np.sqrt(v) + np.sqrt(e)),
    ),
    R(
        "eps-added-to-std",
        "ε added to the std as well",
        lambda x, e, g, b: steps(x, e, g, b, std=lambda v, e: np.sqrt(v + e) + e),
    ),
    R(
        "variance-not-std",
        "the variance used instead of the std",
        lambda x, e, g, b: steps(x, e, g, b, std=lambda v, e: v + e),
    ),
    R("eps-ignored", "the eps argument ignored", lambda x, e, g, b: steps(x, DEFAULT_EPS, g, b)),
    R("not-divided", "not dividing by the std", lambda x, e, g, b: steps(x, e, g, b, x_hat=lambda x, mu, s: x - mu)),
    R(
        "min-max",
        "min–max scaling",
        lambda x, e, g, b: steps(
            x,
            e,
            g,
            b,
            x_hat=lambda x, mu, s: (
                (x - x.min(-1, keepdims=True)) / (x.max(-1, keepdims=True) - x.min(-1, keepdims=True))
            ),
        ),
    ),
    R(
        "wrong-axis",
        "the wrong axis (columns instead of rows)",
        lambda x, e, g, b: steps(
            x,
            e,
            g,
            b,
            mean=lambda x: x.mean(axis=0, keepdims=True),
            variance=lambda x, mu: ((x - mu) ** 2).mean(axis=0, keepdims=True),
        ),
        matrix_only=True,
    ),
    R(
        "no-axis",
        "no axis (the whole matrix at once)",
        lambda x, e, g, b: steps(x, e, g, b, mean=lambda x: x.mean(), variance=lambda x, mu: ((x - mu) ** 2).mean()),
        matrix_only=True,
    ),
    # lost keepdims, two ways: x.var(axis=-1) (each row's own variance), or the mean square of x − μ as it broadcasts
    R(
        "lost-keepdims",
        "lost keepdims",
        lambda x, e, g, b: steps(x, e, g, b, mean=_lost_mean, variance=lambda x, mu: x.var(axis=-1)),
        matrix_only=True,
    ),
    R(
        "lost-keepdims",
        "lost keepdims",
        lambda x, e, g, b: steps(x, e, g, b, mean=_lost_mean, variance=lambda x, mu: ((x - mu) ** 2).mean(axis=-1)),
        matrix_only=True,
    ),
    R(
        "gamma-beta-swapped",
        "γ and β swapped",
        lambda x, e, g, b: steps(x, e, g, b, output=lambda x, h, g, b: b * h + g),
    ),
    R(
        "per-row",
        "γ and β applied per row",
        lambda x, e, g, b: steps(
            x, e, g, b, output=lambda x, h, g, b: np.array([g[i] * h[i] + b[i] for i in range(len(h))])
        ),
        matrix_only=True,
    ),
    R(
        "per-row",
        "γ applied per row",
        lambda x, e, g, b: steps(
            x, e, g, b, output=lambda x, h, g, b: np.array([g[i] * h[i] + b for i in range(len(h))])
        ),
        matrix_only=True,
    ),
    R(
        "per-row",
        "β applied per row",
        lambda x, e, g, b: steps(
            x, e, g, b, output=lambda x, h, g, b: np.array([g * h[i] + b[i] for i in range(len(h))])
        ),
        matrix_only=True,
    ),
    R("forgot-gamma", "forgot γ", lambda x, e, g, b: steps(x, e, g, b, output=lambda x, h, g, b: h + b)),
    R("forgot-beta", "forgot β", lambda x, e, g, b: steps(x, e, g, b, output=lambda x, h, g, b: g * h)),
    R("forgot-gamma-and-beta", "γ and β left out", lambda x, e, g, b: steps(x, e, g, b, output=lambda x, h, g, b: h)),
    R("scalar-gamma", "a scalar γ", lambda x, e, g, b: steps(x, e, g, b, output=lambda x, h, g, b: g[0] * h + b)),
    R(
        "scalar-gamma",
        "a scalar γ and β",
        lambda x, e, g, b: steps(x, e, g, b, output=lambda x, h, g, b: g[0] * h + b[0]),
    ),
    R(
        "shift-not-scaled",
        "β scaled as well",
        lambda x, e, g, b: steps(x, e, g, b, output=lambda x, h, g, b: g * (h + b)),
    ),
    R(
        "not-normalised",
        "the row not normalised",
        lambda x, e, g, b: steps(x, e, g, b, output=lambda x, h, g, b: g * x + b),
    ),
]

RNG = np.random.default_rng(35)
ROWS = [
    np.array([0.9, -1.3, 0.2, 2.6]),
    np.array([1.5, 1.7, -0.4, 3.1, 0.25]),
    RNG.normal(2.0, 1.5, 6),
    np.array([10000.1, 10000.3, 10000.2, 10000.6]),  # far from zero: the one-pass variance loses digits here
]
SQUARE = RNG.normal(0.5, 1.0, (4, 4))  # lost keepdims runs only on a square matrix
INPUTS = [(x, eps) for x in ROWS for eps in (0.1, 1e-3)] + [(SQUARE, 0.1), (RNG.normal(1.0, 2.0, (4, 4)), 1e-3)]


def _affine(x):
    n = x.shape[-1]
    return np.linspace(0.5, 2.5, n) ** 2, np.linspace(-1.0, 1.5, n) ** 3  # every γ and β different, none 0 or 1


@pytest.fixture
def built():
    """The catalogue built by each test that reads it (at import it was built before mutmut's switch)."""
    return catalogue._catalogue()


def _quantities(mistake, matrix: bool) -> list[str]:
    """Where ``mistake`` shows: its own quantities, and after the std, on a matrix, the axis mistakes."""
    shown = [q for q in QUANTITIES if q in mistake.quantities]
    return shown + [
        q for q in ("normalised", "output") if matrix and catalogue.MATRIX in mistake.quantities and q not in shown
    ]


def _matches(mistake, reference) -> bool:
    for x, eps in INPUTS:
        if reference.matrix_only and x.ndim == 1:
            continue
        gamma, beta = _affine(x)
        expected = reference.formula(x, eps, gamma, beta)
        for quantity in _quantities(mistake, x.ndim == 2):
            got = mistake.value(quantity, x, eps, gamma, beta)
            if got is None or np.shape(got) != np.shape(expected[quantity]):
                return False
            if not np.allclose(got, expected[quantity], rtol=1e-12, atol=1e-14):
                return False
    return True


def test_each_mistake_computes_what_its_name_says_and_has_its_key(built):
    """Each entry matches the one written-out formula of its name (lost keepdims: each of its two ways once)."""
    used = []
    for mistake in built:
        same_name = [r for r in REFERENCES if r.name == mistake.name]
        matching = [r for r in same_name if _matches(mistake, r)]
        assert len(matching) == 1, (mistake.key, mistake.name, len(same_name))
        assert mistake.key == matching[0].key, mistake.name
        assert mistake.parts == ()  # a single mistake: only compounds have parts
        used.append(id(matching[0]))
    assert sorted(used) == sorted(id(r) for r in REFERENCES)  # every mistake once


def test_a_mistake_of_a_matrix_only_cannot_run_on_a_row_it_does_not_fit():
    """forward's docstring: lost keepdims on a matrix that is not square gives nothing."""
    wide = RNG.normal(0.0, 1.0, (2, 3))
    for mistake in catalogue._catalogue():
        if mistake.name == "lost keepdims":
            assert mistake.value("normalised", wide, 0.1) is None


def test_only_a_mistake_that_is_right_in_exact_arithmetic_is_a_signature(built):
    """``signature``: the mistake gives the right value in exact arithmetic (the one-pass variance). On rows of
    4 small whole numbers every step is exact in float64 (divisions by 4, sums of squares of quarters)."""
    exact = [
        np.array([0.0, 2.0, 4.0, 10.0]),
        np.array([[3.0, -1.0, 6.0, 0.0], [1.0, 5.0, 2.0, 8.0], [7.0, 1.0, 0.0, 4.0], [2.0, 2.0, 9.0, 3.0]]),
    ]
    right = catalogue.Mistake("right", "right", (), (), None)
    for mistake in built:
        same = True
        for x in exact:
            gamma, beta = _affine(x)
            for quantity in _quantities(mistake, x.ndim == 2):
                got, want = mistake.value(quantity, x, 0.25, gamma, beta), right.value(quantity, x, 0.25, gamma, beta)
                same = same and got is not None and np.shape(got) == np.shape(want) and bool(np.all(got == want))
        assert mistake.signature is same, mistake.name
    assert [m.key for m in built if m.signature] == ["one-pass"]


def test_the_one_pass_variance_is_wrong_far_from_zero(built):
    """A signature is recognised by where it fails: far from zero E[x²] − E[x]² cancels the digits that matter."""
    far = ROWS[-1]
    one_pass = next(m for m in built if m.signature)
    right = catalogue.Mistake("right", "right", (), (), None)
    for quantity in ("variance", "std", "normalised"):
        got, want = one_pass.value(quantity, far), right.value(quantity, far)
        assert np.max(np.abs(got - want) / np.abs(want)) > 1e-9, quantity


# --- the words a learner reads --------------------------------------------------------------------------
# For the mistakes exercises.md prints no answer for (test_catalogue_as_published.py checks the others word
# for word): what the sentence must say, from what the mistake is. ``n`` and ``eps`` are the row's.
WORDS = {
    "dividing by 3 whatever the row's length": [
        "n = len(row)",
        "not by 3",
        "rows of any length",
        "this one has {n} values",
    ],
    "n written as 3 whatever the row's length": [
        "n = len(row)",
        "not by 3",
        "rows of any length",
        "this one has {n} values",
    ],
    "dividing the variance by 3 whatever the row's length": ["n = len(row)", "not by 3", "this one has {n} values"],
    "the one-pass variance E[x²] − E[x]²": [
        "E[x²] − E[x]²",
        "float32",
        "notebook 09",
        "Subtract the mean first, then square",
    ],
    "adding ε to the variance": [
        "ε does not belong in the variance",
        "σ² + ε",
        "added to it only in the next step, under the square root",
    ],
    "the eps argument ignored": ["Use the ε your function is given (here {eps:g})", "not a fixed 1e-5"],
    "the wrong axis (columns instead of rows)": ["Each row is one token", "axis=-1", "keepdims=True"],
    "no axis (the whole matrix at once)": ["Each row is one token", "axis=-1", "keepdims=True"],
    "lost keepdims": ["x.mean(axis=-1, keepdims=True)", "each row's mean stays a column", "its own row"],
    "γ and β applied per row": ["per feature", "one per column", "γ · x̂ + β", "no reshaping"],
    "γ applied per row": ["per feature", "one per column", "γ · x̂ + β", "no reshaping"],
    "β applied per row": ["per feature", "one per column", "γ · x̂ + β", "no reshaping"],
}
CONTEXTS = [Context(x, eps) for x, eps in INPUTS] + [Context(np.array([1.0, 1.0, 1.0]), 0.01)]


def test_every_sentence_is_sentences_a_learner_can_read(built):
    """For every mistake and every row: text, each sentence starting with a capital (or a symbol) and ending
    with a full stop."""
    for mistake in built:
        for context in CONTEXTS:
            text = mistake.advice(context)
            assert isinstance(text, str) and text.endswith("."), (mistake.name, text)
            for sentence in [text, *text.split(". ")[1:]]:
                assert not (sentence[0].isascii() and sentence[0].islower()), (mistake.name, text)


@pytest.mark.parametrize("name", sorted(WORDS))
def test_a_sentence_exercises_md_does_not_print_says_what_the_mistake_is(built, name):
    entries = [m for m in built if m.name == name]
    assert entries
    for mistake in entries:
        for context in CONTEXTS:
            text = mistake.advice(context)
            for words in WORDS[name]:
                assert words.format(n=context.n, eps=context.eps) in text, (name, words, text)
