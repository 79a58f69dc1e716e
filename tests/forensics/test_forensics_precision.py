"""helpers.forensics.fingerprints (issue 19, part 4): a fingerprint that is right about PyTorch's types, or says it cannot tell.

Each test is one false verdict testers found; it checks the fields and the words a learner reads.
"""

from __future__ import annotations

import time

import numpy as np
import pytest
from patience import scaled_s, time_limit_s

from helpers.forensics import fingerprints as forensics  # the module, for monkeypatch
from helpers.forensics.fingerprints import departures, fingerprint

torch = pytest.importorskip("torch")
F = torch.nn.functional
HALF_MODULE = torch.nn.LayerNorm(4).half()


def words(found) -> str:
    """The text view and the HTML view, with HTML's escaped quotes put back."""
    text, page = str(found), found._repr_html_().replace("&#x27;", "'")
    return text + "\n" + page


def welford32(x):
    x = np.asarray(x, dtype=np.float32)
    mean = np.zeros(x.shape[:-1] + (1,), np.float32)
    m2 = np.zeros_like(mean)
    for k in range(x.shape[-1]):
        value = x[..., k : k + 1]
        delta = value - mean
        mean = mean + delta / np.float32(k + 1)
        m2 = m2 + delta * (value - mean)
    return (x - mean) / np.sqrt(m2 / np.float32(x.shape[-1]) + np.float32(1e-5))


def llama_rms_norm(x, eps=1e-6):  # Hugging Face LlamaRMSNorm's pattern
    hidden = torch.as_tensor(x).float()
    return hidden * torch.rsqrt(hidden.pow(2).mean(-1, keepdim=True) + eps)


@pytest.mark.parametrize(
    "fn",
    [lambda x: torch.nn.LayerNorm(4)(x.float()), lambda x: F.layer_norm(x.float(), (4,)), welford32],
    ids=["nn.LayerNorm(x.float())", "F.layer_norm(x.float())", "float32 Welford"],
)
def test_float32_pytorch_is_not_called_one_pass(fn):
    found = fingerprint(fn)
    assert found.problem is None and found.one_pass is False and found.matches_torch
    assert found.measured.computes_in == "float32" and found.eps == pytest.approx(1e-5, rel=1e-3)
    assert found.differences == [] and departures(found) == "nothing"
    for where, (work, offset, _) in found.measured.offset_change.items():
        assert work == "float32" and offset == 1e4, where  # never judged at 10⁸, which float32 cannot store
    shown = words(found)
    assert "E[x²] − E[x]²" not in shown and "Differences from PyTorch's LayerNorm: none." in shown
    assert "given float64, its output is float32" in shown


def test_a_float32_one_pass_is_still_caught():
    def one_pass32(x):
        x = np.asarray(x, dtype=np.float32)
        mean = x.mean(-1, keepdims=True)
        return (x - mean) / np.sqrt((x * x).mean(-1, keepdims=True) - mean * mean + np.float32(1e-5))

    found = fingerprint(one_pass32)
    assert found.one_pass is True and not found.matches_torch and "E[x²] − E[x]²" in words(found)


@pytest.mark.parametrize(
    "fn, centres",
    [
        (llama_rms_norm, False),
        (lambda x: llama_rms_norm(x, 1e-6) * 1.0, False),  # T5's norm: the same formula
        (lambda x: F.layer_norm(x.float(), (4,), eps=1e-6), True),
    ],
    ids=["LlamaRMSNorm", "T5", "F.layer_norm float32 eps 1e-6"],
)
def test_float32_eps_of_1e6_is_measured(fn, centres):
    found = fingerprint(fn)
    assert found.eps_placement == "inside sqrt" and found.eps == pytest.approx(1e-6, rel=1e-2)
    assert found.centres is centres and found.measured.computes_in == "float32"
    shown = words(found)
    assert "Its ε is 1e-06; PyTorch's default is 1e-05." in shown and "unclear" not in shown


@pytest.mark.parametrize("eps", [1e-12, 1e-8, 1e-6, 1e-3])
def test_float32_eps_down_to_bert_size(eps):
    found = fingerprint(lambda x: F.layer_norm(torch.as_tensor(x).float(), (4,), eps=eps))
    assert found.eps_placement == "inside sqrt" and found.eps == pytest.approx(eps, rel=1e-2)


@pytest.mark.parametrize(
    "fn, because, sentence",
    [
        (lambda x: np.exp(x) / np.exp(x).sum(-1, keepdims=True), "shape", "not a stretched copy"),
        (lambda x: torch.softmax(torch.as_tensor(x), -1), "shape", "not a stretched copy"),
        (
            lambda x: (x - x.min(-1, keepdims=True)) / (x.max(-1, keepdims=True) - x.min(-1, keepdims=True)),
            "shift",
            "do not average to 0",
        ),
        (lambda x: np.clip(x, -1, 1), "shape", "not a stretched copy"),
        (lambda x: np.clip(F.layer_norm(torch.as_tensor(x), (4,)).numpy(), -1, 1), "shape", "not a stretched"),
        (lambda x: 2 * x, "scale", "grows with its input"),
        (lambda x: x / np.abs(x).max(-1, keepdims=True), "prediction", "something other than its standard"),
    ],
    ids=["softmax", "torch softmax", "min-max", "clip", "clipped LayerNorm", "2x", "÷ max"],
)
def test_what_is_not_a_layer_norm_is_said_so(fn, because, sentence):
    found = fingerprint(fn)
    assert found.problem is None and found.is_layer_norm is False and found.not_layer_norm_because == because
    assert found.centres is None and found.variance is None and not found.matches_torch
    shown = words(found)
    assert "It is not a LayerNorm" in shown and sentence in shown and "a LayerNorm?" in shown
    assert "subtracts the mean" not in shown and departures(found) == "not a LayerNorm"


def test_real_layer_norms_are_layer_norms():
    for fn in (torch.nn.LayerNorm(4), torch.nn.RMSNorm(4, eps=1e-6), lambda x: F.layer_norm(x, (4,))):
        assert fingerprint(fn).is_layer_norm is True


def test_a_constant_factor_is_a_scale_and_hides_the_divisor():
    """2 · LayerNorm(÷ n) is also 2·√(n/(n − 1)) · LayerNorm(÷ (n − 1)) with another ε: the factor is told, the
    divisor and ε are "cannot tell", with ε for each reading."""
    found = fingerprint(lambda x: 2 * F.layer_norm(torch.as_tensor(x), (x.shape[-1],)))
    assert found.is_layer_norm and found.factor == pytest.approx(2.0, rel=1e-6)
    assert found.variance == "cannot tell" and found.eps_placement == "inside sqrt" and found.eps is None
    readings = dict(found.measured.eps_readings)
    assert readings["÷ n"] == pytest.approx(1e-5, rel=1e-3) and readings["÷ (n − 1)"] == pytest.approx(
        4e-5 / 3, rel=1e-3
    )
    assert not found.matches_torch and "× factor" in departures(found)
    shown = words(found)
    assert "Its output is 2 times a LayerNorm's" in shown and "× 2" in shown and "unclear" not in shown
    assert "Cannot tell whether it divides the variance by n or by n − 1" in shown


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.layer_norm(torch.as_tensor(x).half(), (4,)),
        lambda x: HALF_MODULE(torch.as_tensor(x).half()),
    ],
    ids=["F.layer_norm in float16", "a float16 module in a lambda"],
)
def test_a_float16_layer_norm_is_measured(fn):
    found = fingerprint(fn)
    assert found.problem is None and found.measured.computes_in == "float16"
    assert (found.centres, found.variance, found.eps_placement, found.one_pass) == (
        True,
        "biased",
        "inside sqrt",
        False,
    )
    assert found.eps == pytest.approx(1e-5, rel=2e-2) and found.matches_torch
    assert "given float64, its output is float16" in words(found) and "16 times wider" in words(found)


def test_a_bfloat16_module_is_also_probed_in_bfloat16():
    found = fingerprint(torch.nn.LayerNorm(4).bfloat16())
    assert found.matches_torch and found.measured.offset_change["bfloat16"][:2] == ("bfloat16", 16.0)


def test_a_failing_probe_is_named():
    def overflows(x):  # fine on ordinary rows, NaN on a row with a value above 1000 (float16 overflows at 65504)
        x = np.asarray(x)
        d = x - x.mean(-1, keepdims=True)
        y = d / np.sqrt((d * d).mean(-1, keepdims=True) + 1e-5)
        return np.where(np.abs(x).max(-1, keepdims=True) > 1000, np.nan, y)

    found = fingerprint(overflows)
    assert "the row spread 100000 times wider" in found.problem and "150000" in found.problem
    assert "such as -1.5" not in found.problem  # the plain row gave finite output: it is not blamed


def test_rms_norm_without_eps_uses_the_machine_eps_of_its_type():
    module = torch.nn.RMSNorm(4)  # eps=None: torch.finfo(x.dtype).eps
    for fn, value in ((module, 2.0**-52), (lambda x: module(torch.as_tensor(x).float()), 2.0**-23)):
        found = fingerprint(fn)
        assert found.machine_eps and found.eps == pytest.approx(value, rel=2e-2) and not found.centres
        shown = words(found)
        assert "the machine ε of the input type" in shown and "torch.finfo(x.dtype).eps" in shown
        assert "divides 0 by 0" not in shown and "machine ε" in departures(found)
        assert found.measured.zero_row == "zeros"


def test_a_lambda_around_a_float32_module_is_measured():
    module = torch.nn.LayerNorm(4)
    found = fingerprint(lambda x: module(x))
    assert found.problem is None and found.matches_torch and found.measured.computes_in == "float32"


def test_rms_norm_without_eps_divides_zeros_by_zero_not_equal_values():
    found = fingerprint(lambda x: x / np.sqrt((x * x).mean(-1, keepdims=True)))
    assert found.eps_placement == "none" and found.measured.zero_row == "NaN or infinity"
    shown = words(found)
    assert "a row of zeros divides 0 by 0" in shown and "a row of equal values divides" not in shown


# --- The time limit holds for C code too ------------------------------------------------------


def _long_c_call(x):
    np.linalg.inv(np.random.default_rng(0).random((4000, 4000)))  # many seconds inside LAPACK
    return x


def _sleeps_in_c(x):
    time.sleep(60)  # one C call: no signal handler or thread can stop it in-process
    return x


@pytest.mark.skipif(not forensics.ISOLATE, reason="needs fork")
@pytest.mark.parametrize("fn", [_long_c_call, _sleeps_in_c], ids=["numpy inv", "sleep"])
def test_the_time_limit_holds_for_a_long_c_call(fn):
    limit = time_limit_s(0.2)
    start = time.monotonic()
    found = fingerprint(fn, time_limit=limit)
    assert time.monotonic() - start < limit + scaled_s(2)  # stopped at its limit, with the machine's patience
    assert f"did not finish within {limit:g} s on a 7 × 4 float64 matrix" in found.problem
    assert "could not be measured" in str(found)


@pytest.mark.skipif(not forensics.ISOLATE, reason="needs fork")
def test_a_crash_in_the_probes_is_one_sentence_and_the_learners_state_is_untouched():
    import os

    calls = []

    def counts(x):
        calls.append(1)
        return F.layer_norm(torch.as_tensor(x), (4,)).numpy()

    assert fingerprint(counts).matches_torch and calls == []  # probed in a copy of the process
    found = fingerprint(lambda x: os._exit(3))
    assert "ended abruptly (exit code 3)" in found.problem


def test_without_fork_the_limit_still_stops_python_code(monkeypatch):
    monkeypatch.setattr(forensics, "ISOLATE", False)

    def loops(x):
        while True:
            pass

    limit = time_limit_s(0.2)
    assert f"did not finish within {limit:g} s" in fingerprint(loops, time_limit=limit).problem
    assert fingerprint(torch.nn.LayerNorm(4)).matches_torch


@pytest.mark.parametrize("platform, forks", [("linux", True), ("darwin", False), ("emscripten", False)])
def test_fork_is_used_only_where_it_is_safe(platform, forks, monkeypatch):
    """macOS: a fork that does not exec a new program, made while other threads run, can hang or crash."""
    import importlib
    import sys

    import helpers.forensics.isolate as isolate

    try:
        monkeypatch.setattr(sys, "platform", platform)
        assert importlib.reload(isolate).AVAILABLE is forks
    finally:
        monkeypatch.undo()
        importlib.reload(isolate)


def _t5_statistics(x):  # T5LayerNorm's pattern on a LayerNorm: statistics in float32, float64 output
    t = torch.as_tensor(x)
    h = t.to(torch.float32)
    mean = h.mean(-1, keepdim=True)
    variance = ((h - mean) ** 2).mean(-1, keepdim=True)
    return (t - mean.double()) * torch.rsqrt(variance + 1e-6).double()


def _bfloat16_as_float32(x):
    t = torch.as_tensor(x).float()
    return F.layer_norm(t.bfloat16(), t.shape[-1:]).float()


def _beta_in_a_closure(x):
    t = torch.as_tensor(x)
    return F.layer_norm(t, t.shape[-1:], bias=torch.full(t.shape[-1:], 0.5, dtype=t.dtype))


def _one_gamma_zero():
    module = torch.nn.LayerNorm(4)
    with torch.no_grad():
        module.weight[1] = 0.0
    return module


def _with_noise():
    rng = np.random.default_rng(0)
    return lambda x: F.layer_norm(torch.as_tensor(x), x.shape[-1:]).numpy() + 1e-9 * rng.standard_normal(x.shape)


def _caching():
    cache = {}

    def fn(x):
        if x.shape not in cache:
            cache[x.shape] = (x.mean(-1, keepdims=True), x.var(-1, keepdims=True))
        mean, variance = cache[x.shape]
        return (x - mean) / np.sqrt(variance + 1e-5)

    return fn


def test_the_issues_six_false_verdicts_in_torch():
    """Issue 30's six: each is a LayerNorm told as one, in the precision it computes in, or "cannot tell"."""
    t5 = fingerprint(_t5_statistics)
    assert t5.is_layer_norm and t5.measured.computes_in == "float32" and t5.eps == pytest.approx(1e-6, rel=1e-3)
    assert t5.eps_placement == "inside sqrt" and t5.one_pass is False and "residual probe" in words(t5)
    bf16 = fingerprint(_bfloat16_as_float32)
    assert bf16.is_layer_norm and bf16.measured.computes_in == "bfloat16" and bf16.matches_torch is not False
    closure = fingerprint(_beta_in_a_closure)
    assert closure.is_layer_norm and closure.matches_torch and closure.measured.shift == pytest.approx(0.5)
    assert "plus 0.5 on every feature" in words(closure)
    zero = fingerprint(_one_gamma_zero())
    assert zero.is_layer_norm and zero.matches_torch and zero.measured.zero_gamma_columns == (2,)
    noisy = fingerprint(_with_noise())
    assert noisy.axis == "rows" and noisy.is_layer_norm and noisy.measured.noise_floor > 0
    assert "moved the output of other tokens" not in words(noisy)
    cached = fingerprint(_caching())
    assert cached.is_layer_norm is None and cached.not_layer_norm_because == "state"
    assert departures(cached) == "cannot tell" and "Differences from PyTorch's LayerNorm: none." not in words(cached)


@pytest.mark.parametrize("features", [3, 64, 768])
@pytest.mark.parametrize("eps", [1e-5, 1e-12])
def test_a_trained_layer_norm_of_any_width_is_told(features, eps):
    """Random γ (some near 0) and β: dividing out a tiny γ magnifies rounding; the tiny-variance rows vanish
    in β's rounding. Neither may turn into a wrong ε or a wrong "= PyTorch"."""
    generator = torch.Generator().manual_seed(features)
    module = torch.nn.LayerNorm(features, eps=eps)
    with torch.no_grad():
        module.weight.copy_(torch.randn(features, generator=generator))
        module.bias.copy_(torch.randn(features, generator=generator))
    found = fingerprint(module)
    assert (found.centres, found.variance, found.eps_placement, found.axis) == (True, "biased", "inside sqrt", "rows")
    assert found.eps == pytest.approx(eps, rel=1e-3) and found.matches_torch is (eps == 1e-5)
    in_float32 = fingerprint(lambda x: module(torch.as_tensor(x).float()), features=features)
    assert in_float32.is_layer_norm and in_float32.measured.computes_in == "float32"
    assert in_float32.matches_torch in ((True, None) if eps == 1e-5 else (False, None))


def test_a_gamma_of_zero_on_one_feature_names_that_one_feature():
    """γ = 0 on a single column is said of "feature 2", not of "features 2"."""
    told = words(fingerprint(_one_gamma_zero()))
    assert "Its γ is 0 on feature 2:" in told and "features 2" not in told


def test_a_constant_factor_is_also_told_as_the_factor_of_the_n_minus_1_reading():
    """2 · LayerNorm(÷ n) is 2·√(n/(n − 1)) · LayerNorm(÷ (n − 1)): the sentence gives both factors."""
    import math

    from helpers.forensics.sizes import factor_text

    found = fingerprint(lambda x: 2 * F.layer_norm(torch.as_tensor(x), (x.shape[-1],)))
    n = found.measured.features
    other = factor_text(2 * math.sqrt(n / (n - 1)))
    assert f"Its output is 2 times a LayerNorm's with ÷ n (or {other} times one with ÷ (n − 1))" in words(found)


def test_a_divisor_that_cannot_be_told_is_not_called_n_minus_1_in_short():
    """A factor hides the divisor: the short departures say "divisor?", never "÷ (n − 1)", which is for a
    variance measured as unbiased."""
    found = fingerprint(lambda x: 2 * F.layer_norm(torch.as_tensor(x), (x.shape[-1],)))
    assert found.variance == "cannot tell" and departures(found) == "divisor?, × factor"
