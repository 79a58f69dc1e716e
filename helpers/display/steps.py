"""One row's steps: the record's own text and table (notebook 02 on), also inside the row editor."""

from __future__ import annotations

import math

import numpy as np

from helpers.core import views
from helpers.core.layernorm import STAGES, LayerNormSteps
from helpers.display.formatting import DEFAULT_PLACES, STAGE_LABELS, format_eps, format_values, places_for
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


def _stage_cells(record, name: str, places: int) -> list[str]:
    if name == "eps":
        return [format_eps(record.eps)]
    if record.hand_rounded:  # a hand record's own digits, at the places kept
        return format_values(record.stage(name), places)
    if name == "variance_plus_eps":
        places = places_showing_eps(record, places)  # else σ² + ε looks the same as σ²
    return format_values(record.stage(name), places_for(record.stage(name), places))  # tiny: not 0.0000


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
    drifted = {drift.stage for drift in record.rounding_drift()}
    lines = tuple(
        StageLine(
            *STAGE_LABELS[stage],
            tuple(_stage_cells(record, stage, places)),
            tuple(_stage_cells(record.exact, stage, places + EXACT_EXTRA_PLACES)) if hand else (),
            focused=stage in focus,
            drifted=stage in drifted,
        )
        for stage in stages
    )
    summary = _drift_summary(record)
    return StepsTable(_title(record), lines, _hand_heading(record) if hand else "", (summary,) if summary else ())


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


def _drift_summary(record) -> str:
    """One line for a hand-rounded record: which stages rounding moved, if any ("" for an exact record)."""
    if not record.hand_rounded:
        return ""
    moved = [STAGE_LABELS[drift.stage][0] for drift in record.rounding_drift()]
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
