"""helpers.lessons.speed.timing at its edges: the sentence each bad input gets, the boundaries its checks decide
(exactly at them and one unit either side), the units it converts, and rates to the last digit.

Expected values are worked out here by hand (or with plain Python), never read off the module.
"""

import statistics

import numpy as np
import pytest

from helpers.lessons.speed import timing as speed


def error_sentence(raised) -> str:
    return raised.value.args[0]


# ---- spread --------------------------------------------------------------------------------------


def test_spread_refuses_with_one_sentence():
    with pytest.raises(ValueError) as raised:
        speed.spread([1.0, 0.0])
    assert error_sentence(raised) == "spread needs at least one positive, finite timing."


def test_float32_timings_are_summarised_in_double_precision():
    times = np.array([0.1, 0.2, 0.5], dtype=np.float32)
    exact = [float(t) for t in times]  # the float32 values themselves, as Python floats
    quartiles = statistics.quantiles(exact, n=4, method="inclusive")
    got = speed.spread(times)
    assert got["q1"] == pytest.approx(quartiles[0], rel=1e-12)
    assert got["median"] == pytest.approx(statistics.median(exact), rel=1e-12)
    assert got["q3"] == pytest.approx(quartiles[2], rel=1e-12)


# ---- bytes, rates, the roofline ------------------------------------------------------------------


def test_an_unknown_direction_is_told_the_five_it_could_be():
    with pytest.raises(ValueError) as raised:
        speed.bytes_moved(4, 4, "sideways")
    assert (
        error_sentence(raised) == "direction must be one of forward, backward, copy, multiply-add, sum; got 'sideways'."
    )


def test_gb_per_s_is_bytes_per_second_in_units_of_1e9():
    assert speed.gb_per_s(3_000_000_000, 1.5) == 2.0
    assert speed.gb_per_s(10**9, 2.0) == 0.5  # 1 GB in 2 s


def test_achieved_flops_is_intensity_times_the_rate():
    # torch LayerNorm: 10 flops per 8 bytes; at 8 GB/s that is 10 GFLOP/s
    assert speed.achieved_flops({"implementation": "torch LayerNorm (1 thread)", "gb_per_s": 8.0}) == 10e9


@pytest.mark.parametrize("peak, bandwidth, ridge", [(0.5, 0.25, 2.0), (1.0, 1.0, 1.0), (2.0, 0.5, 4.0)])
def test_the_ridge_point_of_any_positive_peak_and_bandwidth(peak, bandwidth, ridge):
    assert speed.ridge_point(peak, bandwidth) == ridge


@pytest.mark.parametrize("peak, bandwidth", [(0.0, 1.0), (1.0, 0.0), (-1.0, 1.0), (1.0, -1.0)])
def test_a_ridge_point_needs_a_positive_peak_and_bandwidth(peak, bandwidth):
    with pytest.raises(ValueError) as raised:
        speed.ridge_point(peak, bandwidth)
    assert error_sentence(raised) == "The peak and the bandwidth must both be positive."


def test_a_float32_intensity_gets_a_double_precision_ceiling():
    intensities = np.array([0.1, 1.25, 3.0], dtype=np.float32)
    peak, bandwidth = 50e9, 22e9
    expected = [min(peak, float(i) * bandwidth) for i in intensities]
    got = speed.roofline(intensities, peak, bandwidth)
    assert got.dtype == np.float64
    assert got.tolist() == pytest.approx(expected, rel=1e-12)


# ---- which result, and its ceiling ---------------------------------------------------------------


def result(name, rows, features, gb, regime="from memory"):
    return {
        "implementation": name, "regime": regime, "rows": rows, "features": features, "gb_per_s": gb,
        "threads": 1, "ceiling": "copy, torch (1 thread)",
    }  # fmt: skip


def test_find_says_what_it_looked_for_and_how_many_it_found():
    results = [result("copy, torch (1 thread)", 8, 4, 20.0), result("copy, torch (1 thread)", 16, 4, 21.0)]
    with pytest.raises(KeyError) as raised:
        speed.find(results, implementation="copy, torch (1 thread)")
    assert error_sentence(raised) == "Expected one result with {'implementation': 'copy, torch (1 thread)'}; found 2."
    with pytest.raises(KeyError) as raised:
        speed.find(results, rows=32)
    assert error_sentence(raised) == "Expected one result with {'rows': 32}; found 0."


def test_the_ceiling_is_the_copy_of_the_same_rows_and_features():
    results = [
        result("copy, torch (1 thread)", 8, 4, 20.0),
        result("copy, torch (1 thread)", 16, 4, 40.0),  # other rows
        result("copy, torch (1 thread)", 8, 2, 10.0),  # other features
        result("copy, torch (1 thread)", 8, 4, 80.0, regime="in cache"),  # other regime
        result("torch LayerNorm (1 thread)", 8, 4, 5.0),
    ]
    assert speed.fraction_of_ceiling(results, results[-1]) == 0.25


# ---- cache sizes, rotation, "in cache" -----------------------------------------------------------


@pytest.mark.parametrize(
    "text, size",
    [("32768K", 32 * 2**20), ("1M", 2**20), ("1G", 2**30), ("2g", 2 * 2**30), (" 512K\n", 512 * 2**10),
     ("1.5M", 3 * 2**19), ("1048576", 1048576), ("0", 0)],
)  # fmt: skip
def test_cache_sizes_in_bytes(text, size):
    assert speed.cache_bytes(text) == size


@pytest.mark.parametrize("text, shown", [("", "''"), ("12Q", "'12Q'"), ("K1", "'K1'")])
def test_what_is_not_a_cache_size_is_named(text, shown):
    with pytest.raises(ValueError) as raised:
        speed.cache_bytes(text)
    assert error_sentence(raised) == f"Not a cache size: {shown}."


@pytest.mark.parametrize(
    "bytes_per_call, cache, sets",
    [(1, 1, 4), (2**20, 2**20, 4), (3 * 2**20, 2**20, 2), (4 * 2**20, 3 * 2**20, 3), (4 * 2**20, 2**20, 2),
     (5 * 2**20, 2**20, 2), (2**30, 2**20, 2)],
)  # fmt: skip
def test_rotation_covers_four_caches_with_never_fewer_than_two_sets(bytes_per_call, cache, sets):
    """A call bigger than 4 × the cache still alternates two sets: a rotation needs two."""
    assert speed.buffers_to_rotate(bytes_per_call, cache) == sets


@pytest.mark.parametrize("bytes_per_call, cache", [(0, 2**20), (2**20, 0), (-1, 2**20), (2**20, -1), (0, 0)])
def test_rotation_needs_positive_sizes(bytes_per_call, cache):
    with pytest.raises(ValueError) as raised:
        speed.buffers_to_rotate(bytes_per_call, cache)
    assert error_sentence(raised) == "Sizes must be positive."


@pytest.mark.parametrize("cache, limit", [(1, 0), (4, 1), (10, 2), (2**25, 2**23), (2**25 + 3, 2**23)])
def test_in_cache_is_a_whole_number_of_bytes_up_to_a_quarter(cache, limit):
    got = speed.in_cache_limit(cache)
    assert got == limit and isinstance(got, int)


@pytest.mark.parametrize("cache", [0, -1])
def test_in_cache_needs_a_positive_cache(cache):
    with pytest.raises(ValueError) as raised:
        speed.in_cache_limit(cache)
    assert error_sentence(raised) == "The cache size must be positive."


def test_a_roof_without_a_copy_from_memory_says_so():
    document = {
        "peak_flops": [{"threads": 1, "flops_per_s": 50e9}],
        "results": [
            {"implementation": "copy, torch (1 thread)", "regime": "in cache", "threads": 1, "gb_per_s": 90.0},
            {"implementation": "torch LayerNorm (1 thread)", "regime": "from memory", "threads": 1, "gb_per_s": 9.0},
        ],
    }
    with pytest.raises(ValueError) as raised:
        speed.roof(document, 1)
    assert error_sentence(raised) == (
        "The results hold no copy from memory with 1 thread(s): no bandwidth for its roof."
    )
