"""The numbers the browser tests expect, worked out in plain Python (never through helpers): the
lesson's matrix, one row's exact steps, the same rounded by hand, and the walkthrough's stages."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

X = [
    [1.133, -0.299, 0.503],
    [-0.176, 0.911, 0.143],
    [0.766, 0.781, -0.518],
    [1.601, -0.669, 0.368],
    [0.663, 0.779, 0.648],
]


def exact_steps(row, eps=1e-5):
    """LayerNorm of one row, exactly (float64), γ = 1 and β = 0."""
    n = len(row)
    mean = sum(row) / n
    variance = sum((v - mean) ** 2 for v in row) / n
    std = math.sqrt(variance + eps)
    return {"mean": mean, "variance": variance, "std": std, "normalised": [(v - mean) / std for v in row]}


def four(value: float) -> str:
    """A number as the widgets show it: 4 places, never -0.0000."""
    text = f"{value:.4f}"
    return "0.0000" if float(text) == 0 else text


def by_hand(row, places=3, eps=1e-5):
    """Row ``row`` worked on paper: every stage rounded half up to ``places`` before the next one."""
    unit = Decimal(1).scaleb(-places)

    def keep(value: Decimal) -> Decimal:
        return value.quantize(unit, rounding=ROUND_HALF_UP)

    x = [Decimal(repr(v)) for v in row]
    mean = keep(sum(x) / len(x))
    differences = [keep(v - mean) for v in x]
    squares = [keep(d * d) for d in differences]
    variance = keep(sum(squares) / len(x))
    std = keep((variance + Decimal(repr(eps))).sqrt())
    normalised = [keep(d / std) for d in differences]
    return {
        "input": x,
        "mean": mean,
        "differences": differences,
        "squares": squares,
        "variance": variance,
        "variance + ε": variance + Decimal(repr(eps)),
        "std": std,
        "normalised": normalised,
        "output": normalised,
    }


WALKTHROUGH = ["input", "mean", "differences", "squares", "variance", "variance + ε", "std", "normalised", "output"]


def stage_result(stage: str, hand: dict) -> str:
    """How the explorer ends the line of ``stage``: ``= 0.446`` or ``= (0.687, -0.745, 0.057)``."""
    value = hand[stage]
    if stage == "variance + ε":
        return f"= {value:.6f}"
    if isinstance(value, list):
        return "= (" + ", ".join(str(v) for v in value) + ")"
    return f"= {value}"
