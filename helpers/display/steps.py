"""One row's steps: the record's own text and table (notebook 02 on), also inside the row editor."""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np

from helpers.core import views
from helpers.core.layernorm import DRIFT_RELATIVE_TOLERANCE, STAGES, LayerNormSteps
from helpers.display.formatting import (
    DEFAULT_PLACES,
    ELLIPSIS,
    STAGE_LABELS,
    format_eps,
    format_number,
    format_values,
    places_for,
)
from helpers.display.model import StageLine, StepsTable, render_steps_html, render_steps_text

EXACT_EXTRA_PLACES = 2  # a hand-rounded record shows the exact values with this many more places


def stage_names(names, what: str = "stages") -> tuple[str, ...]:
    """One stage name (``"mean"``) or a sequence of them, as a tuple; an unknown name is refused."""
    names = () if names is None else (names,) if isinstance(names, str) else tuple(names)
    unknown = [repr(name) for name in names if name not in STAGES]
    if unknown:
        raise ValueError(
            f"{what} names stages that do not exist: {', '.join(unknown)}; the stages are {', '.join(STAGES)}."
        )
    return names


def places_showing_eps(record, places: int) -> int:
    """Enough decimal places (at most 15) for eps to be seen in σ² + ε: 6 for eps = 1e-5."""
    if record.eps <= 0:
        return places
    return min(15, max(places, 1 - math.floor(math.log10(record.eps))))


MAX_INPUT_PLACES = 10  # a hand-rounded row's input is shown as given, up to this many places


def _written_places(value: float) -> int:
    text = repr(float(value))
    if "e" in text or "E" in text:
        return MAX_INPUT_PLACES
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0


def shown_places(record, name: str, places: int) -> int:
    """The places stage ``name`` is shown with, where ``places`` is the table's own (the hand record's
    decimals, or DEFAULT_PLACES); the step explorer and the row editor share this rule, so the same
    number reads the same in both.

    By hand, each step is rounded to ``places``, but not the input (rounding works on results, and the
    mean is worked out from x as given: x = 1, 0, 1 with mean 0 at 0 places would not add up), nor
    σ² + ε (kept unrounded so that ε is not rounded away): they show the places they have. Exactly,
    σ² and σ² + ε get enough places for ε to be seen, both the same, so that the sum shown is the sum
    of what is shown (0.003427 + 1e-05 = 0.003437, not 0.0034 beside 0.003437); a tiny stage gets
    enough places not to read 0.0000."""
    if record.hand_rounded:
        if name == "input":
            return max(places, min(MAX_INPUT_PLACES, max(map(_written_places, np.ravel(record.input)))))
        if name == "variance_plus_eps":
            return places_showing_eps(record, places)
        return places
    if name in ("variance", "variance_plus_eps"):
        wide = places_showing_eps(record, places)
        return max(places_for(record.variance, places), places_for(record.variance_plus_eps, wide))
    return places_for(record.stage(name), places)


def _stage_cells(record, name: str, places: int) -> list[str]:
    if name == "eps":
        return [format_eps(record.eps)]
    return format_values(record.stage(name), shown_places(record, name, places))


def _exact_cells(record, name: str, places: int) -> list[str]:
    """A hand record's exact values beside its own; the input is the same row, shown as given in both."""
    if name == "input":
        return format_values(record.input, shown_places(record, "input", places))
    return _stage_cells(record.exact, name, places)


def _operand(cell: str) -> str:
    return f"({cell})" if cell.startswith("-") else cell


def _mean_of(cells, n: int) -> Decimal | None:
    return None if ELLIPSIS in cells else sum(map(Decimal, cells)) / n


def _rounding_note(record, places: int, stages) -> str:
    """For an exact record whose shown mean or variance is not the mean of the numbers shown above it (each
    step is worked out from unrounded numbers): one line that says so, with the sum a calculator gives."""
    if record.hand_rounded:  # worked out from the digits shown, by construction
        return ""
    for stage, operands in (("mean", "input"), ("variance", "squared_differences")):
        if stage not in stages or operands not in stages:
            continue
        cells = _stage_cells(record, operands, places)
        worked = _mean_of(cells, record.n)
        shown = _stage_cells(record, stage, places)[0]
        if worked is None or format_number(worked, shown_places(record, stage, places)) == shown:
            continue
        calculator = format_number(worked, shown_places(record, stage, places))
        return (
            f"Rounded only for showing: each step is worked out from the unrounded numbers, so "
            f"{STAGE_LABELS[stage][0]} = {shown} while ({' + '.join(_operand(c) for c in cells)}) / {record.n} = {calculator}."
        )
    return ""


def _visible_stages(record, focus) -> tuple[str, ...]:
    """Every stage, but gamma and beta only when they do something (γ ≠ 1 or β ≠ 0) or are in focus."""
    plain_affine = np.all(record.gamma == 1.0) and np.all(record.beta == 0.0)
    return tuple(s for s in STAGES if not (plain_affine and s in ("gamma", "beta") and s not in focus))


def steps_table(record, focus=(), stages=None) -> StepsTable:
    """The record's steps described once (stages, formulas, numbers, focus and drift marks);
    :func:`steps_text` and :func:`steps_html` render this one description."""
    focus = stage_names(focus, "focus")
    stages = stage_names(stages) if stages is not None else _visible_stages(record, focus)
    if not stages:
        raise ValueError("stages names no stage; name at least one, e.g. ['mean'].")
    hand = record.hand_rounded
    places = record.decimals if hand else DEFAULT_PLACES
    drifted = set(moved_stages(record))
    lines = tuple(
        StageLine(
            *STAGE_LABELS[stage],
            tuple(_stage_cells(record, stage, places)),
            tuple(_exact_cells(record, stage, places + EXACT_EXTRA_PLACES)) if hand else (),
            focused=stage in focus,
            drifted=stage in drifted,
        )
        for stage in stages
    )
    notes = tuple(note for note in (_drift_summary(record, stages), _rounding_note(record, places, stages)) if note)
    return StepsTable(_title(record), lines, _hand_heading(record) if hand else "", notes)


def _title(record) -> str:
    features = "feature" if record.n == 1 else "features"
    how = (
        f"rounded by hand to {record.decimals} places (halves away from zero)"
        if record.hand_rounded
        else f"exact, shown to {DEFAULT_PLACES} places"
    )
    return f"LayerNorm of one row ({record.n} {features}, eps = {format_eps(record.eps)}), {how}"


def _hand_heading(record) -> str:
    return f"by hand ({record.decimals} places)"


def moved_stages(record) -> tuple[str, ...]:
    """The stages a hand-rounded record marks ``≠ exact``, in order, judged by what the learner reads:

    - a stage rounding moved by more than the places kept (LayerNormSteps.rounding_drift), when its digits
      as shown differ from the exact value's at the same places, or it is off by more than 1 % (a tiny
      variance kept to one digit); at 1e150 the float noise of "moved by 1e134" shows no digit and is not marked;
    - a stage shown with more places than that (σ² + ε keeps ε's) whose shown digits differ from the exact
      value's at those places, so that "4.222010" beside exact "4.222232" is marked."""
    if not record.hand_rounded:
        return ()
    drifts = {drift.stage: drift for drift in record.rounding_drift()}
    moved = set()
    for stage in STAGES:
        if stage in ("input", "eps", "gamma", "beta"):
            continue
        shown = shown_places(record, stage, record.decimals)
        hand = np.atleast_1d(np.asarray(record.stage(stage), dtype=np.float64))
        exact = np.atleast_1d(np.asarray(record.exact.stage(stage), dtype=np.float64))
        digits_differ = any(format_number(h, shown) != format_number(e, shown) for h, e in zip(hand, exact))
        if stage in drifts:
            if digits_differ or drifts[stage].relative_difference > DRIFT_RELATIVE_TOLERANCE:
                moved.add(stage)
        elif shown > record.decimals and digits_differ:
            moved.add(stage)
    return tuple(stage for stage in STAGES if stage in moved)


def _drift_summary(record, stages=STAGES) -> str:
    """One line for a hand-rounded record: which stages rounding moved, if any ("" for an exact record)."""
    if not record.hand_rounded:
        return ""
    moved = [STAGE_LABELS[stage][0] for stage in moved_stages(record)]
    if not moved:
        return f"Rounding to {record.decimals} places changed no stage by more than its last place."
    return f"≠ exact: rounding to {record.decimals} places moved: {', '.join(moved)}."


def steps_text(record, focus=(), stages=None) -> str:
    """A record as aligned text: one line per stage with its formula and values.

    A hand-rounded record shows its own digits and, beside them, the exact values with two more
    places; stages that rounding moved end with ``≠ exact`` and one line at the end sums it up.
    Stages named in ``focus`` are marked ▶. ``stages`` picks the stages shown (default: all, with
    gamma and beta only when they are not 1 and 0). This is the record's ``str`` and ``repr``.
    """
    return render_steps_text(steps_table(record, focus, stages))


def steps_html(record, focus=(), stages=None) -> str:
    """The same as :func:`steps_text`, as an HTML table: focus shaded blue, stages rounding moved orange."""
    return render_steps_html(steps_table(record, focus, stages))


views.register(LayerNormSteps, steps_text, steps_html)
