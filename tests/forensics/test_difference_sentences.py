"""What notebook 13 says a fingerprint found, read from fingerprints built by hand: the short list of departures
(one few-word entry per way it departs from PyTorch's LayerNorm, "nothing" when none), and the plain sentences,
one per departure, each saying the convention found and PyTorch's, with the numbers measured. No probing: each
case is one ``Fingerprint`` whose fields say what the probes would have found."""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.core.formula import layer_norm_forward
from helpers.forensics.record import Fingerprint, Measurements
from helpers.forensics.words import centring_sentence, departures, differences_from_torch

TORCH = {
    "name": "f",
    "centres": True,
    "variance": "biased",
    "eps_placement": "inside sqrt",
    "eps": 1e-5,
    "axis": "rows",
    "one_pass": False,
    "matches_torch": True,
    "differences": [],
    "gamma": "per feature",
    "is_layer_norm": True,
}


def _print(measured: Measurements | None = None, **fields) -> Fingerprint:
    """PyTorch's LayerNorm as the fingerprint finds it (4 features), with ``fields`` changed."""
    return Fingerprint(**{**TORCH, **fields}, measured=measured or Measurements(features=4))


def _departing_everywhere(eps: float, measured: Measurements) -> Fingerprint:
    """Over the columns, no centring, ÷ (n − 1), ``eps`` added to the std, × 2, one pass, one γ."""
    return _print(
        axis="columns",
        centres=False,
        variance="unbiased",
        eps_placement="added to std",
        eps=eps,
        factor=2.0,
        one_pass=True,
        gamma="scalar",
        measured=measured,
    )


def _listed(f) -> list[str]:
    return departures(f).split(", ")


def _only(f) -> str:
    (sentence,) = differences_from_torch(f)
    assert sentence[0].isupper() and sentence.endswith("."), sentence  # a plain sentence
    return sentence


# ---- departures: the gallery's "departs from PyTorch in"


def test_pytorchs_layer_norm_departs_in_nothing_and_gets_no_sentence():
    assert departures(_print()) == "nothing"
    assert differences_from_torch(_print()) == []


@pytest.mark.parametrize(
    ("fields", "word"),
    [
        ({"axis": "columns"}, "axis"),
        ({"axis": "neither"}, "axis"),
        ({"centres": False}, "no mean"),
        ({"variance": "unbiased"}, "÷ (n − 1)"),
        ({"variance": "cannot tell"}, "divisor?"),
        ({"eps_placement": "added to std"}, "ε + std"),
        ({"eps_placement": "none", "eps": 0.0}, "no ε"),
        ({"machine_eps": True, "eps": 1.19e-7}, "machine ε"),
        ({"eps": 1e-3}, "ε value"),
        ({"factor": 2.0}, "× factor"),
        ({"factor": -1.0}, "× factor"),
        ({"one_pass": True}, "one pass"),
        ({"gamma": "scalar"}, "one γ"),
        ({"measured": Measurements(features=4, shift=0.5)}, "shift"),
    ],
)
def test_each_departure_alone_is_listed_alone(fields, word):
    assert departures(_print(**fields)) == word


def test_several_departures_are_listed_in_the_order_of_the_formula_comma_separated():
    """Axis, centring, divisor, ε's placement and value, factor, one pass, γ, shift: the annotated transformer's
    ÷ (n − 1) with ε added to the std comes out as two entries, in that order."""
    f = _departing_everywhere(1e-6, Measurements(features=4, shift=0.5))
    assert departures(f) == "axis, no mean, ÷ (n − 1), ε + std, ε value, × factor, one pass, one γ, shift"
    assert departures(_print(variance="unbiased", eps_placement="added to std")) == "÷ (n − 1), ε + std"


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({"problem": "It raised ValueError."}, "could not be measured"),
        ({"is_layer_norm": False, "not_layer_norm_because": "shape"}, "not a LayerNorm"),
        ({"is_layer_norm": None, "not_layer_norm_because": "state"}, "cannot tell"),
    ],
)
def test_a_fingerprint_without_a_verdict_says_why_instead_of_its_departures(fields, words):
    assert departures(_print(centres=False, variance="unbiased", **fields)) == words


def test_an_undecided_verdict_with_no_reason_still_lists_its_departures():
    assert departures(_print(is_layer_norm=None, not_layer_norm_because="", centres=False)) == "no mean"


@pytest.mark.parametrize("placement", ["inside sqrt", "added to std"])
def test_an_eps_within_the_measured_tolerance_of_pytorchs_is_pytorchs(placement):
    """ε is "PyTorch's" when it is within the fingerprint's own ``eps_tolerance`` (relative) of 1e-5."""
    measured = Measurements(features=4, eps_tolerance=0.01)
    near, far = 1e-5 * 1.005, 1e-5 * 1.02
    assert "ε value" not in _listed(_print(eps_placement=placement, eps=near, measured=measured))
    assert "ε value" in _listed(_print(eps_placement=placement, eps=far, measured=measured))
    assert "ε value" in _listed(_print(eps_placement=placement, eps=near))  # the default tolerance is 1e-3
    assert not [s for s in differences_from_torch(_print(eps=near, measured=measured)) if "PyTorch's default is" in s]
    assert _only(_print(eps=far, measured=measured)) == "Its ε is 1.02e-05; PyTorch's default is 1e-05."


@pytest.mark.parametrize(
    "fields",
    [
        {"eps_placement": "unclear", "eps": 1e-3},  # where ε goes is unknown: its value is no finding
        {"eps_placement": None, "eps": 1e-3},
        {"eps": None},
        {"machine_eps": True, "eps": 1.19e-7},  # said as "machine ε", not as a value
    ],
)
def test_an_eps_value_is_listed_only_when_measured_in_a_known_placement(fields):
    assert "ε value" not in _listed(_print(**fields))
    assert not [s for s in differences_from_torch(_print(**fields)) if "PyTorch's default is" in s]


def test_an_undecided_one_pass_is_not_listed_as_one_pass():
    assert departures(_print(one_pass=None)) == "nothing"


# ---- the sentences


def test_the_axis_sentences_say_which_axis_it_normalises():
    assert _only(_print(axis="columns")) == (
        "It normalises each column (one feature across the tokens), not each row (one token's features) as PyTorch "
        "does."
    )
    mixed = Measurements(features=4, rows_changed=(1, 2, 3), columns_changed=(1, 2, 3, 4))
    assert _only(_print(mixed, axis="neither")) == (
        "It does not normalise one row or one column at a time: editing one token moved the output of other tokens "
        "and other features."
    )
    assert _only(_print(axis="neither")) == (  # the edits moved no output at all
        "It does not normalise one row or one column at a time: editing one token, or one feature, moved none of "
        "its output."
    )
    assert differences_from_torch(_print(axis=None)) == []


def test_the_divisor_sentences_name_n_minus_one_or_neither():
    assert _only(_print(centres=False)).startswith("It does not subtract the mean of the row")
    assert _only(_print(variance="unbiased")) == (
        "It divides the variance by n − 1 (the unbiased estimate); PyTorch divides by n."
    )
    assert _only(_print(variance="unclear")) == "Its variance is not the sum of squares divided by n or by n − 1."


def test_a_divisor_hidden_by_the_outputs_size_gives_eps_for_either_divisor():
    """Notebook 13: "Only the overall size of γ cannot be told apart from the variance's divisor"; the sentence
    says so and gives ε as it would be with ÷ n and with ÷ (n − 1)."""
    readings = (("÷ n", 1e-5), ("÷ (n − 1)", 1.3333e-5))
    hidden = Measurements(features=4, scale_known=False, eps_readings=readings)
    sentence, *_ = differences_from_torch(_print(variance="cannot tell", measured=hidden))
    assert sentence == (
        "Cannot tell whether it divides the variance by n or by n − 1: its output's overall size (a constant factor, "
        "or the size of a γ it does not show) changes the output just as the divisor does; its ε would be 1e-05 with "
        "÷ n and 1.33e-05 with ÷ (n − 1)."
    )
    by_factor = Measurements(features=4, eps_readings=readings)
    sentence, *_ = differences_from_torch(_print(variance="cannot tell", factor=2.0, measured=by_factor))
    assert "overall size" in sentence and sentence.endswith("1.33e-05 with ÷ (n − 1).")


def test_a_divisor_too_close_to_tell_names_the_precision_and_gives_no_eps_when_there_is_none():
    measured = Measurements(features=768, computes_in="float32", eps_readings=(("÷ n", 0.0), ("÷ (n − 1)", 0.0)))
    sentence, *_ = differences_from_torch(
        _print(variance="cannot tell", eps_placement="none", eps=0.0, measured=measured)
    )
    assert sentence == (
        "Cannot tell whether it divides the variance by n or by n − 1: at float32's precision n and n − 1 are too "
        "close to tell apart."
    )
    alone = _only(_print(variance="cannot tell", measured=Measurements(features=768, computes_in="float16")))
    assert alone.endswith("at float16's precision n and n − 1 are too close to tell apart.")


def test_eps_added_to_the_std_is_said_with_both_formulas():
    assert _only(_print(eps_placement="added to std")) == (
        "It adds ε to the standard deviation, σ + ε; PyTorch adds ε inside the root, √(σ² + ε)."
    )


@pytest.mark.parametrize(("centres", "row"), [(True, "a row of equal values"), (False, "a row of zeros")])
def test_no_eps_names_the_row_that_divides_zero_by_zero(centres, row):
    """With no ε, a centring norm's row of equal values (an RMSNorm's row of zeros) has σ = 0: 0 / 0."""
    nan = "NaN or infinity"
    measured = Measurements(
        features=4,
        eps_bounds=(2e-9, 3e-5),
        constant_row=nan if centres else "zeros",
        zero_row="zeros" if centres else nan,
    )
    sentences = differences_from_torch(_print(centres=centres, eps_placement="none", eps=0.0, measured=measured))
    assert sentences[-1] == (
        f"No ε shows: any ε it adds is under 2e-09 inside the root (under 3e-05 added to the std), and {row} "
        "divides 0 by 0; PyTorch adds ε = 1e-05 inside the root."
    )
    quiet = Measurements(features=4, constant_row="zeros", zero_row="zeros")
    sentences = differences_from_torch(_print(centres=centres, eps_placement="none", eps=0.0, measured=quiet))
    assert sentences[-1] == "No ε shows; PyTorch adds ε = 1e-05 inside the root."


def test_an_unclear_eps_placement_says_neither_fits():
    sentence = _only(_print(eps_placement="unclear", eps=None))
    assert sentence.startswith("Cannot tell where its ε goes:")
    assert "neither ε inside the root nor ε added to the standard deviation" in sentence


def test_machine_eps_is_named_with_its_values_and_pytorchs():
    assert _only(_print(machine_eps=True, eps=1.19e-7)) == (
        "Its ε is the machine ε of the input type, torch.finfo(x.dtype).eps (1.19e-07 in float32, 2.22e-16 in "
        "float64), as nn.RMSNorm uses when eps=None; PyTorch's LayerNorm adds 1e-05."
    )


@pytest.mark.parametrize(("n", "factor"), [(2, 2.0), (4, 0.5), (768, 3.0)])
def test_a_constant_factor_is_given_against_both_divisors(n, factor):
    """f · LayerNorm(÷ n) is f · √(n / (n − 1)) times LayerNorm(÷ (n − 1)): the second number is read here from
    the two LayerNorms themselves."""
    x = np.random.default_rng(n).normal(size=(3, n))
    y_n = layer_norm_forward(x, 0.0)[0]
    d = x - x.mean(axis=1, keepdims=True)
    y_n1 = d / np.sqrt((d * d).sum(axis=1, keepdims=True) / (n - 1))  # ÷ (n − 1), by hand
    against_n1 = float(np.mean(factor * y_n / y_n1))
    sentence = _only(_print(factor=factor, measured=Measurements(features=n)))
    first, second = re.search(r"Its output is (\S+) times a LayerNorm's with ÷ n \(or (\S+) times", sentence).groups()
    assert float(first) == factor
    assert float(second) == pytest.approx(against_n1, rel=1e-3), sentence
    assert sentence.endswith("a constant factor that is not a parameter (a scale, like the same γ on every feature).")


def test_a_flipped_sign_is_said_as_minus_one():
    assert _only(_print(factor=-1.0)) == (
        "Its output is −1 times a LayerNorm's: every sign flipped (a constant, not a parameter)."
    )


def test_an_undecided_one_pass_is_said_only_for_a_centring_norm_with_a_measured_eps():
    assert _only(_print(one_pass=None)) == (
        "Cannot tell whether its variance is the one-pass formula: a large offset moved its output, as E[x²] − E[x]² "
        "does, but so would statistics computed in a lower precision, and its precision cannot be told."
    )
    assert differences_from_torch(_print(one_pass=None, eps_placement=None, eps=None)) == []
    assert differences_from_torch(_print(one_pass=None, centres=None)) == []


def test_one_pass_and_a_scalar_gamma_each_get_their_sentence():
    assert _only(_print(one_pass=True)) == (
        "Its variance loses every digit when the values sit far from 0, as the one-pass formula E[x²] − E[x]² does; "
        "PyTorch's kernels do not."
    )
    assert _only(_print(gamma="scalar")) == (
        "It has one γ shared by every feature; PyTorch's LayerNorm learns one γ per feature."
    )


def test_a_departure_no_convention_explains_is_said_with_its_size():
    assert _only(_print(matches_torch=False, measured=Measurements(features=4, torch_difference=0.26))) == (
        "It departs from PyTorch's output in a way none of these conventions explains (it differs by up to 0.26 "
        "of the row's size)."
    )
    assert _only(_print(matches_torch=False)) == (
        "It departs from PyTorch's output in a way none of these conventions explains."
    )
    assert differences_from_torch(_print(matches_torch=None)) == []
    sentences = differences_from_torch(_print(matches_torch=False, gamma="scalar"))  # explained: no catch-all
    assert not [s for s in sentences if "none of these conventions" in s]


# ---- γ and β, as the ±row probe found them


def _affine(**measured) -> list[str]:
    return differences_from_torch(_print(measured=Measurements(features=4, **measured)))


def test_ignored_parameters_and_zero_gammas_are_said_with_their_features():
    assert _affine(parameters_ignored=True) == [
        "It has γ or β attributes, but its output does not follow them; γ and β were measured instead."
    ]
    assert _affine(zero_gamma_columns=(3,)) == [
        "Its γ is 0 on feature 3: the output there is β alone, so the checks use the other features."
    ]
    (sentence,) = _affine(zero_gamma_columns=(2, 4))
    assert sentence.startswith("Its γ is 0 on features 2, 4: ")


def test_a_constant_shift_is_said_with_its_size_as_a_beta():
    assert _affine(shift=0.123456) == [
        "Its output is a LayerNorm's plus 0.1235 on every feature (a constant shift, as β = 0.1235 gives), measured "
        "by the ±row probe and taken away before measuring."
    ]


def test_a_measured_beta_is_said_only_when_it_is_not_zero():
    beta = "Its β differs from feature to feature (measured by the ±row probe); it was taken away."
    assert _affine(gamma_source="measured", beta_measured=(0.0, 0.2, 0.0, 0.0)) == [beta]
    assert _affine(gamma_source="measured", beta_measured=(0.0, 0.0, 0.0, 0.0)) == []
    assert _affine(gamma_source="measured") == []
    assert _affine(gamma_source="parameters", beta_measured=(0.1, 0.2, 0.0, 0.0)) == []
    assert _affine(shift=0.5, gamma_source="measured", beta_measured=(0.5,) * 4)[0].startswith(
        "Its output is a LayerNorm's plus 0.5"
    )  # one constant β: said once, as the shift


def test_an_unreadable_gamma_and_gammas_read_from_parameters_are_said():
    unreadable = (
        "Its γ differs from feature to feature and is not readable from it (measured by the ±row probe, up to its "
        "overall size); it was divided out."
    )
    assert _affine(scale_known=False) == [unreadable]
    assert _affine(scale_known=False, gamma_source="parameters", affine_undone=True) == [unreadable]
    (read,) = _affine(gamma_source="parameters", affine_undone=True)
    assert read.startswith("Its γ and β are not 1 and 0 (trained?): read from its parameters and divided out")
    assert read.endswith(
        "(the ±row probe confirms β and how γ varies between features; γ's overall size is taken as read)."
    )
    assert _affine(gamma_source="parameters") == []  # γ = 1 and β = 0: nothing was divided out
    assert _affine(gamma_source="measured", affine_undone=True) == []


def test_the_centring_sentence_gives_the_three_sizes_and_the_precision():
    m = Measurements(
        centring_offset=3.0, centring_departure=2e-4, uncentred_change=5e-4, centring_bound=1e-3, computes_in="float16"
    )
    assert centring_sentence(m) == (
        "Cannot tell whether it subtracts the mean: adding 3 to every value of a row moved its output 200 "
        "millionths of the row's size away from where a LayerNorm's would go, and an RMSNorm's (which keeps the "
        "mean) would go 500 millionths of the row's size away; rounding in float16 allows up to 1 thousandth of "
        "the row's size, too coarse to tell the two apart."
    )
    tiny = Measurements(centring_departure=1e-14, uncentred_change=1e-14, centring_bound=1e-14)
    assert "nothing beyond rounding" not in centring_sentence(tiny)  # sizes said as they are, no noise floor


def test_every_sentence_is_one_plain_sentence():
    f = _departing_everywhere(
        1e-3, Measurements(features=4, shift=0.5, zero_gamma_columns=(2,), parameters_ignored=True)
    )
    sentences = differences_from_torch(f)
    assert len(sentences) == 11
    for s in sentences:
        assert s[0].isupper() and s.endswith("."), s
        assert "  " not in s and not s.startswith("XX"), s
