"""One rule and one message per input: every entry point (maths, widgets, command line) checks here.

Each check returns the clean value or raises :class:`InputError`, a ``ValueError`` that also says
which argument it is about (``error.argument``), so a widget shows the message next to the right
field without guessing. Pure: numpy and the number parser only.
"""

from __future__ import annotations

import math

import numpy as np

from helpers.core.data import parse_number

MAX_DECIMALS = 12  # hand rounding keeps 0 to 12 decimal places
EPS_RULE = "eps must be a number 0 or larger, such as 1e-5 (PyTorch's default)"


class InputError(ValueError):
    """A ValueError about one argument: ``argument`` names it ("row", "eps", "gamma", "decimals", ...)."""

    def __init__(self, argument: str, message: str):
        super().__init__(message)
        self.argument = argument


def check_eps(eps) -> float:
    """``eps`` as a float: a finite number, 0 or larger."""
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.integer, np.floating)):
        given = "nothing (None)" if eps is None else repr(eps)
        raise InputError("eps", f"{EPS_RULE}; got {given}.")
    if not math.isfinite(eps) or eps < 0:
        raise InputError("eps", f"{EPS_RULE}; got {float(eps):g}.")
    return float(eps)


def eps_from_text(text) -> float:
    """eps as typed into a box (or given as a number): the same rule as :func:`check_eps`."""
    if isinstance(text, str):
        try:
            text = parse_number(text)
        except ValueError as problem:
            raise InputError("eps", f"eps {problem}.") from None
    return check_eps(text)


def check_decimals(decimals, argument: str = "decimals") -> int | None:
    """``decimals`` as an int from 0 to ``MAX_DECIMALS``, or None (exact, no rounding by hand)."""
    if decimals is None:
        return None
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or not 0 <= decimals <= MAX_DECIMALS:
        raise InputError(
            argument, f"The number of decimal places must be a whole number from 0 to {MAX_DECIMALS}; got {decimals!r}."
        )
    return int(decimals)


def as_float_array(x, argument: str = "x") -> np.ndarray:
    """``x`` as a float array (integers become float64); a plain-words error for anything else."""
    try:
        array = np.asarray(x)
    except (ValueError, TypeError):
        array = np.asarray(None, dtype=object)
    if array.dtype == object:
        raise InputError(argument, "The input is not a rectangular array of numbers (rows of different lengths?).")
    if array.dtype in (np.float16, np.float32, np.float64):
        return array
    if array.dtype.kind in "biu":
        return array.astype(np.float64)
    raise InputError(argument, f"LayerNorm needs real numbers; got values of type {array.dtype}.")


def check_row(row) -> np.ndarray:
    """One row of finite numbers as a float64 array."""
    values = as_float_array(row, "row").astype(np.float64)
    if values.ndim != 1:
        raise InputError("row", f"layer_norm_steps takes one row (a flat list of numbers); got shape {values.shape}.")
    if values.size == 0:
        raise InputError("row", "The row is empty; LayerNorm needs at least one number.")
    if not np.all(np.isfinite(values)):
        raise InputError("row", "The row contains NaN or infinity; LayerNorm needs finite numbers.")
    return values


def check_matrix(matrix) -> np.ndarray:
    """A matrix of finite numbers as a float64 copy (a single row becomes a 1-row matrix)."""
    array = as_float_array(matrix, "matrix").astype(np.float64)  # a copy: editing it leaves ``matrix`` alone
    if array.ndim == 1:
        array = array[np.newaxis, :]
    if array.ndim != 2 or array.size == 0:
        raise InputError("matrix", f"Give a matrix: rows of numbers, all the same length; got shape {array.shape}.")
    if not np.all(np.isfinite(array)):
        raise InputError("matrix", "The matrix contains NaN or infinity; LayerNorm needs finite numbers.")
    return array


def check_row_index(index, rows: int) -> int:
    """A row picked by its index, counted from 0."""
    if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < rows:
        raise InputError("row", f"Pick a row by its index from 0 to {rows - 1} (row 1 is index 0); got {index!r}.")
    return int(index)


def per_feature(values, name: str, features: int, default: float, dtype) -> np.ndarray:
    """``values`` (gamma or beta) as one number per feature, or ``default`` for every feature when None."""
    if values is None:
        return np.full(features, default, dtype=dtype)
    try:
        array = as_float_array(values, name).astype(np.float64)
    except ValueError:
        raise InputError(name, f"{name} needs numbers, one per feature ({features} values).") from None
    if array.ndim == 0:
        raise InputError(name, f"{name} needs one value per feature ({features} values); got a single number.")
    if array.shape != (features,):
        raise InputError(name, f"{name} needs one value per feature: {features} values; got {array.size}.")
    if not np.all(np.isfinite(array)):
        raise InputError(name, f"{name} contains NaN or infinity; it needs finite numbers.")
    return array.astype(dtype)
