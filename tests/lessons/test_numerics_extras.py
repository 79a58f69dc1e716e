"""Notebook 09's additions: worst-case bounds, PyTorch's old one-pass kernel, ε and a residual stream
in low precision, the normalise step's forms, and the generated sentences' thresholds."""

import math

import numpy as np
import pytest
import torch

import helpers
from helpers.lessons.numerics import errors as numerics_errors
from helpers.lessons.numerics import history as numerics_history
from helpers.lessons.numerics import lowprec as numerics_lowprec
from helpers.lessons.numerics import moments as numerics
from helpers.lessons.numerics import words as numerics_words
from helpers.lessons.numerics.errors import ErrorSplit, StageErrors, output_error_bound

ROW_1 = np.array([1.133, -0.299, 0.503])


def test_bounds_hold_on_random_rows_and_offsets():
    rng = np.random.default_rng(7)
    for _ in range(40):
        row = rng.normal(size=int(rng.integers(2, 24))) * rng.choice([0.01, 0.1, 1.0, 10.0])
        sweep = numerics.offset_sweep(row, offsets=np.logspace(-1, 6, 12) * rng.choice([1, -1]), dtype=np.float32)
        for method, (measured, bounds) in numerics_errors.sweep_bounds(sweep).items():
            numbers = ~np.isnan(measured)
            assert np.all(measured[numbers] <= bounds[numbers]), (method, row, measured, bounds)


def test_bounds_are_not_vacuous():
    stored = ROW_1.astype(np.float32).astype(np.float64)
    assert output_error_bound(stored, "two-pass") < 2e-6  # a few u·κ near zero, not "anything"
    far = (ROW_1 + 1e5).astype(np.float32).astype(np.float64)
    cap = np.max(np.abs(far - far.mean())) / math.sqrt(1e-5)
    assert output_error_bound(far, "one-pass") == pytest.approx(cap, rel=0.1)  # levels off near the cap
    assert output_error_bound(far, "two-pass") < 0.1
    with pytest.raises(ValueError):
        output_error_bound(stored, "Welford")


def _lanes_by_hand(row):
    lanes = [np.float32(0)] * 8
    for k, v in enumerate(np.asarray(row, dtype=np.float32)):
        lanes[k % 8] = np.float32(lanes[k % 8] + v)
    while len(lanes) > 1:
        half = len(lanes) // 2
        lanes = [np.float32(a + b) for a, b in zip(lanes[:half], lanes[half:])]
    return lanes[0]


def test_old_kernel_sums_in_eight_float32_lanes_clamps_and_folds():
    row = (np.random.default_rng(3).normal(size=37) + 2000).astype(np.float32)
    result = numerics_history.one_pass_kernel_2020(row[None, :])
    c = np.float32(1 / 37)
    mean = np.float32(_lanes_by_hand(row) * c)
    variance = max(np.float32(np.float32(_lanes_by_hand(row * row) * c) - np.float32(mean * mean)), np.float32(0))
    assert result.mean[0] == mean and result.variance[0] == variance
    rstd = np.float32(1) / np.sqrt(variance + np.float32(1e-5))
    np.testing.assert_array_equal(result.output[0], row * rstd + (-rstd * mean))


def test_old_kernel_reproduces_both_issues_in_kind():
    a = numerics_history.issue_40302(rows=4)
    assert np.all(np.abs(a["true"] - 1e-4) < 2e-5)
    assert np.any(a["kernel"] == 0) and np.all(np.abs(a["kernel"] - a["true"]) > 5e-5)  # never close
    b = numerics_history.issue_51102(rows=200)
    assert np.all(b["expected"] < 1) and b["kernel"].max() > 1e4  # tens of thousands, as reported


def test_eps_in_float16():
    bert, _, pytorch = numerics_lowprec.eps_in_float16((1e-12, 1e-6, 1e-5), (0.0, 1.0))
    assert bert.stored == 0 and not bert.subnormal and bert.effective[0.0] == 0
    assert pytorch.subnormal and pytorch.stored == 168 * 2.0**-24  # 1e-5 on float16's subnormal grid
    assert pytorch.effective[1.0] == 0  # float16 steps by 2⁻¹⁰ at 1: ε vanishes
    assert np.isnan(numerics_lowprec.constant_row_float16(1e-12)).all()
    assert np.all(numerics_lowprec.constant_row_float16(1e-5) == 0)


def test_residual_drift_matches_torch_bfloat16_adds_and_orders_the_types():
    drift = numerics_lowprec.residual_drift(blocks=16, width=256, seed=4)
    rng = np.random.default_rng(4)  # the same draws, in the same order, as residual_drift
    start = torch.tensor(rng.standard_normal(256), dtype=torch.float32).bfloat16()
    updates = torch.tensor(rng.standard_normal((16, 256)) * 0.1, dtype=torch.float32).bfloat16()
    h = start
    for update in updates:
        h = h + update  # torch adds bfloat16 in float32 and rounds once
    exact = start.double() + updates.double().sum(dim=0)
    torch_error = float(torch.linalg.norm(h.double() - exact) / torch.linalg.norm(exact))
    assert drift["bfloat16"].stream_error[-1] == pytest.approx(torch_error, rel=1e-9)
    assert drift["bfloat16"].norm_error > drift["float16"].norm_error > 100 * drift["float32"].norm_error


def test_normalise_forms_on_a_constant_row_and_against_torch_half():
    constant = np.full(10_000, 10_000.0)
    factored, folded, fused = numerics_errors.normalise_form_errors(constant)[0]
    torch_half = torch.nn.functional.layer_norm(torch.tensor(constant, dtype=torch.float16), (10_000,))
    assert factored == 0 and folded == 0 and fused > 0.05
    assert fused == pytest.approx(torch_half.abs().max().item(), rel=1e-3)
    near_zero = numerics_errors.normalise_form_errors(np.random.default_rng(0).normal(size=(5, 64)))
    assert near_zero.max() < 1e-5


def _split(storing, arithmetic):
    return ErrorSplit(10_000.0, "float32", "two-pass", ROW_1 + 10_000, storing, arithmetic, storing + arithmetic, 1e-4)


@pytest.mark.parametrize(
    ("storing", "arithmetic", "verdict"),
    [(1e-5, 1e-3, "method's own arithmetic"), (1e-3, 1e-5, "storing the input"), (1e-4, 1.5e-4, "neither")],
)
def test_storing_sentence_follows_the_numbers(storing, arithmetic, verdict):
    assert verdict in numerics_words.storing_vs_arithmetic(_split(storing, arithmetic))


def test_stage_sentence_names_the_cause_or_says_none_does():
    stalled = StageErrors({"mean": 0.01, "variance": 0.15, "normalise": 0.002}, 0.16, 3802.0, 4120.0)
    assert "variance stage alone reaches 94%" in numerics_words.float16_stages(stalled, "x")
    mixed = StageErrors({"mean": 0.05, "variance": 0.06, "normalise": 0.002}, 0.16, 4000.0, 4120.0)
    assert "No single stage" in numerics_words.float16_stages(mixed, "x")
    broken = StageErrors({"mean": math.nan, "variance": 0.1, "normalise": 0.002}, math.nan, 1.0, 1.0)
    assert "from the mean alone" in numerics_words.float16_stages(broken, "x")


def test_bound_sentence_reports_a_broken_bound():
    assert "the bound is wrong" in numerics_words.bound_reading(np.array([1.0, 2.0]), np.array([3.0, 1.0]), "m")
    reading = numerics_words.bound_reading(np.array([1e-9, 0.5, np.nan]), np.array([1.0, 1.0, 1.0]), "m")
    assert "under its bound at all 2 offsets" in reading and "factor 10 of it at 1," in reading
    assert "1,000 times below it at 1;" in reading and "NaN at 1" in reading


def test_comparison_sentences_use_their_thresholds():
    assert "the same as" in numerics_words.rounding_only(1e-3, 1.05e-3, "float16")
    assert "more than" in numerics_words.rounding_only(5e-3, 1e-3, "float16")
    none = {"true": np.full(3, 1e-4), "kernel": np.full(3, 2e-3)}
    assert "not the issue's zeros" in numerics_words.history_40302(none, 10)
    all_zero = {"true": np.full(3, 1e-4), "kernel": np.zeros(3)}
    assert "all zeros" in numerics_words.history_40302(all_zero, 10)
    small = {"expected": np.full(3, 0.99), "kernel": np.array([1.0, 1.0, 500.0])}
    assert "smaller than the issue's worst" in numerics_words.history_51102(small, 48425.8438)
    close = {"expected": np.full(3, 0.99), "kernel": np.array([1.0, 1.0, 48886.0])}
    assert "1.0% away from the issue's worst" in numerics_words.history_51102(close, 48425.8438)
    forms = numerics_words.normalise_forms_reading(np.array([[1.0, 1.22, 1.05]] * 5), 10_000)
    assert "(larger than it; 1.22 times)" in forms and "(about the same as it; 1.05 times)" in forms


def test_the_51102_sentence_counts_huge_rows_and_rows_within_one_percent_at_their_edges():
    """ "above 100 for N rows" and "within 1 % of the right value for only M", counted exactly at each edge:
    a variance of exactly 100 is not above it; exactly 1 % off is within it, 1.5 % and 5 % are not."""
    expected = np.full(7, 0.78125)  # 25/32: 1 % of it, 2⁻⁷, and the values 1 % off are exact in binary
    kernel = np.array([0.7890625, 0.7734375, 0.78125 * 1.015, 0.78125 * 1.05, 0.78125, 100.0, 100.5])
    words = numerics_words.history_51102({"expected": expected, "kernel": kernel}, 48425.8438)
    assert "above 100 for 1 rows" in words and "at most 100" in words  # 100.5 shows as 100
    assert "within 1 % of the right value for only 3." in words, words
    assert "between 0.7812 and 0.7812 here" in words and words.startswith("7 rows of 4 values")


def test_torch_form_sentence_names_a_form_only_when_the_bits_say_so():
    clear = {"(x − μ)·rstd": 1.0, "x·rstd − μ·rstd": 0.0002, "fused": 0.0}
    assert numerics_words.torch_form_reading(clear, 20, 256, 1e4, "float32").endswith(
        "so its float32 kernel computes (x − μ)·rstd."
    )
    muddled = {"(x − μ)·rstd": 0.999, "x·rstd − μ·rstd": 0.998, "fused": 0.9}
    assert "cannot tell" in numerics_words.torch_form_reading(muddled, 20, 256, 4, "float16")


def test_pytorch_float32_kernel_subtracts_the_mean_first():
    rows = (np.random.default_rng(0).normal(size=(8, 256)) + 10_000).astype(np.float32)
    y, mean, rstd = torch.ops.aten.native_layer_norm(torch.from_numpy(rows), [256], None, None, 1e-5)
    matches = numerics_errors.matching_form(y.numpy(), numerics_errors.normalise_forms(rows, mean, rstd))
    assert matches[numerics_errors.NORMALISE_FORMS[0]] > 0.99
    assert max(matches[name] for name in numerics_errors.NORMALISE_FORMS[1:]) < 0.5


def test_notebook_row_is_the_lesson_row():
    np.testing.assert_array_equal(helpers.load_residual()[0], ROW_1)


def test_residual_sentence_compares_like_with_like_and_can_say_it_cannot_tell():
    def drift(norm_error):
        return numerics_lowprec.ResidualDrift("any", stream_error=np.array([1e-3]), norm_error=norm_error)

    text = numerics_words.residual_reading(
        {"float16": drift(1.2e-2), "bfloat16": drift(7.3e-2), "float32": drift(2.4e-8)}, blocks=1
    )
    assert "off 3.0e+06 times less than with it kept in bfloat16" in text  # output errors: 7.3e-2 / 2.4e-8
    same = numerics_words.residual_reading({"bfloat16": drift(1e-3), "float32": drift(1e-3)}, blocks=1)
    assert same.endswith("off no less than with it kept in bfloat16.")
    assert "cannot be told" in numerics_words.residual_reading({"float16": drift(0.0), "float32": drift(0.0)}, 1)


def test_eps_sentence_says_what_float16_really_adds():
    cases = numerics_lowprec.eps_in_float16(eps_values=(1e-12, 1e-5), variances=(0.0, 1e-2))
    text = numerics_words.eps_reading(cases, [numerics_lowprec.constant_row_float16(c.eps) for c in cases])
    added = float(np.float16(np.float16(1e-2) + np.float16(1e-5)) - np.float16(1e-2))  # float16's grid near 0.01
    assert abs(added - 1e-5) > 0.1 * 1e-5
    assert f"adds only {added:.1e} to a variance of 0.01" in text
    assert text.startswith("ε = 1e-12 is 0 in float16, and a constant row comes out NaN")


def test_bound_sentence_counts_only_offsets_more_than_1000_times_below_the_bound():
    """5e-4 is 2,000 times below a bound of 1; 5e-3 only 200 times: one offset is "more than 1,000 times below"."""
    reading = numerics_words.bound_reading(np.array([5e-4, 5e-3]), np.array([1.0, 1.0]), "m")
    assert "more than 1,000 times below it at 1." in reading
