"""The centring probe (helpers/forensics/probes.py: centring_offset, centring_answers, centring_verdict; judge.py):
add 3 to every value of a row (more on a wide row). A LayerNorm's output moves only by what rounding does; one
that keeps the mean (an RMSNorm) moves by most of its size. "Subtracts the mean: yes" only when the change is within what rounding
allows *and* nearer 0 than the other answer; "no" when it is beyond rounding or near the other answer; in
between, where the rounding is too coarse to tell the two apart, the fingerprint says it cannot tell."""

from __future__ import annotations

import math

import numpy as np
import pytest
from family import Spec, build
from test_forensics_family import wrong_attributes

from helpers.forensics import fingerprint
from helpers.forensics.fingerprint_view import fingerprint_rows, fingerprint_text
from helpers.forensics.precision import rounded
from helpers.forensics.probes import centring_answers, centring_offset, centring_verdict, pattern
from helpers.forensics.record import Fingerprint, Measurements
from helpers.forensics.words import centring_sentence, departures

UP, DOWN = math.inf, -math.inf


@pytest.mark.parametrize(
    "change, bound, uncentred, said",
    [
        (0.0, 0.5, 1.0, True),
        (0.25, 0.5, 1.0, True),  # exactly a quarter of the other answer: still nearer 0
        (math.nextafter(0.25, UP), 0.5, 1.0, None),  # within rounding, no longer clearly nearer 0
        (math.nextafter(0.75, DOWN), 0.9, 1.0, None),
        (0.75, 0.9, 1.0, False),  # three quarters of the other answer: it is that answer
        (0.5, 0.5, 10.0, True),  # exactly at rounding's bound
        (math.nextafter(0.5, UP), 0.5, 10.0, False),  # beyond it, whatever the other answer
        (2.0, 5.0, 1.3, False),  # the bf16 RMSNorm whose bound (5) was wider than the whole effect
    ],
)
def test_the_verdict_at_each_of_its_edges(change, bound, uncentred, said):
    assert centring_verdict(change, bound, uncentred) is said


def rms_norm(x):
    return x / (np.linalg.norm(x) / math.sqrt(x.size))


def layer_norm(x):
    centred = x - x.sum() / x.size
    return centred / (np.linalg.norm(centred) / math.sqrt(x.size))


WIDTHS = [2, 3, 4, 5, 8, 64, 768]


@pytest.mark.parametrize("n", WIDTHS)
def test_the_offset_is_3_up_to_4_features_and_moves_an_rms_norm_by_most_of_its_size_at_every_width(n):
    offset = centring_offset(n)
    assert offset == 3.0 if n <= 4 else offset % 3 == 0
    row = pattern(n)
    moved = np.max(np.abs(rms_norm(row + offset) - rms_norm(row))) / np.max(np.abs(rms_norm(row)))
    assert moved > 0.5  # the probe's two answers stay far apart, however wide the row


@pytest.mark.parametrize("n", WIDTHS)
@pytest.mark.parametrize("scale", [1.0, -2.5])  # any output size, and a γ of either sign
def test_a_layer_norm_departs_by_nothing_and_an_rms_norm_by_the_separation(n, scale):
    row = pattern(n)
    shifted = row + centring_offset(n)
    departure, separation = centring_answers(row, shifted, scale * layer_norm(row), scale * layer_norm(shifted), None)
    assert departure <= 1e-12 * abs(scale)
    moved = scale * (rms_norm(shifted) - rms_norm(row))
    assert separation == pytest.approx(float(np.max(np.abs(moved))), rel=1e-9)
    departure, _ = centring_answers(row, shifted, scale * rms_norm(row), scale * rms_norm(shifted), None)
    assert departure == pytest.approx(separation, rel=1e-9)


def test_what_rounding_the_input_does_to_a_layer_norm_is_computed_not_charged_to_it():
    """bfloat16 holds 383.5 as 384: the rows it gets differ by more than the offset, and a LayerNorm's output
    moves; that move is the LayerNorm's own, so it departs from it by nothing."""
    n = 768
    row = rounded(pattern(n), "bfloat16")
    shifted = rounded(pattern(n) + centring_offset(n), "bfloat16")
    assert not np.allclose(layer_norm(shifted), layer_norm(row), atol=1e-3)  # it does move
    departure, separation = centring_answers(row, shifted, layer_norm(row), layer_norm(shifted), None)
    assert departure <= 1e-12 and separation > 0.5


def test_only_the_kept_features_count():
    row = pattern(4)
    keep = np.array([False, True, True, False])  # the features whose γ is not 0
    shifted = row + 3.0
    y_row, y_shifted = rms_norm(row)[keep], rms_norm(shifted)[keep]
    departure, separation = centring_answers(row, shifted, y_row, y_shifted, keep)
    assert departure == pytest.approx(separation, rel=1e-9)
    assert separation == pytest.approx(float(np.max(np.abs(y_shifted - y_row))), rel=1e-9)


NOT_CENTRED = dict(
    centres=False, unbiased=False, placement="inside sqrt", eps=1e-05, one_pass=False, axis="rows",
    scale=2.0, shift=0.5, noise=False, state="none",
)  # fmt: skip


@pytest.mark.parametrize("precision", ["bfloat16", "float16"])
@pytest.mark.parametrize("gamma, beta", [("closure", "per feature"), ("parameter", "per feature"), ("none", "none")])
def test_a_low_precision_norm_that_keeps_the_mean_is_never_said_to_subtract_it(precision, gamma, beta):
    """A large β over a small γ makes the output's rounding, γ divided out, several times coarser: the bound
    once grew wider than the whole effect, and such an RMSNorm was said to subtract the mean."""
    spec = Spec(precision=precision, gamma=gamma, beta=beta, **NOT_CENTRED)
    found = fingerprint(build(spec), "member")
    assert found.centres is not True
    assert wrong_attributes(spec, found) == []
    if found.centres is False:
        assert found.measured.centring_departure >= 0.75 * found.measured.uncentred_change


@pytest.mark.parametrize("precision", ["bfloat16", "float16", "float32", "float64"])
def test_a_layer_norm_moves_by_rounding_only(precision):
    spec = Spec(precision=precision, gamma="closure", beta="per feature", **{**NOT_CENTRED, "centres": True})
    found = fingerprint(build(spec), "member")
    assert found.centres is True
    assert found.measured.centring_departure <= 0.25 * found.measured.uncentred_change


def cannot_tell() -> Fingerprint:
    measured = Measurements(
        features=4, rows_changed=(1,), columns_changed=(1, 2, 3, 4), computes_in="bfloat16",
        centring_change=0.6, centring_departure=0.5, uncentred_change=1.3, centring_bound=2.4,
    )  # fmt: skip
    return Fingerprint(
        "coarse", None, None, None, None, "rows", None, None, [centring_sentence(measured)], "per feature", None,
        measured, None, "centring",
    )  # fmt: skip


def test_cannot_tell_is_said_with_the_three_sizes_that_make_it_so():
    found = cannot_tell()
    sentence = found.differences[0]
    assert sentence.startswith("Cannot tell whether it subtracts the mean")
    for words in ("0.5 of the row's size", "about 2.4 times the row's size", "about 1.3 times the row's size"):
        assert words in sentence
    assert "bfloat16" in sentence
    assert departures(found) == "cannot tell"


def test_cannot_tell_is_shown_as_such_and_claims_nothing_after_it():
    found = cannot_tell()
    rows = {row[0]: row[1:] for row in fingerprint_rows(found)}
    assert rows["subtracts the mean"][0] == "cannot tell"
    assert "variance" not in rows and "ε placement" not in rows and "matches F.layer_norm (ε = 1e-5)" not in rows
    text = fingerprint_text(found)
    assert "? Cannot tell whether it subtracts the mean" in text
    assert "✗" not in text and "✓" not in text


def torch_norm(kind: str, dtype: str, n: int):
    torch = pytest.importorskip("torch")
    functional = torch.nn.functional

    def fn(x):
        t = torch.as_tensor(x).to(getattr(torch, dtype))
        out = functional.layer_norm(t, (n,)) if kind == "layer" else functional.rms_norm(t, (n,), eps=1e-5)
        return out.float().numpy()

    return fn


@pytest.mark.parametrize("n", [64, 768])
@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_pytorch_s_own_norms_in_low_precision_on_wide_rows(n, dtype):
    """F.rms_norm in bfloat16 on 64 features was once said to subtract the mean (the fixed 3 moved it by a
    tenth of its size, under bfloat16's bound); F.layer_norm on 768 features must still be said to."""
    assert fingerprint(torch_norm("rms", dtype, n), "rms", features=n).centres is False
    assert fingerprint(torch_norm("layer", dtype, n), "layer", features=n).centres is True
