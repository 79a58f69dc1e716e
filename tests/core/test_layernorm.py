"""helpers.core.layernorm: the lesson's numbers, pinned against references computed here.

References: exact rational arithmetic (fractions) on the lesson's decimals, torch in float64, and
a pencil-and-paper computation written in this file. Nothing expected is read back from helpers.
"""

from __future__ import annotations

import dataclasses
import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest

import helpers
from helpers import STAGES, layer_norm, layer_norm_steps, round_half_up

from conftest import LESSON_X as X
from conftest import LESSON_X_TEXT, exact_layer_norm, torch_layer_norm

EXACT_EPS = Fraction(1, 100_000)  # 1e-5, exactly

# ../shared/GUIDE.md's table, as printed (mean and variance to 5 places, std to 5, output to 4).
GUIDE_TABLE = [
    (0.44567, 0.34341, 0.58602, [1.1729, -1.2707, 0.0978]),
    (0.29267, 0.20813, 0.45622, [-1.0273, 1.3553, -0.3281]),
    (0.34300, 0.37070, 0.60886, [0.6947, 0.7194, -1.4141]),
    (0.43333, 0.86095, 0.92788, [1.2584, -1.1880, -0.0704]),
    (0.69667, 0.00343, 0.05862, [-0.5743, 1.4044, -0.8301]),
]


# ---------------------------------------------------------------------------------------------
# The guide's table: exact references, torch, and the printed digits


@pytest.mark.parametrize("row", range(5))
def test_guide_table_matches_exact_arithmetic(row):
    """The guide's printed digits are the exact values rounded (so the table itself is right)."""
    mean, variance, std, output = exact_layer_norm(LESSON_X_TEXT[row])
    printed_mean, printed_variance, printed_std, printed_output = GUIDE_TABLE[row]
    assert abs(float(mean) - printed_mean) <= 0.5e-5
    assert abs(float(variance) - printed_variance) <= 0.5e-5
    assert abs(std - printed_std) <= 0.5e-5
    np.testing.assert_allclose(output, printed_output, rtol=0, atol=0.5e-4)


@pytest.mark.parametrize("row", range(5))
def test_layer_norm_steps_exact_matches_exact_arithmetic(row):
    mean, variance, std, output = exact_layer_norm(LESSON_X_TEXT[row])
    record = layer_norm_steps(X[row])
    assert record.decimals is None and record.exact is None
    assert record.mean == pytest.approx(float(mean), abs=1e-15)
    assert record.variance == pytest.approx(float(variance), abs=1e-15)
    assert record.eps == 1e-5
    assert record.variance_plus_eps == pytest.approx(float(variance + EXACT_EPS), abs=1e-15)
    assert record.std == pytest.approx(std, abs=1e-15)
    x = [Fraction(t) for t in LESSON_X_TEXT[row]]
    np.testing.assert_allclose(record.differences, [float(v - mean) for v in x], rtol=0, atol=1e-15)
    np.testing.assert_allclose(record.squared_differences, [float((v - mean) ** 2) for v in x], rtol=0, atol=1e-15)
    np.testing.assert_allclose(record.normalised, output, rtol=0, atol=1e-14)
    np.testing.assert_allclose(record.output, output, rtol=0, atol=1e-14)
    np.testing.assert_array_equal(record.input, X[row])
    np.testing.assert_array_equal(record.gamma, [1, 1, 1])
    np.testing.assert_array_equal(record.beta, [0, 0, 0])


def test_layer_norm_of_the_lesson_matrix_matches_exact_arithmetic_and_the_guide():
    expected = np.array([exact_layer_norm(texts)[3] for texts in LESSON_X_TEXT])
    out = layer_norm(X)
    assert out.dtype == np.float64 and out.shape == (5, 3)
    np.testing.assert_allclose(out, expected, rtol=0, atol=1e-14)
    np.testing.assert_allclose(out, [r[3] for r in GUIDE_TABLE], rtol=0, atol=0.5e-4)
    np.testing.assert_allclose(out[0], [1.1729, -1.2707, 0.0978], atol=0.5e-4)


def test_layer_norm_matches_torch_float64_on_the_lesson_matrix():
    np.testing.assert_allclose(layer_norm(X), torch_layer_norm(X), rtol=0, atol=1e-14)


def test_layer_norm_gamma_beta_match_torch_float64():
    gamma, beta = [1.0, 2.0, -0.5], [0.0, 0.1, 3.0]
    np.testing.assert_allclose(layer_norm(X, gamma, beta), torch_layer_norm(X, gamma, beta), rtol=0, atol=1e-14)
    record = layer_norm_steps(X[1], gamma=gamma, beta=beta)
    np.testing.assert_allclose(record.output, torch_layer_norm(X[1], gamma, beta), rtol=0, atol=1e-14)


@pytest.mark.parametrize("eps", [0.0, 1e-12, 1e-6, 1e-3, 0.5])
def test_layer_norm_eps_matches_exact_arithmetic(eps):
    expected = np.array([exact_layer_norm(texts, Fraction(eps))[3] for texts in LESSON_X_TEXT])
    np.testing.assert_allclose(layer_norm(X, eps=eps), expected, rtol=0, atol=1e-13)


def test_keras_default_eps_visibly_changes_row_5():
    """The guide: Keras' eps = 1e-3 moves row 5 (tiny variance) but hardly row 1."""
    _, _, _, row5_keras = exact_layer_norm(LESSON_X_TEXT[4], Fraction(1, 1000))
    np.testing.assert_allclose(layer_norm(X[4], eps=1e-3), row5_keras, atol=1e-14)
    assert np.max(np.abs(layer_norm(X[4], eps=1e-3) - layer_norm(X[4]))) > 0.1
    assert np.max(np.abs(layer_norm(X[0], eps=1e-3) - layer_norm(X[0]))) < 0.01


# ---------------------------------------------------------------------------------------------
# Rounding by hand, as the lesson does on paper


def pencil_round(value: Fraction, places: int) -> Fraction:
    """Half away from zero on the exact decimal, as a person rounds."""
    unit = Fraction(1, 10**places)
    sign = -1 if value < 0 else 1
    return sign * math.floor(abs(value) / unit + Fraction(1, 2)) * unit


def pencil_layer_norm(texts, places, eps="0.00001"):
    """The lesson's hand computation: exact decimals, each stage rounded before the next."""
    x = [Fraction(t) for t in texts]
    n = len(x)
    mean = pencil_round(sum(x) / n, places)
    differences = [pencil_round(v - mean, places) for v in x]
    squares = [pencil_round(d * d, places) for d in differences]
    variance = pencil_round(sum(squares) / n, places)
    with localcontext() as context:
        context.prec = 50
        root = (Decimal(variance.numerator) / Decimal(variance.denominator) + Decimal(eps)).sqrt()
    std = pencil_round(Fraction(root), places)
    normalised = [pencil_round(d / std, places) for d in differences]
    return {
        "mean": mean,
        "differences": differences,
        "squared_differences": squares,
        "variance": variance,
        "std": std,
        "normalised": normalised,
        "output": normalised,
    }


def as_floats(value):
    return [float(v) for v in value] if isinstance(value, list) else float(value)


def test_row_1_by_hand_gives_exactly_the_lessons_digits():
    record = layer_norm_steps(X[0], decimals=3)
    # The lesson's published pencil numbers, pinned literally.
    assert record.mean == 0.446
    assert record.differences.tolist() == [0.687, -0.745, 0.057]
    assert record.squared_differences.tolist() == [0.472, 0.555, 0.003]
    assert record.variance == 0.343
    assert record.std == 0.586
    assert record.normalised.tolist() == [1.172, -1.271, 0.097]
    assert record.output.tolist() == [1.172, -1.271, 0.097]
    assert [helpers.format_number(v, 2) for v in record.normalised] == ["1.17", "-1.27", "0.10"]
    assert record.decimals == 3
    assert record.rounding_drift() == ()


def test_row_5_by_hand_drifts_and_says_where():
    record = layer_norm_steps(X[4], decimals=3)
    assert record.mean == 0.697
    assert record.variance == 0.003
    assert record.std == 0.055
    assert record.output.tolist() == [-0.618, 1.491, -0.891]
    flagged = {drift.stage for drift in record.rounding_drift()}
    assert {"variance", "std", "normalised", "output"} <= flagged
    assert not flagged & {"input", "mean", "differences", "eps", "gamma", "beta"}
    variance_drift = next(d for d in record.rounding_drift() if d.stage == "variance")
    assert variance_drift.hand == 0.003
    assert variance_drift.exact == pytest.approx(float(exact_layer_norm(LESSON_X_TEXT[4])[1]), abs=1e-15)
    exact_variance = exact_layer_norm(LESSON_X_TEXT[4])[1]
    assert variance_drift.largest_difference == pytest.approx(float(exact_variance - Fraction("0.003")), abs=1e-15)
    output_drift = next(d for d in record.rounding_drift() if d.stage == "output")
    np.testing.assert_allclose(output_drift.exact, [-0.5743, 1.4044, -0.8301], atol=0.5e-4)


def test_hand_record_carries_the_exact_record():
    hand = layer_norm_steps(X[4], decimals=3)
    exact = layer_norm_steps(X[4])
    for name in STAGES:
        np.testing.assert_array_equal(hand.exact.stage(name), exact.stage(name))


@pytest.mark.parametrize("places", [1, 2, 3, 4, 6])
@pytest.mark.parametrize("row", range(5))
def test_hand_rounding_matches_pencil_and_paper(row, places):
    try:
        expected = pencil_layer_norm(LESSON_X_TEXT[row], places)
    except ZeroDivisionError:  # std rounds to 0 at this many places
        with pytest.raises(ValueError, match="standard deviation rounds to 0"):
            layer_norm_steps(X[row], decimals=places)
        return
    record = layer_norm_steps(X[row], decimals=places)
    for name, value in expected.items():
        assert np.atleast_1d(record.stage(name)).tolist() == np.atleast_1d(as_floats(value)).tolist(), name


@pytest.mark.parametrize(
    "texts, places",
    [
        (["-0.811", "-1.716", "-1.315"], 2),  # -1.315 - (-1.280) = -0.035: a half, in binary 0.03499999...
        (["1.043", "-0.638", "1.668", "0.955"], 1),
        (["-0.900", "-1.552", "1.265", "0.559"], 1),
        (["0.1", "0.2", "0.3", "0.45"], 2),
    ],
)
def test_hand_rounding_rounds_decimal_halves_up_despite_binary_noise(texts, places):
    record = layer_norm_steps([float(t) for t in texts], decimals=places)
    for name, value in pencil_layer_norm(texts, places).items():
        assert np.atleast_1d(record.stage(name)).tolist() == np.atleast_1d(as_floats(value)).tolist(), name


def test_hand_rounding_with_gamma_and_beta():
    record = layer_norm_steps(X[0], gamma=[2, 0.5, -1], beta=[0.1, 0, 0.25], decimals=3)
    # 2 * 1.172 + 0.1, 0.5 * -1.271 = -0.6355 -> -0.636 (half away from zero), -1 * 0.097 + 0.25
    assert record.output.tolist() == [2.444, -0.636, 0.153]


def test_round_half_up_on_halves_differs_from_numpy():
    assert round_half_up(0.0625, 3) == 0.063
    assert round_half_up(-0.0625, 3) == -0.063
    assert round_half_up(2.5, 0) == 3.0
    assert round_half_up(-2.5, 0) == -3.0
    assert round_half_up(0.5, 0) == 1.0
    # numpy rounds the same halves to the even digit
    assert np.round(0.0625, 3) == 0.062 and np.round(2.5) == 2.0 and np.round(0.5) == 0.0


def test_round_half_up_arrays_and_negative_zero():
    rounded = round_half_up(np.array([[0.0625, -0.0004], [1.0005, 2.675]]), 3)
    assert rounded.shape == (2, 2)
    assert rounded.tolist() == [[0.063, 0.0], [1.001, 2.675]]
    assert math.copysign(1.0, rounded[0, 1]) == 1.0  # not -0.0
    assert math.copysign(1.0, round_half_up(-0.0001, 2)) == 1.0
    assert round_half_up(1e300, 12) == 1e300  # wide enough for any float


def test_hand_rounding_big_numbers_at_many_places():
    record = layer_norm_steps([1e20, 0.0], decimals=12)
    assert record.differences.tolist() == [5e19, -5e19]
    assert record.normalised.tolist() == [1.0, -1.0]


# ---------------------------------------------------------------------------------------------
# Numerics: two-pass stays right where the one-pass formula cancels


def one_pass_layer_norm(x, eps=1e-5):
    """The tempting formula var = E[x²] − E[x]², in the input's dtype (what the lesson warns about)."""
    mean = x.mean(axis=-1, keepdims=True)
    variance = (x * x).mean(axis=-1, keepdims=True) - mean * mean
    return (x - mean) / np.sqrt(np.maximum(variance, 0) + x.dtype.type(eps))


def normalises_row_1_plus_10000(implementation) -> bool:
    shifted = (X[0] + 10_000).astype(np.float32)
    out = implementation(shifted)
    return out.dtype == np.float32 and bool(np.allclose(out, [1.1734, -1.2701, 0.0983], rtol=0, atol=1e-3))


def test_row_1_plus_10000_in_float32_stays_right():
    assert normalises_row_1_plus_10000(layer_norm)
    shifted = (X[0] + 10_000).astype(np.float32)
    np.testing.assert_allclose(layer_norm(shifted), [1.17, -1.27, 0.10], atol=0.005)


def test_row_1_plus_10000_the_one_pass_formula_would_be_caught():
    assert not normalises_row_1_plus_10000(one_pass_layer_norm)
    garbage = one_pass_layer_norm((X[0] + 10_000).astype(np.float32))
    assert np.max(np.abs(garbage)) > 100  # "outputs in the hundreds"


def test_row_1_plus_10000_in_float32_agrees_with_torch_float32():
    torch = pytest.importorskip("torch")
    shifted = (X[0] + 10_000).astype(np.float32)
    reference = torch.nn.functional.layer_norm(torch.from_numpy(shifted), (3,), eps=1e-5).numpy()
    np.testing.assert_allclose(reference, [1.1734, -1.2701, 0.0983], atol=1e-3)
    np.testing.assert_allclose(layer_norm(shifted), reference, rtol=0, atol=1e-3)


def test_float16_is_computed_without_overflow():
    # x² overflows float16 above 65504; 300² = 90000 must not wreck the result.
    row = np.array([300.0, -300.0, 0.0], dtype=np.float16)
    out = layer_norm(row)
    assert out.dtype == np.float16
    np.testing.assert_allclose(out.astype(np.float64), [math.sqrt(1.5), -math.sqrt(1.5), 0.0], atol=2e-3)


# ---------------------------------------------------------------------------------------------
# dtypes and shapes


@pytest.mark.parametrize(
    "dtype_in, dtype_out",
    [
        (np.float64, np.float64),
        (np.float32, np.float32),
        (np.float16, np.float16),
        (np.int64, np.float64),
        (np.int32, np.float64),
        (np.uint8, np.float64),
        (np.bool_, np.float64),
    ],
)
def test_layer_norm_dtype(dtype_in, dtype_out):
    x = np.array([[1, 0, 1], [0, 1, 1]]).astype(dtype_in)
    out = layer_norm(x)
    assert out.dtype == dtype_out
    np.testing.assert_allclose(out.astype(np.float64), layer_norm(x.astype(np.float64)), atol=2e-3)


def test_layer_norm_of_lists_is_float64():
    out = layer_norm([[1, 2, 3], [4, 5, 9]])
    assert out.dtype == np.float64
    np.testing.assert_allclose(out[0], [-math.sqrt(1.5), 0, math.sqrt(1.5)], atol=1e-5)


def test_layer_norm_any_leading_shape():
    x = np.arange(24, dtype=np.float64).reshape(2, 4, 3) ** 1.5
    out = layer_norm(x)
    assert out.shape == (2, 4, 3)
    np.testing.assert_allclose(out.reshape(8, 3), layer_norm(x.reshape(8, 3)), rtol=0, atol=0)
    np.testing.assert_allclose(out, torch_layer_norm(x), rtol=0, atol=1e-14)


def test_layer_norm_does_not_change_its_input():
    x = X.copy()
    layer_norm(x, gamma=[1, 2, 3], beta=[0, 1, 2])
    np.testing.assert_array_equal(x, X)


def test_single_feature_normalises_to_beta():
    np.testing.assert_array_equal(layer_norm([[5.0], [-2.0]], beta=[0.25]), [[0.25], [0.25]])


def test_constant_row_with_eps_gives_zeros():
    np.testing.assert_array_equal(layer_norm([3.0, 3.0, 3.0]), [0.0, 0.0, 0.0])


# ---------------------------------------------------------------------------------------------
# The record


def test_record_is_immutable():
    record = layer_norm_steps(X[0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.mean = 0.0
    for name in ("input", "differences", "squared_differences", "normalised", "gamma", "beta", "output"):
        array = record.stage(name)
        assert array.dtype == np.float64
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 99.0


def test_record_does_not_share_memory_with_the_caller():
    row = X[0].copy()
    record = layer_norm_steps(row)
    row[0] = 99.0
    assert record.input[0] == 1.133


def test_record_stage_by_name():
    record = layer_norm_steps(X[0])
    assert [name for name in STAGES] == [
        "input",
        "mean",
        "differences",
        "squared_differences",
        "variance",
        "eps",
        "variance_plus_eps",
        "std",
        "normalised",
        "gamma",
        "beta",
        "output",
    ]
    assert record.stage("std") is record.std
    assert record.n == 3
    with pytest.raises(ValueError, match=r"There is no stage called 'stdev'; the stages are: input, mean"):
        record.stage("stdev")


# ---------------------------------------------------------------------------------------------
# Bad input: ValueError in plain words


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"eps": -1e-5}, r"eps must be a number 0 or larger, such as 1e-5 \(PyTorch's default\); got -1e-05"),
        ({"eps": float("nan")}, r"eps must be a number 0 or larger.*got nan"),
        ({"eps": float("inf")}, r"eps must be a number 0 or larger.*got inf"),
        ({"eps": "1e-5"}, r"eps must be a number 0 or larger.*got '1e-5'"),
        ({"eps": None}, r"eps must be a number 0 or larger.*got nothing \(None\)"),
        ({"gamma": [1, 2]}, r"gamma needs one value per feature: 3 values; got 2"),
        ({"beta": [0, 0, 0, 0]}, r"beta needs one value per feature: 3 values; got 4"),
        ({"gamma": 2.0}, r"gamma needs one value per feature \(3 values\); got a single number"),
        ({"gamma": [[1, 1, 1]]}, r"gamma needs one value per feature: 3 values; got 3"),
        ({"beta": [0, float("nan"), 0]}, r"beta contains NaN or infinity"),
    ],
)
def test_layer_norm_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        layer_norm(X, **kwargs)
    with pytest.raises(ValueError, match=message):
        layer_norm_steps(X[0], **kwargs)


@pytest.mark.parametrize(
    "x, message",
    [
        ([], r"at least one feature per row; got an array of shape \(0,\)"),
        (np.zeros((2, 0)), r"at least one feature per row; got an array of shape \(2, 0\)"),
        (np.zeros((0, 3)), r"at least one feature per row; got an array of shape \(0, 3\)"),
        (1.5, r"at least one axis of features; got a single number"),
        (np.float64(2.0), r"at least one axis of features"),
        ([1.0, float("nan"), 2.0], r"The input contains NaN or infinity"),
        ([[1.0, 2.0], [float("-inf"), 0.0]], r"The input contains NaN or infinity"),
        ([[1, 2, 3], [4, 5]], r"not a rectangular array of numbers \(rows of different lengths\?\)"),
        (["1.0", "2.0"], r"LayerNorm needs real numbers; got values of type <U3"),
        ([1 + 2j, 3], r"LayerNorm needs real numbers; got values of type complex128"),
        ([None, 1.0], r"not a rectangular array of numbers"),
    ],
)
def test_layer_norm_bad_input(x, message):
    with pytest.raises(ValueError, match=message):
        layer_norm(x)


def test_layer_norm_constant_row_with_eps_0():
    with pytest.raises(ValueError, match=r"A row has every value the same and eps is 0.*use a positive eps"):
        layer_norm([[1.0, 2.0], [4.0, 4.0]], eps=0)


@pytest.mark.parametrize(
    "row, kwargs, message",
    [
        (X, {}, r"layer_norm_steps takes one row \(a flat list of numbers\); got shape \(5, 3\)"),
        (5.0, {}, r"takes one row.*got shape \(\)"),
        ([], {}, r"The row is empty; LayerNorm needs at least one number"),
        ([1.0, float("nan")], {}, r"The row contains NaN or infinity"),
        ([[1, 2], [3]], {}, r"not a rectangular array"),
        (["a", "b"], {}, r"LayerNorm needs real numbers"),
        (X[0], {"decimals": -1}, r"decimal places must be a whole number from 0 to 12; got -1"),
        (X[0], {"decimals": 13}, r"decimal places must be a whole number from 0 to 12.*got 13"),
        (X[0], {"decimals": 2.5}, r"decimal places must be a whole number.*got 2\.5"),
        (X[0], {"decimals": "3"}, r"decimal places must be a whole number.*got '3'"),
        (X[0], {"decimals": True}, r"decimal places must be a whole number.*got True"),
        (
            [1e200, 0.0, 1.0],
            {},
            r"The values are too large: their squares overflow float64 \(keep them below about 1e\+154\)",
        ),
        (X[0], {"gamma": [1.7e308, 1.0, 1.0]}, r"γ · x̂ \+ β is too large to store as a number \(over about 1\.8e308\)"),
        (X[0], {"beta": [0.0, 0.0, 1.7e308], "gamma": [1.0, 1.0, 1.7e308]}, r"use a smaller gamma or beta"),
        (
            [2.0, 2.0, 2.0],
            {"eps": 0},
            r"Every value in the row is the same and eps is 0, so the standard deviation "
            r"is 0 and dividing by it is impossible; use a positive eps such as 1e-5",
        ),
        (X[4], {"decimals": 1}, r"At 1 decimal places the standard deviation rounds to 0.*keep more places"),
        ([1.0, 1.0004], {"decimals": 3, "eps": 0}, r"At 3 decimal places the standard deviation rounds to 0"),
    ],
)
def test_layer_norm_steps_bad_input(row, kwargs, message):
    with pytest.raises(ValueError, match=message):
        layer_norm_steps(row, **kwargs)


def test_layer_norm_steps_accepts_numpy_integer_decimals():
    assert layer_norm_steps(X[0], decimals=np.int64(3)).mean == 0.446


@pytest.mark.parametrize("dtype, huge", [(np.float64, 1e200), (np.float32, 3e19)])
def test_layer_norm_reports_overflowing_squares_instead_of_returning_zeros(dtype, huge):
    # Without the check, the squares overflow to inf, the std becomes inf and every output silently 0.
    x = np.array([[huge, 0.0, 1.0]], dtype=dtype)
    with pytest.raises(ValueError, match=f"their squares overflow {np.dtype(dtype).name}"):
        layer_norm(x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_layer_norm_reports_an_overflowing_scale_instead_of_returning_infinity(dtype):
    # γ = largest float: 1.17 · γ is past it, which numpy would silently make inf.
    gamma = np.full(3, np.finfo(dtype).max, dtype=dtype)
    with pytest.raises(ValueError, match="γ · x̂ \\+ β is too large"):
        layer_norm(X.astype(dtype), gamma=gamma)


# --- gamma and beta that are not numbers are refused in plain words (review fix)


@pytest.mark.parametrize("bad", [["a", "b", "c"], [[1.0, 2.0], [3.0]], object(), [None, 1.0, 2.0]])
@pytest.mark.parametrize("name", ["gamma", "beta"])
def test_gamma_or_beta_that_are_not_numbers_get_a_plain_message(bad, name):
    with pytest.raises(ValueError, match=f"^{name} needs numbers, one per feature \\(3 values\\)"):
        layer_norm_steps(X[0], **{name: bad})
    with pytest.raises(ValueError, match=f"^{name} needs numbers"):
        layer_norm(X, **{name: bad})


def test_frozen_array_is_a_read_only_float_copy_without_negative_zero():
    source = np.array([-0.0, 1.0])
    frozen = helpers.core.layernorm.frozen_array(source)
    assert frozen.dtype == np.float64 and not frozen.flags.writeable
    assert str(frozen[0]) == "0.0" and frozen is not source and source.flags.writeable


@pytest.mark.parametrize(
    ("call", "argument"),
    [
        (lambda: layer_norm_steps([2.0, 2.0, 2.0], eps=0), "row"),
        (lambda: layer_norm_steps([1.0, float("nan")]), "row"),
        (lambda: layer_norm_steps(X[4], decimals=1), "decimals"),  # row 5's std rounds to 0.0
        (lambda: layer_norm_steps(X[0], decimals=13), "decimals"),
        (lambda: layer_norm_steps(X[0], eps=-1), "eps"),
        (lambda: layer_norm_steps(X[0], gamma=[1, 2]), "gamma"),
        (lambda: layer_norm_steps(X[0], beta=[1, 2, 3, 4]), "beta"),
        (lambda: layer_norm_steps(X[0], gamma=[1e308] * 3, beta=[1e308] * 3), "output"),
    ],
)
def test_every_input_error_names_its_argument(call, argument):
    from helpers.core.validation import InputError

    with pytest.raises(InputError) as caught:
        call()
    assert caught.value.argument == argument
    assert isinstance(caught.value, ValueError)  # callers catching ValueError keep working


def test_rounding_by_hand_has_its_truthful_name_and_the_old_one_still_works():
    assert helpers.round_half_away_from_zero(-0.0625, 3) == -0.063  # away from zero, not "up"
    assert helpers.round_half_away_from_zero(0.0625, 3) == 0.063
    assert helpers.round_half_up is helpers.round_half_away_from_zero  # notebooks that used the old name run


@pytest.mark.parametrize("value", [0.003, 0.1, 1e-7, -2.5])
def test_a_row_of_equal_values_with_eps_0_is_refused_even_when_the_float_mean_is_off(value):
    """3 × 0.003 / 3 is 0.0030000000000000005 in floats: the differences are ±4e-19, not 0, and dividing
    them by their own tiny std would show ±1s. The row's true variance is 0: with ε = 0, a sentence."""
    with pytest.raises(ValueError, match="same"):
        layer_norm_steps([value] * 3, eps=0.0)
    with pytest.raises(ValueError, match="same"):
        layer_norm(np.array([[1.0, 2.0, 3.0], [value] * 3]), eps=0.0)
    assert np.all(np.abs(layer_norm_steps([value] * 3, eps=1e-5).normalised) < 1e-9)
