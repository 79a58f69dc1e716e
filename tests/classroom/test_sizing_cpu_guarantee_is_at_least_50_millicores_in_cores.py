"""sizing.sizing's singleuser.cpu.guarantee: CPU seconds per student p95 / 60 s, rounded up to 0.05 core,
never below 0.05 core (the smallest step), written in cores without float noise or a trailing ".0"."""

from __future__ import annotations

import pytest

from classroom import sizing


def measured(cpu_p95: float) -> dict:
    return {
        "memory_mib": {"numpy": {"rss": {"p95": 64.0}}, "torch": {"rss": {"max": 256.0}}},
        "cpu_seconds_per_student": {"p95": cpu_p95},
    }


@pytest.mark.parametrize(
    "cpu_p95, cores",
    [
        (0.0, "0.05"),  # nothing measured: still the smallest step
        (0.06, "0.05"),  # 1 millicore, up to 50
        (3.0, "0.05"),  # exactly 50 millicores stays
        (3.06, "0.1"),  # 51 millicores, up to 100
        (9.0, "0.15"),
        (60.0, "1"),  # a whole core is "1", not "1.0"
        (120.0, "2"),
    ],
)
def test_the_cpu_guarantee_in_cores(cpu_p95, cores):
    assert sizing.sizing(measured(cpu_p95))["singleuser.cpu.guarantee"] == cores


def test_the_memory_entries_are_mib_with_an_m():
    found = sizing.sizing(measured(1.0))
    assert found["singleuser.memory.guarantee"] == "64M"  # 64 is a multiple of 64 already
    assert found["singleuser.memory.limit"] == "384M"  # 256 x 1.5 = 384 = 3 x 128
