"""The fingerprint on a generated family of implementations (issue 30, item 6): every attribute it states is
true, or it says it cannot tell. Never a wrong attribute.

The family (``family.space()``) is the product of precision × centring × divisor × ε placement × ε × one
pass × axis × γ × β × constant scale × constant shift × noise × state, less the combinations that make no
sense; Hypothesis draws members from it. The truth comes from the spec (``family``), not from the fingerprint.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from family import COMPUTES_IN, Spec, build, factor_if_biased, matches_torch, readable, space, total_beta, unknown_scale
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers.forensics.fingerprints import fingerprint

from conftest import examples

pytest.importorskip("torch")  # the bfloat16 members compute in torch
members = st.deferred(lambda: st.sampled_from(space()))  # the family is made when a test first draws from it


def wrong_attributes(spec: Spec, found) -> list[str]:
    """Every attribute ``found`` states that the spec says is false ("cannot tell" is never false)."""
    wrong = []

    def claim(ok: bool, what: str) -> None:
        if not ok:
            wrong.append(what)

    if found.problem is not None:
        return wrong  # could not be measured: one sentence, no attribute
    m = found.measured
    if spec.state != "none":
        claim(found.is_layer_norm is not True, f"a verdict about a function that keeps state ({spec.state})")
        return wrong
    claim(found.not_layer_norm_because != "state", "said to keep state")
    claim(found.is_layer_norm is not False, f"called not a LayerNorm ({found.not_layer_norm_because})")
    if found.is_layer_norm is not True:
        return wrong
    claim((m.noise_floor > 0) == spec.noise, f"deterministic: {m.noise_floor == 0}")
    claim(found.axis == spec.axis, f"axis {found.axis}")
    if m.precision_known:
        claim(m.computes_in == COMPUTES_IN[spec.precision], f"precision {m.computes_in}")
    claim(found.centres == spec.centres, f"centres {found.centres}")
    if found.variance in ("biased", "unbiased"):
        claim(found.variance == ("unbiased" if spec.unbiased else "biased"), f"variance {found.variance}")
    else:
        claim(found.variance == "cannot tell", f"variance {found.variance}")
    if found.eps_placement == "none" and spec.placement != "none":  # "no ε shows": it must be under the bound said
        bound = dict(zip(("inside sqrt", "added to std"), m.eps_bounds)).get(spec.placement, 0.0)
        claim(spec.eps < bound, f"no ε shows, under {bound:.2g}")
    else:
        claim(found.eps_placement in (spec.placement, "unclear"), f"ε placement {found.eps_placement}")
    if found.eps is not None and found.eps_placement == spec.placement != "none":
        low = COMPUTES_IN[spec.precision] in ("float16", "bfloat16")
        claim(math.isclose(found.eps, spec.eps, rel_tol=3e-2 if low else 2e-3), f"ε {found.eps:.4g}")
    if found.one_pass is not None:
        claim(found.one_pass == spec.one_pass, f"one pass {found.one_pass}")
    if found.matches_torch is not None:
        claim(found.matches_torch == matches_torch(spec), f"matches PyTorch {found.matches_torch}")
    if found.factor != 1.0:
        claim(not unknown_scale(spec), "a constant factor with a γ of unknown size")
        read = m.gamma_source == "parameters"
        if abs(found.factor) == 1.0:  # only the sign: the divisor found stands
            g = factor_if_biased(spec, read) / (math.sqrt((4 - 1) / 4) if spec.unbiased else 1.0)
            claim(math.isclose(found.factor, g, rel_tol=1e-2), f"factor {found.factor:.4g}")
        else:
            claim(math.isclose(found.factor, factor_if_biased(spec, read), rel_tol=1e-2), f"factor {found.factor:.4g}")
    elif found.variance in ("biased", "unbiased"):
        claim(factor_if_biased(spec, m.gamma_source == "parameters") in (1.0, math.sqrt((4 - 1) / 4)), "no factor")
    claim(m.zero_gamma_columns == ((2,) if spec.gamma.startswith("zero") else ()), f"γ = 0 on {m.zero_gamma_columns}")
    if m.gamma_source == "parameters":
        claim(readable(spec), "γ and β read from parameters its output does not follow")
    if m.parameters_ignored:
        claim(spec.gamma.endswith("parameter") and not readable(spec), "parameters said to be ignored")
    if found.gamma == "scalar":
        claim(spec.gamma == "scalar parameter", "one γ")
    elif found.gamma == "per feature":
        claim(spec.gamma not in ("none", "scalar parameter"), "a γ per feature")
    if m.shift is not None:
        beta = total_beta(spec)
        claim(bool(np.allclose(beta, m.shift, rtol=1e-2, atol=1e-2)), f"a constant shift of {m.shift:.3g}")
    return wrong


@settings(
    max_examples=examples(150, fast=20), deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
@given(spec=members)
def test_every_stated_attribute_is_true_or_cannot_tell(spec):
    found = fingerprint(build(spec), "member")
    assert wrong_attributes(spec, found) == [], f"{spec}\n{found}"


def test_the_family_is_large_and_covers_every_choice():
    assert len(space()) > 10_000
    for field in ("precision", "gamma", "beta", "state", "placement", "axis", "scale", "shift", "noise"):
        assert len({getattr(spec, field) for spec in space()}) > 1, field


@pytest.mark.parametrize(
    "spec",
    [
        Spec(precision="float32 statistics", eps=1e-6),  # T5's pattern
        Spec(precision="bfloat16"),
        Spec(beta="constant"),
        Spec(gamma="zero parameter"),
        Spec(noise=True),
        Spec(state="cache"),
    ],
    ids=["T5 float32 statistics", "bfloat16 as float32", "β = 0.5 closure", "one γ = 0", "1e-9 noise", "cache"],
)
def test_the_issues_six_cases(spec):
    found = fingerprint(build(spec), "member")
    assert wrong_attributes(spec, found) == [], f"{spec}\n{found}"
    if spec.state == "none":
        assert found.is_layer_norm is True  # told exactly, not "cannot tell"
