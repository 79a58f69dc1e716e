"""benchmarks/bench_speed.py: a quick run writes the documented shape; a busy machine's run is not saved.

Timings vary from run to run, so only the structure, the bookkeeping and the correctness checks
are asserted, never a speed.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import speed

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "bench_speed.py"


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location("bench_speed", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory):
    output = tmp_path_factory.mktemp("speed") / "speed.json"
    finished = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--force", "--output", str(output)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return json.loads(output.read_text(encoding="utf-8"))


def test_quick_run_has_both_regimes_every_implementation_and_the_roofline(quick_run, bench):
    document = quick_run
    assert document["quick"] is True
    assert {"cpu", "cores", "numpy", "torch", "torch_threads", "date", "caches"} <= set(document["machine"])
    assert {"start", "end", "under_load", "limit_per_core"} <= set(document["load_average"])
    results = document["results"]
    assert {r["regime"] for r in results} == {"in cache", "from memory"}
    names = {r["implementation"] for r in results}
    assert {
        "copy, numpy (1 thread)",
        "numpy two-pass, out=",
        "numpy two-pass, new arrays",
        "copy, torch (1 thread)",
        "torch LayerNorm (1 thread)",
        "torch backward (1 thread)",
    } <= names
    assert [r["implementation"] for r in document["lesson"]][0] == "pure Python loops"
    assert all(p["flops_per_s"] > 0 for p in document["peak_flops"])
    llc = document["last_level_cache_bytes"]
    for r in results:
        t = r["time"]
        assert 0 < t["min"] <= t["q1"] <= t["median"] <= t["q3"] <= t["max"] and t["n"] >= bench.QUICK_MIN_SAMPLES
        assert r["bytes_moved"] == speed.bytes_moved(r["rows"], r["features"], r["direction"])
        assert r["gb_per_s"] == pytest.approx(r["bytes_moved"] / t["median"] / 1e9)
        if r["regime"] == "from memory":  # rotates over at least 4 × the last-level cache
            assert r["working_set_bytes"] >= 4 * llc
        else:
            assert r["buffers"] == 1 and r["working_set_bytes"] <= llc
        assert r["page_faults_per_call"] >= 0
        ceiling = speed.find(results, implementation=r["ceiling"], regime=r["regime"], rows=r["rows"])
        assert ceiling["threads"] == r["threads"] and ceiling["implementation"].startswith("copy")
        if r["max_abs_difference"] is not None:
            assert r["max_abs_difference"] < bench.AGREEMENT_TOLERANCE
    assert {r["implementation"] for r in results if r["max_abs_difference"] is not None} == {
        name for name in names if "LayerNorm" in name or name.startswith("numpy")
    }
    roof = speed.machine_roofline(document)
    assert roof["ridge_flops_per_byte"] == pytest.approx(roof["peak_flops_per_s"] / roof["bandwidth_bytes_per_s"])


def test_a_busy_machine_is_refused_without_force(bench, monkeypatch, tmp_path):
    output = tmp_path / "speed.json"
    monkeypatch.setattr(bench, "load_average", lambda: 100.0)
    assert bench.main(["--quick", "--output", str(output)]) == 3
    assert not output.exists()


def test_the_default_output_is_the_git_ignored_local_file(bench):
    assert bench.parse([]).output is None and not bench.parse([]).save_committed
    assert bench.LOCAL.name == speed.LOCAL_RESULTS and bench.COMMITTED.name == speed.COMMITTED_RESULTS
    ignored = subprocess.run(["git", "check-ignore", "-q", str(bench.LOCAL)], cwd=ROOT)
    assert ignored.returncode == 0, f"{bench.LOCAL.name} must be ignored by git"
    with pytest.raises(SystemExit):
        bench.parse(["--save-committed", "--output", "x.json"])


def test_under_load_uses_half_the_cores(bench):
    assert bench.under_load(1.1, 2) and not bench.under_load(0.9, 2) and not bench.under_load(None, 2)


def test_the_committed_results_are_a_full_run():
    document = json.loads((ROOT / "data" / speed.COMMITTED_RESULTS).read_text(encoding="utf-8"))
    assert document["quick"] is False
    assert {r["regime"] for r in document["results"]} == {"in cache", "from memory"}
    assert all(r["max_abs_difference"] is None or r["max_abs_difference"] < 1e-3 for r in document["results"])
