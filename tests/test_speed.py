"""helpers.speed: spreads, byte and flop counts, the roofline, and which results file notebook 12 reads."""

import math
import statistics

import nbformat
import numpy as np
import pytest

from helpers import speed


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
    assert speed.arithmetic_intensity("forward") == 7 / 8
    assert speed.arithmetic_intensity("backward") == 13 / 12
    with pytest.raises(ValueError):
        speed.bytes_moved(1, 1, "sideways")


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

        nb = nbformat.read(Path(__file__).resolve().parent.parent / "notebooks" / "12_speed.ipynb", as_version=4)
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


def test_fraction_and_machine_roofline_read_the_right_results():
    results = [
        make_result("copy", "from memory", 20.0),
        make_result("copy", "in cache", 80.0),
        make_result("ln", "from memory", 10.0),
        make_result("ln", "in cache", 20.0),
        make_result("copy", "from memory", 99.0, rows=1),
    ]  # a smaller size: not the bandwidth
    document = {"results": results, "peak_flops": [{"flops_per_s": 50e9}, {"flops_per_s": 100e9}]}
    assert speed.fraction_of_ceiling(results, results[2]) == 0.5
    assert speed.fraction_of_ceiling(results, results[3]) == 0.25
    roof = speed.machine_roofline(document)
    assert roof["peak_flops_per_s"] == 100e9 and roof["bandwidth_bytes_per_s"] == 20e9
    assert roof["ridge_flops_per_byte"] == 5.0
    assert speed.achieved_flops(results[2]) == pytest.approx(7 / 8 * 10e9)
    with pytest.raises(KeyError):
        speed.find(results, implementation="copy")
