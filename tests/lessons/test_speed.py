"""helpers.lessons.speed.timing: spreads, byte and flop counts, the roofline, and which results file notebook 12 reads."""

import math
import statistics

import nbformat
import numpy as np
import pytest

from helpers.lessons.speed import kernels
from helpers.lessons.speed import timing as speed


def test_spread_matches_the_statistics_module():
    times = [3.0, 1.0, 4.0, 1.5, 9.0, 2.5, 6.0]
    quartiles = statistics.quantiles(times, n=4, method="inclusive")  # numpy's default "linear" method
    assert speed.spread(times) == {
        "median": statistics.median(times),
        "q1": quartiles[0],
        "q3": quartiles[2],
        "min": 1.0,
        "max": 9.0,
        "n": 7,
    }


@pytest.mark.parametrize("bad", [[], [0.0], [-1.0], [math.nan]])
def test_spread_refuses_non_timings(bad):
    with pytest.raises(ValueError, match="positive"):
        speed.spread(bad)


def test_bytes_and_intensity_follow_the_counts():
    assert speed.bytes_moved(1024, 1024) == 2 * 4 * 1024 * 1024
    assert speed.bytes_moved(1024, 1024, "backward") == 3 * 4 * 1024 * 1024  # the Triton tutorial's count
    assert speed.intensity("torch LayerNorm (1 thread)") == 10 / 8  # Welford 6 + elementwise 4, the timed kernel
    assert speed.intensity("torch backward (2 threads)") == 15 / 12
    with pytest.raises(ValueError):
        speed.bytes_moved(1, 1, "sideways")
    with pytest.raises(KeyError, match="No flop and byte count"):
        speed.intensity("a kernel nobody counted")


@pytest.mark.parametrize(
    "name, direction",
    [("torch LayerNorm", "forward"), ("torch backward", "backward"), ("copy, torch", "copy"),
     ("multiply-add, torch", "multiply-add"), ("sum only, torch", "sum"), ("F.rms_norm", "forward"),
     ("numpy two-pass, out=", "forward"), ("native_layer_norm.out", "forward")],
)  # fmt: skip
def test_the_count_table_moves_the_bytes_the_roofline_counts(name, direction):
    assert kernels.COUNTS[name].bytes * 6 * 7 == speed.bytes_moved(6, 7, direction)


def test_the_kernel_counts_add_up_their_parts():
    """Each PyTorch count is the sum of the per-step flops its description lists, so table and prose agree."""
    import re

    for name in ("torch LayerNorm", "torch backward", "numpy two-pass, out=", "F.rms_norm"):
        count = kernels.COUNTS[name]
        parts = [int(n) for n in re.findall(r": (\d+)", count.how)]
        assert sum(parts) == count.flops, name


def test_roofline_is_the_lower_of_the_two_ceilings():
    peak, bandwidth = 100e9, 20e9
    assert speed.ridge_point(peak, bandwidth) == 5.0
    np.testing.assert_allclose(speed.roofline([1.0, 5.0, 10.0], peak, bandwidth), [20e9, 100e9, 100e9])
    with pytest.raises(ValueError):
        speed.ridge_point(0, bandwidth)


def test_rotation_covers_four_times_the_cache():
    assert speed.buffers_to_rotate(2**20, 32 * 2**20) == 128
    assert speed.buffers_to_rotate(3 * 2**20, 32 * 2**20) * 3 * 2**20 >= 4 * 32 * 2**20
    assert speed.cache_bytes("32768K") == 32 * 2**20 and speed.cache_bytes("1M") == 2**20


def test_fused_residual_layer_norm_moves_fewer_bytes():
    assert speed.residual_layer_norm_bytes(fused=False) == 20 and speed.residual_layer_norm_bytes(fused=True) == 16


class TestResultsChoice:
    def test_local_run_is_preferred_when_present(self, tmp_path):
        (tmp_path / speed.LOCAL_RESULTS).write_text("{}")
        assert speed.results_path(tmp_path, {}) == tmp_path / speed.LOCAL_RESULTS

    def test_committed_file_without_a_local_run(self, tmp_path):
        assert speed.results_path(tmp_path, {}) == tmp_path / speed.COMMITTED_RESULTS

    @pytest.mark.parametrize(
        "environ",
        [{"PYTEST_CURRENT_TEST": "x"}, {speed.CHOICE_VARIABLE: "committed"}, {speed.CHOICE_VARIABLE: " Committed "}],
    )
    def test_tests_and_the_variable_force_the_committed_file(self, tmp_path, environ):
        (tmp_path / speed.LOCAL_RESULTS).write_text("{}")
        assert speed.results_path(tmp_path, environ) == tmp_path / speed.COMMITTED_RESULTS

    def test_notebook_12_reads_through_this_choice(self):
        from pathlib import Path

        nb = nbformat.read(Path(__file__).resolve().parents[2] / "notebooks" / "12_speed.ipynb", as_version=4)
        sources = "\n".join(cell.source for cell in nb.cells if cell.cell_type == "code")
        assert "speed.results_path(DATA_DIR, os.environ)" in sources
        assert "speed_results.json" not in sources  # no second, hard-wired path


def make_result(name, regime, gb, threads=1, rows=8, direction="forward", ceiling="copy"):
    return {
        "implementation": name,
        "regime": regime,
        "rows": rows,
        "features": 4,
        "gb_per_s": gb,
        "threads": threads,
        "direction": direction,
        "ceiling": ceiling,
    }


def test_fraction_of_ceiling_reads_the_same_regime_and_size():
    results = [
        make_result("copy", "from memory", 20.0),
        make_result("copy", "in cache", 80.0),
        make_result("ln", "from memory", 10.0),
        make_result("ln", "in cache", 20.0),
    ]
    assert speed.fraction_of_ceiling(results, results[2]) == 0.5
    assert speed.fraction_of_ceiling(results, results[3]) == 0.25
    results[2]["implementation"] = "torch LayerNorm (1 thread)"
    assert speed.achieved_flops(results[2]) == pytest.approx(10 / 8 * 10e9)
    with pytest.raises(KeyError):
        speed.find(results, implementation="copy")


def test_each_thread_count_gets_its_own_roof():
    results = [
        make_result("copy, torch (1 thread)", "from memory", 20.0, threads=1),
        make_result("copy, torch (2 threads)", "from memory", 30.0, threads=2),
        make_result("copy, torch (2 threads)", "in cache", 99.0, threads=2),  # in cache: not a bandwidth
        make_result("copy, numpy (1 thread)", "from memory", 22.0, threads=1, rows=4),  # the fastest 1-thread copy
        make_result("torch LayerNorm (1 thread)", "from memory", 11.0, threads=1),
        make_result("torch LayerNorm (2 threads)", "from memory", 15.0, threads=2),
    ]
    document = {
        "results": results,
        "peak_flops": [{"threads": 2, "flops_per_s": 100e9}, {"threads": 1, "flops_per_s": 50e9}],
    }
    one, two = speed.roofs(document)
    assert (one["threads"], one["peak_flops_per_s"], one["bandwidth_bytes_per_s"]) == (1, 50e9, 22e9)
    assert (two["threads"], two["peak_flops_per_s"], two["bandwidth_bytes_per_s"]) == (2, 100e9, 30e9)
    assert one["bandwidth_from"]["implementation"] == "copy, numpy (1 thread)"
    assert two["ridge_flops_per_byte"] == pytest.approx(100 / 30)
    # each LayerNorm against its own thread count's memory roof: I × rate ÷ (I × bandwidth)
    assert speed.share_of_roof(document, results[4]) == pytest.approx(11 / 22)
    assert speed.share_of_roof(document, results[5]) == pytest.approx(15 / 30)
    with pytest.raises(ValueError, match="3 thread"):
        speed.roof(document, 3)


def test_in_cache_means_a_quarter_of_the_last_level_cache():
    assert speed.in_cache_limit(32 * 2**20) == 8 * 2**20
    with pytest.raises(ValueError):
        speed.in_cache_limit(0)
