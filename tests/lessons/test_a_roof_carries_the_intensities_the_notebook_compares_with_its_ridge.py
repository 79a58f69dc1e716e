"""Notebook 12's roofline table shows each roof's "I forward" and "I backward" and calls LayerNorm memory- or
compute-bound by comparing "I forward" with the ridge point: both must be the counts of PyTorch's own kernels,
and the roof must say which thread count its peak came from."""

import pytest

from helpers.lessons.speed import timing as speed


def result(implementation, gb_per_s, threads):
    return {
        "implementation": implementation,
        "regime": "from memory",
        "rows": 4096,
        "features": 1024,
        "threads": threads,
        "gb_per_s": gb_per_s,
    }


DOCUMENT = {
    "results": [result("copy, torch (1 thread)", 20.0, 1), result("copy, torch (2 threads)", 30.0, 2)],
    "peak_flops": [{"threads": 1, "flops_per_s": 50e9}, {"threads": 2, "flops_per_s": 100e9}],
}


@pytest.mark.parametrize("threads", [1, 2])
def test_the_forward_intensity_is_pytorchs_forward_kernel_ten_flops_over_eight_bytes(threads):
    # RowwiseMoments' Welford update (6 flops) and (x − μ)·rstd·γ + β (4 flops); read x, write y: 4 + 4 bytes
    assert speed.roof(DOCUMENT, threads)["forward_intensity"] == 10 / 8


@pytest.mark.parametrize("threads", [1, 2])
def test_the_backward_intensity_is_pytorchs_backward_kernel_fifteen_flops_over_twelve_bytes(threads):
    # dγ 4 + dβ 1 + ds 3 + db 2 + dx 5 = 15 flops; read x and dy, write dx: 3 × 4 bytes
    assert speed.roof(DOCUMENT, threads)["backward_intensity"] == 15 / 12


@pytest.mark.parametrize(("threads", "peak"), [(1, 50e9), (2, 100e9)])
def test_a_roofs_peak_is_said_to_come_from_its_own_thread_count(threads, peak):
    own = speed.roof(DOCUMENT, threads)
    assert (own["threads"], own["peak_threads"], own["peak_flops_per_s"]) == (threads, threads, peak)
    assert own["bandwidth_from"] == {
        "implementation": f"copy, torch ({threads} thread{'s' if threads > 1 else ''})",
        "rows": 4096,
        "features": 1024,
        "threads": threads,
    }
