"""An answer worked out in PyTorch and handed over with ``.item()`` carries float32's digits: 0.44566667079925537
for row 1's mean, whose exact value is 0.4456666…. Judged at all 17 places it is "wrong", and the hint then names
a mistake the learner did not make. The answer box (helpers/checking/answers.py, ``diagnose``) judges such an
answer at the places a correct float32 computation can be trusted to (core/tolerance.py, ``float32_room`` and
``places_held``): right up to rounding there, with a sentence saying so; a mistake float32 can see is still
named; an answer further off than float32's rounding is still wrong."""

from __future__ import annotations

import numpy as np
import pytest

import helpers
from helpers.checking.answers import RIGHT, ROUNDING, WRONG, diagnose
from helpers.core.tolerance import float32_room, places_held

torch = pytest.importorskip("torch")

X = helpers.load_residual()
GAMMA, BETA = np.array([1.5, -0.5, 2.0]), np.array([0.1, 0.0, -0.3])


def in_float32(row, quantity, index=None, gamma=None, beta=None) -> float:
    t = torch.tensor(row, dtype=torch.float32)
    if quantity == "mean":
        return t.mean().item()
    if quantity == "variance":
        return t.var(unbiased=False).item()
    if quantity == "std":
        return torch.sqrt(t.var(unbiased=False) + 1e-5).item()
    if quantity == "normalised":
        return torch.nn.functional.layer_norm(t, (3,))[index].item()
    y = torch.nn.functional.layer_norm(
        t, (3,), torch.tensor(gamma, dtype=torch.float32), torch.tensor(beta, dtype=torch.float32)
    )
    return y[index].item()


CASES = [(r, q, None) for r in range(5) for q in ("mean", "variance", "std")] + [
    (r, q, i) for r in range(5) for q in ("normalised", "output") for i in range(3)
]


@pytest.mark.parametrize("row, quantity, index", CASES)
def test_pytorchs_float32_answer_is_right_up_to_the_places_float32_holds(row, quantity, index):
    gamma, beta = (GAMMA, BETA) if quantity == "output" else (None, None)
    value = in_float32(X[row], quantity, index, gamma, beta)
    for answer in (repr(value), value):  # typed or handed over as a number
        verdict = diagnose(X[row], quantity, answer, index=index, gamma=gamma, beta=beta)
        assert verdict.is_right, verdict
        if verdict.kind == ROUNDING and verdict.mistake == "float32-digits":
            assert "float32 (PyTorch's default type) holds here" in verdict.hint


def test_the_sentence_names_the_places_held_and_the_exact_value():
    verdict = diagnose(X[0], "mean", "0.44566667079925537")
    assert verdict.kind == ROUNDING and verdict.mistake == "float32-digits"
    assert verdict.hint == (
        "Right to the 5 decimal places float32 (PyTorch's default type) holds here; past them your digits are "
        "float32's own rounding. The exact value is 0.4456667."
    )


def test_a_mistake_in_float32_is_still_named():
    t = torch.tensor(X[0], dtype=torch.float32)
    verdict = diagnose(X[0], "variance", repr(t.var(unbiased=True).item()))
    assert verdict.kind == WRONG and verdict.mistake == "n-1"
    verdict = diagnose(X[0], "mean", repr((t.sum() / 2).item()))
    assert verdict.kind == WRONG and verdict.mistake == "n-1"


@pytest.mark.parametrize("row, quantity, index", [(0, "mean", None), (4, "std", None), (1, "normalised", 2)])
def test_further_off_than_float32s_rounding_is_still_wrong(row, quantity, index):
    exact = diagnose(X[row], quantity, "0", index=index).expected
    held = places_held(float32_room(quantity, X[row], exact, 1e-5))
    for off in (3 * 10.0**-held, -3 * 10.0**-held):
        verdict = diagnose(X[row], quantity, repr(exact + off), index=index)
        assert verdict.kind == WRONG, verdict


def test_an_exact_float64_answer_with_every_digit_is_simply_right():
    exact = float(np.mean(X[0]))
    verdict = diagnose(X[0], "mean", repr(exact))
    assert verdict.kind == RIGHT


@pytest.mark.slow  # 90 rows' answers, each judged in full: seconds
def test_a_generated_family_of_rows_float32_is_never_wrong_and_a_slip_is_never_right():
    rng = np.random.default_rng(20261204)
    for _ in range(60):
        row = rng.normal(rng.uniform(-3, 3), rng.uniform(0.05, 3), 3)
        for quantity in ("mean", "variance", "std"):
            value = in_float32(row, quantity)
            assert diagnose(row, quantity, repr(value)).is_right, (row, quantity, value)
            exact = diagnose(row, quantity, "0").expected
            held = places_held(float32_room(quantity, row, exact, 1e-5))
            slipped = value + 5 * 10.0**-held  # five units of the last place float32 holds
            assert not diagnose(row, quantity, repr(slipped)).is_right, (row, quantity, slipped)


@pytest.mark.parametrize(
    "room, places",
    [(0.5e-5, 5), (0.5e-5 * (1 + 1e-9), 4), (0.4e-5, 5), (0.5e-4, 4), (0.6, 0), (0.0, 17)],
)
def test_places_held_is_where_half_a_unit_still_covers_the_room(room, places):
    assert places_held(room) == places


def test_half_a_unit_and_the_places_held_are_each_others_inverse():
    from helpers.core.tolerance import half_unit

    assert [half_unit(p) for p in (0, 1, 5)] == [0.5, 0.05, 0.5e-5]
    assert [places_held(half_unit(p)) for p in range(11)] == list(range(11))
