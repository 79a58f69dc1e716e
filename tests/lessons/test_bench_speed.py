"""benchmarks/bench_speed.py: a quick run writes the documented shape; a busy machine's run is not saved.

Timings vary from run to run, so only the structure, the bookkeeping and the correctness checks
are asserted, never a speed.
"""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from patience import scaled_s

from helpers.lessons.speed import checks as speed_checks
from helpers.lessons.speed import kernels
from helpers.lessons.speed import timing as speed

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "bench_speed.py"


pytestmark = pytest.mark.slow  # left out by `run.py test --fast`


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
        timeout=scaled_s(300),
    )
    assert finished.returncode == 0, finished.stdout + finished.stderr
    return json.loads(output.read_text(encoding="utf-8"))


def test_quick_run_has_both_regimes_every_implementation_and_the_roofline(quick_run, bench):
    document = quick_run
    assert document["quick"] is True
    assert {"cpu", "cores", "numpy", "torch", "torch_threads", "date", "caches"} <= set(document["machine"])
    assert {"start", "end", "limit_per_core"} <= set(document["load_average"])
    plan = document["plan"]
    assert plan["repeats"] == bench.QUICK_REPEATS and plan["thread_counts"][0] == 1
    results = document["results"]
    assert {r["regime"] for r in results} == {"in cache", "from memory"}
    names = {r["implementation"] for r in results}
    parts = {"copy, torch", "torch LayerNorm", "torch backward", "sum only, torch", "multiply-add, torch"}
    parts |= {"F.rms_norm"}
    expected = {f"{part} ({speed_checks.thread_label(n)})" for part in parts for n in plan["thread_counts"]}
    assert names == expected | {
        "copy, numpy (1 thread)",
        "numpy two-pass, out=",
        "numpy two-pass, new arrays",
        "native_layer_norm.out (1 thread)",
    }
    assert [r["implementation"] for r in document["lesson"]][0] == "pure Python loops"
    for r in document["lesson"]:  # the lesson's matrix is timed in the repeats, interleaved with the rest
        assert len(r["repeat_medians"]) == len(r["calls"]) == len(r["faulted_calls"]) == plan["repeats"]
    assert document["format"] == bench.FORMAT and document["allocator"]["glibc_mallopt"] is True
    assert document["counts"]["torch LayerNorm"]["flops"] == 10 and set(document["counts"]) == set(kernels.COUNTS)
    llc = document["last_level_cache_bytes"]
    rotation = plan["rotation_cache_bytes"]
    assert rotation == min(llc, bench.QUICK_ROTATION_BYTES)
    assert plan["in_cache_limit_bytes"] == llc // 4
    for r in results:
        t = r["time"]
        assert 0 < t["min"] <= t["q1"] <= t["q3"] <= t["max"] and t["n"] >= bench.QUICK_MIN_SAMPLES * plan["repeats"]
        assert len(r["repeat_medians"]) == len(r["others_cores"]) == len(r["steal_cores"]) == plan["repeats"]
        assert t["median"] == pytest.approx(float(np.median(r["repeat_medians"])))
        assert r["bytes_moved"] == speed.bytes_moved(r["rows"], r["features"], r["direction"])
        assert r["gb_per_s"] == pytest.approx(r["bytes_moved"] / t["median"] / 1e9)
        written = kernels.count(r["implementation"]).written * r["rows"] * r["features"]
        if r["regime"] == "from memory":  # inputs and outputs each rotate over at least 4 × the cache to defeat
            assert (
                r["buffers"] * r["rows"] * r["features"] * 4 >= 4 * rotation and r["rows"] in plan["from_memory_rows"]
            )
            if written:  # an allocating call got (nearly) a new block each time: glibc reused the ring's oldest
                assert r["output_buffers"] >= (r["buffers"] if not r["allocates"] else r["buffers"] // 2)
        else:
            assert r["buffers"] == 1 and r["rows"] in plan["in_cache_rows"]
            if r["working_set_bytes"] > llc // 4:
                # The plan fits the inputs, but an allocating call's outputs land where glibc puts them
                # (history-dependent: 9 blocks of 1 MiB once, on a 32 MiB cache under load). The run must
                # then say so itself, never call the case "in cache" in silence.
                words = [
                    f["words"]
                    for f in document["consistency"]["findings"]
                    if f["check"] == "in-cache working set too large"
                ]
                assert any(f"{r['implementation']} at {r['rows']} ×" in w for w in words), words
                assert not document["consistency"]["consistent"] and document["forced"]
            assert r["output_buffers"] == 1 or r["allocates"]
        assert r["page_faults_per_call"] >= 0 and 0 <= sum(r["faulted_calls"]) <= sum(r["calls"])
        ceiling = speed.find(results, implementation=r["ceiling"], regime=r["regime"], rows=r["rows"])
        assert ceiling["threads"] == r["threads"] and ceiling["implementation"].startswith("copy")
        if r["max_abs_difference"] is not None:
            assert r["max_abs_difference"] < bench.AGREEMENT_TOLERANCE
    checked = {r["implementation"] for r in results if r["max_abs_difference"] is not None}
    assert checked == {name for name in names if "LayerNorm" in name or name.startswith(("numpy", "F.", "native"))}
    assert [p["threads"] for p in document["peak_flops"]] == plan["thread_counts"]
    assert all(p["flops_per_s"] > 0 and len(p["repeat_medians"]) == plan["repeats"] for p in document["peak_flops"])
    assert document["roofs"] == speed.roofs(document)
    assert [roof["threads"] for roof in document["roofs"]] == plan["thread_counts"]
    assert [q["threads"] for q in document["quietness"]["by_threads"]] == plan["thread_counts"]
    assert len(document["quietness"]["per_repeat"]) == plan["repeats"]
    consistency = document["consistency"]
    assert consistency["findings"] == speed_checks.findings(document)
    assert document["forced"] == bool(consistency["refusals"])  # --force: saved, and marked when it had to be
    operators = {name: dict(calls) for name, calls in document["operators"].items()}
    assert operators["F.layer_norm"]["aten::native_layer_norm"] == 1
    assert operators["native_layer_norm.out"]["aten::copy_"] >= 1  # computes, then copies into out
    assert "aten::pow" in operators["F.rms_norm"]
    # a smoke test: a quick run must stay quick (60 s on a quiet 2-core machine; a busy one gets its patience,
    # as every deadline of the suite does: tests/patience.py)
    assert document["total_seconds"] < scaled_s(60)


def test_contradictions_and_a_busy_start_are_reasons_to_refuse(bench):
    contradiction = {"severity": speed_checks.CONTRADICTION, "words": "in cache slower"}
    busy = {"severity": speed_checks.BUSY, "words": "others used the CPU"}
    unexplained = {"severity": speed_checks.UNEXPLAINED, "words": "backward faster"}
    assert bench.reasons_to_refuse([unexplained], 0.1, 2) == []
    assert bench.reasons_to_refuse([contradiction, unexplained, busy], 0.1, 2) == [
        "in cache slower",
        "others used the CPU",
    ]
    assert bench.reasons_to_refuse([], 5.0, 2)[0].startswith("The load average was 5.00")


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
