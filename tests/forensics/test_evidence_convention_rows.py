"""The rows of a fingerprint's evidence table that say its conventions (helpers/forensics/fingerprint_view.py):
the precision it is judged in, whether it subtracts the mean, the variance's divisor, a constant factor, ε and
its place, the one-pass (offset) probe, a row of equal values (or zeros), and whether it matches F.layer_norm.

Each row is checked whole, as notebook 13's learner reads it: label, the word found (yes / no / cannot tell, a
number's digits) and the evidence sentence naming its probe, with sizes said in words at the rounding of the
precision judged in ("nothing beyond rounding (under a hundred-thousandth …)" in float32). Most cases fingerprint
a small numpy function (milliseconds each); the few a real function does not reach are records built by hand,
from a real fingerprint with the fields changed that the probes would have changed.
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import pytest

from helpers.forensics.fingerprint_view import fingerprint_rows, noise_of
from helpers.forensics.fingerprints import fingerprint
from helpers.forensics.record import Measurements
from tests.forensics.family import t5_statistics

NOTHING = "nothing beyond rounding (under a billionth of the row's size)"
NOTHING_32 = "nothing beyond rounding (under a hundred-thousandth of the row's size)"
LADDER_INSIDE = (
    "ε-ladder probe: on 17 rows of tiny variance v, 1/s² − v varies by nothing beyond rounding (under a "
    "billionth of its middle value) and 1/s − √v by about as much as its middle value"
)
OFFSETS = f"offset probe: how far a large offset moved the output: float64 in, offset 10⁸: {NOTHING}; float32 in, offset 10⁴: {NOTHING}"
EQUAL_VALUES = "constant-row probe: 0 ÷ √(0 + ε) is 0 with an ε; 0 ÷ 0 without one"
MATCHES = "matches F.layer_norm (ε = 1e-5)"
AGAINST = "every probe above, γ and β taken away, against F.layer_norm: it differs by"


def _layer_norm(x, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    u = x - x.mean(-1, keepdims=True)
    return u / np.sqrt((u * u).mean(-1, keepdims=True) + eps)


def _annotated_transformer(x):
    """The Annotated Transformer's: ÷ (n − 1), ε = 1e-6 added to the std."""
    x = np.asarray(x, dtype=np.float64)
    return (x - x.mean(-1, keepdims=True)) / (x.std(-1, ddof=1, keepdims=True) + 1e-6)


def _float32(x):
    x = np.asarray(x, dtype=np.float32)
    u = x - x.mean(-1, keepdims=True)
    return u / np.sqrt((u * u).mean(-1, keepdims=True) + np.float32(1e-5))


def _float16(x):
    h = np.asarray(x, dtype=np.float64).astype(np.float16)
    u = h - h.mean(-1, keepdims=True)
    return (u / np.sqrt((u * u).mean(-1, keepdims=True) + np.float16(1e-5))).astype(np.float16)


def _rms_norm(x):
    x = np.asarray(x, dtype=np.float64)
    return x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-5)


def _one_pass(x):
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(-1, keepdims=True)
    return (x - mean) / np.sqrt((x * x).mean(-1, keepdims=True) - mean * mean + 1e-5)


def _no_eps(x):
    return _layer_norm(x, 0.0)


def _machine_eps(x):
    x = np.asarray(x)
    return _layer_norm(x, float(np.finfo(x.dtype).eps))


def _refuses_equal_values(x):
    x = np.asarray(x, dtype=np.float64)
    if np.any(x.std(-1) == 0):
        raise ValueError("a row of equal values")
    return _layer_norm(x)


def _float64_only(x):
    if np.asarray(x).dtype != np.float64:
        raise TypeError("float64 only")
    return _layer_norm(x)


GAMMA = np.array([1.0, 2.0, 3.0, 4.0])


def _noisy(norm, size=1e-9):
    rng = np.random.default_rng(0)

    def fn(x):
        y = norm(x)
        return y + size * rng.standard_normal(y.shape)

    return fn


FUNCTIONS = {
    "PyTorch's": _layer_norm,
    "Annotated Transformer's": _annotated_transformer,
    "float32": _float32,
    "float16": _float16,
    "T5 statistics": t5_statistics,
    "RMSNorm": _rms_norm,
    "negated": lambda x: -_layer_norm(x),
    "doubled": lambda x: 2 * _layer_norm(x),
    "no ε": _no_eps,
    "ε = 3e-4": lambda x: _layer_norm(x, 3e-4),
    "machine ε": _machine_eps,
    "one pass": _one_pass,
    "plus 0.5": lambda x: _layer_norm(x) + 0.5,
    "refuses equal values": _refuses_equal_values,
    "float64 only": _float64_only,
    "γ per feature": lambda x: _layer_norm(x) * GAMMA,
}


@functools.cache
def found(name: str):
    """The fingerprint of ``FUNCTIONS[name]`` (a noisy one is made afresh: its noise depends on its calls)."""
    if name == "noisy":
        return fingerprint(_noisy(_layer_norm), name, time_limit=None)
    if name == "noisy one pass":
        return fingerprint(_noisy(_one_pass), name, time_limit=None)
    return fingerprint(FUNCTIONS[name], name, time_limit=None)


def rows_from(f, label: str) -> list[tuple[str, str, str]]:
    """The evidence table's rows from the one labelled ``label`` to the end."""
    rows = fingerprint_rows(f)
    return rows[[row[0] for row in rows].index(label) :]


def row(f, label: str) -> tuple[str, str, str]:
    (only,) = [r for r in fingerprint_rows(f) if r[0] == label]
    return only


# ---- whole tables: PyTorch's, the Annotated Transformer's, RMSNorm --------------------------------------------


def test_pytorchs_layer_norm_reads_mean_n_eps_inside_the_root_two_pass_zeros_and_a_match():
    assert rows_from(found("PyTorch's"), "precision") == [
        ("precision", "float64", "type probe: float64 in, float64 out"),
        ("γ", "none (the same on every feature)", "±row probe: r and −r give γ feature by feature"),
        ("β", "0", "±row probe: half of the outputs of r and −r added (a LayerNorm gives 0)"),
        (
            "subtracts the mean",
            "yes",
            f"centring probe: adding 3 to every value of a row moved its output by {NOTHING}",
        ),
        (
            "variance",
            "biased: ÷ n",
            "wide-row probe: a row spread 10⁵ times wider gives divisor k = 4.0000 for n = 4 features",
        ),
        ("ε placement", "inside the root: √(σ² + ε)", LADDER_INSIDE),
        ("ε", "1e-05", "ε-ladder probe: the default of PyTorch, GPT-2"),
        ("one-pass variance", "no", OFFSETS),
        ("a row of equal values", "zeros", EQUAL_VALUES),
        (MATCHES, "yes", f"{AGAINST} {NOTHING}"),
    ]


def test_the_annotated_transformers_reads_n_minus_1_eps_added_to_the_std_flaxs_default_and_no_match():
    assert rows_from(found("Annotated Transformer's"), "variance") == [
        (
            "variance",
            "unbiased: ÷ (n − 1)",
            "wide-row probe: a row spread 10⁵ times wider gives divisor k = 3.0000 for n = 4 features",
        ),
        (
            "ε placement",
            "added to the std: σ + ε",
            "ε-ladder probe: on 17 rows of tiny variance v, 1/s² − v varies by about 2.5 million times its middle "
            "value and 1/s − √v by nothing beyond rounding (under a billionth of its middle value)",
        ),
        ("ε", "1e-06", "ε-ladder probe: the default of Flax, LLaMA 1"),
        ("one-pass variance", "no", OFFSETS),
        ("a row of equal values", "zeros", EQUAL_VALUES),
        (MATCHES, "no", f"{AGAINST} about 2,400 times the row's size"),
    ]


def test_rms_norm_says_no_mean_has_no_offset_probe_and_shows_a_row_of_zeros():
    """Without centring the offset probe is not run (an offset moves any uncentred output), and a row of
    equal values is no longer the test of ε: a row of zeros is."""
    rows = rows_from(found("RMSNorm"), "subtracts the mean")
    assert [r[0] for r in rows] == [
        "subtracts the mean", "variance", "ε placement", "ε", "a row of zeros", MATCHES
    ]  # fmt: skip
    assert rows[0] == (
        "subtracts the mean",
        "no",
        "centring probe: adding 3 to every value of a row moved its output by about 1.3 times the row's size",
    )
    assert rows[4] == ("a row of zeros", "zeros", EQUAL_VALUES)
    assert rows[5] == (MATCHES, "no", f"{AGAINST} 0.4 of the row's size")


# ---- precision: the type probe, the residual probe, and judged to that precision's rounding ------------------


def test_a_float32_output_is_judged_to_float32s_rounding_in_every_row():
    f = found("float32")
    assert row(f, "precision") == (
        "precision",
        "float32",
        "type probe: given float64, its output is float32: every check below is judged to float32's precision",
    )
    assert rows_from(f, "subtracts the mean") == [
        (
            "subtracts the mean",
            "yes",
            f"centring probe: adding 3 to every value of a row moved its output by {NOTHING_32}",
        ),
        (
            "variance",
            "biased: ÷ n",
            "wide-row probe: a row spread 10⁵ times wider gives divisor k = 4.0000 for n = 4 features",
        ),
        (
            "ε placement",
            "inside the root: √(σ² + ε)",
            "ε-ladder probe: on 15 rows of tiny variance v, 1/s² − v varies by nothing beyond rounding (under a "
            "hundred-thousandth of its middle value) and 1/s − √v by 0.86 of its middle value",
        ),
        ("ε", "1e-05", "ε-ladder probe: the default of PyTorch, GPT-2"),
        (
            "one-pass variance",
            "no",
            "offset probe: how far a large offset moved the output: float64 in, float32 inside, offset 10⁴: "
            f"{NOTHING_32}; float32 in, offset 10⁴: {NOTHING_32}",
        ),
        ("a row of equal values", "zeros", EQUAL_VALUES),
        (MATCHES, "yes", f"{AGAINST} {NOTHING_32}; below 1e-05 counts as equal"),
    ]


def test_statistics_in_float32_are_named_by_the_residual_probe_with_the_precisions_tried():
    assert row(found("T5 statistics"), "precision") == (
        "precision",
        "float32",
        "residual probe: given float64, its output is float64, but it departs from an exact LayerNorm by as much "
        "as float32's rounding, far more than float64's: it computes (its statistics, at least) in float32: every "
        "check below is judged to float32's precision; precisions tried: float64, float32",
    )


def test_a_float16_output_spreads_its_wide_row_16_times_and_calls_a_near_1e_05_pytorchs():
    """float16 holds a row only 16 times wider; its ε (1.00036e-5) is PyTorch's to float16's tolerance."""
    f = found("float16")
    assert f.eps == pytest.approx(1.00036e-5, rel=1e-4)
    assert row(f, "variance") == (
        "variance",
        "biased: ÷ n",
        "wide-row probe: a row spread 16 times wider gives divisor k = 4.0009 for n = 4 features",
    )
    assert row(f, "ε") == ("ε", "1e-05", "ε-ladder probe: the default of PyTorch, GPT-2")


def test_a_noisy_function_cannot_tell_its_precision_and_judges_every_row_to_eight_times_its_noise():
    """Its outputs differ by 1.5 billionths between calls: 8 times that, 1.2e-8, is rounded up to 1e-7."""
    f = found("noisy")
    assert row(f, "deterministic")[1] == "no"
    assert row(f, "precision") == (
        "precision",
        "cannot tell",
        "type probe: float64 in, float64 out; residual probe: its noise hides any rounding finer than its own, so "
        "every check below is judged to float64's precision and its noise",
    )
    under = "nothing beyond rounding (under a ten-millionth of the row's size)"
    assert row(f, "subtracts the mean") == (
        "subtracts the mean",
        "yes",
        f"centring probe: adding 3 to every value of a row moved its output by {under}",
    )
    assert row(f, "one-pass variance") == (
        "one-pass variance",
        "no",
        f"offset probe: how far a large offset moved the output: float64 in, offset 10⁸: {under}; float32 in, "
        f"offset 10⁴: {under}",
    )
    assert row(f, MATCHES) == (MATCHES, "yes", f"{AGAINST} {under}; below 1.2e-08 counts as equal")


def _precision_not_fitted(**measured):
    """PyTorch's LayerNorm as a verdict whose residuals fit no precision tried (no noise to blame)."""
    f = found("PyTorch's")
    tried = ("float64", "float32", "float16", "bfloat16")
    return replace(f, measured=replace(f.measured, precision_known=False, precisions_tried=tried, **measured))


def test_residuals_that_fit_no_precision_say_so_and_list_the_precisions_tried():
    assert row(_precision_not_fitted(), "precision") == (
        "precision",
        "cannot tell",
        "type probe: float64 in, float64 out; residual probe: its residuals fit no precision tried, so every check "
        "below is judged to float64's precision and its noise; precisions tried: float64, float32, float16, bfloat16",
    )


def test_a_precision_not_fitted_still_says_what_the_type_probe_saw():
    f = _precision_not_fitted(computes_in="float32", why_that_type="its output is float32")
    assert row(f, "precision") == (
        "precision",
        "cannot tell",
        "type probe: its output is float32; residual probe: its residuals fit no precision tried, so every check "
        "below is judged to float32's precision and its noise; precisions tried: float64, float32, float16, bfloat16",
    )


@pytest.mark.parametrize(
    ("computes_in", "noise_floor", "noise"),
    [
        ("float64", 0.0, 1e-9),
        ("float32", 0.0, 1e-5),
        ("float16", 0.0, 1e-2),
        ("bfloat16", 0.0, 1e-1),
        ("float64", 1e-12, 1e-9),  # 8 times its noise is under float64's own
        ("float64", 1.5e-9, 1e-7),  # 1.2e-8, rounded up to a power of 10
        ("float64", 1.2e-8, 1e-7),  # 9.6e-8
        ("float64", 1.3e-8, 1e-6),  # 1.04e-7
        ("float32", 1e-9, 1e-5),  # float32's rounding is the larger
        ("float32", 2e-6, 1e-4),
    ],
)
def test_the_noise_a_row_is_judged_to_is_the_precisions_or_eight_times_its_own_rounded_up(
    computes_in, noise_floor, noise
):
    measured = Measurements(features=4, computes_in=computes_in, noise_floor=noise_floor)
    assert noise_of(measured) == pytest.approx(noise, rel=1e-12)


# ---- the variance's divisor and a constant factor --------------------------------------------------------------


def test_a_negated_layer_norm_gets_a_constant_factor_row_of_minus_1_under_the_variance():
    rows = rows_from(found("negated"), "variance")
    assert rows[:2] == [
        (
            "variance",
            "biased: ÷ n",
            "wide-row probe: a row spread 10⁵ times wider gives divisor k = 4.0000 for n = 4 features",
        ),
        ("constant factor", "× −1", "wide-row probe: k fits the divisor above, with every sign flipped"),
    ]
    assert rows[2][0] == "ε placement"


def test_a_doubled_layer_norm_cannot_tell_its_divisor_and_reads_eps_with_each():
    rows = rows_from(found("doubled"), "variance")
    assert rows[:4] == [
        (
            "variance",
            "cannot tell: ÷ n or ÷ (n − 1)",
            "wide-row probe: a row spread 10⁵ times wider gives divisor k = 16.0000 for n = 4 features",
        ),
        (
            "constant factor",
            "× 2",
            "wide-row probe: k is neither n nor n − 1: its output is 2 times a LayerNorm's (÷ n)",
        ),
        ("ε placement", "inside the root: √(σ² + ε)", LADDER_INSIDE),
        (
            "ε",
            "cannot tell",
            "ε-ladder probe: 1e-05 with ÷ n; 1.33e-05 with ÷ (n − 1) (the divisor cannot be told)",
        ),
    ]


def test_pytorchs_layer_norm_has_no_constant_factor_row():
    assert "constant factor" not in [r[0] for r in fingerprint_rows(found("PyTorch's"))]


# ---- ε: its place and its value --------------------------------------------------------------------------------


def test_no_eps_says_none_shows_with_the_largest_eps_that_could_hide_in_each_place():
    rows = rows_from(found("no ε"), "ε placement")
    assert rows[:2] == [
        (
            "ε placement",
            "none shows",
            "ε-ladder probe: rows of variance v down to 1e-32 come out scaled by 1/√v: any ε is under 1e-39 inside "
            "the root, under 6e-24 added to the std",
        ),
        ("ε", "0", "ε-ladder probe: nothing is added to the variance (no ε)"),
    ]
    assert row(found("no ε"), "a row of equal values") == ("a row of equal values", "NaN or infinity", EQUAL_VALUES)


def test_no_eps_without_bounds_says_only_how_the_rows_came_out():
    f = found("no ε")
    f = replace(f, measured=replace(f.measured, eps_bounds=()))
    assert row(f, "ε placement") == (
        "ε placement",
        "none shows",
        "ε-ladder probe: rows of variance v down to 1e-32 come out scaled by 1/√v",
    )


def test_an_eps_no_library_uses_is_shown_with_its_digits_and_no_well_known_default():
    assert row(found("ε = 3e-4"), "ε") == ("ε", "0.0003", "ε-ladder probe: no well-known default")


def test_the_machine_eps_of_the_input_type_is_named_so():
    assert row(found("machine ε"), "ε") == (
        "ε",
        "machine ε",
        "ε-ladder probe: 2.22e-16, the machine ε of the input type (float64 here)",
    )


@pytest.mark.parametrize(
    ("eps", "tolerance", "words"),
    [
        (1.0004e-5, 1e-3, "the default of PyTorch, GPT-2"),
        (1.002e-5, 1e-3, "no well-known default"),
        (1.002e-5, 2**-10 * 10, "the default of PyTorch, GPT-2"),  # float16's tolerance: 10 roundings
        (1.0004e-12, 1e-3, "the default of BERT"),
        (1e-3 * 0.9995, 1e-3, "the default of Keras"),
    ],
)
def test_an_eps_within_its_tolerance_of_a_libraries_default_is_called_that_default(eps, tolerance, words):
    f = found("PyTorch's")
    f = replace(f, eps=eps, measured=replace(f.measured, eps_tolerance=tolerance))
    assert row(f, "ε") == ("ε", f"{eps:.3g}", f"ε-ladder probe: {words}")


def test_tiny_variance_rows_that_fit_neither_place_leave_eps_and_the_match_untold():
    """ε-ladder spreads both too large: the placement is unclear, ε is not measured and no match is claimed."""
    f = found("PyTorch's")
    f = replace(f, eps_placement="unclear", eps=None, matches_torch=None)
    rows = rows_from(f, "ε placement")
    assert rows[:2] == [
        ("ε placement", "cannot tell", "ε-ladder probe: its tiny-variance rows fit neither placement"),
        ("ε", "—", "ε-ladder probe: not measurable"),
    ]
    assert rows[-1] == (MATCHES, "cannot tell", f"{AGAINST} {NOTHING}")


def test_a_layer_norm_plus_a_constant_judges_its_eps_ladder_to_that_constants_rounding():
    """0.5 added to tiny outputs leaves 0.5's rounding on them: the spreads are 'nothing' below a thousandth."""
    assert row(found("plus 0.5"), "ε placement") == (
        "ε placement",
        "inside the root: √(σ² + ε)",
        "ε-ladder probe: on 14 rows of tiny variance v, 1/s² − v varies by nothing beyond rounding (under a "
        "thousandth of its middle value) and 1/s − √v by about as much as its middle value",
    )


# ---- the offset (one-pass) probe --------------------------------------------------------------------------------


def test_the_one_pass_formula_is_named_by_the_offset_that_broke_it():
    assert row(found("one pass"), "one-pass variance") == (
        "one-pass variance",
        "yes",
        "offset probe: how far a large offset moved the output: float64 in, offset 10⁸: about 160 times the row's "
        f"size; float32 in, offset 10⁴: {NOTHING}",
    )
    assert row(found("one pass"), MATCHES) == (MATCHES, "no", f"{AGAINST} {NOTHING}")


def test_a_noisy_one_pass_formula_cannot_be_told_from_low_precision_statistics():
    f = found("noisy one pass")
    under = "nothing beyond rounding (under a ten-millionth of the row's size)"
    assert row(f, "one-pass variance") == (
        "one-pass variance",
        "cannot tell",
        "offset probe: how far a large offset moved the output: float64 in, offset 10⁸: about 160 times the row's "
        f"size; float32 in, offset 10⁴: {under}",
    )
    assert row(f, MATCHES) == (MATCHES, "cannot tell", f"{AGAINST} {under}; below 1.2e-08 counts as equal")


def test_an_input_type_it_refuses_is_an_offset_probe_that_could_not_run():
    assert row(found("float64 only"), "one-pass variance") == (
        "one-pass variance",
        "no",
        f"offset probe: how far a large offset moved the output: float64 in, offset 10⁸: {NOTHING}; float32 in: "
        "could not run",
    )


# ---- a row of equal values, and F.layer_norm with γ's size unknown ----------------------------------------------


def test_an_error_on_a_row_of_equal_values_is_called_an_error_not_quoted():
    assert row(found("refuses equal values"), "a row of equal values") == (
        "a row of equal values",
        "an error",
        EQUAL_VALUES,
    )


def test_with_gammas_size_unknown_the_match_is_judged_on_k_times_eps():
    """γ = 1, 2, 3, 4 measured up to its size: only k·ε is known, 4 · 1e-5 as PyTorch's."""
    f = found("γ per feature")
    assert row(f, "γ")[1] == "per feature, size unknown"
    assert row(f, "ε") == (
        "ε",
        "cannot tell",
        "ε-ladder probe: 1e-05 with ÷ n; 1.33e-05 with ÷ (n − 1) (the divisor cannot be told)",
    )
    assert rows_from(f, "a row of equal values") == [
        ("a row of equal values", "zeros", EQUAL_VALUES),
        (
            MATCHES,
            "yes",
            "wide-row and ε-ladder probes: with γ's size unknown only k·ε is known: 4e-05, PyTorch's is 4e-05",
        ),
    ]


def test_with_gammas_size_unknown_and_no_eps_read_only_the_reason_is_given():
    f = found("γ per feature")
    f = replace(f, eps_placement="unclear", matches_torch=None, measured=replace(f.measured, eps_readings=()))
    assert row(f, "ε") == ("ε", "—", "ε-ladder probe: not measurable")
    assert row(f, MATCHES) == (
        MATCHES,
        "cannot tell",
        "wide-row and ε-ladder probes: with γ's size unknown only k·ε is known",
    )


# ---- the match row says the difference against the tolerance the match was judged to ----------------------------


def test_a_difference_beyond_the_match_tolerance_is_said_in_its_size_never_as_rounding():
    """A LayerNorm 5e-8 too large, with 1e-9 of noise: its checks allow 8 times its noise, 1.2e-8, and no more.
    It does not match (27 billionths is above that), and the row says so, not "nothing beyond rounding"."""
    f = fingerprint(_noisy(lambda x: _layer_norm(x) * (1 + 5e-8)), "scaled", time_limit=None)
    assert f.measured.match_tolerance == pytest.approx(1.2e-8, rel=0.01)
    assert row(f, MATCHES) == (
        MATCHES,
        "no",
        f"{AGAINST} 27 billionths of the row's size; below 1.2e-08 counts as equal",
    )
    assert f.differences == [
        "It departs from PyTorch's output in a way none of these conventions explains (it differs by up to "
        "27 billionths of the row's size)."
    ]


@pytest.mark.parametrize(
    ("difference", "words"),
    [
        (1.2e-8, "nothing beyond rounding (under a ten-millionth of the row's size)"),  # at the tolerance: equal
        (1.3e-8, "13 billionths of the row's size"),
    ],
)
def test_a_difference_is_rounding_up_to_the_match_tolerance_and_its_size_above_it(difference, words):
    f = found("noisy")
    f = replace(f, measured=replace(f.measured, torch_difference=difference, match_tolerance=1.2e-8))
    assert row(f, MATCHES)[2] == f"{AGAINST} {words}; below 1.2e-08 counts as equal"
