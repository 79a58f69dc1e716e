"""The committed speed run (data/speed_results.json), which notebook 12's stored outputs show, must be a
full, quiet run that does not contradict itself; these tests fail the day it is replaced by one that does."""

import json
from pathlib import Path

import pytest

from helpers.lessons.speed import checks as speed_checks
from helpers.lessons.speed import timing as speed

ROOT = Path(__file__).resolve().parents[2]


FORMAT = 2  # benchmarks/bench_speed.py FORMAT: outputs rotate from memory, page faults per call (issue 32)


@pytest.fixture(scope="module")
def run():
    document = json.loads((ROOT / "data" / speed.COMMITTED_RESULTS).read_text(encoding="utf-8"))
    if document.get("format", 1) < FORMAT:
        pytest.skip(
            f"data/{speed.COMMITTED_RESULTS} predates the format-{FORMAT} bench (issue 32: rotating outputs, page "
            "faults per timed call); regenerate it on a quiet machine with "
            "`.venv/bin/python benchmarks/bench_speed.py --save-committed`, then re-execute notebook 12"
        )
    return document


def test_it_is_a_full_run_saved_without_force(run):
    assert run["quick"] is False and run["forced"] is False
    assert run["plan"]["repeats"] >= 3 and run["plan"]["thread_counts"] == [1, 2]
    assert {r["regime"] for r in run["results"]} == {"in cache", "from memory"}
    assert all(r["max_abs_difference"] is None or r["max_abs_difference"] < 1e-3 for r in run["results"])
    assert run["consistency"]["findings"] == speed_checks.findings(run)  # stored words match the checks now


def test_nothing_is_slower_in_cache_than_from_memory(run):
    assert [f["words"] for f in speed_checks.cache_inversions(run)] == []
    assert any(r["regime"] == "in cache" for r in run["results"])  # the check had something to compare


def test_every_roof_is_measured_at_its_own_thread_count(run):
    assert [f["words"] for f in speed_checks.roof_mismatches(run)] == []
    assert [roof["threads"] for roof in run["roofs"]] == run["plan"]["thread_counts"]
    assert run["roofs"] == speed.roofs(run)


def test_every_in_cache_set_is_at_most_a_quarter_of_the_cache(run):
    assert [f["words"] for f in speed_checks.oversized_cache_sets(run)] == []
    assert run["plan"]["in_cache_limit_bytes"] == run["last_level_cache_bytes"] // 4


def test_the_machine_was_quiet(run):
    assert [f["words"] for f in speed_checks.quietness_findings(run)] == []
    assert run["load_average"]["start"] <= run["load_average"]["limit_per_core"] * run["machine"]["cores"]


def test_from_memory_outputs_went_to_memory(run):
    assert [f["words"] for f in speed_checks.cached_outputs(run)] == []
    assert any(r["regime"] == "from memory" and r["allocates"] for r in run["results"])  # the ring was checked


def test_the_headline_cases_took_no_page_faults(run):
    """LayerNorm's forward and the copies (the memory roof) are what the notebook's main verdicts rest on;
    the others' page faults are reported by the notebook and leave them out of its verdicts."""
    for r in run["results"]:
        if r["implementation"].startswith(("torch LayerNorm", "copy")):
            assert not speed_checks.faulted(r), r["implementation"]
    assert not any(speed_checks.faulted(r) for r in run["lesson"])
