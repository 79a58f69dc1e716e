"""The published table's errors, as the data shows them: the count of wrong rows and the closest row
are derived here from the data, and README, notebook 00 and notebook 07 must say the same."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

import helpers
from helpers.core.published_table import check_published_output

ROOT = Path(__file__).resolve().parents[2]
WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


@pytest.fixture(scope="module")
def check():
    return check_published_output(helpers.load_published_output(), helpers.load_residual())


def _prose(path: Path) -> str:
    if path.suffix == ".md":
        return path.read_text(encoding="utf-8")
    nb = nbformat.read(path, as_version=4)
    return "\n".join(cell.source for cell in nb.cells if cell.cell_type == "markdown")


def _claim(check) -> str:
    """How the prose must state the count: "all five" when every row is wrong, else "four of its five"."""
    wrong = [row for row in check.rows if not row.matches]
    total = WORDS[len(check.rows)]
    return f"all {total}" if len(wrong) == len(check.rows) else f"{WORDS[len(wrong)]} of its {total}"


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.mark.parametrize("name", ["README.md", "notebooks/00_contents.ipynb", "notebooks/07_whole_matrix.ipynb"])
def test_the_stated_count_of_wrong_rows_is_the_count_in_the_data(name, check):
    prose = _flat(_prose(ROOT / name))
    claim = _claim(check)
    assert claim in prose, f"{name} must say the published table is wrong on {claim!r} rows, as the data shows"
    for count in range(1, len(check.rows)):
        other = f"{WORDS[count]} of its {WORDS[len(check.rows)]}"
        if other != claim:
            assert other not in prose, f"{name} still says {other!r}"


@pytest.mark.parametrize("name", ["README.md", "notebooks/07_whole_matrix.ipynb"])
def test_the_closest_row_named_is_the_closest_in_the_data(name, check):
    closest = min(check.rows, key=lambda row: row.max_difference)
    assert f"row {closest.row} is the closest" in _flat(_prose(ROOT / name)).lower()


def test_which_pencil_check_catches_which_row_matches_notebook_07(check):
    prose = _flat(_prose(ROOT / "notebooks/07_whole_matrix.ipynb"))
    assert not check.rows_where("matches"), "the data now has a right row: update the errata sentences"
    caught_by_sum = [row.row for row in check.rows if not row.sums_to_zero]
    caught_by_squares = [row.row for row in check.rows if not row.squares_within_n]
    assert caught_by_sum == [] and "row sums catch none" in prose
    assert "rows " + " and ".join(map(str, caught_by_squares)) + " break check 2" in prose
