"""The question an answer box asks, and how many places it must ask for to catch a mistake.

``question_text`` gives the row (its first ten values), the feature counted from 1, ε where the
quantity uses it, and γ and β for the output, as lecturer/exercises.md prints them. ``places_to_catch``
is the fewest places, at least ``least`` and at most ``most`` (10 unless told), at which every named
mistake gives digits more than one unit in the last place from the right answer.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.checking.answers import diagnose, expected_value, known_mistakes, places_to_catch, question_text
from helpers.core.rounding import round_half_away_from_zero

NB06 = ([0.076, -0.313, -0.262], [2, 1, 3], [0, 0.5, -1])


def test_the_output_question_reads_as_in_exercises_md():
    row, gamma, beta = NB06
    assert question_text(row, "output", index=2, gamma=gamma, beta=beta) == (
        "What is the output y for feature 3 of x = (0.076, -0.313, -0.262) with γ = (2, 1, 3) and "
        "β = (0, 0.5, -1) (ε = 1e-05)?"
    )


def test_gamma_and_beta_are_shown_to_six_places_at_most_without_trailing_zeros():
    text = question_text([0.1, 0.2, 0.4], "output", index=0, gamma=[0.25, 10, 1.2345678], beta=[-0.5, 100.0, 0.1234567])
    assert text.endswith("with γ = (0.25, 10, 1.234568) and β = (-0.5, 100, 0.123457) (ε = 1e-05)?")


def test_the_normalised_question_gives_the_feature_from_1_and_eps():
    assert question_text([0.25, 0.794, 0.551], "normalised", index=2) == (
        "What is the normalised value x̂ for feature 3 of x = (0.25, 0.794, 0.551) (ε = 1e-05)?"
    )
    assert question_text([0.25, 0.794, 0.551], "variance") == "What is the variance σ² of x = (0.25, 0.794, 0.551)?"


@pytest.mark.parametrize(
    "n, shown",
    [
        (10, "0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9"),
        (11, "0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, …"),
    ],
)
def test_a_question_shows_the_first_ten_values_and_then_an_ellipsis(n, shown):
    row = [round(0.1 * i, 1) for i in range(n)]
    assert question_text(row, "mean") == f"What is the mean μ of x = ({shown})?"


def test_places_to_catch_is_at_least_one_place_by_default():
    # the sum 6.6 is far from the mean 2.2 even in whole numbers: one place, never 0
    assert places_to_catch([1.1, 2.2, 3.3], "mean", ("sum-not-divided",)) == 1


def test_places_to_catch_looks_up_to_ten_places_unless_told():
    row = [0.1, 0.2, 0.4]
    std = float(np.std(row))
    eps = 2 * std * 5e-11  # a forgotten ε moves this std by 5e-11: caught at 11 places, not at 10
    assert math.sqrt(std * std + eps) - std == pytest.approx(5e-11, rel=1e-3)
    with pytest.raises(ValueError, match="Up to 10 decimal places"):
        places_to_catch(row, "std", ("no-eps",), eps=eps)
    assert places_to_catch(row, "std", ("no-eps",), eps=eps, most=11) == 11
    with pytest.raises(ValueError, match="Up to 10 decimal places"):
        places_to_catch(row, "std", ("no-eps",), eps=eps, most=10)


def test_places_to_catch_uses_gamma_and_beta():
    row, gamma, beta = NB06
    # for feature 3, forgetting γ (3) or β (−1) moves the output by more than a unit at 1 place already
    assert places_to_catch(row, "output", ("forgot-gamma", "forgot-beta"), index=2, gamma=gamma, beta=beta) == 1


def test_places_to_catch_rounding_along_the_way():
    assert places_to_catch([0.61, 0.616, 0.031], "std", ("rounding",)) == 2


@pytest.mark.parametrize("index", [0, 1, 2])
def test_places_to_catch_a_normalised_value_is_where_the_box_names_the_mistake(index):
    row = [0.61, 0.616, 0.031]  # notebook 05's row
    places = places_to_catch(row, "normalised", ("no-eps",), index=index)
    value = {k: v for k, v, _ in known_mistakes(row, "normalised", index=index)}["no-eps"]
    assert diagnose(row, "normalised", f"{value:.{places}f}", index=index, places=places).mistake == "no-eps"
    fewer = places - 1  # one place fewer: the forgotten ε is within a unit of the right digits
    exact = expected_value(row, "normalised", index)
    assert abs(round_half_away_from_zero(value, fewer) - exact) <= 10.0**-fewer * (1 + 1e-9)
    with pytest.raises(ValueError, match="Say which normalised value"):
        places_to_catch(row, "normalised", ("no-eps",))
