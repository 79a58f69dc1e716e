"""The step explorer's filled equations (helpers/display/formulas.py), checked against their module's rule
with a calculator written here: '"=" is written only when a calculator agrees, i.e. the shown operands,
worked out exactly, give the shown result to the places it is shown with', and "≈" only when they do not.
Each shown result is also the record's own value at those places, and each operand the value of the stage
it names. Rows of many sizes, signs and scales, exact and rounded by hand, with and without γ and β.
"""

from __future__ import annotations

import re
from decimal import Context, Decimal

import numpy as np
import pytest

from helpers.core.layernorm import layer_norm_steps
from helpers.core.validation import InputError
from helpers.display.formatting import STAGE_LABELS
from helpers.display.formulas import (
    APPROX_LEGEND,
    filled_formula,
    filled_formulas_html,
    filled_formulas_table,
    filled_formulas_text,
    mode_text,
)

EXACT = Context(prec=100)
EQUATIONS = ["mean", "differences", "squared_differences", "variance", "variance_plus_eps", "std", "normalised"]
NUMBER = r"-?\d+(?:\.\d+)?(?:e[+-]\d+)?"


def places_of(shown: str) -> int:
    """The places a number is written to: 0.0034 has 4; 2.1667e+150 has 4 − 150."""
    mantissa, _, exponent = shown.partition("e")
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return decimals - int(exponent or 0)


def agrees(value: Decimal, shown: str) -> bool:
    return abs(EXACT.subtract(value, Decimal(shown))) <= Decimal(5).scaleb(-places_of(shown) - 1)


def calculate(text: str):
    """The shown left side worked out exactly: a Decimal, or a tuple of them (None for the elided "…")."""
    python = re.sub(NUMBER, lambda m: f"D('{m.group()}')", text)
    python = python.replace("−", "-").replace("·", "*").replace("²", "**2").replace("…", "None")
    python = re.sub(r"√(D\('[^']+'\))", r"(\1).sqrt(EXACT)", python)
    return eval(python, {"D": Decimal, "EXACT": EXACT})  # noqa: S307 (our own text, numbers and operators only)


def split(record, stage: str) -> tuple[str, str, list[str]]:
    """(left side, "=" or "≈", the shown result's numbers) of one filled equation."""
    text = filled_formula(record, stage)
    label = STAGE_LABELS[stage][1] + " = "
    assert text.startswith(label), text
    left, relation, result = re.fullmatch(r"(.+) ([=≈]) (\S+|\(.+\))", text[len(label) :]).groups()
    return left, relation, result.strip("()").split(", ")


def _rows():
    rng = np.random.default_rng(35)
    rows = [
        ([1.133, -0.299, 0.503], 1e-5),
        ([0.663, 0.779, 0.648], 1e-5),
        ([2.0, 2.0, 2.0], 1e-5),  # constant: x̂ = 0
        ([0.001, 0.0012, 0.0013], 1e-8),
        ([1.3e150, -2e150, 5e149], 1e-5),  # squares in scientific notation
        ([-3.25, 7.5], 0.1),
        (list(np.arange(12.0) * 1.37), 1e-5),  # elided: "…"
        ([0.00042974, -0.00043099], 1e-3),  # the mean needs 4 more places than x shows
        ([0.0231006, -0.0147051, -0.0214127], 1e-5),  # x̂ needs 5 more places
        ([0.000818, 4.2e-05, -0.000193], 1e-3),  # the squares need 5 more places
    ]
    for _ in range(14):
        n = int(rng.integers(2, 7))
        rows.append(
            (list(np.round(rng.normal(0, 10.0 ** rng.integers(-2, 4), n), 6)), float(rng.choice([1e-5, 1e-3, 0.5])))
        )
    return rows


ROWS = _rows()


def _records():
    rng = np.random.default_rng(7)
    for number, (row, eps) in enumerate(ROWS):
        n = len(row)
        affine = (
            {} if number % 2 else {"gamma": np.round(rng.normal(1, 1, n), 3), "beta": np.round(rng.normal(0, 1, n), 3)}
        )
        yield f"row {number} exact", layer_norm_steps(row, eps=eps, **affine)
        if abs(max(row, key=abs)) < 1e6:
            for decimals in (0, 2, 4):
                try:
                    record = layer_norm_steps(row, eps=eps, decimals=decimals, **affine)
                except InputError:  # the std rounds to 0 at these places: nothing to show
                    continue
                yield f"row {number} by hand to {decimals}", record


RECORDS = dict(_records())


@pytest.mark.parametrize("name", RECORDS)
def test_every_equals_sign_is_true_for_the_shown_numbers_and_every_approx_sign_needed(name):
    record = RECORDS[name]
    for stage in [*EQUATIONS, "output"]:
        left, relation, shown = split(record, stage)
        if left == "1 · x̂ + 0":
            continue
        if "…" in left and len(shown) == 1:  # a sum over a long row: its middle operands are elided
            assert relation == "=" and left.endswith(f") / {record.n}"), (stage, left)
            continue
        worked = calculate(left)
        worked = list(worked) if isinstance(worked, tuple) else [worked]
        pairs = [(w, s) for w, s in zip(worked, shown) if w is not None and s != "…"]
        assert len(worked) == len(shown), (stage, left, shown)
        ok = [agrees(w, s) for w, s in pairs]
        if relation == "=":
            assert all(ok), (name, stage, filled_formula(record, stage))
        else:
            assert not all(ok), (name, stage, filled_formula(record, stage))


def _close(value: float, shown: str, tolerance_units: float = 0.5) -> bool:
    unit = 10.0 ** -places_of(shown)
    return abs(value - float(shown)) <= tolerance_units * unit + 1e-12 * max(abs(value), 1.0)


@pytest.mark.parametrize("name", RECORDS)
def test_each_shown_result_is_the_records_own_value_at_its_places(name):
    record = RECORDS[name]
    for stage in [*EQUATIONS, "output"]:
        _, _, shown = split(record, stage)
        values = np.atleast_1d(record.stage(stage))
        if "…" in shown:
            cut = shown.index("…")
            values = [*values[:cut], *values[len(values) - (len(shown) - cut - 1) :]]
            shown = [s for s in shown if s != "…"]
        assert len(values) == len(shown), (stage, shown)
        for value, cell in zip(values, shown):
            assert _close(float(value), cell), (name, stage, value, cell)


@pytest.mark.parametrize("name", [n for n in RECORDS if "exact" in n])
def test_the_operands_are_the_stages_they_name(name):
    record = RECORDS[name]
    left, _, _ = split(record, "variance_plus_eps")
    variance, eps = left.split(" + ")
    assert _close(record.variance, variance) and float(eps) == record.eps
    left, _, _ = split(record, "std")
    assert left.startswith("√") and _close(record.variance + record.eps, left[1:])
    left, _, _ = split(record, "mean")
    cells = [c.strip("()") for c in re.findall(rf"\(?{NUMBER}\)?", left.rsplit(" / ", 1)[0])]
    if "…" not in left:
        assert len(cells) == record.n and all(_close(x, c) for x, c in zip(record.stage("input"), cells)), left
    assert left.endswith(f" / {record.n}")
    left, _, _ = split(record, "normalised")
    for term in left.strip("()").split(", "):
        if term != "…":
            difference, std = term.split(" / ")
            assert _close(record.std, std.strip("()")), term


@pytest.mark.parametrize("name", RECORDS)
def test_the_operands_of_one_equation_are_shown_to_the_same_places(name):
    """The rule: the operands get more places together until the shown result agrees."""
    record = RECORDS[name]
    for stage in ["differences", "normalised", "output"]:
        left, _, _ = split(record, stage)
        if left == "1 · x̂ + 0":
            continue
        digits = {len(c.partition("e")[0].partition(".")[2]) for c in re.findall(NUMBER, left)}  # after the point
        assert len(digits) == 1, (name, stage, left)


@pytest.mark.parametrize(
    ("row", "eps", "stage", "extra"),
    [
        ([0.0231006, -0.0147051, -0.0214127], 1e-5, "normalised", 5),
        ([0.000818, 4.2e-05, -0.000193], 1e-3, "squared_differences", 5),
    ],
)
def test_operands_get_up_to_six_more_places_before_the_equation_settles_for_approx(row, eps, stage, extra):
    record = layer_norm_steps(row, eps=eps)
    left, relation, _ = split(record, stage)
    operand = {"normalised": "differences", "squared_differences": "differences"}[stage]
    start = len(split(record, operand)[2][0].split(".")[1])
    assert relation == "=" and max(places_of(c) for c in re.findall(NUMBER, left)) == start + extra, left


def test_the_output_with_gamma_and_beta_shows_each_features_g_x_hat_b():
    record = layer_norm_steps([1.133, -0.299, 0.503], gamma=[2.0, 0.5, -1.5], beta=[0.25, -1.0, 3.0])
    left, relation, shown = split(record, "output")
    terms = left.strip("()").split(", ")
    assert len(terms) == 3 and relation == "="
    for term, g, x, b in zip(terms, record.gamma, record.normalised, record.beta):
        parts = re.fullmatch(rf"\(?({NUMBER})\)? · \(?({NUMBER})\)? \+ \(?({NUMBER})\)?", term)
        assert parts, term
        assert [float(p) for p in (parts[1], parts[3])] == [g, b]
        assert _close(x, parts[2])
    assert all(agrees(w, s) for w, s in zip(calculate(left), shown))


def test_without_gamma_and_beta_the_output_says_1_x_hat_plus_0():
    record = layer_norm_steps([1.133, -0.299, 0.503])
    assert split(record, "output")[:2] == ("1 · x̂ + 0", "=")
    record = layer_norm_steps([1.133, -0.299, 0.503], gamma=[1.0, 1.0, 1.0], beta=[0.0, 0.0, 0.1])
    assert split(record, "output")[0] != "1 · x̂ + 0"


def test_listings_name_their_stage_and_list_the_values():
    record = layer_norm_steps([1.133, -0.299, 0.503], eps=1e-3, gamma=[2.0, 0.5, -1.5], beta=[0.25, -1.0, 3.0])
    assert filled_formula(record, "input") == "x = (1.1330, -0.2990, 0.5030)"
    assert filled_formula(record, "eps") == "ε = 0.001"
    assert filled_formula(record, "gamma") == f"{STAGE_LABELS['gamma'][0]} = (2.0000, 0.5000, -1.5000)"
    assert filled_formula(record, "beta") == f"{STAGE_LABELS['beta'][0]} = (0.2500, -1.0000, 3.0000)"


def test_by_hand_x_is_listed_as_given_and_gamma_and_beta_at_the_records_places():
    """steps.shown_places: by hand, every step is rounded to the places, "but not the input ... they show
    the places they have"."""
    record = layer_norm_steps([1.133, -0.299, 0.503], decimals=2, gamma=[2.0, 0.5, -1.5], beta=[0.25, -1.0, 3.0])
    assert filled_formula(record, "input") == "x = (1.133, -0.299, 0.503)"
    assert filled_formula(record, "gamma").endswith(" = (2.00, 0.50, -1.50)")
    assert filled_formula(record, "beta").endswith(" = (0.25, -1.00, 3.00)")


def test_a_tiny_gamma_or_beta_is_listed_with_places_enough_not_to_read_zero():
    """steps.shown_places: "a tiny stage gets enough places not to read 0.0000" (γ and β as well as x)."""
    record = layer_norm_steps([1.0, 2.0, 3.0], gamma=[1e-5, 2e-5, 3e-5], beta=[4e-6, 5e-6, 6e-6])
    for stage, values in (("gamma", [1e-5, 2e-5, 3e-5]), ("beta", [4e-6, 5e-6, 6e-6]), ("input", [1.0, 2.0, 3.0])):
        cells = filled_formula(record, stage).split(" = ")[1].strip("()").split(", ")
        assert all(float(cell) != 0 and _close(v, cell) for v, cell in zip(values, cells)), (stage, cells)


def test_negative_and_scientific_operands_are_bracketed_where_an_operator_follows():
    record = layer_norm_steps([1.3e150, -2e150, 5e149])
    left, _, _ = split(record, "squared_differences")
    assert left == "((1.3667e+150)², (-1.9333e+150)², (5.6667e+149)²)"
    left, _, _ = split(layer_norm_steps([1.133, -0.299, 0.503]), "squared_differences")
    assert left == "(0.68733², (-0.74467)², 0.05733²)"
    left, _, _ = split(layer_norm_steps([1.133, -0.299, 0.503]), "mean")
    assert left == "(1.1330 + (-0.2990) + 0.5030) / 3"
    left, _, _ = split(layer_norm_steps([1.133, -0.299, 0.503]), "differences")
    assert left == "(1.1330 − 0.4457, -0.2990 − 0.4457, 0.5030 − 0.4457)"


def test_the_mode_says_exact_or_how_it_was_rounded():
    assert mode_text(layer_norm_steps([1.0, 2.0])) == "exact"
    assert mode_text(layer_norm_steps([1.0, 2.0], decimals=3)) == "rounded by hand to 3 places (halves away from zero)"


def test_a_hand_rounded_stage_that_moved_shows_its_exact_values_and_one_that_did_not_shows_nothing():
    record = layer_norm_steps([1.133, -0.299, 0.503], decimals=2)
    lines = {line.label: line for line in filled_formulas_table(record, EQUATIONS).lines}
    assert lines["differences"].drift == "≠ exact (0.6873, -0.7447, 0.0573)"
    assert lines["variance + ε"].drift == "≠ exact (0.343424)"
    assert lines["mean"].drift == ""
    exact = layer_norm_steps([1.133, -0.299, 0.503])
    assert all(line.drift == "" for line in filled_formulas_table(exact, EQUATIONS).lines)


def test_a_moved_stage_of_two_values_shows_both_exact_values():
    record = layer_norm_steps([0.333, 0.667], decimals=2)
    lines = {line.label: line for line in filled_formulas_table(record, ["differences", "mean"]).lines}
    assert lines["differences"].drift == "≠ exact (-0.1670, 0.1670)"


def test_an_unknown_focus_is_refused_naming_the_focus():
    with pytest.raises(ValueError, match=r"^focus names stages that do not exist: 'menu'"):
        filled_formulas_table(layer_norm_steps([1.0, 2.0]), ["mean"], focus=["menu"])


def test_the_html_without_a_title_has_none():
    from helpers.display.formulas_model import render_formulas_html

    record = layer_norm_steps([1.133, -0.299, 0.503])
    assert filled_formulas_html(record, ["mean"]) == render_formulas_html(filled_formulas_table(record, ["mean"]))


def test_the_legend_explains_approx_and_drift_only_when_they_are_shown():
    big = layer_norm_steps([1.3e150, -2e150, 5e149])
    assert filled_formulas_table(big, ["squared_differences"]).notes == (APPROX_LEGEND,)
    assert filled_formulas_table(big, ["mean"]).notes == ()
    moved = layer_norm_steps([1.133, -0.299, 0.503], decimals=2)
    assert filled_formulas_table(moved, ["differences"]).notes == (
        "≠ exact: rounding by hand to 2 places moved this stage; the exact value follows.",
    )
    assert filled_formulas_table(moved, ["mean"]).notes == ()


def test_the_table_marks_the_focus_and_keeps_the_title():
    record = layer_norm_steps([1.133, -0.299, 0.503])
    table = filled_formulas_table(record, ["mean", "std"], focus=["std"], title="Step 3")
    assert [(line.label, line.focused) for line in table.lines] == [("mean", False), ("std", True)]
    assert table.title == "Step 3"
    assert [line.formula for line in table.lines] == [filled_formula(record, "mean"), filled_formula(record, "std")]
    assert "▶" in filled_formulas_text(record, ["mean", "std"], focus=["std"])
    assert "Step 3" in filled_formulas_html(record, ["mean", "std"], focus=["std"], title="Step 3")
