"""check(step, fn) given a step that is no exercise, or something that is not a function: ✗ in one sentence.

The verdict is never ✓ and never a stand-in: ``passed`` is False itself (a grade reads it), the step is the one
asked for as the exercises spell it ("normalize" is "normalise"), and the sentence lists the exercises or names
what was given instead of a function.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.cases import STEPS
from helpers.checking.exercises import check


@pytest.mark.parametrize("step", ["median", " Median ", "layernorm", ""])
def test_a_step_that_is_no_exercise_is_named_with_the_list_of_exercises(step):
    result = check(step, np.mean)
    assert result.passed is False and result.mistake is None and result.count == 0
    assert result.step == (step.strip().lower() or "check")
    assert result.diagnosis == f"There is no exercise called {step!r}; the exercises are: {', '.join(STEPS)}."


def test_a_step_whose_text_cannot_be_read_is_no_exercise_and_named_by_its_type():
    class Unreadable:
        def __str__(self):
            raise RuntimeError("no text")

        def __repr__(self):
            raise RuntimeError("no text")

    result = check(Unreadable(), np.mean)
    assert result.passed is False and result.step == "check"
    assert result.diagnosis.startswith("There is no exercise called an Unreadable; the exercises are: mean, ")


def test_a_long_step_is_shown_cut_to_80_characters():
    step = "x" * 200
    result = check(step, np.mean)
    assert f"called {repr(step)[:80]};" in result.diagnosis


@pytest.mark.parametrize(("given", "kind"), [(3.0, "float"), ([1, 2], "list"), (None, "NoneType")])
@pytest.mark.parametrize("step", ["mean", "normalize", "layer_norm"])
def test_something_that_is_not_a_function_is_named_and_never_passes(step, given, kind):
    result = check(step, given)
    name = step.replace("normalize", "normalise")
    assert result.passed is False and result.step == name and result.count == 0
    assert result.diagnosis == (
        f"check needs your function itself (for example `{name}`, without brackets); got {kind}."
    )
