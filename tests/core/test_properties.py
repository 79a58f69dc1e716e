"""Properties of helpers that must hold for any input, checked with hypothesis.

Inputs are offset + scale · base, with scales 1e-3..1e3 and offsets −1e4..1e4, over random shapes.
Tolerances are derived, not tuned: float64 rounds each value to about u = 2.2e-16 of its size, so
after subtracting the mean an error of a few u · max|x| remains, and dividing by the standard
deviation √(var + eps) magnifies it. ``tolerance(x, eps)`` is that bound with room to spare.
"""

from __future__ import annotations

import html
import math
import re
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, assume, example, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from hypothesis.extra import numpy as hnp  # noqa: E402

import helpers  # noqa: E402
from helpers import format_number, layer_norm, layer_norm_steps, load_matrix, round_half_up  # noqa: E402
from helpers.display import steps_text  # noqa: E402

from conftest import examples, torch_layer_norm  # noqa: E402

UNIT_ROUNDOFF = np.finfo(np.float64).eps / 2
FAST = settings(max_examples=examples(60, fast=20), deadline=None, suppress_health_check=[HealthCheck.too_slow])

shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=6)
scales = st.floats(1e-3, 1e3)
offsets = st.floats(-1e4, 1e4)
eps_values = st.sampled_from([1e-5, 1e-6, 1e-12, 1e-3, 0.1])


@st.composite
def matrices(draw, shape=shapes):
    """offset + scale · base, base in [-1, 1] in steps of 1e-6: values a real model could produce
    (no subnormal numbers, whose lost bits would break the exact properties below)."""
    drawn_shape = draw(shape)
    base = draw(hnp.arrays(np.int64, drawn_shape, elements=st.integers(-(10**6), 10**6))) / 10**6
    return draw(offsets) + draw(scales) * base


def tolerance(x: np.ndarray, eps: float, scale: float = 1.0) -> float:
    """Bound on float64 error in a normalised value: (error in x − mean) / √(var + eps)."""
    n = x.shape[-1]
    error_in_centred = 4 * (n + 2) * UNIT_ROUNDOFF * float(np.max(np.abs(x)))
    smallest_std = math.sqrt(float(np.min(np.var(x, axis=-1))) + eps)
    return scale * error_in_centred / smallest_std + 1e-13


# ---------------------------------------------------------------------------------------------
# What LayerNorm promises


@FAST
@given(matrices(), eps_values)
def test_output_rows_have_mean_0_and_variance_var_over_var_plus_eps(x, eps):
    out = layer_norm(x, eps=eps)
    assert out.shape == x.shape and out.dtype == np.float64
    variance = np.var(x, axis=-1)  # numpy's own biased variance
    tol = tolerance(x, eps)
    np.testing.assert_allclose(out.mean(axis=-1), 0.0, rtol=0, atol=tol)
    np.testing.assert_allclose(np.mean(out**2, axis=-1), variance / (variance + eps), rtol=0, atol=4 * tol + 1e-12)


@FAST
@given(matrices(), eps_values)
def test_agrees_with_torch_functional_layer_norm_float64(x, eps):
    reference = torch_layer_norm(x, eps=eps)
    np.testing.assert_allclose(layer_norm(x, eps=eps), reference, rtol=0, atol=2 * tolerance(x, eps))


@FAST
@given(matrices(), st.floats(-1e4, 1e4), eps_values)
def test_adding_a_constant_changes_nothing(x, constant, eps):
    shifted = x + constant
    # x + c is rounded to about u·|x + c| per value: that, not LayerNorm, limits the agreement.
    tol = tolerance(x, eps) + tolerance(shifted, eps)
    np.testing.assert_allclose(layer_norm(shifted, eps=eps), layer_norm(x, eps=eps), rtol=0, atol=tol)


@FAST
@given(matrices(), st.integers(-10, 10), eps_values)
def test_scaling_by_a_power_of_two_with_eps_scaled_is_exact(x, exponent, eps):
    """LN(s·x, eps·s²) = LN(x, eps) exactly in maths; with s = 2^k every float step scales exactly too."""
    s = 2.0**exponent
    np.testing.assert_array_equal(layer_norm(s * x, eps=eps * s * s), layer_norm(x, eps=eps))


@FAST
@given(matrices(), st.floats(1e-3, 1e3), eps_values)
def test_scaling_by_any_positive_number_with_eps_scaled(x, s, eps):
    scaled = s * x
    tol = tolerance(x, eps) + tolerance(scaled, eps * s * s)
    np.testing.assert_allclose(layer_norm(scaled, eps=eps * s * s), layer_norm(x, eps=eps), rtol=0, atol=tol)


@FAST
@given(matrices(), st.floats(1e-3, 1e3), eps_values)
def test_scaling_with_fixed_eps_changes_the_output_only_through_eps(x, s, eps):
    """With eps kept, scaling moves each value by at most the change in var/(var+eps) allows."""
    variance = np.var(x, axis=-1, keepdims=True)
    # LN(s·x, eps) = LN(x, eps/s²) = LN(x, eps) · √((var + eps) / (var + eps/s²))
    ratio = np.sqrt((variance + eps) / (variance + eps / (s * s)))
    expected = layer_norm(x, eps=eps) * ratio
    tol = tolerance(x, eps) * float(np.max(ratio)) + tolerance(s * x, eps)
    np.testing.assert_allclose(layer_norm(s * x, eps=eps), expected, rtol=0, atol=tol)


@FAST
@given(st.data(), eps_values)
def test_gamma_and_beta_apply_per_feature(data, eps):
    x = data.draw(matrices())
    features = x.shape[-1]
    per_feature = hnp.arrays(np.float64, features, elements=st.floats(-10, 10))
    gamma, beta = data.draw(per_feature), data.draw(per_feature)
    plain = layer_norm(x, eps=eps)
    # Feature j of every row is gamma[j] * plain + beta[j]
    for j in range(features):
        np.testing.assert_allclose(
            layer_norm(x, gamma, beta, eps)[..., j], gamma[j] * plain[..., j] + beta[j], rtol=1e-13, atol=1e-13
        )


@FAST
@given(st.data(), eps_values)
def test_gamma_and_beta_agree_with_torch(data, eps):
    pytest.importorskip("torch")
    x = data.draw(matrices())
    features = x.shape[-1]
    per_feature = hnp.arrays(np.float64, features, elements=st.floats(-10, 10))
    gamma, beta = data.draw(per_feature), data.draw(per_feature)
    reference = torch_layer_norm(x, gamma, beta, eps)
    tol = 2 * tolerance(x, eps) * max(1.0, float(np.max(np.abs(gamma))))
    np.testing.assert_allclose(layer_norm(x, gamma, beta, eps), reference, rtol=0, atol=tol + 1e-12)


@FAST
@given(matrices(hnp.array_shapes(min_dims=2, max_dims=2, min_side=1, max_side=8)), eps_values)
def test_steps_record_agrees_with_layer_norm_row_by_row(x, eps):
    out = layer_norm(x, eps=eps)
    tol = tolerance(x, eps)
    for i, row in enumerate(x):
        record = layer_norm_steps(row, eps=eps)
        assert record.mean == pytest.approx(float(np.mean(row)), rel=1e-13, abs=1e-13)
        assert record.variance == pytest.approx(float(np.var(row)), rel=1e-9, abs=tol)
        assert record.std == pytest.approx(math.sqrt(float(np.var(row)) + eps), rel=1e-9, abs=tol)
        np.testing.assert_allclose(record.output, out[i], rtol=0, atol=2 * tol)
        np.testing.assert_array_equal(record.output, record.normalised)


def is_multiple_of_unit(value: float, places: int) -> bool:
    """Exactly: the shortest decimal that gives this float has at most ``places`` decimals."""
    return Decimal(repr(float(value))).normalize().as_tuple().exponent >= -places


@FAST
@given(hnp.arrays(np.float64, st.integers(1, 12), elements=st.floats(-1e3, 1e3)), st.integers(0, 6), eps_values)
def test_hand_rounded_stages_are_multiples_of_the_last_place(row, places, eps):
    try:
        record = layer_norm_steps(row, eps=eps, decimals=places)
    except ValueError as problem:  # the one refusal allowed here
        assert "standard deviation rounds to 0" in str(problem)
        assume(False)
    for name in ("mean", "differences", "squared_differences", "variance", "std", "normalised", "output"):
        for value in np.atleast_1d(record.stage(name)):
            assert is_multiple_of_unit(value, places), (name, value)
    assert record.exact is not None and record.exact.decimals is None
    np.testing.assert_array_equal(record.input, row)


def half_up_reference(value: float, places: int) -> float:
    """Half away from zero on the decimal the float prints as, with fractions."""
    exact = Fraction(repr(value))
    unit = Fraction(1, 10**places)
    sign = -1 if exact < 0 else 1
    return float(sign * math.floor(abs(exact) / unit + Fraction(1, 2)) * unit)


@FAST
@given(st.floats(-1e6, 1e6), st.integers(0, 8))
def test_round_half_up_matches_a_fractions_reference(value, places):
    assert round_half_up(value, places) == half_up_reference(value, places)


@FAST
@given(st.integers(-(10**6), 10**6), st.integers(1, 6))
def test_round_half_up_sends_every_written_half_away_from_zero(whole, places):
    half = float(Decimal(whole).scaleb(-places) + Decimal(5).scaleb(-places - 1))  # e.g. 0.0625 at 3 places
    expected = float(Decimal(whole).scaleb(-places) + (Decimal(1).scaleb(-places) if half >= 0 else 0))
    assert round_half_up(half, places) == expected


# ---------------------------------------------------------------------------------------------
# Display never shows -0.000 and always the same text


@FAST
@given(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6), st.integers(0, 8))
def test_format_number_fixed_places_never_negative_zero(value, places):
    text = format_number(value, places)
    assert not re.fullmatch(r"-0\.?0*", text)
    assert text == format_number(value, places)
    assert float(text) == pytest.approx(value, abs=0.5 * 10**-places + 1e-9 * abs(value))
    assert len(text.split(".")[1]) == places if places else "." not in text


@FAST
@given(hnp.arrays(np.float64, st.integers(1, 15), elements=st.floats(-1e-3, 1e-3)), st.sampled_from([None, 2, 3]))
def test_steps_text_never_shows_negative_zero(row, places):
    try:
        record = layer_norm_steps(row, decimals=places)
    except ValueError:
        assume(False)
    text = steps_text(record)
    assert not re.search(r"-0\.0+(?![0-9])", text)
    assert text == str(record)


# ---------------------------------------------------------------------------------------------
# A bad file is a ValueError and nothing else


@settings(max_examples=examples(150, fast=30), deadline=None)
@given(
    st.one_of(
        st.binary(max_size=300),
        st.text(max_size=300),
        st.text(alphabet="0123456789.,;\t\n\r -+eE\"'nai\u2212\ufeff", max_size=200),
        st.lists(
            st.lists(st.sampled_from(["1", "-2.5", "1e400", "nan", "", "x", "1,5", " 3 "]), max_size=4), max_size=5
        ).map(lambda rows: "\n".join(",".join(r) for r in rows)),
    )
)
@example(b"")
@example(b"\xff\xfe")
@example("1e400\n")  # once mistaken for a header line
@example('"1,2\n3\n')  # an unclosed quote, once dropped as a header line
@example("1," + "1" * 200_000)  # once a csv.Error
@example(",\n,\n")
def test_load_matrix_returns_finite_float64_matrix_or_raises_value_error(tmp_path_factory, content):
    path = tmp_path_factory.mktemp("fuzz") / "file.csv"
    path.write_bytes(content if isinstance(content, bytes) else content.encode("utf-8", "surrogatepass"))
    try:
        matrix = load_matrix(path)
    except ValueError as problem:
        assert str(problem), "an empty message helps nobody"
        return
    assert isinstance(matrix, np.ndarray) and matrix.dtype == np.float64 and matrix.ndim == 2
    assert matrix.size > 0 and np.all(np.isfinite(matrix))


@settings(max_examples=examples(100, fast=30), deadline=None)
@given(st.text(max_size=100))
@example(",")  # once an empty array instead of an error
@example("[]")
@example("1e400")
def test_parse_row_returns_finite_floats_or_raises_value_error(text):
    try:
        row = helpers.parse_row(text)
    except ValueError:
        return
    assert row.dtype == np.float64 and row.ndim == 1 and row.size > 0 and np.all(np.isfinite(row))


# --- Issue 10 §1: every displayed equation marked "=" is one a calculator agrees with

_NUMBER = re.compile(r"-?\d+(?:\.\d+)?(?:e[-+]?\d+)?")


def _as_python(expression: str) -> str:
    """A displayed left-hand side as Python over Decimals: numbers become Decimal('…'), √a a square root."""
    expression = expression.replace("−", "-").replace("·", "*").replace("²", "**2")
    expression = re.sub(r"√(" + _NUMBER.pattern + ")", r"SQRT(\1)", expression)
    return _NUMBER.sub(lambda m: f"D('{m.group(0)}')", expression)


def _parsed_results(text: str) -> list[str]:
    return _NUMBER.findall(text)


def _calculator_agrees(line: str, formula: str) -> None:
    """``line`` is "<formula> = <operands> = <result>"; the operands worked out exactly must round to the result."""
    from decimal import localcontext

    assert line.startswith(formula + " = "), line
    operands, result = line[len(formula) + 3 :].rsplit(" = ", 1)
    shown = _parsed_results(result)
    with localcontext() as context:
        context.prec = 60
        value = eval(_as_python(operands), {"D": Decimal, "SQRT": lambda d: d.sqrt()})  # noqa: S307 - our own text
    values = list(value) if isinstance(value, tuple) else [value]
    assert len(values) == len(shown), line
    for worked_out, result_text in zip(values, shown):
        places = len(result_text.split(".")[1]) if "." in result_text else 0
        assert abs(worked_out - Decimal(result_text)) <= Decimal(5).scaleb(-places - 1), (
            f"a calculator disagrees: {line}\n  {worked_out} does not round to {result_text}"
        )


rows_to_show = st.lists(st.integers(-3000, 3000).map(lambda k: k / 1000), min_size=1, max_size=6)
flat_rows = st.tuples(st.floats(-5, 5), st.integers(2, 5)).map(
    lambda t: [round(t[0] + k * 0.001, 3) for k in range(t[1])]
)  # variance far below the display step


@FAST
@given(
    row=st.one_of(rows_to_show, flat_rows),
    eps=st.sampled_from([0.0, 1e-5, 1e-3, 0.1, 1e-8]),
    affine=st.booleans(),
    decimals=st.sampled_from([None, None, 2, 3, 4, 6]),
    data=st.data(),
)
@example(row=[0.663, 0.779, 0.648], eps=1e-5, affine=False, decimals=None, data=None)  # 06's row 5
@example(row=[1.133, -0.299, 0.503], eps=1e-5, affine=False, decimals=None, data=None)
@example(row=[0.663, 0.779, 0.648], eps=1e-5, affine=False, decimals=3, data=None)
@example(row=[0.003, 0.003, 0.003], eps=0.0, affine=False, decimals=None, data=None)  # float mean off by 5e-19
def test_every_displayed_equation_marked_equal_is_true_at_the_precision_shown(row, eps, affine, decimals, data):
    from helpers.display import STAGE_LABELS, filled_formula, filled_formulas_html, filled_formulas_text

    gamma = beta = None
    if affine and data is not None:
        numbers = st.integers(-2000, 2000).map(lambda k: k / 1000)
        gamma = data.draw(st.lists(numbers, min_size=len(row), max_size=len(row)))
        beta = data.draw(st.lists(numbers, min_size=len(row), max_size=len(row)))
    try:
        record = layer_norm_steps(row, eps=eps, gamma=gamma, beta=beta, decimals=decimals)
    except ValueError:
        assume(False)  # a constant row with eps 0, or a std that rounds to 0 by hand: a message, not a table
    stages = [s for s in STAGE_LABELS if s not in ("input", "eps", "gamma", "beta")]
    text = filled_formulas_text(record, list(STAGE_LABELS))
    page = filled_formulas_html(record, list(STAGE_LABELS))
    visible = html.unescape(re.sub(r"<[^>]+>", "", page))
    for stage in stages:
        line = filled_formula(record, stage)
        # the page breaks an equation between its parts (spans): compare the words a reader sees
        assert line in text and line in visible or "≈" in line or "·" in line
        if " ≈ " in line:
            assert "≈: the numbers shown are rounded" in text  # "≈" is always explained
            continue
        if line.endswith("1 · x̂ + 0 = " + line.rsplit(" = ", 1)[1]):
            # y = 1 · x̂ + 0: the output repeats x̂ as shown
            assert line.rsplit(" = ", 1)[1] in filled_formula(record, "normalised")
            continue
        _calculator_agrees(line, STAGE_LABELS[stage][1])
    if record.hand_rounded:
        for drift in record.rounding_drift():
            assert "≠ exact" in filled_formulas_text(record, [drift.stage])
