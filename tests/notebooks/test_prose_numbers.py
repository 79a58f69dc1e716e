"""Any result quoted in a notebook's prose is checked against the computed value.

Every decimal number in every markdown cell (except the generated chrome cells) must be one of the
facts in tests/prose_facts.py, at the places it is written with. Whole numbers ("row 1",
"3 features", "notebook 07") are not checked; numbers in e-notation (1e-5) are.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from prose_facts import build_facts

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_PATHS = sorted((ROOT / "notebooks").glob("*.ipynb"))
CHROME_TAGS = {"chrome-header", "chrome-setup", "chrome-footer", "chrome-contents"}

# Text that holds digits but no quoted result: link targets, bare addresses, HTML tags.
NOT_PROSE = re.compile(r"\]\([^)]*\)|https?://\S+|<[^>]+>")
# A number: an optional sign (a minus or U+2212 "−" directly before the digits, and not right
# after a letter, digit or bracket, where it means "take away"), digits, and an optional exponent.
NUMBER = re.compile(
    r"(?<![\w.])"  # not part of a name (f1, x_1) or of a longer number
    r"((?:(?<![\w)\]}])[-−+])?"
    r"(?:\d+\.\d+|\.\d+|\d+)"
    r"(?:[eE][-−+]?\d+)?)"
    r"(?![\w.]*\d)"
)


def quoted_numbers(markdown: str) -> list[str]:
    """The decimal and e-notation numbers written in a piece of markdown, in order."""
    text = NOT_PROSE.sub(" ", markdown)
    return [match for match in NUMBER.findall(text) if re.search(r"[.eE]", match)]


@pytest.fixture(scope="module")
def facts():
    return build_facts()


def _prose_cells(path: Path):
    nb = nbformat.read(path, as_version=4)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and not CHROME_TAGS & set(cell.get("metadata", {}).get("tags", [])):
            yield index, cell.source


@pytest.mark.skipif(not NOTEBOOK_PATHS, reason="notebooks/ has no notebooks yet")
@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=[path.name for path in NOTEBOOK_PATHS])
def test_every_number_in_the_prose_is_computed(path, facts):
    unknown = []
    for index, source in _prose_cells(path):
        for number in quoted_numbers(source):
            if facts.explain(number, notebook=path.name[:2]) is None:  # scoped to the notebook stating it
                unknown.append(f"{path.name}, cell {index}: {number}")
    assert not unknown, (
        "These numbers in markdown are not computed anywhere (tests/prose_facts.py); fix the prose, "
        "or add the fact with its computation:\n" + "\n".join(unknown)
    )


# --- The checker itself -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "markdown, expected",
    [
        ("mean ≈ 0.446, exact 0.44567", ["0.446", "0.44567"]),
        ("outputs −1.27 and -0.745 and (−0.299)²", ["−1.27", "-0.745", "−0.299"]),
        ("$1.133 - 0.446 = 0.687$ and $\\sqrt{0.343} \\approx 0.586$", ["1.133", "0.446", "0.687", "0.343", "0.586"]),
        ("eps is 1e-5 (`eps=1e-5`), BERT uses 1e−12", ["1e-5", "1e-5", "1e−12"]),
        ("row 1 has 3 features; notebook 07; f1, x_1, 10,000", []),
        ("squares sum to 4.28.", ["4.28"]),
        ("[notebook 3](03_variance.ipynb) at https://example.org/v1.2 <img width=1.5>", []),
    ],
)
def test_quoted_numbers_are_found(markdown, expected):
    assert quoted_numbers(markdown) == expected


@pytest.mark.parametrize(
    "number",
    [
        "0.446",
        "0.44567",
        "0.4457",
        "−1.2707",
        "-1.27",
        "1.17",
        "0.10",
        "0.687",
        "−0.745",
        "0.343",
        "0.586",
        "0.58602",
        "4.28",
        "1.40",
        "−0.62",
        "1.49",
        "−0.89",
        "1e-5",
        "1e-12",
        "1e-3",
        "1.732",
    ],
)
def test_known_results_are_facts(number, facts):
    assert facts.explain(number) is not None, f"{number} should be a fact"


@pytest.mark.parametrize(
    "number",
    [
        "0.447",  # row 1's mean mis-rounded (0.44567)
        "1.28",
        "4.29",
        "0.589",
        "1.1730",
        "1e-7",
        "−0.446",
        "0.0979",
        "0.3435",
    ],
)
def test_wrong_numbers_are_not_facts(number, facts):
    assert facts.explain(number) is None, f"{number} matched {facts.explain(number)!r}"


def test_facts_are_scoped_to_the_notebook_that_states_them(facts):
    # notebook 07's "published minus true output" numbers are not facts in notebook 02
    gap = facts.explain("0.0194")
    assert gap is not None and "notebook 07" in gap
    assert facts.explain("0.0194", notebook="07") is not None
    assert facts.explain("0.0194", notebook="02") is None
