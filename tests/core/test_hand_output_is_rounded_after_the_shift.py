"""By hand, the output y = γ · x̂ + β is one stage, rounded once it is worked out (layer_norm_steps).

layer_norm_steps: "``decimals=3`` rounds every stage to 3 places, half away from zero as people do by hand,
before computing the next". A β with more places than kept must not leave its extra digits in the output:
x = 1, 3 at 3 places gives x̂ = ∓1.000, and y = −1.000 + 0.0005 = −0.9995 → −1.000 (half away from zero),
1.000 − 0.0005 = 0.9995 → 1.000. With γ = 1, 1.0005 and β = 0.25, −0.0001: −0.750, and 1.0005 − 0.0001 = 1.0004 → 1.000 (rounding
γ · x̂ = 1.0005 to 1.001 first would give 1.0009 → 1.001: γ · x̂ is not a stage of its own).
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

from helpers.core.layernorm import layer_norm_steps


def by_hand(gamma, x_hat, beta) -> float:
    value = Decimal(str(gamma)) * Decimal(x_hat) + Decimal(str(beta))
    return float(value.quantize(Decimal("0.001"), rounding=ROUND_HALF_UP))


def test_a_shift_with_more_places_than_kept_is_rounded_into_the_output():
    record = layer_norm_steps([1.0, 3.0], beta=[0.0005, -0.0005], decimals=3)
    assert record.normalised.tolist() == [-1.0, 1.0]
    expected = [by_hand(1, "-1.000", 0.0005), by_hand(1, "1.000", -0.0005)]
    assert expected == [-1.0, 1.0]
    assert record.output.tolist() == expected


def test_scale_and_shift_are_rounded_once_together():
    record = layer_norm_steps([1.0, 3.0], gamma=[1.0, 1.0005], beta=[0.25, -0.0001], decimals=3)
    expected = [by_hand(1.0, "-1.000", 0.25), by_hand(1.0005, "1.000", -0.0001)]
    assert expected == [-0.75, 1.0]
    assert record.output.tolist() == expected
