"""helpers.lessons.numerics.errors: the worst-case bound as its docstring states it, the cancelling
terms' step rule at its edges, and the storing/arithmetic split, the float16 stages and the normalise
forms against computations written out here."""

import math
import re
import warnings

import numpy as np
import pytest

from helpers.lessons.numerics import errors as numerics_errors
from helpers.lessons.numerics import moments as numerics

ROW_1 = np.array([1.133, -0.299, 0.503])
U = {"float16": 2.0**-11, "float32": 2.0**-24, "float64": 2.0**-53}  # unit roundoff: half the step at 1
BITS = {"float16": 11, "float32": 24, "float64": 53}


def gamma(k, u):
    return k * u / (1 - k * u)  # Higham's γ_k


def ulp(value, bits):
    """The step between numbers of a ``bits``-bit type at ``value`` > 0."""
    _, exponent = math.frexp(value)  # value = m · 2^exponent, 0.5 ≤ m < 1
    return 2.0 ** (exponent - bits)


def docstring_bound(stored, method, dtype="float32", eps=1e-5):
    """``output_error_bound``'s docstring, sentence by sentence, in plain Python floats."""
    x = [float(v) for v in stored]
    n, u = len(x), U[dtype]
    mean = math.fsum(x) / n
    variance = math.fsum((v - mean) ** 2 for v in x) / n
    spread = max(abs(v - mean) for v in x)
    mean_of_squares = math.fsum(v * v for v in x) / n
    d_mean = gamma(n, u) * math.fsum(abs(v) for v in x) / n  # δμ = γₙ·mean|x|
    if method == "two-pass":
        low, high = variance * (1 - gamma(n + 3, u)), (variance + d_mean**2) * (1 + gamma(n + 3, u))
    else:
        slack = gamma(3 * n + 3, u) * mean_of_squares
        low, high = variance - slack, variance + slack
        # The two cancelling terms are at least (1 − γ₃ₙ₊₃)·min(E[x²], μ²); once their step reaches ε
        # a number output had σ̂² ≥ 0.
        smallest = (1 - gamma(3 * n + 3, u)) * min(mean_of_squares, mean * mean)
        if low < 0 and smallest > 0 and ulp(smallest, BITS[dtype]) >= eps:
            low = 0.0
    if low + eps <= 0:
        return math.inf
    r = 1 / math.sqrt(variance + eps)
    r_high = (1 + gamma(4, u)) / math.sqrt(low + eps)
    r_low = (1 - gamma(4, u)) / math.sqrt(high + eps)
    return spread * max(r_high - r, r - r_low) + (d_mean + u * (spread + d_mean)) * r_high


ROWS = {
    "row 1": ROW_1,
    "row 1 + 100": ROW_1 + 100,
    "row 1 + 10,000": ROW_1 + 10_000,
    "variance near eps": np.array([0.002, -0.003, 0.004, 0.0005]),
    "wide": np.linspace(-3.0, 5.0, 17),
}


@pytest.mark.parametrize("name", ROWS)
@pytest.mark.parametrize("dtype", ["float16", "float32"])
@pytest.mark.parametrize("method", ["one-pass", "two-pass"])
def test_bound_is_the_docstrings_formula(name, dtype, method):
    stored = ROWS[name].astype(dtype).astype(np.float64)
    expected = docstring_bound(stored, method, dtype)
    assert numerics_errors.output_error_bound(stored, method, dtype) == pytest.approx(expected, rel=1e-10, abs=0)


def test_bound_of_a_float32_array_is_the_bound_of_its_values_in_float64():
    stored = (ROW_1 + 10_000).astype(np.float32)
    for method in ("one-pass", "two-pass"):
        assert numerics_errors.output_error_bound(stored, method) == numerics_errors.output_error_bound(
            stored.astype(np.float64), method
        )


def test_a_one_pass_row_with_positive_low_variance_is_not_capped():
    # Far from zero but with a variance well above the one-pass slack: the rule for σ²_lo < 0 must not
    # apply (σ²_lo ≈ 0.78 here, and ≈ 666,666 for the second row).
    for row in ([1000.0, 1001.5, 1003.0], [0.0, 1000.0, 2000.0]):
        stored = np.array(row)
        expected = docstring_bound(stored, "one-pass", "float32")
        assert numerics_errors.output_error_bound(stored, "one-pass") == pytest.approx(expected, rel=1e-10, abs=0)
        assert expected < 1  # capped at σ̂² ≥ 0 it would be max|x − μ|/√ε, hundreds


# The step rule's edge, in float16 (step = 2^(k − 10) for k = ⌊log₂ smallest⌋): the step reaches ε = 1e-5
# at k = −6, so the edge is smallest = 2⁻⁶. Rows of two values μ ± 0.001 put μ² (the smaller term) just
# either side of 2⁻⁶ / (1 − γ₉); their one-pass σ²_lo is about −6.8e-5, so below the edge σ²_lo + ε < 0.
EDGE = 2.0**-6 / (1 - gamma(9, U["float16"]))


def two_values_around(square_of_mean):
    mean = math.sqrt(square_of_mean)
    return np.array([mean - 0.001, mean + 0.001])


def test_just_above_the_step_edge_a_one_pass_bound_is_finite():
    row = two_values_around(EDGE * (1 + 1e-6))
    bound = numerics_errors.output_error_bound(row, "one-pass", "float16")
    assert math.isfinite(bound)
    assert bound == pytest.approx(docstring_bound(row, "one-pass", "float16"), rel=1e-10, abs=0)


def test_just_below_the_step_edge_a_one_pass_bound_is_infinite():
    row = two_values_around(EDGE * (1 - 1e-6))
    assert numerics_errors.output_error_bound(row, "one-pass", "float16") == math.inf
    assert docstring_bound(row, "one-pass", "float16") == math.inf


def test_a_step_exactly_equal_to_eps_reaches_it():
    row = two_values_around(EDGE * (1 + 1e-6))  # its step is 2⁻¹⁶
    eps = 2.0**-16
    bound = numerics_errors.output_error_bound(row, "one-pass", "float16", eps=eps)
    assert math.isfinite(bound)
    assert bound == pytest.approx(docstring_bound(row, "one-pass", "float16", eps=eps), rel=1e-10, abs=0)
    # One float16 step further down the step is 2⁻¹⁷ < 2⁻¹⁶: no bound.
    assert numerics_errors.output_error_bound(two_values_around(EDGE * (1 - 1e-6)), "one-pass", "float16", eps) == (
        math.inf
    )


def test_bound_names_the_two_methods_it_knows():
    message = "method must be 'one-pass' or 'two-pass'; got 'Welford'."
    with pytest.raises(ValueError, match=re.escape(message)) as caught:
        numerics_errors.output_error_bound(ROW_1, "Welford")
    assert str(caught.value) == message


def test_sweep_bounds_gives_both_bounded_methods_one_pair_per_offset_with_its_eps():
    offsets = (1, 100, 10_000)
    sweep = numerics.offset_sweep(ROW_1, offsets=offsets, dtype=np.float32, eps=1e-3)
    bounds = numerics_errors.sweep_bounds(sweep, eps=1e-3)
    assert list(bounds) == ["one-pass", "two-pass"]
    for method, (measured, bound) in bounds.items():
        assert measured.shape == bound.shape == (3,)
        for k, offset in enumerate(offsets):
            stored = (ROW_1 + offset).astype(np.float32).astype(np.float64)
            assert bound[k] == pytest.approx(docstring_bound(stored, method, "float32", eps=1e-3), rel=1e-10, abs=0)


# --- split_error, float16 stages, normalise forms ---------------------------------------------------------


def test_split_error_defaults_to_two_pass_and_says_so():
    split = numerics_errors.split_error(ROW_1, 10_000)
    assert split.method == "two-pass" and split.dtype == "float32" and split.offset == 10_000.0
    named = numerics_errors.split_error(ROW_1, 10_000, np.float32, "two-pass")
    assert (split.arithmetic_error, split.total_error) == (named.arithmetic_error, named.total_error)
    one_pass = numerics_errors.split_error(ROW_1, 10_000, np.float32, "one-pass")
    assert one_pass.method == "one-pass" and one_pass.arithmetic_error > 100 > split.arithmetic_error


def test_split_error_in_float64_with_its_own_eps_has_no_error():
    split = numerics_errors.split_error(ROW_1, 0, np.float64, "one-pass", eps=0.5)
    assert split.storing_error == 0.0 and split.arithmetic_error < 1e-15 and split.total_error < 1e-15


def test_split_error_adds_the_offset_in_float64():
    row = np.array([0.5, 1.25, 3.0], dtype=np.float32)
    split = numerics_errors.split_error(row, 0.1, np.float64)
    np.testing.assert_array_equal(split.stored, [0.5 + 0.1, 1.25 + 0.1, 3.0 + 0.1])
    assert split.storing_error < 1e-15


def test_float16_stages_of_a_row_float16_cannot_hold_is_a_plain_error_without_a_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with pytest.raises(ValueError, match="float16 cannot hold 70000"):
            numerics_errors.float16_stage_errors([70_000.0, 1.0, 2.0])


def test_the_normalise_stage_alone_is_float16_arithmetic_on_float16_statistics():
    row = np.random.default_rng(5).normal(size=64) + 4.0
    stored = row.astype(np.float16)
    values = stored.astype(np.float64)
    mean = values.mean()
    variance = ((values - mean) ** 2).mean()
    truth = (values - mean) / np.sqrt(variance + 1e-5)
    h = np.float16
    normalised = [h(h(v - h(mean)) / h(np.sqrt(h(h(variance) + h(1e-5))))) for v in stored]
    expected = max(abs(float(a) - b) for a, b in zip(normalised, truth))
    assert numerics_errors.float16_stage_errors(row).alone["normalise"] == pytest.approx(expected, rel=1e-9, abs=0)


def test_float16_stages_use_the_given_eps_all_together_too():
    row = np.random.default_rng(6).normal(size=32)
    eps = 0.25
    stages = numerics_errors.float16_stage_errors(row, eps=eps)
    values = row.astype(np.float16).astype(np.float64)
    centred = values - values.mean()
    truth = centred / np.sqrt(np.mean(centred**2) + eps)
    together = numerics.layer_norm_with(row.astype(np.float16), "two-pass", np.float16, eps).astype(np.float64)
    assert stages.together == pytest.approx(np.max(np.abs(together - truth)), rel=1e-9)
    assert stages.together < 5e-3


def test_normalise_form_errors_judge_only_the_arithmetic_on_the_stored_row():
    rows = np.random.default_rng(3).normal(size=(4, 32)) + 10_000  # not float32 numbers
    with_storing = numerics_errors.normalise_form_errors(rows)
    np.testing.assert_array_equal(with_storing, numerics_errors.normalise_form_errors(rows.astype(np.float32)))


def test_normalise_form_errors_in_float16_compute_the_factored_form_in_float16():
    row = np.random.default_rng(4).normal(size=16) * 3 + 20
    stored = row.astype(np.float16)
    values = stored.astype(np.float64)
    truth = (values - values.mean()) / np.sqrt(((values - values.mean()) ** 2).mean() + 1e-5)
    h = np.float16
    mean, rstd = h(values.mean()), h(1) / np.sqrt(h(((values - values.mean()) ** 2).mean()) + h(1e-5))
    factored = [h(h(v - mean) * rstd) for v in stored]
    expected = max(abs(float(a) - b) for a, b in zip(factored, truth))
    assert numerics_errors.normalise_form_errors(row, dtype=np.float16)[0, 0] == pytest.approx(
        expected, rel=1e-12, abs=0
    )
    assert expected > 1e-4  # float16's arithmetic shows: float32's would be a thousand times smaller


def test_normalise_forms_come_back_in_the_compute_type_unless_asked_otherwise():
    x = (np.random.default_rng(8).normal(size=(2, 8)) + 100).astype(np.float32)
    mean, rstd = x.mean(axis=1), 1 / x.std(axis=1)
    for form in numerics_errors.normalise_forms(x, mean, rstd).values():
        assert form.dtype == np.float32
    for form in numerics_errors.normalise_forms(x, mean, rstd, np.float16).values():
        assert form.dtype == np.float16
    wide = numerics_errors.normalise_forms(x, mean, rstd, np.float32, out_dtype=np.float64)
    assert list(wide) == list(numerics_errors.NORMALISE_FORMS)
    for form in wide.values():
        assert form.dtype == np.float64
        np.testing.assert_array_equal(form, form.astype(np.float32))  # computed in float32, then widened


def test_matching_form_counts_bits_and_never_matches_nan():
    forms = {"a": np.array([1.0, 2.0, np.nan, 4.0]), "b": np.array([1.0, 0.0, 0.0, 0.0])}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert numerics_errors.matching_form(np.array([1.0, 2.0, np.nan, 4.0]), forms) == {"a": 0.75, "b": 0.25}
