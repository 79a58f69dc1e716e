"""Statements a sharp student would challenge, each re-derived here and checked where it is made.

Every claim below is computed first (numpy, exact fractions, torch), then the prose is read: the lecture,
the lecturer's notes, the notebooks' markdown, data/README.md, README.md and the helpers' docstrings. A
statement the computation contradicts must not come back in any of them, and the corrected one must say
what the computation says.
"""

from __future__ import annotations

import ast
import functools
import math
import re
from fractions import Fraction
from pathlib import Path

import nbformat
import numpy as np

import helpers
from helpers.core.layernorm import round_half_away_from_zero
from helpers.core.published_table import check_published_output

ROOT = Path(__file__).resolve().parents[2]
LECTURE = ROOT / "lecture" / "layernorm_lecture.ipynb"
X = helpers.load_residual()


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _markdown(path: Path) -> list[str]:
    return [cell.source for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "markdown"]


def _docstrings(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = [tree, *(n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)))]
    return [doc for doc in map(ast.get_docstring, nodes) if doc]


@functools.cache
def prose() -> dict[str, list[str]]:
    """Every place a statement can be made: {where: [paragraphs or cells]}; read once, when first asked."""
    found = {"lecture": _markdown(LECTURE)}
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        found[f"notebooks/{path.name}"] = _markdown(path)
    for path in [*sorted((ROOT / "lecturer").glob("*.md")), ROOT / "data" / "README.md", ROOT / "README.md"]:
        found[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8").split("\n\n")
    for path in sorted((ROOT / "helpers").rglob("*.py")):
        found[str(path.relative_to(ROOT))] = _docstrings(path)
    return found


def where(pattern: str) -> list[str]:
    """The places (file: text) where ``pattern`` (a regular expression, case ignored) is said."""
    hits = []
    for name, parts in prose().items():
        for part in parts:
            for match in re.finditer(pattern, _flat(part), re.I):
                hits.append(f"{name}: …{_flat(part)[max(0, match.start() - 60) : match.end() + 60]}…")
    return hits


def _lecture_cell(start: str) -> str:
    (cell,) = [c for c in _markdown(LECTURE) if c.startswith(start)]
    return _flat(cell)


# ---------------------------------------------------------------------------------------------
# γ and β are per feature, shared by every token: they cannot give a token back its own scale


def test_gamma_and_beta_cannot_give_the_tokens_their_scales_back():
    normalised = helpers.layer_norm(X)
    # The best γ and β per feature (least squares over the five tokens) still leave X far from reached.
    for j in range(X.shape[1]):
        design = np.column_stack([normalised[:, j], np.ones(len(X))])
        _, residual, *_ = np.linalg.lstsq(design, X[:, j], rcond=None)
        assert residual[0] > 0.05, f"feature {j + 1}: one γ and β would undo the normalisation of every token"
    said = where(r"undo (or reshape )?the normalisation|get (it|its scale) back|gets? a token's scale back")
    said += where(r"give (it|a token|each token) (back )?its (own )?scale back")
    assert not said, "γ and β are said to undo the normalisation:\n" + "\n".join(said)
    assert "the same for every token" in _lecture_cell("## γ and β: scale and shift")
    assert "cannot give a token back its own scale" in _lecture_cell("## Summary")


def test_with_gamma_and_beta_an_output_row_need_not_sum_to_0():
    gamma, beta = np.array([2.0, 1.0, 0.0]), np.array([0.0, 0.0, 0.5])  # the γ and β slide's
    row = helpers.layer_norm(X[0], gamma, beta)
    assert abs(row.sum() - 1.575) < 5e-4 and np.sum(row**2) > 3
    assert "1.575" in _lecture_cell("**γ and β (4 min).**")
    # Wherever the pencil checks are stated for any LayerNorm output, γ = 1 and β = 0 are said with them.
    unqualified = [
        hit
        for name, parts in prose().items()
        if not name.startswith("helpers/")  # docstrings state γ = 1, β = 0 at the top of the module
        for part in parts
        if re.search(r"(layernorm output|output row)[^.]*(sums? to 0|squares)", _flat(part), re.I)
        and not re.search(r"γ = 1|gamma = 1", part)
        for hit in [f"{name}: {_flat(part)[:160]}"]
    ]
    assert not unqualified, "the pencil checks stated without γ = 1, β = 0:\n" + "\n".join(unqualified)


# ---------------------------------------------------------------------------------------------
# Row 5 by hand: the damage is done at the squares (and their average), not by dividing by the std


def test_row_5_drifts_at_the_squares_and_the_division_only_passes_it_on():
    hand = helpers.layer_norm_steps(X[4], decimals=3)
    exact = helpers.layer_norm_steps(X[4])
    assert hand.rounding_drift()[0].stage == "squared_differences", "the first stage to drift is not the squares"
    variance_low = 1 - hand.variance / exact.variance
    std_low = 1 - hand.std / exact.std
    too_large = np.asarray(hand.normalised) / np.asarray(exact.normalised) - 1
    assert round(100 * variance_low) == 12 and round(100 * std_low) == 6
    assert 6 <= 100 * too_large.min() and 100 * too_large.max() <= 8
    # Division adds no error of its own: the hand differences over the hand std, unrounded, give the same
    # values to within the last place kept, and their relative error is the std's plus the differences'.
    quotient = np.asarray(hand.differences) / hand.std
    assert np.max(np.abs(quotient - np.asarray(hand.normalised))) <= 0.0005 + 1e-12
    differences_off = np.asarray(hand.differences) / np.asarray(exact.differences) - 1
    assert np.allclose(1 + too_large, (1 + differences_off) / (1 - std_low), atol=0.001)
    notes = _lecture_cell("**Rounding (4 min).**")
    for figure in ("12% too small", "6% small", "6 to 8% too large", "adds no error of its own"):
        assert figure in notes, figure
    said = where(r"dividing by (its|a) (tiny|small) (std|standard deviation)( magnifies|\.\))")
    assert not said, "the drift is blamed on the division:\n" + "\n".join(said)


# ---------------------------------------------------------------------------------------------
# ε = 1e-3: which rows change, at how many places


def _rows_changed(places: int) -> list[int]:
    a, b = helpers.layer_norm(X, eps=1e-5), helpers.layer_norm(X, eps=1e-3)
    return [
        i + 1
        for i in range(len(X))
        if not np.array_equal(round_half_away_from_zero(a[i], places), round_half_away_from_zero(b[i], places))
    ]


def test_keras_eps_changes_rows_2_and_5_at_2_places_and_every_row_at_3():
    assert _rows_changed(2) == [2, 5] and _rows_changed(3) == [1, 2, 3, 4, 5]
    variance = X.var(axis=1)
    shrink = 1 - np.sqrt((variance + 1e-5) / (variance + 1e-3))
    assert round(100 * shrink[4]) == 12 and int(np.argmax(shrink[:4])) == 1 and round(100 * shrink[1], 2) == 0.24
    notes = _lecture_cell("**ε (4 min).**")
    assert "row 5 by 12%" in notes and "0.24% (row 2)" in notes and "third decimal place" in notes
    assert "moves row 2" in notes and "2 places" in notes
    said = where(r"only rows whose variance is not much bigger than ε: here row 5|ε changes only row 5")
    assert not said, "ε is said to change only row 5:\n" + "\n".join(said)


# ---------------------------------------------------------------------------------------------
# "Right after the residual add" is the lesson's block (Post-LN), not every transformer


def test_after_the_residual_add_is_said_of_post_ln_only():
    unqualified = [
        hit
        for name, parts in prose().items()
        for part in parts
        if re.search(r"(right after|follows|after) the residual (add|connection)", _flat(part), re.I)
        and not re.search(r"post-ln|the lesson's|the lesson puts|original transformer", _flat(part), re.I)
        for hit in [f"{name}: {_flat(part)[:160]}"]
    ]
    assert not unqualified, "LayerNorm placed after the residual add in every block:\n" + "\n".join(unqualified)


# ---------------------------------------------------------------------------------------------
# The circle: a constant row is not on it


def test_a_constant_row_is_at_the_centre_so_not_every_row_is_on_the_circle():
    assert np.allclose(helpers.layer_norm(np.array([0.7, 0.7, 0.7])), 0, atol=1e-12)  # the centre, up to rounding
    radius = np.sqrt(np.sum(helpers.layer_norm(X) ** 2, axis=1))
    assert np.all(np.abs(radius - math.sqrt(3)) < 0.01), "X's rows are no longer on the circle"
    said = where(r"every (normalised )?row (lies|lands) on (one|a|the) circle|every normalised row lies")
    assert not said, "every row is said to lie on the circle:\n" + "\n".join(said)
    assert "constant row" in _lecture_cell("**The circle (3 min).**")


# ---------------------------------------------------------------------------------------------
# The unbiased variance: how big its error is, and what it does (the answer to "would training notice?")


def test_the_unbiased_variance_is_one_factor_on_the_normalised_output():
    import torch

    from helpers.reference import LessonLayerNorm, UnbiasedVarianceLayerNorm

    n, eps = X.shape[1], helpers.DEFAULT_EPS
    t = torch.tensor(X)
    with torch.no_grad():
        unbiased = UnbiasedVarianceLayerNorm(n, eps).double()(t).numpy()
        scaled_eps = LessonLayerNorm(n, eps * (n - 1) / n).double()(t).numpy()
        # γ larger by √(n/(n − 1)) makes the mistaken module give the right LayerNorm (with ε so scaled)
        fixed = UnbiasedVarianceLayerNorm(n, eps * n / (n - 1)).double()
        fixed.scale.fill_(math.sqrt(n / (n - 1)))
        right = fixed(t).numpy()
    assert np.allclose(unbiased, math.sqrt((n - 1) / n) * scaled_eps, atol=1e-12)
    assert np.allclose(right, helpers.layer_norm(X), atol=1e-12)
    notes = _lecture_cell("**PyTorch (2 min).**")
    assert f"{math.sqrt(2 / 3):.4f} for n = 3" in notes and f"{math.sqrt(767 / 768):.5f} for n = 768" in notes
    assert f"{100 * (1 - math.sqrt(767 / 768)):.3f}%" in notes and round(100 * (1 - math.sqrt(2 / 3))) == 18
    assert "18% too small" in notes and "training hardly notices" in notes and "before γ" in notes


# ---------------------------------------------------------------------------------------------
# The published table: the count of wrong rows, everywhere it is stated


def test_the_count_of_wrong_rows_is_the_datas_everywhere():
    check = check_published_output(helpers.load_published_output(), X)
    wrong = sum(not row.matches for row in check.rows)
    assert wrong == len(check.rows) == 5, "the data changed: restate the count below"
    stale = where(r"\b(one|two|three|four) of (its|the) five rows")
    assert not stale, "a stale count of the published table's wrong rows:\n" + "\n".join(stale)
    closest = min(check.rows, key=lambda row: row.max_difference).row
    for name in ("data/README.md", "helpers/core/data.py"):
        text = _flat(" ".join(prose()[name]))
        assert re.search(r"all five (of its )?rows", text), f"{name} does not say all five rows are wrong"
        assert f"row {closest}" in text, f"{name} does not name the closest row, row {closest}"


def test_the_rounding_allowance_is_half_a_unit_of_the_printed_places():
    check = check_published_output(helpers.load_published_output(), X)
    assert Fraction(check.half_unit).limit_denominator(10**6) == Fraction(1, 2 * 10**check.places)
    row_2 = [Fraction(f"{v:.2f}") for v in helpers.load_published_output()[1]]
    assert sum(v * v for v in row_2) > 3  # as printed, a pencil "proves" row 2 wrong ...
    moved = sum((abs(v) - Fraction(1, 200)) ** 2 for v in row_2)
    assert moved <= 3 and check.rows[1].squares_within_n  # ... until the rounding is allowed for
