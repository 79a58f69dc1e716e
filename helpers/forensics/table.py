"""Forensics on printed numbers: which LayerNorm explains a published table, and the gallery on a matrix.

``fingerprint_table(x, y)`` generalises notebook 07's check of the lesson's table
(:func:`helpers.core.published_table.check_published_output`, reused here) to any input/output pair: it
reads the number of places from the digits, tries both axes (statistics over each row, or over each
column) and every convention, and says which convention and which ε explain every row to the
printed places, and which rows none explains. ``compare_gallery(x)`` runs every LayerNorm of the
gallery on ``x`` and measures how far each output moves from PyTorch's. Pure maths; shown by
``helpers.forensics.display``. Introduced in notebook 13.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from helpers.core import views
from helpers.core.data import parse_row
from helpers.core.published_table import (
    CONVENTIONS,
    PublishedOutputCheck,
    check_published_output,
)
from helpers.core.tolerance import past, stored_output_room, within
from helpers.forensics.call import Caller, CallProblem
from helpers.forensics.fingerprints import Fingerprint, fingerprint
from helpers.forensics.precision import rounded
from helpers.forensics.probes import torch_layer_norm
from helpers.forensics.words import departures

# Default ε of well-known implementations (their documentation or config), and no ε at all.
KNOWN_EPS = (("BERT", 1e-12), ("Flax, LLaMA 1", 1e-6), ("PyTorch, GPT-2", 1e-5), ("Keras", 1e-3), ("no ε", 0.0))
AXES = ("rows", "columns")


@dataclass(frozen=True)
class Explanation:
    """One convention along one axis, and the ε range that reproduces the rows it explains."""

    axis: str
    convention: object  # a helpers.core.published_table.Convention
    rows: tuple  # row numbers (from 1; columns when axis is "columns") it explains
    eps_low: float | None  # the ε range common to those rows (None: no common ε)
    eps_high: float | None
    total: int  # how many rows (or columns) there are

    @property
    def explains_all(self) -> bool:
        return len(self.rows) == self.total and self.eps_low is not None

    @property
    def known_eps(self) -> tuple:
        """The well-known ε values inside the common range, as (who uses it, ε)."""
        if self.eps_low is None:
            return ()
        return tuple((who, eps) for who, eps in KNOWN_EPS if self.eps_low <= eps and within(eps, self.eps_high))


@dataclass(frozen=True, repr=False)
class TableFingerprint:
    """What :func:`fingerprint_table` found; shown in Jupyter as a table."""

    places: int
    checks: dict  # axis -> PublishedOutputCheck (an axis with fewer than 2 values per line is left out)
    explanations: tuple  # one Explanation per (axis, convention), best first
    held_by: str | None = None  # "float32" when y's type holds fewer places than its digits show (then places)

    @property
    def explained_by(self) -> tuple:
        """The explanations that account for every row with one ε."""
        return tuple(e for e in self.explanations if e.explains_all)

    @property
    def unexplained_rows(self) -> tuple:
        """Rows (from 1) that no convention along the rows reproduces with any ε ≥ 0."""
        check = self.checks.get("rows")
        return () if check is None else tuple(r.row for r in check.rows if not r.could_be_layer_norm_of_x)

    def __str__(self) -> str:
        return views.text(self)  # registered by helpers.forensics.display

    __repr__ = __str__

    def _repr_html_(self) -> str | None:
        return views.html(self)


PRINTED_NOISE = 1e-14  # relative: float64's rounding of a decimal, scaled by 10^places, is under 100 units of it


def printed_places(y, most: int = 12) -> int:
    """The fewest decimal places that write every value of ``y`` exactly (as the table was printed).

    A value counts as written to ``places`` when scaling it by 10^places leaves a whole number up to float64's
    own rounding (:data:`PRINTED_NOISE`, relative): 0.30000000000000004 is 0.3, but 2.0000001 has 7 places.
    A float32 or float16 ``y`` (``np.round`` of a float32 output stays float32) holds its type's nearest
    value to each printed number, 1.173 as 1.17299998: it is read in its own type."""
    given = np.asarray(y)
    values = given.astype(np.float64)
    stored = given.dtype if np.issubdtype(given.dtype, np.floating) else None
    for places in range(most + 1):
        scaled = values * 10.0**places
        if np.all(np.abs(scaled - np.round(scaled)) <= PRINTED_NOISE * np.maximum(np.abs(scaled), 1.0)):
            return places
        if stored is not None and np.array_equal(np.round(values, places).astype(stored), given):
            return places
    return most


def fingerprint_table(x, y, places: int | None = None) -> TableFingerprint:
    """Which LayerNorm (axis, variance, ε placement, ε) turns ``x`` into the printed ``y``, row by row.

    ``places``: how many decimals ``y`` was printed with (default: read from its digits). γ = 1, β = 0.
    A float32 or float16 ``y`` whose digits go past what a correct output in its type can be trusted to
    (:func:`helpers.core.tolerance.stored_output_room`) is read to those places instead, and ``held_by``
    names its type: its last digits are its own arithmetic's rounding, not the convention's.
    Raises ValueError in plain words for tables that cannot be compared. Introduced in notebook 13.
    """
    inputs, outputs = _rectangular(x, "x"), _rectangular(y, "y")
    for name, table in (("x", inputs), ("y", outputs)):
        if table.ndim != 2:
            raise ValueError(
                f"{name} has shape {table.shape}, not rows and columns: give it as a table"
                + (", one row written [[…]] with two brackets." if table.ndim == 1 else " of two dimensions.")
            )
    if inputs.shape != outputs.shape:
        raise ValueError(
            f"x has shape {inputs.shape} and y has shape {outputs.shape}; they need the same rows and columns."
        )
    held_by = None
    if places is None:
        places = printed_places(y)  # y in its own type: float32 digits read as such
        kind = held_in(y)
        held = None if kind is None else _places_held(inputs, kind)
        if held is not None and held < places:
            places, held_by = held, kind
    checks = {}
    for axis in AXES:
        a, b = (inputs, outputs) if axis == "rows" else (inputs.T, outputs.T)
        if a.shape[1] >= 2:
            checks[axis] = check_published_output(b, a, places=places)  # plain-words ValueError for bad input
    if not checks:
        raise ValueError("Each row and each column has a single value; LayerNorm needs at least 2.")
    explanations = [_explanation(axis, k, check) for axis, check in checks.items() for k in range(len(CONVENTIONS))]
    explanations.sort(key=lambda e: (not e.explains_all, -len(e.rows), AXES.index(e.axis)))
    return TableFingerprint(int(places), checks, tuple(explanations), held_by)


def held_in(y) -> str | None:
    """The type a float32 or float16 ``y``'s values were computed in, as far as its values tell: the coarsest of
    bfloat16 and float16 that holds every finite value exactly, else its own type (None for float64 and others:
    a float64 table is read by its digits alone)."""
    given = np.asarray(y)
    if given.dtype not in (np.float32, np.float16):
        return None
    values = given.astype(np.float64)
    values = values[np.isfinite(values)]
    for kind in ("bfloat16", "float16"):
        if kind != given.dtype.name and values.size and np.array_equal(rounded(values, kind), values):
            return kind
    return given.dtype.name


def _places_held(x, dtype) -> int | None:
    """The most places a correct LayerNorm output of ``x`` stored in ``dtype`` is right to (None: no limit)."""
    room = stored_output_room(x, dtype)
    return None if room == 0 else max(0, math.floor(math.log10(0.5 / room)))


def _rectangular(table, name: str) -> np.ndarray:
    """``table`` as a float64 matrix, or a ValueError naming the row that is short or long, or not numbers."""
    try:
        return np.asarray(table, dtype=np.float64)
    except (TypeError, ValueError):
        pass
    try:
        rows = [np.asarray(row, dtype=np.float64).reshape(-1) for row in table]
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a table of numbers: one of its rows holds something else.") from None
    for i, row in enumerate(rows[1:], start=2):
        if row.size != rows[0].size:
            raise ValueError(
                f"Row {i} of {name} has {row.size} numbers and row 1 has {rows[0].size}; every row needs the same."
            )
    raise ValueError(f"{name} must be a table of numbers.")


DECIMAL_COMMA = re.compile(r"(?<![\d.])[-−]?\d+,\d+(?![\d.])")  # 0,958 or -1,038: a whole number, not 1.5,2


def read_table(text: str, like) -> np.ndarray:
    """A table typed one row per line (numbers separated by commas or spaces) as a matrix of ``like``'s shape.

    Raises ValueError with one sentence naming the line: a value that is not a number, a line with too many
    or too few numbers (and a decimal comma, "0,958", when that is why), or the wrong number of lines.
    Introduced in notebook 13 (the live table).
    """
    rows_wanted, columns = np.shape(like)
    lines = [(i, line) for i, line in enumerate(str(text).splitlines(), start=1) if line.strip()]
    rows = []
    for i, line in lines:
        try:
            row = parse_row(line)
        except ValueError as problem:
            raise ValueError(f"Line {i}: {problem}") from None
        if row.size != columns:
            comma = DECIMAL_COMMA.search(line)
            if comma:
                written = comma.group()
                raise ValueError(
                    f"Line {i} has {row.size} numbers where x has {columns}: “{written}” looks like a decimal comma. "
                    f"Write decimals with a point ({written.replace(',', '.')}), and separate the numbers with a comma and a space."
                )
            raise ValueError(f"Line {i} has {row.size} numbers; x has {columns} in each row.")
        rows.append(row)
    if len(rows) != rows_wanted:
        raise ValueError(f"The table has {len(rows)} lines of numbers; x has {rows_wanted} rows, one line each.")
    return np.vstack(rows)


def _explanation(axis: str, k: int, check: PublishedOutputCheck) -> Explanation:
    fits = [(row.row, row.eps_fits[k]) for row in check.rows if row.eps_fits[k].fits]
    low = max((fit.eps_low for _, fit in fits), default=None)
    high = min((fit.eps_high for _, fit in fits), default=None)
    if low is None or high is None or past(low, high):
        low = high = None
    return Explanation(axis, CONVENTIONS[k], tuple(row for row, _ in fits), low, high, len(check.rows))


@dataclass(frozen=True)
class GalleryResult:
    """One implementation of the gallery run on a matrix, against PyTorch's LayerNorm."""

    name: str
    fingerprint: Fingerprint
    output: np.ndarray | None  # None when it could not run on the matrix
    row_differences: np.ndarray | None  # per row: largest |output − PyTorch's output|
    offset_differences: np.ndarray | None = None  # the same for x + GALLERY_OFFSET computed in float32

    @property
    def largest_difference(self) -> float | None:
        return None if self.row_differences is None else float(np.max(self.row_differences))

    @property
    def worst_row(self) -> int | None:
        """The row (from 1) that moves most."""
        return None if self.row_differences is None else int(np.argmax(self.row_differences)) + 1


@dataclass(frozen=True, repr=False)
class GalleryComparison:
    """Every implementation of the gallery on one matrix; shown in Jupyter as a table."""

    x: np.ndarray
    results: tuple

    def __str__(self) -> str:
        return views.text(self)  # registered by helpers.forensics.display

    __repr__ = __str__

    def _repr_html_(self) -> str | None:
        return views.html(self)


GALLERY_OFFSET = 100.0  # x + 100 in float32: LayerNorm's answer does not change, a one-pass variance's does


def compare_gallery(x, entries) -> GalleryComparison:
    """Fingerprint each gallery entry and run it on ``x`` (float64) and on ``x + 100`` in float32: how far
    its output is from PyTorch's output for ``x`` (in float64), row by row."""
    matrix = np.asarray(x, dtype=np.float64)
    truth = torch_layer_norm(matrix)
    results = []
    for entry in entries:
        found = fingerprint(entry.fn, entry.name, features=matrix.shape[1])
        output, *differences = _run(entry.fn, truth, matrix, (matrix + GALLERY_OFFSET).astype(np.float32))
        results.append(GalleryResult(entry.name, found, output, *differences))
    return GalleryComparison(matrix, tuple(results))


def _run(fn, truth, *inputs):
    """fn's float64 output on the first input, and its rows' largest differences from ``truth`` on each."""
    call, output, differences = Caller(fn, 5.0), None, []
    for x in inputs:
        try:
            y = call(x)
        except CallProblem:
            differences.append(None)
            continue
        output = y if x is inputs[0] else output  # None when it could not run on the first
        with np.errstate(invalid="ignore"):
            largest = np.abs(y - truth).max(axis=1)
        differences.append(np.where(np.isnan(largest), math.inf, largest))
    return output, *differences


# The check-yourself question of notebook 13: each option, and the departure (helpers.forensics.fingerprints.departures) it names.
MYSTERY_OPTIONS = {
    "it divides the variance by n − 1": "÷ (n − 1)",
    "it adds ε to the standard deviation": "ε + std",
    "it adds no ε at all": "no ε",
    "it computes the variance in one pass": "one pass",
    "it normalises the wrong axis": "axis",
}


def mystery_question(fn) -> dict:
    """Keyword arguments for ``helpers.widgets.multiple_choice``: which convention does ``fn`` break?
    The answer is whatever :func:`fingerprint` finds, never written down. Introduced in notebook 13."""
    found = departures(fingerprint(fn))
    answers = [option for option, words in MYSTERY_OPTIONS.items() if words == found]
    if len(answers) != 1:
        raise ValueError(f"The mystery should break exactly one of the listed conventions; it departs in: {found}.")
    return dict(
        question="Fingerprint mystery in a new cell (fingerprint(mystery)). How does it differ from PyTorch's LayerNorm?",
        options=list(MYSTERY_OPTIONS),
        answer=answers[0],
        explanation="Its fingerprint lists exactly this difference, and a row of equal values gives NaN or an error.",
        hint="Run fingerprint(mystery) and read the line 'Differences from PyTorch's LayerNorm'.",
    )
