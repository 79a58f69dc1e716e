"""Rounding as people do it by hand: halves go away from zero, on the decimal number as it is written.

The one rule for the series: the hand-rounded records (helpers.core.layernorm), the answer boxes
(helpers.checking.answers) and everything that compares a value with its rounded form use it.
numpy's ``round`` sends halves to the even digit (0.0625 → 0.062) and rounds the binary value (1.315 is
stored as 1.31499…); people write 0.063 and 1.32. Pure maths: decimal and numpy only.
"""

from __future__ import annotations

from decimal import MAX_EMAX, MIN_EMIN, ROUND_HALF_UP, Context, Decimal

import numpy as np

# Decimal arithmetic wide enough for any float kept to 12 places (1.8e308 has 309 digits).
WIDE = Context(prec=400, Emax=MAX_EMAX, Emin=MIN_EMIN)


def written(value) -> Decimal:
    """A float as the decimal number a person reads: ``repr`` digits, not the binary value (1.315, not 1.31499…)."""
    return Decimal(repr(float(value)))


def keep(value: Decimal, places: int) -> Decimal:
    """``value`` kept to ``places`` decimal places, halves away from zero (Decimal's ROUND_HALF_UP is that)."""
    return value.quantize(Decimal(1).scaleb(-int(places)), rounding=ROUND_HALF_UP, context=WIDE)


def round_half_away_from_zero(values, decimals: int):
    """Round the way people do by hand: halves go away from zero (0.0625 → 0.063, −0.0625 → −0.063).

    numpy's ``round`` sends halves to the even digit (0.0625 → 0.062) and works on the binary value;
    this rounds the decimal number as it is written. Returns a float for a float, else an array.
    Introduced in notebook 02.
    """

    def one(v: float) -> float:
        value = written(v)
        if value.is_finite() and value.as_tuple().exponent >= -int(decimals):
            return float(v) + 0.0  # no more places than kept: nothing to round (and 400 zeros would overflow WIDE)
        return float(keep(value, decimals)) + 0.0  # + 0.0 turns -0.0 into 0.0

    if np.ndim(values) == 0:
        return one(values)
    array = np.asarray(values, dtype=np.float64)
    return np.array([one(v) for v in array.ravel()], dtype=np.float64).reshape(array.shape)


# The name notebooks used first; "half up" is not what it does for negatives (−0.0625 → −0.063).
round_half_up = round_half_away_from_zero


def same_when_rounded(a: float, b: float, places: int) -> bool:
    """True when ``a`` and ``b`` round (half away from zero) to the same number at ``places``."""
    return round_half_away_from_zero(a, places) == round_half_away_from_zero(b, places)
