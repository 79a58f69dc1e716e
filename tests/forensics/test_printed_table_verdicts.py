"""Notebook 13's "Which LayerNorm prints this table?": the evidence table and its ✓ / ✗ sentences read whole,
for a table nothing explains (the lesson's published one), one two conventions explain (the notebook's
typed table, the annotated transformer's to 3 places) and PyTorch's own table with two rows spoiled, where
only some lines are explained and the rows no convention gives are named."""

from __future__ import annotations

import numpy as np

from helpers.forensics.table import fingerprint_table, read_table

from conftest import LESSON_X, PUBLISHED_OUTPUT, numpy_layer_norm

NOTEBOOK_13_TYPED = """\
0.958, -1.038, 0.080
-0.839, 1.107, -0.268
0.567, 0.587, -1.155
1.028, -0.970, -0.057
-0.470, 1.148, -0.679"""

PUBLISHED_VERDICT = """\
Which LayerNorm prints this table? (2 places; γ = 1, β = 0)
  statistics over  convention                 lines explained  which  common ε     well-known ε in range
  rows             ÷ n, ε inside √ (PyTorch)  0 of 5           none   no common ε  —
  rows             ÷ (n − 1), ε inside √      0 of 5           none   no common ε  —
  rows             ÷ n, ε outside √           0 of 5           none   no common ε  —
  rows             ÷ (n − 1), ε outside √     0 of 5           none   no common ε  —
  columns          ÷ n, ε inside √ (PyTorch)  0 of 3           none   no common ε  —
  columns          ÷ (n − 1), ε inside √      0 of 3           none   no common ε  —
  columns          ÷ n, ε outside √           0 of 3           none   no common ε  —
  columns          ÷ (n − 1), ε outside √     0 of 3           none   no common ε  —
  ✗ No single convention and ε explains every row to 2 places.
  ✗ Rows no convention gives from x with any ε: 1, 2, 3, 4, 5."""

TYPED_VERDICT = """\
Which LayerNorm prints this table? (3 places; γ = 1, β = 0)
  statistics over  convention                 lines explained  which          common ε      well-known ε in range
  rows             ÷ (n − 1), ε inside √      5 of 5           1, 2, 3, 4, 5  0 to 1.6e-06  BERT (1e-12), Flax, LLaMA 1 (1e-06), no ε (0)
  rows             ÷ (n − 1), ε outside √     5 of 5           1, 2, 3, 4, 5  0 to 5.8e-06  BERT (1e-12), Flax, LLaMA 1 (1e-06), no ε (0)
  rows             ÷ n, ε inside √ (PyTorch)  5 of 5           1, 2, 3, 4, 5  no common ε   —
  rows             ÷ n, ε outside √           5 of 5           1, 2, 3, 4, 5  no common ε   —
  columns          ÷ n, ε inside √ (PyTorch)  0 of 3           none           no common ε   —
  columns          ÷ (n − 1), ε inside √      0 of 3           none           no common ε   —
  columns          ÷ n, ε outside √           0 of 3           none           no common ε   —
  columns          ÷ (n − 1), ε outside √     0 of 3           none           no common ε   —
  ✓ Explained to 3 places, with one ε for every line, by: unbiased variance (÷ (n − 1)), eps inside the root, \
statistics over the rows; unbiased variance (÷ (n − 1)), eps outside the root, statistics over the rows."""

SPOILED_VERDICT = """\
Which LayerNorm prints this table? (3 places; γ = 1, β = 0)
  statistics over  convention                 lines explained  which    common ε            well-known ε in range
  rows             ÷ n, ε inside √ (PyTorch)  3 of 5           1, 3, 5  9.5e-06 to 1.4e-05  PyTorch, GPT-2 (1e-05)
  rows             ÷ n, ε outside √           3 of 5           1, 3, 5  8.1e-05 to 0.00011  —
  rows             ÷ (n − 1), ε inside √      0 of 5           none     no common ε         —
  rows             ÷ (n − 1), ε outside √     0 of 5           none     no common ε         —
  columns          ÷ n, ε inside √ (PyTorch)  0 of 3           none     no common ε         —
  columns          ÷ (n − 1), ε inside √      0 of 3           none     no common ε         —
  columns          ÷ n, ε outside √           0 of 3           none     no common ε         —
  columns          ÷ (n − 1), ε outside √     0 of 3           none     no common ε         —
  ✗ No single convention and ε explains every row to 3 places.
  ✗ Rows no convention gives from x with any ε: 2, 4."""


def test_the_lessons_published_table_is_explained_by_no_convention_on_any_row():
    assert str(fingerprint_table(LESSON_X, PUBLISHED_OUTPUT)) == PUBLISHED_VERDICT


def test_the_notebooks_typed_table_is_explained_by_both_n_minus_1_conventions_with_their_eps_ranges():
    found = fingerprint_table(LESSON_X, read_table(NOTEBOOK_13_TYPED, like=LESSON_X))
    assert str(found) == TYPED_VERDICT


def test_a_pytorch_table_with_two_spoiled_rows_lists_the_rows_each_convention_gives_and_the_two_none_gives():
    """Rows 2 and 4 replaced by numbers no LayerNorm of x prints (they do not sum to 0): the ÷ n conventions
    still give rows 1, 3 and 5 with one ε, PyTorch's 1e-5 inside the range of the ε-inside-√ one."""
    printed = np.round(numpy_layer_norm(LESSON_X), 3)
    printed[1], printed[3] = [0.5, 0.5, 0.5], [1.0, -1.0, 0.2]
    assert str(fingerprint_table(LESSON_X, printed)) == SPOILED_VERDICT
