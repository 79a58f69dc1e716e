"""Check a learner's answer: right, right up to rounding, or wrong with a hint at the likely mistake.

Pure maths and plain text, no widgets: ``helpers.widgets.answer_checker`` shows these verdicts in a
notebook, and tests call :func:`diagnose` directly. The right value and every mistaken value come
from the same :class:`~helpers.layernorm.LayerNormSteps` record the notebooks show, so a hint
compares the answer against exactly what each mistake would have produced.
Introduced in notebook 02 (the mean) and used again in notebooks 03 and 04.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from helpers.data import parse_number
from helpers.display import format_eps, format_number
from helpers.layernorm import DEFAULT_EPS, layer_norm_steps, round_half_away_from_zero

QUANTITIES = ("mean", "variance", "std", "normalised")
RIGHT, ROUNDING, WRONG = "right", "right up to rounding", "wrong"
EARLY_ROUNDING_PLACES = (1, 2, 3)  # "rounded too early" is tried at each of these places
# Mistakes named even when the answer is right at the places asked, if its extra places match the mistake:
# adding ε to the variance is always wrong, however small ε is (a last-digit slip elsewhere is not blamed).
NAMED_BEYOND_ASKED = ("plus-eps",)

_QUANTITY_NAMES = {
    "mean": "the mean μ",
    "variance": "the variance σ²",
    "std": "the standard deviation √(σ² + ε)",
    "normalised": "the normalised value x̂",
}
_HOW_TO = {
    "mean": "Add the n values and divide by n.",
    "variance": "Subtract the mean from each value, square each difference, add the squares and divide by n.",
    "std": "Find the variance (divide by n), add ε, then take the square root.",
    "normalised": "Subtract the mean from the value, then divide by the standard deviation √(σ² + ε).",
}


@dataclass(frozen=True)
class Verdict:
    """The result of checking one answer. ``kind`` is "right", "right up to rounding" or "wrong".

    ``hint`` says what to do next (for a wrong answer: the likely mistake); ``mistake`` names the
    mistake the answer matches ("n-1", "no-eps", ...), or is None. ``expected`` is the exact value;
    ``places`` the number of decimal places the learner typed.
    """

    kind: str
    hint: str
    quantity: str
    answer: float
    expected: float
    places: int
    mistake: str | None = None

    @property
    def is_right(self) -> bool:
        return self.kind != WRONG

    def __str__(self) -> str:
        return f"{self.kind}: {self.hint}"

    __repr__ = __str__


def typed_places(text: str) -> int:
    """How many decimal places a number was written with: ``"0.4460"`` → 4, ``"4.5e-3"`` → 4, ``"2"`` → 0."""
    cleaned = str(text).strip().lower().lstrip("+-−–‒﹣－")
    match = re.fullmatch(r"(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?", cleaned)
    if not match:
        return 0
    fraction, exponent = match.group(2) or "", int(match.group(3) or 0)
    return max(0, len(fraction) - exponent)


def diagnose(
    row, quantity: str, answer, index: int | None = None, eps: float = DEFAULT_EPS, places: int | None = None
) -> Verdict:
    """Judge ``answer`` (a number, or text as typed) for ``quantity`` of ``row``.

    ``quantity`` is "mean", "variance", "std" or "normalised" (then ``index`` picks the value,
    counted from 0). The answer is right when it is the exact value rounded to the places typed;
    right up to rounding when it is what rounding every step by hand gives, or has fewer than two
    significant digits; otherwise wrong, with a hint naming the mistake whose result it matches.
    ``places``, when given, is how many decimal places the question asks for: an answer with fewer
    is not accepted; any answer that rounds correctly at the places it gives is right; one with
    more places than asked is accepted when it is right at the places asked. Raises
    ``ValueError`` in plain words for an answer that is not a number, an unknown quantity or a bad index.
    """
    quantity = _check_quantity(quantity)
    record = layer_norm_steps(row, eps=eps)
    index = _check_index(quantity, index, record.n)
    if places is not None and (isinstance(places, bool) or not isinstance(places, (int, np.integer)) or places < 0):
        raise ValueError(f"places must be a whole number of decimal places, 0 or more; got {places!r}.")
    if isinstance(answer, str):
        value, typed = parse_number(answer), typed_places(answer)
    else:
        if isinstance(answer, bool) or not isinstance(answer, (int, float, np.integer, np.floating)):
            raise ValueError(
                "The answer must be one number (or the text typed for it); "
                f"got {'nothing (None)' if answer is None else type(answer).__name__}."
            )
        value = float(answer)
        if not math.isfinite(value):
            raise ValueError(f"{answer} is not a finite number.")
        typed = typed_places(repr(value))
    asked = None if places is None else int(places)
    places = typed
    expected = _value(record, quantity, index)
    unit = 10.0**-places
    off = abs(value - expected)
    slack = 1e-9 * abs(expected) + 1e-15  # room for floating-point noise only
    shown = format_number(expected, max(places + 2, 5))

    def verdict(kind, hint, mistake=None):
        return Verdict(kind, hint, quantity, value, expected, places, mistake)

    if asked is not None and typed < asked:
        return verdict(
            WRONG,
            f"Give at least {_places(asked)} (you gave {typed}), so that the check can tell "
            "a right answer from a near miss.",
            "too-few-places",
        )
    if off <= slack or (off <= unit / 2 + slack and (asked is not None or unit <= 0.1 * abs(expected))):
        return verdict(RIGHT, f"{_QUANTITY_NAMES[quantity]} is {shown} (to {max(places + 2, 5)} places).")
    if off <= unit / 2 + slack:
        return verdict(
            ROUNDING,
            f"Right to the {_places(places)} you kept, but that leaves fewer than two "
            f"significant digits: the exact value is {shown}. Keep more places.",
            "too-few-digits",
        )
    extra = asked is not None and typed > asked  # more places than asked: a mistake's digits there come first
    named = [
        (abs(value - candidate), order, mistake, hint)
        for order, (mistake, candidate, hint) in enumerate(
            _mistakes(row, record, quantity, index, eps) if extra else ()
        )
        if mistake in NAMED_BEYOND_ASKED
        and abs(value - candidate) <= unit / 2 + slack
        and not _same_at(candidate, expected, places)
    ]
    if named:
        _, _, mistake, hint = min(named)
        return verdict(WRONG, hint, mistake)
    if asked is not None and typed > asked and _same_at(value, expected, asked):
        return verdict(
            ROUNDING,
            f"Right to the {_places(asked)} asked for; at the {_places(typed)} you typed it "
            f"rounds to {format_number(expected, typed)} (exactly {shown}).",
            "extra-places",
        )
    if off <= unit + slack:
        if quantity != "mean" and _is_hand_rounded(row, quantity, index, eps, places, value):
            return verdict(
                ROUNDING,
                f"That is what rounding every step to {_places(places)} by hand gives; the exact value is {shown}.",
                "last-place",
            )
        if _same_at(value, math.trunc(expected * 10**places) / 10**places, places):
            return verdict(
                WRONG,
                f"{shown} to {_places(places)} is {format_number(expected, places)}: it looks like "
                "you cut the digits off instead of rounding (a next digit of 5 or more moves the "
                "last one away from zero).",
                "cut-off",
            )
        if quantity != "mean":
            return verdict(
                ROUNDING,
                f"Off by one in the last place, which rounding along the way explains: the exact value is {shown}.",
                "last-place",
            )

    matches = [
        (abs(value - candidate), order, mistake, hint)
        for order, (mistake, candidate, hint) in enumerate(_mistakes(row, record, quantity, index, eps))
        if abs(value - candidate) <= unit + slack and abs(candidate - expected) > unit / 2 + slack
    ]
    if matches:
        _, _, mistake, hint = min(matches)
        return verdict(WRONG, hint, mistake)
    return verdict(WRONG, f"Not quite. {_HOW_TO[quantity]}")


def _places(count: int) -> str:
    return "1 decimal place" if count == 1 else f"{count} decimal places"


def _same_at(a: float, b: float, places: int) -> bool:
    """True when ``a`` and ``b`` round (half away from zero) to the same number at ``places``."""
    return round_half_away_from_zero(a, places) == round_half_away_from_zero(b, places)


def _is_hand_rounded(row, quantity, index, eps, places, value) -> bool:
    try:
        hand = expected_value(row, quantity, index, eps, decimals=places)
    except ValueError:
        return False
    return abs(hand - value) <= 1e-9 * abs(hand) + 1e-15


def places_to_catch(
    row,
    quantity: str,
    mistakes=("no-eps",),
    index: int | None = None,
    eps: float = DEFAULT_EPS,
    least: int = 1,
    most: int = 10,
) -> int:
    """The fewest decimal places (at least ``least``) at which every named mistake in ``mistakes`` gives
    digits more than one unit in the last place from the right answer (closer is taken as rounding), so that a question asking for that many places can catch
    it. Raises ValueError in plain words when no number of places up to ``most`` does."""
    quantity = _check_quantity(quantity)
    record = layer_norm_steps(row, eps=eps)
    index = _check_index(quantity, index, record.n)
    expected = _value(record, quantity, index)
    values = {
        name: [v for key, v, _ in _mistakes(row, record, quantity, index, eps) if key == name] for name in mistakes
    }
    for name, found in values.items():
        if not found:
            raise ValueError(f"There is no mistake called {name!r} for the {quantity}.")
    for places in range(least, most + 1):  # beyond one unit in the last place, which rounding along the way explains
        unit = 10.0**-places
        if all(abs(round_half_away_from_zero(v[0], places) - expected) > unit * (1 + 1e-9) for v in values.values()):
            return places
    raise ValueError(f"Up to {most} decimal places, {', '.join(mistakes)} give the same digits as the right answer.")


def question_text(row, quantity: str, index: int | None = None, eps: float = DEFAULT_EPS) -> str:
    """The question a checker asks, e.g. "What is the mean μ of x = (1.133, -0.299, 0.503)?"."""
    quantity = _check_quantity(quantity)
    record = layer_norm_steps(row, eps=eps)
    index = _check_index(quantity, index, record.n)
    values = ", ".join(repr(float(v)) for v in record.input[:10]) + (", …" if record.n > 10 else "")
    which = f" for feature {index + 1}" if quantity == "normalised" else ""
    uses_eps = f" (ε = {format_eps(eps)})" if quantity in ("std", "normalised") else ""
    return f"What is {_QUANTITY_NAMES[quantity]}{which} of x = ({values}){uses_eps}?"


def expected_value(
    row, quantity: str, index: int | None = None, eps: float = DEFAULT_EPS, decimals: int | None = None
) -> float:
    """The right value of ``quantity`` for ``row``: exact, or with ``decimals`` as worked by hand
    (every step rounded to that many places), the value :func:`diagnose` judges against."""
    quantity = _check_quantity(quantity)
    record = layer_norm_steps(row, eps=eps, decimals=decimals)
    return _value(record, quantity, _check_index(quantity, index, record.n))


def known_mistakes(
    row, quantity: str, index: int | None = None, eps: float = DEFAULT_EPS
) -> list[tuple[str, float, str]]:
    """Every mistake :func:`diagnose` recognises for ``quantity`` of ``row``, most common first:
    ``(name, the value the mistake gives, the hint a learner reads)``."""
    quantity = _check_quantity(quantity)
    record = layer_norm_steps(row, eps=eps)
    return list(_mistakes(row, record, quantity, _check_index(quantity, index, record.n), eps))


def _value(record, quantity: str, index: int | None) -> float:
    if quantity == "normalised":
        return float(record.normalised[index])
    return float(record.stage(quantity))


def _mistakes(row, record, quantity: str, index: int | None, eps: float):
    """(name, value, hint) for each mistake that applies to ``quantity``, most common first."""
    n, x = record.n, record.input
    variance, sum_of_squares = record.variance, float(np.sum(record.squared_differences))
    square_of_values = float(np.mean(x * x))
    n_minus_1 = (
        f"It looks like you divided by n − 1 = {n - 1} (the 'unbiased' variance, the default of "
        f"torch.var and torch.std). LayerNorm divides by n = {n}."
    )
    no_eps = (
        f"It looks like you left out ε. Add ε = {format_eps(eps)} to the variance before the square "
        "root: with a variance this small it changes the answer."
    )
    eps_outside = "ε goes inside the square root: √(σ² + ε), not √σ² + ε."
    no_mean = "It looks like you squared the values themselves. Subtract the mean first: square x − μ, not x."
    candidates = []
    if quantity == "mean":
        if n > 1:
            candidates.append(
                (
                    "n-1",
                    float(np.sum(x)) / (n - 1),
                    f"It looks like you divided the sum by n − 1 = {n - 1}; the mean divides it by n = {n}.",
                )
            )
        candidates.append(("sum", float(np.sum(x)), f"That is the sum of the values; divide it by n = {n}."))
    elif quantity == "variance":
        if n > 1:
            candidates.append(("n-1", sum_of_squares / (n - 1), n_minus_1))
        for value in (record.std, math.sqrt(variance)):
            candidates.append(
                (
                    "std-for-variance",
                    value,
                    "That is the standard deviation; the variance is the step before the square root.",
                )
            )
        candidates.append(("no-mean", square_of_values, no_mean))
        candidates.append(
            (
                "plus-eps",
                record.variance_plus_eps,
                "ε does not belong in the variance: that is σ² + ε. The variance comes first; "
                "ε is added to it only in the next step, under the square root.",
            )
        )
        candidates.append(
            (
                "no-square",
                float(np.mean(np.abs(record.differences))),
                "It looks like you averaged the distances from the mean without squaring them.",
            )
        )
    elif quantity == "std":
        if n > 1:
            for value in (math.sqrt(sum_of_squares / (n - 1) + eps), math.sqrt(sum_of_squares / (n - 1))):
                candidates.append(("n-1", value, n_minus_1))
        candidates.append(("no-eps", math.sqrt(variance), no_eps))
        candidates.append(("eps-outside", math.sqrt(variance) + eps, eps_outside))
        for value in (variance, record.variance_plus_eps):
            candidates.append(
                (
                    "variance-for-std",
                    value,
                    "That is the variance; the standard deviation is its square root (after adding ε).",
                )
            )
        candidates.append(("no-mean", math.sqrt(square_of_values + eps), no_mean))
    else:
        difference = float(record.differences[index])
        if n > 1:
            candidates.append(("n-1", difference / math.sqrt(sum_of_squares / (n - 1) + eps), n_minus_1))
        if variance > 0:
            candidates.append(("no-eps", difference / math.sqrt(variance), no_eps))
            candidates.append(("eps-outside", difference / (math.sqrt(variance) + eps), eps_outside))
        candidates.append(
            (
                "variance-for-std",
                difference / record.variance_plus_eps,
                "It looks like you divided by the variance σ² + ε; divide by its square root, the std.",
            )
        )
        candidates.append(
            (
                "no-mean",
                float(x[index]) / record.std,
                "It looks like you divided the value itself; subtract the mean first: (x − μ) / √(σ² + ε).",
            )
        )
        candidates.append(
            ("not-divided", difference, "That is x − μ; now divide it by the standard deviation √(σ² + ε).")
        )
    if quantity != "mean":
        candidates.extend(_rounded_early(row, quantity, index, eps))
    return candidates


def _rounded_early(row, quantity: str, index: int | None, eps: float):
    """What rounding every intermediate to 1, 2 or 3 places gives (with and without rounding the last step)."""
    for places in EARLY_ROUNDING_PLACES:
        try:
            hand = layer_norm_steps(row, eps=eps, decimals=places)
        except ValueError:  # at so few places the std rounds to 0: nobody can have done that
            continue
        last_step_unrounded = {
            "variance": float(np.sum(hand.squared_differences)) / hand.n,
            "std": math.sqrt(hand.variance + eps),
            "normalised": float(hand.differences[index]) / hand.std if index is not None else 0.0,
        }[quantity]
        hint = (
            f"It looks like you rounded the steps before this one to {places} decimal place{'s' if places != 1 else ''}. Keep more "
            "digits until the end: with this row, rounding early changes the answer."
        )
        yield ("rounded-early", _value(hand, quantity, index), hint)
        yield ("rounded-early", last_step_unrounded, hint)


def _check_quantity(quantity) -> str:
    name = str(quantity).strip().lower().replace("normalized", "normalised")
    if name not in QUANTITIES:
        raise ValueError(f"There is no quantity called {quantity!r}; choose one of: {', '.join(QUANTITIES)}.")
    return name


def _check_index(quantity: str, index, n: int) -> int | None:
    if quantity != "normalised":
        return None
    if index is None:
        raise ValueError(f"Say which normalised value to check: index=0 for the first feature, up to {n - 1}.")
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < n:
        raise ValueError(f"index must be a whole number from 0 to {n - 1} (the row has {n} values); got {index!r}.")
    return int(index)
