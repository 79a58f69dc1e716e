"""Notebook 13's gallery as the learner reads it: the whole table on the lesson's matrix, word for word as
the notebook stores it; the cells of an implementation that cannot be measured, cannot run, gives NaN, hides
its divisor or cannot be told from PyTorch; and its HTML, eleven columns on one line each, narrowly padded."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from helpers.forensics import display
from helpers.forensics.gallery import GalleryEntry, gallery, mystery, one_pass, pytorch_layer_norm
from helpers.forensics.table import GalleryComparison, compare_gallery

from conftest import LESSON_X

NOTEBOOK_13_GALLERY = """\
Every LayerNorm of the gallery, fingerprinted and run on the 5 × 3 matrix
  implementation         = PyTorch?  departs from PyTorch in      mean?  variance   ε placement  ε      axis     one pass?  change on x     on x + 100, float32
  PyTorch nn.LayerNorm   ✓ yes       nothing                      yes    ÷ n        inside √     1e-05  rows     no         0               0
  the lesson's module    ✓ yes       nothing                      yes    ÷ n        inside √     1e-05  rows     no         0               0
  Annotated Transformer  ✗ no        ÷ (n − 1), ε + std, ε value  yes    ÷ (n − 1)  + std        1e-06  rows     no         0.2595 (row 3)  0.259 (row 3)
  one-pass variance      ✗ no        one pass                     yes    ÷ n        inside √     1e-05  rows     yes        0               0.114 (row 5)
  Keras default          ✗ no        ε value                      yes    ÷ n        inside √     0.001  rows     no         0.1670 (row 5)  0.167 (row 5)
  BERT                   ✗ no        ε value                      yes    ÷ n        inside √     1e-12  rows     no         0.0020 (row 5)  0.002 (row 5)
  RMSNorm (LLaMA 1)      ✗ no        no mean, ε value             no     ÷ n        inside √     1e-06  rows     no         1.7570 (row 5)  2.406 (row 3)
  scalar γ               ✓ yes       one γ                        yes    ÷ n        inside √     1e-05  rows     no         0               0
  wrong axis             ✗ no        axis                         yes    ÷ n        inside √     1e-05  columns  no         1.8557 (row 5)  1.856 (row 5)
  change on x: the largest |output − PyTorch's output| on x (γ = 1, β = 0), and the row where it is; 0 means 0 at the places shown.
  on x + 100, float32: the same, for x + 100 computed in float32 (LayerNorm's output should not move)."""


def test_the_gallery_on_the_lessons_matrix_reads_as_notebook_13_prints_it():
    assert str(compare_gallery(LESSON_X, gallery())) == NOTEBOOK_13_GALLERY


def _cells(comparison) -> dict[str, dict[str, str]]:
    """Each implementation's row of the gallery, as {column heading: the words in its cell}."""
    view = display.gallery_view(comparison)
    return {row.cells[0].text: {h: c.text for h, c in zip(view.header, row.cells, strict=True)} for row in view.rows}


def _raises(x):
    raise ValueError("not today")


def _twice_pytorchs(x):
    return 2 * pytorch_layer_norm(x)


# Row 2 has equal values: the mystery (no ε) divides 0 by 0 there.
WITH_A_CONSTANT_ROW = np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0], [0.5, -1.0, 2.0], [2.0, 0.0, 1.0]])


@pytest.fixture(scope="module")
def odd_gallery():
    entries = [
        GalleryEntry("raises", _raises, "a function that always raises"),
        GalleryEntry("twice PyTorch's", _twice_pytorchs, "2 × LayerNorm: the factor hides the divisor"),
        GalleryEntry("mystery", mystery, "notebook 13's check-yourself question"),
    ]
    return compare_gallery(WITH_A_CONSTANT_ROW, entries)


def test_an_implementation_that_cannot_be_measured_or_run_says_so_with_dashes(odd_gallery):
    row = _cells(odd_gallery)["raises"]
    assert {k: v for k, v in row.items() if k not in ("implementation", "change on x", "on x + 100, float32")} == {
        "= PyTorch?": "✗ no",
        "departs from PyTorch in": "could not be measured",
        "mean?": "—",
        "variance": "—",
        "ε placement": "—",
        "ε": "—",
        "axis": "—",
        "one pass?": "—",
    }
    assert (row["change on x"], row["on x + 100, float32"]) == ("could not run", "could not run")


def test_a_row_that_becomes_nan_is_named_with_its_row_number_from_1(odd_gallery):
    row = _cells(odd_gallery)["mystery"]
    assert (row["change on x"], row["on x + 100, float32"]) == ("NaN (row 2)", "NaN (row 2)")
    assert [row[k] for k in ("= PyTorch?", "departs from PyTorch in", "variance", "ε placement", "ε")] == [
        "✗ no",
        "no ε",
        "÷ n",
        "none",
        "0",
    ]


def test_a_divisor_hidden_by_a_factor_reads_cannot_tell_and_its_eps_a_dash(odd_gallery):
    row = _cells(odd_gallery)["twice PyTorch's"]
    assert [row[k] for k in ("departs from PyTorch in", "variance", "ε placement", "ε", "change on x")] == [
        "divisor?, × factor",
        "cannot tell",
        "inside √",
        "—",
        "1.3363 (row 1)",
    ]


def test_a_verdict_that_cannot_be_told_reads_cannot_tell_and_is_not_flagged():
    """A fingerprint whose match with PyTorch is unknown (matches_torch None) says so; only a ✗ is shaded."""
    found = compare_gallery(LESSON_X, [GalleryEntry("one pass", one_pass, "E[x²] − E[x]²")]).results[0]
    unknown = dataclasses.replace(found, fingerprint=dataclasses.replace(found.fingerprint, matches_torch=None))
    comparison = GalleryComparison(LESSON_X, (unknown,))
    assert _cells(comparison)["one pass"]["= PyTorch?"] == "? cannot tell"
    assert re.split(r" {2,}", str(comparison).splitlines()[2].strip())[:3] == ["one pass", "? cannot tell", "one pass"]
    assert [row.flagged for row in display.gallery_view(comparison).rows] == [False]


def test_the_gallerys_html_keeps_every_cell_on_one_line_with_narrow_padding():
    """gallery_view's promise: eleven columns, none wraps, the padding narrower (6 px, not 10) than other tables."""
    page = compare_gallery(LESSON_X, gallery()[:2])._repr_html_()
    styles = re.findall(r'<t[hd] style="([^"]*)">', page[page.index("<table") :])
    assert len(styles) == 11 * 3  # the heading row and two implementations
    assert set(styles) == {"padding:2px 6px;border-bottom:1px solid #ddd;text-align:left;white-space:nowrap"}
