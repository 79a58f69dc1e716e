"""Check a learner's answer: right, right up to rounding, or wrong with a hint at the likely mistake.

Pure maths and plain text, no widgets: ``helpers.widgets.answer_checker`` shows these verdicts in a
notebook, and tests call :func:`diagnose` directly. The right value and every mistaken value come
from the same :class:`~helpers.core.layernorm.LayerNormSteps` record the notebooks show, so a hint
compares the answer against exactly what each mistake would have produced.
Introduced in notebook 02 (the mean) and used again in notebooks 03 and 04.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from helpers.checking import mistakes as catalogue
from helpers.core.data import parse_number
from helpers.core.layernorm import DEFAULT_EPS, layer_norm_steps
from helpers.core.rounding import round_half_away_from_zero, same_when_rounded
from helpers.core.tolerance import FLOAT64_NOISE, HAND_DRIFT, answer_slack, float32_room, half_unit, past, places_held
from helpers.display import format_eps, format_number

QUANTITIES = ("mean", "variance", "std", "normalised", "output")
RIGHT, ROUNDING, WRONG = "right", "right up to rounding", "wrong"
EARLY_ROUNDING_PLACES = (1, 2, 3)  # "rounded too early" is tried at each of these places

_QUANTITY_NAMES = {
    "mean": "the mean μ",
    "variance": "the variance σ²",
    "std": "the standard deviation √(σ² + ε)",
    "normalised": "the normalised value x̂",
    "output": "the output y = γ · x̂ + β",
}
_HOW_TO = {
    "mean": "Add the n values and divide by n.",
    "variance": "Subtract the mean from each value, square each difference, add the squares and divide by n.",
    "std": "Find the variance (divide by n), add ε, then take the square root.",
    "normalised": "Subtract the mean from the value, then divide by the standard deviation √(σ² + ε).",
    "output": "Normalise the row (notebook 05), then multiply the value by its γ and add its β: y = γ · x̂ + β.",
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


def check_places(places) -> None:
    """A ValueError in plain words unless ``places`` (how many decimal places a question asks for) is None or a
    whole number, 0 or more."""
    if places is not None and (isinstance(places, bool) or not isinstance(places, (int, np.integer)) or places < 0):
        raise ValueError(f"places must be a whole number of decimal places, 0 or more; got {places!r}.")


def diagnose(
    row,
    quantity: str,
    answer,
    index: int | None = None,
    eps: float = DEFAULT_EPS,
    places: int | None = None,
    gamma=None,
    beta=None,
) -> Verdict:
    """Judge ``answer`` (a number, or text as typed) for ``quantity`` of ``row``.

    ``quantity`` is "mean", "variance", "std", "normalised" or "output" (y = γ · x̂ + β, with
    ``gamma`` and ``beta``; for these two ``index`` picks the value, counted from 0). The answer is right when it is the exact value rounded to the places typed;
    right up to rounding when it is what rounding every step by hand gives, or has fewer than two
    significant digits; otherwise wrong, with a hint naming the mistake whose result it matches.
    ``places``, when given, is how many decimal places the question asks for: an answer with fewer
    is not accepted; any answer that rounds correctly at the places it gives is right; one with
    more places than asked is accepted when it is right at the places asked. Raises
    ``ValueError`` in plain words for an answer that is not a number, an unknown quantity or a bad index.
    """
    quantity = _check_quantity(quantity)
    record = layer_norm_steps(row, eps=eps, gamma=gamma, beta=beta)
    index = _check_index(quantity, index, record.n)
    check_places(places)
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
    slack = answer_slack(expected)  # room for floating-point noise only
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
    by_hand = _hand_value(row, quantity, index, eps, places, gamma, beta)
    # A mistake whose own digits, at the places typed, are the answer's is named before any rounding
    # explanation, also when those are more places than asked (the extra digits show the method).
    digits = [
        (mistake, hint)
        for mistake, candidate, hint in _mistakes(row, record, quantity, index, eps)
        if mistake != "rounding"
        and _same_at(value, candidate, places)
        and (
            (mistake == "eps-added" and not _same_at(candidate, expected, places))  # ε in the variance: always wrong
            or (  # more than one unit in the last place from the right digits, and not what working by hand gives
                past(
                    abs(round_half_away_from_zero(candidate, places) - round_half_away_from_zero(expected, places)),
                    unit,
                )
                and (by_hand is None or not _same_at(candidate, by_hand, places))
            )
        )
    ]
    if digits:
        mistake, hint = digits[0]  # the catalogue's order: single mistakes first, most common first
        return verdict(WRONG, hint, mistake)
    if asked is not None and typed > asked and _same_at(value, expected, asked):
        return verdict(
            ROUNDING,
            f"Right to the {_places(asked)} asked for; at the {_places(typed)} you typed it "
            f"rounds to {format_number(expected, typed)} (exactly {shown}).",
            "extra-places",
        )
    # One rule for an answer worked by hand (every notebook alike, written in lecturer/exercises.md): every
    # step rounded to the places the answer is typed with (or one or two more) is right up to rounding while
    # that keeps it within 1 % of the exact value or 2 units of its last place; further off, or with steps
    # rounded to fewer places, it is named below as rounding along the way.
    known = list(_mistakes(row, record, quantity, index, eps))
    hand_places = next(  # the places of a by-hand working (every step at the places typed or more) giving these digits
        (
            p
            for p, h in _hand_values(row, quantity, index, eps, places, gamma, beta)
            if _same_at(value, h, places) and not _same_at(h, expected, places)
        ),
        None,
    )
    by_hand_too = hand_places is not None
    carried = off <= max(HAND_UNITS * unit, HAND_DRIFT * abs(expected)) + slack  # what rounding by hand may do
    rival = any(  # a known mistake with these very digits, further than rounding from the right ones
        key != "rounding"
        and _same_at(value, c, places)
        and past(abs(round_half_away_from_zero(c, places) - round_half_away_from_zero(expected, places)), unit)
        for key, c, _ in known
    )
    if by_hand_too and carried and not rival:
        return verdict(
            ROUNDING,
            f"That is what rounding every step to {_places(hand_places)} by hand gives, so it is right up to "
            f"rounding; the exact value is {shown}"
            + (f", {_drift(value, expected, places)} away" if off > unit + slack else "")
            + ": keep more digits in the steps to get it.",
            "last-place",
        )
    sign = _sign_slip(quantity, value, expected, by_hand, unit + slack)
    if sign is not None:
        return verdict(WRONG, sign, "sign")
    if off <= unit + slack:
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
        (not _same_at(value, candidate, places), "+" in mistake, abs(value - candidate), order, mistake, hint)
        for order, (mistake, candidate, hint) in enumerate(_mistakes(row, record, quantity, index, eps))
        if abs(value - candidate) <= unit + slack and abs(candidate - expected) > unit / 2 + slack
    ]
    if matches:  # a mistake with the answer's very digits first, single mistakes before two at once, then the nearest
        *_, mistake, hint = min(matches)
        if by_hand_too and carried and mistake != "rounding":  # the same digits two ways: both said
            hint += (
                f" (Rounding every step to {_places(hand_places)} by hand gives these digits too: if that is what you "
                "did, keep more digits in the steps.)"
            )
        return verdict(WRONG, hint, mistake)
    held = _float32_places(row, record, quantity, expected, eps, gamma, beta)
    if places > held:  # more digits than float32 holds: judged at those it does, a mistake first
        room = half_unit(held) + slack
        float32_matches = [
            (abs(value - candidate), order, mistake, hint)
            for order, (mistake, candidate, hint) in enumerate(_mistakes(row, record, quantity, index, eps))
            if mistake != "rounding" and abs(value - candidate) <= room and abs(candidate - expected) > 2 * room
        ]
        if float32_matches:
            *_, mistake, hint = min(float32_matches)
            return verdict(WRONG, hint, mistake)
        if off <= room:
            return verdict(
                ROUNDING,
                f"Right to the {_places(held)} float32 (PyTorch's default type) holds here; past them your digits "
                f"are float32's own rounding. The exact value is {format_number(expected, max(held + 2, 5))}.",
                "float32-digits",
            )
    return verdict(WRONG, f"Not quite. {_HOW_TO[quantity]}")


def _float32_places(row, record, quantity, expected, eps, gamma, beta) -> int:
    """The decimal places a correct ``quantity`` of this row, computed in float32, can be trusted to."""
    scale = None
    if quantity == "output":
        g = np.abs(np.asarray(1.0 if gamma is None else gamma, dtype=np.float64))
        b = np.abs(np.asarray(0.0 if beta is None else beta, dtype=np.float64))
        scale = (float(np.max(g)), float(np.max(g * np.abs(np.asarray(record.normalised)) + b)))
    return places_held(float32_room(quantity, row, expected, eps, scale))


_SIGN_TIPS = {
    "mean": "Check the sign of each value as you add them up.",
    "variance": "A variance is a mean of squares: it is never negative.",
    "std": "A standard deviation is a square root: it is never negative.",
    "normalised": "x̂ = (x − μ) / √(σ² + ε): a value above the mean gives a positive x̂, one below it a negative x̂.",
    "output": "y = γ · x̂ + β: check the sign of x̂ first (x − μ, not μ − x), then of γ · x̂ and β.",
}


def _sign_slip(quantity: str, value: float, expected: float, by_hand, room: float) -> str | None:
    """The sentence for an answer of the right size with the wrong sign (to the last place typed, or by
    hand), or None."""
    if value == 0 or expected == 0 or (value > 0) == (expected > 0) or abs(expected) <= room:
        return None
    if abs(value + expected) > room and (by_hand is None or abs(value + by_hand) > room):
        return None
    right, theirs = ("positive", "negative") if expected > 0 else ("negative", "positive")
    return f"A sign slip: your answer is {theirs}, but the right one is {right} (the size is right). {_SIGN_TIPS[quantity]}"


def _drift(value: float, expected: float, places: int) -> str:
    """How far the answer is from the exact value rounded to its places, in units of its last place."""
    units = round(abs(round_half_away_from_zero(expected, places) - value) * 10**places)
    return f"{units} unit{'' if units == 1 else 's'} in the last place"


def _places(count: int) -> str:
    return "1 decimal place" if count == 1 else f"{count} decimal places"


_same_at = same_when_rounded  # True when a and b round (half away from zero) to the same number at places


HAND_EXTRA_PLACES = 2  # by hand, steps kept to the places typed or up to this many more
# An answer rounded by hand is right up to rounding within HAND_DRIFT (1 %, helpers.core.tolerance) of the
HAND_UNITS = 2  # exact value, or within 2 units of its last place, whichever is larger


def _hand_values(row, quantity, index, eps, places, gamma=None, beta=None):
    """(places, value) for working every step by hand to the places typed, or one or two more (the
    mean has one step only: rounding it is rounding the answer)."""
    if quantity == "mean":
        return []
    found = []
    for p in range(places, places + HAND_EXTRA_PLACES + 1):
        value = _hand_value(row, quantity, index, eps, p, gamma, beta)
        if value is not None:
            found.append((p, value))
    return found


def _hand_value(row, quantity, index, eps, places, gamma=None, beta=None) -> float | None:
    """What working every step by hand to ``places`` gives, or None where it cannot be done."""
    try:
        return expected_value(row, quantity, index, eps, decimals=places, gamma=gamma, beta=beta)
    except ValueError:
        return None


def places_to_catch(
    row,
    quantity: str,
    mistakes=("no-eps",),
    index: int | None = None,
    eps: float = DEFAULT_EPS,
    least: int = 1,
    most: int = 10,
    gamma=None,
    beta=None,
) -> int:
    """The fewest decimal places (at least ``least``) at which every named mistake in ``mistakes`` gives
    digits more than one unit in the last place from the right answer (closer is taken as rounding), so that a question asking for that many places can catch
    it. Raises ValueError in plain words when no number of places up to ``most`` does."""
    quantity = _check_quantity(quantity)
    record = layer_norm_steps(row, eps=eps, gamma=gamma, beta=beta)
    index = _check_index(quantity, index, record.n)
    expected = _value(record, quantity, index)
    values = {
        name: [v for key, v, _ in _mistakes(row, record, quantity, index, eps, distinct=False) if key == name]
        for name in mistakes
    }
    for name, found in values.items():
        if not found:
            raise ValueError(f"There is no mistake called {name!r} for the {quantity}.")
    for places in range(least, most + 1):  # beyond one unit in the last place, which rounding along the way explains
        unit = 10.0**-places
        if all(past(abs(round_half_away_from_zero(v[0], places) - expected), unit) for v in values.values()):
            return places
    raise ValueError(f"Up to {most} decimal places, {', '.join(mistakes)} give the same digits as the right answer.")


def question_text(row, quantity: str, index: int | None = None, eps: float = DEFAULT_EPS, gamma=None, beta=None) -> str:
    """The question a checker asks, e.g. "What is the mean μ of x = (1.133, -0.299, 0.503)?"."""
    quantity = _check_quantity(quantity)
    record = layer_norm_steps(row, eps=eps, gamma=gamma, beta=beta)
    index = _check_index(quantity, index, record.n)
    values = ", ".join(repr(float(v)) for v in record.input[:10]) + (", …" if record.n > 10 else "")
    which = f" for feature {index + 1}" if quantity in ("normalised", "output") else ""
    uses_eps = f" (ε = {format_eps(eps)})" if quantity in ("std", "normalised", "output") else ""
    if quantity == "output":
        scale = ", ".join(format_number(float(v), 6).rstrip("0").rstrip(".") for v in record.gamma)
        shift = ", ".join(format_number(float(v), 6).rstrip("0").rstrip(".") for v in record.beta)
        return f"What is the output y for feature {index + 1} of x = ({values}) with γ = ({scale}) and β = ({shift}){uses_eps}?"
    return f"What is {_QUANTITY_NAMES[quantity]}{which} of x = ({values}){uses_eps}?"


def expected_value(
    row,
    quantity: str,
    index: int | None = None,
    eps: float = DEFAULT_EPS,
    decimals: int | None = None,
    gamma=None,
    beta=None,
) -> float:
    """The right value of ``quantity`` for ``row``: exact, or with ``decimals`` as worked by hand
    (every step rounded to that many places), the value :func:`diagnose` judges against."""
    quantity = _check_quantity(quantity)
    record = layer_norm_steps(row, eps=eps, gamma=gamma, beta=beta, decimals=decimals)
    return _value(record, quantity, _check_index(quantity, index, record.n))


def known_mistakes(
    row, quantity: str, index: int | None = None, eps: float = DEFAULT_EPS, gamma=None, beta=None
) -> list[tuple[str, float, str]]:
    """Every mistake :func:`diagnose` recognises for ``quantity`` of ``row``, most common first:
    ``(name, the value the mistake gives, the hint a learner reads)``."""
    quantity = _check_quantity(quantity)
    record = layer_norm_steps(row, eps=eps, gamma=gamma, beta=beta)
    return list(_mistakes(row, record, quantity, _check_index(quantity, index, record.n), eps))


def _value(record, quantity: str, index: int | None) -> float:
    if quantity in ("normalised", "output"):
        return float(record.stage(quantity)[index])
    return float(record.stage(quantity))


def _mistakes(row, record, quantity: str, index: int | None, eps: float, distinct: bool = True):
    """(key, value, hint) for each mistake of the one catalogue (:mod:`helpers.checking.mistakes`) that shows in
    ``quantity``: single mistakes first, most common first, then two at once; then rounding early.
    The hint is the catalogue's sentence, computed for this row."""
    x, gamma, beta = record.input, record.gamma, record.beta
    context = catalogue.Context(x, eps)
    right = _value(record, quantity, index)
    candidates = []
    for mistake in catalogue.for_quantity(quantity):
        if mistake.signature or "eps-ignored" in (mistake.key, *mistake.parts):  # by hand: no float32, ε is given
            continue
        value = mistake.value(quantity, x, eps, gamma, beta)
        if value is None or np.size(value) != (record.n if quantity in ("normalised", "output") else 1):
            continue  # e.g. γ "per row" on one row: a matrix, nothing a learner would type
        value = float(np.ravel(value)[index or 0])
        same = [abs(value - v) <= FLOAT64_NOISE * max(abs(v), 1e-300) for v in (right, *(c[1] for c in candidates))]
        if math.isfinite(value) and not (distinct and any(same)):  # a "mistake" giving the right value, or another's
            candidates.append(
                (mistake.key, value, f"Looks like a known mistake: {mistake.name}. {mistake.advice(context)}")
            )
    if quantity != "mean":
        candidates.extend(_rounded_early(row, quantity, index, eps, gamma, beta))
    return candidates


def _rounded_early(row, quantity: str, index: int | None, eps: float, gamma=None, beta=None):
    """What rounding every intermediate to 1, 2 or 3 places gives (with and without rounding the last step)."""
    for places in EARLY_ROUNDING_PLACES:
        try:
            hand = layer_norm_steps(row, eps=eps, gamma=gamma, beta=beta, decimals=places)
        except ValueError:  # at so few places the std rounds to 0: nobody can have done that
            continue
        i = index or 0
        last_step_unrounded = {
            "variance": float(np.sum(hand.squared_differences)) / hand.n,
            "std": math.sqrt(hand.variance + eps),
            "normalised": float(hand.differences[i]) / hand.std,
            "output": float(hand.gamma[i] * hand.normalised[i] + hand.beta[i]),
        }[quantity]
        hint = (
            f"Looks like a known mistake: {catalogue.ROUNDING.name}. It looks like you rounded the steps before "
            f"this one to {places} decimal place{'s' if places != 1 else ''}; with this row that changes the "
            "answer. Keep every digit until the end: round only the number you show."
        )
        yield ("rounding", _value(hand, quantity, index), hint)
        yield ("rounding", last_step_unrounded, hint)


def _check_quantity(quantity) -> str:
    name = str(quantity).strip().lower().replace("normalized", "normalised")
    if name not in QUANTITIES:
        raise ValueError(f"There is no quantity called {quantity!r}; choose one of: {', '.join(QUANTITIES)}.")
    return name


def _check_index(quantity: str, index, n: int) -> int | None:
    if quantity not in ("normalised", "output"):
        return None
    if index is None:
        raise ValueError(f"Say which {quantity} value to check: index=0 for the first feature, up to {n - 1}.")
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < n:
        raise ValueError(f"index must be a whole number from 0 to {n - 1} (the row has {n} values); got {index!r}.")
    return int(index)
