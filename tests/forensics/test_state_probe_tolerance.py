"""The state probe's tolerance (helpers/forensics/behaviour.py, tolerance_for): a change above it is neither
noise nor the rounding of the type the function returns; it is the largest of 8 times the measured noise
floor, 64 roundings (machine ε) of the least precise type returned, and float64's own noise."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from helpers.core.tolerance import FLOAT64_NOISE
from helpers.forensics.behaviour import SLACK, tolerance_for
from helpers.forensics.precision import roundoff


def returning(*types):
    return SimpleNamespace(output_types={f"call {n}": t for n, t in enumerate(types)})


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_a_deterministic_function_gets_64_roundings_of_what_it_returns(dtype):
    assert tolerance_for(returning(dtype), 0.0) == 64 * roundoff(dtype)


def test_the_least_precise_type_returned_sets_it():
    assert tolerance_for(returning("float64", "float16", "float32"), 0.0) == 64 * roundoff("float16")


def test_in_float64_the_floor_is_float64_noise():
    assert tolerance_for(returning("float64"), 0.0) == FLOAT64_NOISE


def test_a_noisy_function_gets_eight_times_its_noise_when_that_is_larger():
    floor = 1e-3
    assert tolerance_for(returning("float32"), floor) == SLACK * floor == 8e-3
