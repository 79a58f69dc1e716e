"""Every verdict earned, proved on families of learner functions (issue 30, item 6).

A learner function is composed (tests/checking/learners.py): a step, a backend (numpy, torch, pure
Python), a precision (the input's, or upcast to float64), a form for its result (array, list, copy,
tensor, tensor that requires grad, float, 0-d tensor), and none, one or two mistakes from the one
catalogue (helpers.checking.mistakes), or rounding. The check must give ✓ exactly to the correct ones
and, to each mistaken one, the name of its mistake (or of a catalogued mistake that gives the same
results on every case: then nothing tells them apart). Results of other kinds (text, None, booleans,
ragged lists) never get ✓. ``python tests/checking/test_families.py`` prints the families' sizes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import learners  # noqa: E402

from helpers.checking.cases import cases, mistakes  # noqa: E402
from helpers.checking.exercises import check  # noqa: E402

from conftest import examples  # noqa: E402

hypothesis = pytest.importorskip("hypothesis")
pytest.importorskip("torch")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

STEPS = ("mean", "variance", "std", "normalise", "scale_shift", "layer_norm")
AXIS_KEYS = ("wrong-axis", "no-axis", "lost-keepdims")


def planted(step):
    """The catalogue's mistakes for ``step`` that a learner can write: (key, settings), rounding apart."""
    found = [(m.key, m.entry.changes) for m in mistakes(step) if m.key != "rounding"]
    if step == "scale_shift":  # it is given x̂: only the mistakes of γ · x̂ + β can be made in it
        found = [(key, changes) for key, changes in found if "affine" in dict(changes)]
    return found


def forms(step):
    return learners.SCALAR_FORMS if step in ("mean", "variance", "std") else learners.ARRAY_FORMS


def family(step):
    """Every (backend, precision, form, mistake) of ``step``'s family: mistake None, ("rounding", places)
    or (key, settings)."""
    found = []
    mistakes_ = [None] + [("rounding", p) for p in (1, 2, 3, 4)] + planted(step)
    for backend in learners.BACKENDS:
        for precision in learners.PRECISIONS if backend != "python" else ("own",):
            for form in forms(step):
                for mistake in mistakes_:
                    if backend == "python" and mistake and _needs_axes(mistake):
                        continue  # a Python list has no axes to mix up, nor a column of γ to broadcast
                    found.append((backend, precision, form, mistake))
    return found


def _needs_axes(mistake) -> bool:
    changes = dict(mistake[1]) if mistake[0] != "rounding" else {}
    return "axis" in changes or "per-row" in str(changes.get("affine", ""))


FAMILIES = {step: family(step) for step in STEPS}


def build(step, member):
    backend, precision, form, mistake = member
    if mistake is None:
        return learners.learner(step, backend, precision, form)
    if mistake[0] == "rounding":
        return learners.learner(step, backend, precision, form, places=mistake[1])
    return learners.learner(step, backend, precision, form, mistake[1])


def _results(fn, step):
    found = []
    for case in cases(step):
        try:
            value = fn(*case.args)
            value = value.detach().numpy() if hasattr(value, "detach") else value
            found.append(np.asarray(value, dtype=np.float64))
        except Exception:  # noqa: BLE001 — a mistake that cannot run on this case
            found.append(None)
    return found


def same_results(step, member, key) -> bool:
    """True when a learner with the catalogue's mistake ``key`` (any of its forms) gives this member's
    results on every case: the check cannot tell them apart, and either name is true of its results."""
    backend, precision, form, _ = member
    ours = _results(build(step, member), step)
    for other_key, changes in planted(step) + [("rounding", p) for p in (1, 2, 3, 4)]:
        if other_key != key:
            continue
        other = (backend, precision, form, ("rounding", changes) if key == "rounding" else (other_key, changes))
        theirs = _results(build(step, other), step)
        if all(
            (a is None and b is None)
            or (
                a is not None
                and b is not None
                and a.shape == b.shape
                and np.allclose(a, b, rtol=1e-4, atol=1e-6, equal_nan=True)
            )
            for a, b in zip(ours, theirs)
        ):
            return True
    return False


def judge(step, member):
    result = check(step, build(step, member))
    mistake = member[3]
    if mistake is None and step == "layer_norm" and member[0] == "python":  # it loops: 07 asks for no loop
        assert not result.passed and result.mistake == "python-loop", (step, member, result)
        return
    if mistake is None:
        assert result.passed, (step, member, result)
        return
    assert not result.passed, ("✓ for wrong code", step, member, result)
    key = mistake[0]
    if result.mistake == key:
        return
    assert result.mistake is not None, ("named mistake not named", step, member, result)
    assert same_results(step, member, result.mistake), ("a wrong name", step, member, result)


@settings(max_examples=examples(400, fast=60), deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_a_composed_learner_gets_check_only_when_right_and_its_mistake_named(data):
    step = data.draw(st.sampled_from(STEPS), label="step")
    member = data.draw(st.sampled_from(FAMILIES[step]), label="member")
    judge(step, member)


@pytest.mark.parametrize("step", STEPS)
def test_every_correct_member_of_the_family_passes(step):
    for member in FAMILIES[step]:
        if member[3] is None:
            judge(step, member)


OTHER_KINDS = {
    "text": lambda v: [str(x) for x in np.ravel(v)],
    "text array": lambda v: np.asarray(v).astype(str),
    "one string": lambda v: str(v),
    "None": lambda v: None,
    "booleans": lambda v: np.asarray(v) > 0,
    "one boolean": lambda v: bool(np.ravel(v)[0] > 0),
    "ragged": lambda v: [list(np.ravel(v)), [1.0]],
    "a dict": lambda v: {"values": v},
    "a list of text tensors": lambda v: [repr(v)],
}


@settings(max_examples=examples(150, fast=20), deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_results_of_other_kinds_never_get_check(data):
    step = data.draw(st.sampled_from(STEPS), label="step")
    member = data.draw(st.sampled_from([m for m in FAMILIES[step] if m[3] is None]), label="right")
    kind = data.draw(st.sampled_from(sorted(OTHER_KINDS)), label="kind")
    right = build(step, member)

    def wrong(*args):
        value = right(*args)
        value = value.detach().numpy() if hasattr(value, "detach") else value
        return OTHER_KINDS[kind](value)

    result = check(step, wrong)
    assert not result.passed, (step, member, kind, result)
    assert "\n" not in result.diagnosis


def sizes() -> dict[str, int]:
    return {step: len(members) for step, members in FAMILIES.items()}


MODULE_MISTAKES = [(k, c) for k, c in planted("layer_norm") if "axis" not in dict(c)]
MODULE_FAMILY = [
    (precision, shape, mistake)
    for precision in learners.PRECISIONS
    for shape in ("n", "1n")
    for mistake in [None, *MODULE_MISTAKES]
]


@settings(max_examples=examples(60, fast=15), deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(MODULE_FAMILY))
def test_a_composed_module_gets_check_only_when_right_and_no_wrong_name(member):
    precision, shape, mistake = member
    result = check("module", learners.module(precision, shape, mistake[1] if mistake else ()))
    if mistake is None:
        assert result.passed, (member, result)
        return
    assert not result.passed, ("✓ for wrong code", member, result)
    # The batches cannot always tell two mistakes at once from one of them (ε next to a huge uncentred
    # variance, or ε's place once the root is gone): the name given must share a mistake with the one made.
    named, made = set(str(result.mistake).split("+")), set(mistake[0].split("+"))
    assert result.mistake is None or named & made, ("a wrong name", member, result)


def test_every_correct_module_of_the_family_passes():
    for precision, shape, mistake in MODULE_FAMILY:
        if mistake is None:
            result = check("module", learners.module(precision, shape))
            assert result.passed, (precision, shape, result)


if __name__ == "__main__":
    total = sizes()
    for step, size in total.items():
        named = sum(1 for m in FAMILIES[step] if m[3] is not None)
        print(f"{step:12} {size:5} learners ({size - named} correct, {named} mistaken)")
    print(f"{'all':12} {sum(total.values()):5}; other kinds of result: {len(OTHER_KINDS)} per correct learner")
    print(f"{'module':12} {len(MODULE_FAMILY):5} modules ({sum(m[2] is None for m in MODULE_FAMILY)} correct)")
