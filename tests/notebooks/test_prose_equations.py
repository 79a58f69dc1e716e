"""Arithmetic in the notebooks' prose holds at the precision it is printed with (tests/prose_equations.py).

tests/notebooks/test_prose_numbers.py checks that each quoted number is *some* computed fact; this checks that
the numbers a sentence puts on the two sides of "=" or "≈" really are equal, so a number that is a
fact elsewhere but wrong where it stands ("(0.472 + 0.555 + 0.003) / 3 ≈ 0.472") fails.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest

from helpers.core import published_table as published_check

from prose_equations import equations

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb")) + sorted((ROOT / "lecture").glob("*.ipynb"))
CHROME_TAGS = {"chrome-header", "chrome-setup", "chrome-footer", "chrome-contents"}


def _markdown(path):
    notebook = nbformat.read(path, as_version=4)
    return [
        (index, cell.source)
        for index, cell in enumerate(notebook.cells)
        if cell.cell_type == "markdown" and not CHROME_TAGS & set(cell.metadata.get("tags", []))
    ]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_equation_in_the_prose_holds_at_its_printed_precision(path):
    wrong = [
        f"cell {index}: {link}"
        for index, source in _markdown(path)
        for chain in equations(source)
        for link in chain
        if not link.holds
    ]
    assert not wrong, "\n".join(wrong)


def test_the_series_has_equations_to_check():
    links = [
        link for path in NOTEBOOKS for _, source in _markdown(path) for chain in equations(source) for link in chain
    ]
    assert len(links) >= 25  # the hand computations of 02–08; if the reader stops finding them, this fails


@pytest.mark.parametrize(
    "text, holds",
    [
        (r"$0.057^2 \approx 0.003$", True),
        (r"$0.057^2 \approx 0.004$", False),
        (r"$(0.472 + 0.555 + 0.003) / 3 = 1.030 / 3 \approx 0.343$", True),
        (r"$(0.472 + 0.555 + 0.003) / 3 = 1.030 / 3 \approx 0.472$", False),
        (r"$$\mu = \frac{1.133 + (-0.299) + 0.503}{3} = \frac{1.337}{3} \approx 0.446$$", True),
        (r"$$\frac{0.687}{0.586} \approx 1.172 \qquad \frac{-0.745}{0.586} \approx -1.272$$", False),
        ("- feature 2: 1 × (−1.271) + 0.5 = −0.771", True),
        ("Row 1: 1.40² + (−1.52)² + 0.12² = 1.96 + 2.3104 + 0.0144 = 4.2848. That", True),
        ("Row 1: 1.40² + (−1.52)² + 0.12² = 1.96 + 2.3104 + 0.0144 = 4.2948. That", False),
        ("its standard deviation becomes √0.00001 ≈ 0.00316, and", True),
        ("within √3 ≈ 1.7321 of the origin", True),
        ("within √3 ≈ 1.7331 of the origin", False),
        ("a total of 10,000 = 9,999 + 1 rows", True),
    ],
)
def test_the_reader_judges_each_link(text, holds):
    links = [link for chain in equations(text) for link in chain]
    assert links, f"no equation read in {text!r}"
    assert all(link.holds for link in links) is holds, [str(link) for link in links]


@pytest.mark.parametrize(
    "text",
    [
        "add up to at most n − 1 = 2.",
        "ε = 1e-5, that is 0.00001.",
        "σ² = 0.1791, and ε = 1e-05",
        "1 MB = 1,000,000 bytes",
    ],
)
def test_symbols_are_not_arithmetic(text):
    assert [link for chain in equations(text) for link in chain] == []


# Counts written in words that a computed collection decides: (notebook, phrase, how many there are).
NUMBER_WORDS = {w: n for n, w in enumerate("zero one two three four five six seven eight nine ten".split())}
COUNTED = [
    ("07_whole_matrix.ipynb", r"\b(\w+) conventions\b", lambda: len(published_check.CONVENTIONS)),
]


@pytest.mark.parametrize("name, phrase, count", COUNTED, ids=[c[0] for c in COUNTED])
def test_counts_in_words_match_what_they_count(name, phrase, count):
    texts = [source for _, source in _markdown(ROOT / "notebooks" / name)]
    said = [m.group(1).lower() for text in texts for m in re.finditer(phrase, text)]
    said = [word for word in said if word in NUMBER_WORDS]
    assert said, f"{name} no longer says how many ({phrase}); update COUNTED"
    assert all(NUMBER_WORDS[word] == count() for word in said), (said, count())
