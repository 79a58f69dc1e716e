"""Reading numbers: the lesson's CSV files, anybody's CSV file, and a row typed by a person.

Introduced in notebook 01. Every function here either returns clean float64 numbers or raises
``ValueError`` with a message in plain words (where it can, naming the line and column), so a
widget or the command line can show the message instead of a traceback.
"""

from __future__ import annotations

import csv
import math
import re
from pathlib import Path

import numpy as np

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
RESIDUAL_CSV = DATA_DIR / "residual_matrix.csv"
PUBLISHED_OUTPUT_CSV = DATA_DIR / "lesson_published_output.csv"

# A plain decimal number as people write it: optional sign, digits with an optional decimal point,
# optional exponent. No "nan", "inf", hex, or underscores (float() would accept those silently).
_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")
# Minus signs that arrive when people copy numbers from web pages and documents.
_MINUS_LOOKALIKES = str.maketrans({"\u2212": "-", "\u2013": "-", "\u2012": "-", "\ufe63": "-", "\uff0d": "-"})


class NotFiniteError(ValueError):
    """A number written as NaN, infinity, or too large to store: readable, but not a finite number."""


def parse_number(text: str) -> float:
    """Read one number the way a person writes it, e.g. ``"-0.299"``, ``"1e-5"`` or ``"−0.299"``.

    Raises ``ValueError`` in plain words for anything else: an empty cell, a word, NaN, infinity,
    or a number too large for a float (such as ``1e400``); for the last three, ``NotFiniteError``.
    """
    cleaned = str(text).strip().translate(_MINUS_LOOKALIKES)
    if not cleaned:
        raise ValueError("is empty; type a number")
    lowered = cleaned.lower().lstrip("+-")
    if lowered in {"nan", "na", "n/a"}:
        raise NotFiniteError(f"'{cleaned}' is not a number (NaN); type a real number")
    if lowered in {"inf", "infinity", "∞"}:
        raise NotFiniteError(f"'{cleaned}' is infinity; LayerNorm needs finite numbers")
    if not _NUMBER.fullmatch(cleaned):
        raise ValueError(f"'{cleaned}' is not a number")
    value = float(cleaned)
    if not math.isfinite(value):
        raise NotFiniteError(f"'{cleaned}' is too large to store as a number (over about 1.8e308)")
    return value


def parse_row(text: str) -> np.ndarray:
    """Read a row of numbers as people paste it: ``"1.133, -0.299, 0.503"``, ``"[1.133 -0.299 0.503]"``.

    Commas, semicolons, spaces and tabs all separate values; surrounding brackets are ignored.
    Raises ``ValueError`` naming the value that is wrong (counted from 1).
    """
    pieces = split_row(text)
    if not pieces:  # nothing, or only brackets and separators, e.g. "[ , ]"
        raise ValueError("The row is empty; type some numbers separated by commas or spaces.")
    values = []
    for position, piece in enumerate(pieces, start=1):
        try:
            values.append(parse_number(piece))
        except ValueError as problem:
            raise ValueError(f"Value {position} {problem}.") from None
    return np.array(values, dtype=np.float64)


def split_row(text: str) -> list[str]:
    """The values of a pasted row as they were typed, one text each: ``"[1, −2.50]"`` gives ``["1", "-2.50"]``.

    Splits as :func:`parse_row` does (brackets dropped, minus look-alikes made ``-``) but reads no number.
    """
    stripped = str(text).strip().strip("[](){}").strip()
    pieces = [piece for piece in re.split(r"[,;\s]+", stripped) if piece]
    return [piece.strip("[](){}").translate(_MINUS_LOOKALIKES) for piece in pieces]


def load_matrix(path: str | Path) -> np.ndarray:
    """Read a CSV file of numbers into a float64 matrix (one row per line).

    Accepts what spreadsheets and editors save: an optional header line of column names, commas,
    semicolons (with decimal commas, as European spreadsheets write them) or tabs, Windows line
    endings, a byte-order mark, blank lines. Raises ``ValueError`` naming the line and column for a
    ragged row, a cell that is not a number, NaN or infinity, and for an empty file.
    """
    given = path
    try:
        path = Path(path)
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise ValueError(f"There is no file at {path}.") from None
    except IsADirectoryError:
        raise ValueError(f"{path} is a folder, not a CSV file.") from None
    except UnicodeDecodeError:
        raise ValueError(f"{path} is not a text file (save it as CSV, UTF-8).") from None
    except OSError as problem:  # e.g. no permission to read it
        raise ValueError(f"{path} could not be read: {problem.strerror or problem}.") from None
    except (TypeError, ValueError):  # not a path at all (None), or one with a NUL character in it
        raise ValueError(
            f"load_matrix needs the path of a CSV file, such as 'data/residual_matrix.csv'; got {given!r}."
        ) from None
    return parse_matrix_text(text, source=path.name)


def parse_matrix_text(text: str, source: str = "the text") -> np.ndarray:
    """Read CSV text into a float64 matrix; see :func:`load_matrix` for what is accepted."""
    lines = [(number, line) for number, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not lines:
        raise ValueError(f"{source} is empty: there are no numbers in it.")
    delimiter = _guess_delimiter(lines[0][1])
    decimal_comma = delimiter == ";" and any("," in line for _, line in lines)
    rows: list[list[str]] = []
    line_numbers: list[int] = []
    for number, line in lines:
        try:
            cells = next(csv.reader([line], delimiter=delimiter, skipinitialspace=True))
        except csv.Error as problem:  # e.g. a cell longer than the csv module's limit
            raise ValueError(f"{source}, line {number}: this line cannot be read as CSV ({problem}).") from None
        if decimal_comma:
            cells = [cell.replace(",", ".") for cell in cells]
        rows.append(cells)
        line_numbers.append(number)
    if _looks_like_header(rows[0]):
        rows, line_numbers = rows[1:], line_numbers[1:]
        if not rows:
            raise ValueError(f"{source} has a header line but no rows of numbers.")
    width = len(rows[0])
    matrix = np.empty((len(rows), width), dtype=np.float64)
    for cells, number in zip(rows, line_numbers):
        if len(cells) != width:
            raise ValueError(
                f"{source}, line {number}: this row has {len(cells)} value{'s' if len(cells) != 1 else ''} but "
                f"the first row has {width}; every row needs the same number of values."
            )
    for row_index, (cells, number) in enumerate(zip(rows, line_numbers)):
        for column, cell in enumerate(cells, start=1):
            try:
                matrix[row_index, column - 1] = parse_number(cell)
            except ValueError as problem:
                raise ValueError(f"{source}, line {number}, column {column}: the cell {problem}.") from None
    return matrix


def _guess_delimiter(first_line: str) -> str:
    for delimiter in (";", "\t", ","):
        if delimiter in first_line:
            return delimiter
    return ","


def _looks_like_header(cells: list[str]) -> bool:
    """A first line whose every cell is a name (it has a letter and is not a number or NaN) is a header."""

    def is_name(cell: str) -> bool:
        cell = cell.strip()
        if not cell:
            return False
        if _NUMBER.fullmatch(cell.translate(_MINUS_LOOKALIKES)):
            return False  # a number, even one too large to store (1e400), is data, not a name
        if not any(ch.isalpha() for ch in cell):
            return False  # e.g. "1,2" or "0.5.1": a broken number, reported as such rather than dropped
        return cell.lower().lstrip("+-") not in {"nan", "na", "n/a", "inf", "infinity"}

    return all(is_name(cell) for cell in cells)


def load_residual() -> np.ndarray:
    """The lesson's 5×3 residual output matrix (5 tokens, 3 features), as float64.

    Introduced in notebook 01 (notebook 00 runs it once to check the set-up).
    """
    return load_matrix(RESIDUAL_CSV)


def load_published_output() -> np.ndarray:
    """The lesson's published "complete output" table, exactly as printed. It is wrong on all five rows
    (row 3 closest).

    Introduced in notebook 07, where it is checked against the true LayerNorm output.
    """
    return load_matrix(PUBLISHED_OUTPUT_CSV)


def smallest_spread_question(x) -> dict:
    """Notebook 01's check-yourself question (which token has the smallest spread?) for the matrix
    ``x``, as the keyword arguments of ``widgets.multiple_choice``: its answer, computed from ``x``,
    stays out of the learner's cell."""
    x = np.asarray(x, dtype=np.float64)
    flattest = int(x.var(axis=1).argmin())  # the row with the smallest variance, the spread notebook 03 measures
    by_eye = int(np.ptp(x, axis=1).argmin())  # the hint's rule: largest minus smallest value
    hint = "For each row, compare its largest and smallest value."
    if by_eye != flattest:  # on this matrix the two rules disagree: the hint must not lead to a wrong answer
        hint = (
            f"Largest minus smallest points to row {by_eye + 1} here, but the values of row {flattest + 1} sit "
            "closer to their mean taken together: that is the spread notebook 03 measures (the variance)."
        )
    return {
        "question": "Which token has the smallest spread?",
        "options": [f"row {i + 1}" for i in range(x.shape[0])],
        "answer": f"row {flattest + 1}",
        "explanation": "Its three values are almost equal." if x.shape[1] == 3 else "Its values are almost equal.",
        "hint": hint,
    }
