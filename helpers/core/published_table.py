"""Could a table be a LayerNorm output? The checks that catch the lesson's published table.

Pure maths on numpy arrays; nothing here displays (``helpers.display`` shows the records).
``check_published_output(published, x)`` checks every row of a table against the rules any
LayerNorm output (γ = 1, β = 0) must follow, and against the true output of ``x``.
Introduced in notebook 07.

Why the rules hold. For a row x of n features with differences d = x − mean(x), LayerNorm gives
y = c·d for one positive scale c. So the row sums to 0 whatever c is, and its squares sum to
c²·Σd². The four conventions people use give:

    variance          eps goes          scale c            squares sum to            at most
    biased, ÷ n       inside the root   1/√(var + eps)     n·var/(var + eps)         n
    unbiased, ÷ n−1   inside the root   1/√(var + eps)     (n−1)·var/(var + eps)     n − 1
    biased, ÷ n       outside the root  1/(√var + eps)     n·var/(√var + eps)²       n
    unbiased, ÷ n−1   outside the root  1/(√var + eps)     (n−1)·var/(√var + eps)²   n − 1

(var is each line's own variance.) No eps ≥ 0 and no convention lets the squares sum past n.
A table printed to 2 places can be off by up to 0.005 in each value, so every check allows
exactly that much and no more.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from helpers.core import views
from helpers.core.formula import layer_norm_forward
from helpers.core.layernorm import DEFAULT_EPS, frozen_array, layer_norm
from helpers.core.tolerance import EDGE, PUBLISHED_CLOSE
from helpers.core.validation import InputError, check_decimals

PUBLISHED_PLACES = 2  # the lesson printed its table to 2 decimal places
CLOSE_TOLERANCE = PUBLISHED_CLOSE  # "close": every value within 0.05 of the truth (right to one decimal place)
_SLACK = EDGE  # a value exactly on a rounding boundary counts as inside it (the values here are near 1)


@dataclass(frozen=True)
class Convention:
    """One way of writing LayerNorm: which variance, and where eps goes."""

    name: str
    short_name: str  # a table column's heading
    unbiased: bool  # divide by n − 1 instead of n
    eps_inside_root: bool  # √(var + eps) rather than √var + eps

    def variance(self, differences: np.ndarray) -> float:
        n = differences.size
        return float(np.sum(differences * differences)) / (n - 1 if self.unbiased else n)

    def largest_sum_of_squares(self, n: int) -> int:
        """The most an output row's squares can add up to, reached only at eps = 0."""
        return n - 1 if self.unbiased else n

    def eps_for_scale(self, scale: float, variance: float) -> float:
        """The eps that makes this convention multiply the differences by ``scale``."""
        if scale <= 0:
            return math.inf
        if self.eps_inside_root:
            return max(0.0, 1.0 / scale**2 - variance)
        return max(0.0, 1.0 / scale - math.sqrt(variance))


CONVENTIONS = (
    Convention(
        "biased variance (÷ n), eps inside the root (PyTorch)",
        "÷ n, ε inside √ (PyTorch)",
        unbiased=False,
        eps_inside_root=True,
    ),
    Convention(
        "unbiased variance (÷ (n − 1)), eps inside the root",
        "÷ (n − 1), ε inside √",
        unbiased=True,
        eps_inside_root=True,
    ),
    Convention(
        "biased variance (÷ n), eps outside the root", "÷ n, ε outside √", unbiased=False, eps_inside_root=False
    ),
    Convention(
        "unbiased variance (÷ (n − 1)), eps outside the root",
        "÷ (n − 1), ε outside √",
        unbiased=True,
        eps_inside_root=False,
    ),
)


@dataclass(frozen=True)
class EpsFit:
    """The eps values (if any) for which one convention turns x into the published digits."""

    convention: Convention
    eps_low: float | None  # None: no eps ≥ 0 works
    eps_high: float | None  # may be math.inf

    @property
    def fits(self) -> bool:
        return self.eps_low is not None


@dataclass(frozen=True)
class RowCheck:
    """Every check on one row of a candidate output table. Rows are counted from 1."""

    row: int
    published: np.ndarray
    true_output: np.ndarray  # layer_norm(x) with the given eps, γ = 1, β = 0
    half_unit: float  # half a unit in the last printed place: how far rounding moves a value
    row_sum: float
    sum_of_squares: float
    smallest_sum_of_squares: float | None  # least Σy² of a zero-sum row that prints as the published one
    bound: float  # n·var/(var + eps): what the true output's squares add up to
    max_difference: float  # largest |published − true|
    eps_fits: tuple  # one EpsFit per convention in CONVENTIONS

    @property
    def n(self) -> int:
        return int(self.published.size)

    @property
    def sum_allowance(self) -> float:
        """How far rounding can move the row's sum: n × half a unit."""
        return self.n * self.half_unit

    @property
    def matches(self) -> bool:
        """Every value within half a printed unit of the true output: the truth, correctly rounded."""
        return self.max_difference <= self.half_unit + _SLACK

    @property
    def sums_to_zero(self) -> bool:
        """Check 1: the row adds up to 0, allowing for the rounding of the printed digits."""
        return abs(self.row_sum) <= self.sum_allowance + _SLACK

    @property
    def squares_within_n(self) -> bool:
        """Check 2: some zero-sum row that prints like this one has squares adding up to at most n."""
        return self.smallest_sum_of_squares is not None and self.smallest_sum_of_squares <= self.n + _SLACK

    @property
    def pencil_sum_of_squares(self) -> float:
        """Σ(|y| − h)²: the squares after moving each value half a printed unit h towards 0 (to 0 if nearer).

        The pencil's allowance for rounding, as the lecture states it: no row that prints as these digits
        has smaller squares, so a row over n here is over n whatever the rounding hid. (The least
        ``smallest_sum_of_squares`` also keeps the sum 0, so it is never below this one.)
        """
        moved = np.maximum(np.abs(self.published) - self.half_unit, 0.0)
        return float(np.sum(moved * moved))

    @property
    def pencil_squares_within_n(self) -> bool:
        """Check 2 as a pencil does it: the squares, each value moved half a unit towards 0, at most n."""
        return self.pencil_sum_of_squares <= self.n + _SLACK

    @property
    def distance_from_origin(self) -> float:
        """√(sum of squares): the row's distance from 0 (at most √n for a LayerNorm output)."""
        return math.sqrt(self.sum_of_squares)

    @property
    def distance_from_plane(self) -> float:
        """|row sum| / √n: how far the row sits from the plane where rows sum to 0."""
        return abs(self.row_sum) / math.sqrt(self.n)

    @property
    def could_be_layer_norm(self) -> bool:
        """Passes checks 1 and 2: some input, eps and convention could print this row."""
        return self.sums_to_zero and self.squares_within_n

    @property
    def could_be_layer_norm_of_x(self) -> bool:
        """Some eps ≥ 0 under some convention turns this row of x into exactly these digits."""
        return any(fit.fits for fit in self.eps_fits)

    @property
    def close(self) -> bool:
        """Every value within CLOSE_TOLERANCE (0.05) of the true output."""
        return self.max_difference <= CLOSE_TOLERANCE + _SLACK

    @property
    def verdict(self) -> str:
        """The finding in plain words."""
        if not self.sums_to_zero:
            return "impossible: the row does not sum to 0"
        if not self.squares_within_n:
            return f"impossible: squares add up to more than {self.n}"
        if self.matches:
            return "right: the true output, rounded"
        if self.close:
            return f"close, but wrong: off by up to {self.max_difference:.4f}"
        if self.could_be_layer_norm_of_x:
            return "wrong here: only another ε or convention gives it"
        return "wrong: no ε or convention gives it from x"


@dataclass(frozen=True, repr=False)
class PublishedOutputCheck:
    """The checks on every row of a table; made by :func:`check_published_output`."""

    rows: tuple  # one RowCheck per row
    eps: float
    places: int

    @property
    def half_unit(self) -> float:
        return 0.5 * 10.0**-self.places

    def rows_where(self, condition: str) -> list[int]:
        """The row numbers (from 1) where a RowCheck property is true, e.g. ``rows_where("close")``."""
        return [row.row for row in self.rows if getattr(row, condition)]

    def by_convention(self) -> EpsFitTable:
        """The same rows, with the eps range each convention would need (shown as a table)."""
        return EpsFitTable(self)

    def __str__(self) -> str:
        return views.text(self)  # drawn by helpers.display.verdicts

    __repr__ = __str__

    def _repr_html_(self) -> str | None:
        return views.html(self)


@dataclass(frozen=True, repr=False)
class EpsFitTable:
    """A view of a :class:`PublishedOutputCheck`: per row and convention, the eps that would fit."""

    check: PublishedOutputCheck

    def __str__(self) -> str:
        return views.text(self)  # drawn by helpers.display.verdicts

    __repr__ = __str__

    def _repr_html_(self) -> str | None:
        return views.html(self)


def check_published_output(
    published, x, eps: float = DEFAULT_EPS, places: int = PUBLISHED_PLACES
) -> PublishedOutputCheck:
    """Check a table printed to ``places`` decimals as the LayerNorm output (γ = 1, β = 0) of ``x``.

    Each row gets its sum, its sum of squares (and the least it could be, given the rounding),
    the bound n·var/(var + eps) the true output meets, its largest difference from
    ``layer_norm(x, eps=eps)``, and, for each convention in ``CONVENTIONS``, the eps ≥ 0 (if any)
    that would print exactly these digits. Introduced in notebook 07.
    """
    if places is None:
        raise InputError("places", "places must be given: the decimal places the table was printed to.")
    places = check_decimals(places, "places")
    true_output = np.atleast_2d(layer_norm(np.asarray(x, dtype=np.float64), eps=eps))  # checks x and eps
    inputs = np.atleast_2d(np.asarray(x, dtype=np.float64))
    try:
        table = np.atleast_2d(np.asarray(published, dtype=np.float64))
    except (TypeError, ValueError):
        raise ValueError("The published table is not a rectangular table of numbers.") from None
    if table.shape != inputs.shape or inputs.ndim != 2:
        raise ValueError(
            f"The published table has shape {table.shape} but x has shape {inputs.shape}; "
            "they need the same rows and columns."
        )
    if not np.all(np.isfinite(table)):
        raise ValueError("The published table contains NaN or infinity.")
    if inputs.shape[1] < 2:
        raise ValueError("Checking needs at least 2 features per row (with 1, the unbiased variance divides by 0).")
    half_unit = 0.5 * 10.0 ** -int(places)
    rows = tuple(
        _check_row(i + 1, table[i], inputs[i], true_output[i], float(eps), half_unit) for i in range(table.shape[0])
    )
    return PublishedOutputCheck(rows, float(eps), int(places))


def _check_row(number, published, x, true_output, eps, half_unit) -> RowCheck:
    n = x.size
    _, mean, var, _ = layer_norm_forward(x, eps)  # the one formula: its mean and biased variance
    differences, variance = x - mean, float(var[0])
    low, high = published - half_unit, published + half_unit
    return RowCheck(
        row=number,
        published=frozen_array(published),
        true_output=frozen_array(true_output),
        half_unit=half_unit,
        row_sum=float(np.sum(published)),
        sum_of_squares=float(np.sum(published * published)),
        smallest_sum_of_squares=smallest_zero_sum_squares(low, high),
        bound=n * variance / (variance + eps),
        max_difference=float(np.max(np.abs(published - true_output))),
        eps_fits=tuple(_eps_fit(convention, differences, low, high) for convention in CONVENTIONS),
    )


def smallest_zero_sum_squares(low, high) -> float | None:
    """The least Σy² over rows y with low ≤ y ≤ high (each value) and Σy = 0; None if none sums to 0.

    The best row is y = clip(t, low, high) for the level t at which it sums to 0 (each value as
    near 0 as its range and the zero sum allow). Its sum grows with t, so halving finds t.
    """
    low, high = np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)
    if low.sum() > _SLACK or high.sum() < -_SLACK:
        return None
    below, above = float(low.min()), float(high.max())
    for _ in range(200):
        level = (below + above) / 2
        if np.clip(level, low, high).sum() > 0:
            above = level
        else:
            below = level
    best = np.clip((below + above) / 2, low, high)
    return float(np.sum(best * best))


def _eps_fit(convention: Convention, differences, low, high) -> EpsFit:
    """Which eps ≥ 0 make ``scale × differences`` land inside [low, high] in every value."""
    smallest_scale, largest_scale = 0.0, math.inf
    for d, lo, hi in zip(differences, low, high):
        if d == 0:
            if not lo - _SLACK <= 0 <= hi + _SLACK:
                return EpsFit(convention, None, None)
            continue
        a, b = sorted((float(lo / d), float(hi / d)))
        smallest_scale, largest_scale = max(smallest_scale, a), min(largest_scale, b)
    variance = convention.variance(differences)
    # eps = 0 gives the largest scale a convention can reach (any scale, for a constant row).
    scale_at_eps_0 = 1.0 / math.sqrt(variance) if variance > 0 else math.inf
    if smallest_scale > min(largest_scale, scale_at_eps_0) * (1 + _SLACK):
        return EpsFit(convention, None, None)
    eps_low = 0.0 if largest_scale >= scale_at_eps_0 else convention.eps_for_scale(largest_scale, variance)
    return EpsFit(convention, eps_low, convention.eps_for_scale(smallest_scale, variance))
