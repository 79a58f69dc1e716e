"""helpers.lessons.speed.checks on synthetic runs: each check finds what it names, and only that."""

import copy

import pytest

from helpers.lessons.speed import checks as speed_checks
from helpers.lessons.speed import timing as speed

LLC = 32 * 2**20
FEATURES = 1024


def result(name, regime, medians, rows=64, threads=1, direction="forward", buffers=1):
    moved = speed.bytes_moved(rows, FEATURES, direction)
    median = sorted(medians)[len(medians) // 2]
    return {
        "implementation": name,
        "regime": regime,
        "rows": rows,
        "features": FEATURES,
        "threads": threads,
        "direction": direction,
        "buffers": buffers,
        "output_buffers": buffers,
        "calls": [100] * len(medians),
        "faulted_calls": [0] * len(medians),
        "page_faults_per_call": 0.0,
        "bytes_moved": moved,
        "working_set_bytes": buffers * moved,
        "repeat_medians": list(medians),
        "time": {"median": median},
        "gb_per_s": speed.gb_per_s(moved, median),
    }


def consistent_run() -> dict:
    """A run that passes every check: in cache faster, roofs from their own thread counts, small in-cache sets."""
    results = []
    for threads in (1, 2):
        label = speed_checks.thread_label(threads)
        scale = 1 / threads
        for regime, slow, buffers in (("in cache", 1.0, 1), ("from memory", 2.0, 600)):
            results += [
                result(f"copy, torch ({label})", regime, [10e-6 * s * slow * scale for s in (1.0, 1.1, 0.9)],
                       threads=threads, direction="copy", buffers=buffers),
                result(f"torch LayerNorm ({label})", regime, [50e-6 * s * slow * scale for s in (1.0, 1.1, 0.9)],
                       threads=threads, buffers=buffers),
                result(f"torch backward ({label})", regime, [70e-6 * s * slow * scale for s in (1.0, 1.1, 0.9)],
                       threads=threads, direction="backward", buffers=buffers),
            ]  # fmt: skip
    document = {
        "last_level_cache_bytes": LLC,
        "peak_flops": [{"threads": 1, "flops_per_s": 50e9}, {"threads": 2, "flops_per_s": 100e9}],
        "results": results,
        "quietness": {
            "by_threads": [
                {"threads": 1, "others_cores": 0.05, "steal_cores": 0.0, "limit_cores": 0.3},
                {"threads": 2, "others_cores": 0.02, "steal_cores": 0.01, "limit_cores": 0.1},
            ]
        },
    }
    document["roofs"] = speed.roofs(document)
    return document


def find_result(document, name, regime):
    return speed.find(document["results"], implementation=name, regime=regime)


def test_a_consistent_run_has_no_findings():
    assert speed_checks.findings(consistent_run()) == []


def test_verdict_needs_the_repeats_apart():
    fast = {"repeat_medians": [1.0, 1.1, 1.2]}
    assert speed_checks.verdict({"repeat_medians": [1.3, 1.4, 1.5]}, fast) == speed_checks.SLOWER
    assert speed_checks.verdict({"repeat_medians": [0.5, 0.6, 0.9]}, fast) == speed_checks.FASTER
    assert speed_checks.verdict({"repeat_medians": [1.15, 1.3, 1.4]}, fast) == speed_checks.UNCLEAR  # overlap
    summary = speed_checks.ratio({"repeat_medians": [2.0, 2.4, 2.2]}, {"repeat_medians": [1.0, 1.0, 1.0]})
    assert summary == {"median": 2.2, "low": 2.0, "high": 2.4, "verdict": speed_checks.SLOWER}
    assert "slower" in speed_checks.comparison_words("a", "b", summary)
    unclear = speed_checks.ratio({"repeat_medians": [1.1, 0.95, 1.0]}, {"repeat_medians": [1.0, 1.0, 1.0]})
    assert speed_checks.comparison_words("a", "b", unclear).startswith("this run cannot tell a from b")
    with pytest.raises(ValueError):
        speed_checks.ratio({"repeat_medians": [1.0]}, {"repeat_medians": [1.0, 1.0]})


def test_a_case_slower_in_cache_than_from_memory_is_a_contradiction():
    document = consistent_run()
    cached = find_result(document, "torch LayerNorm (1 thread)", "in cache")
    cached["repeat_medians"] = [200e-6, 210e-6, 205e-6]  # every repeat slower than every from-memory one
    found = speed_checks.findings(document)
    assert [f["check"] for f in found] == ["in cache slower than from memory"]
    assert found[0]["severity"] == speed_checks.CONTRADICTION and "torch LayerNorm (1 thread)" in found[0]["words"]
    cached["repeat_medians"] = [90e-6, 110e-6, 200e-6]  # overlaps the from-memory repeats: cannot tell
    assert speed_checks.cache_inversions(document) == []


def test_a_roof_from_another_thread_count_is_a_contradiction():
    document = consistent_run()
    document["roofs"][0]["peak_flops_per_s"] = document["peak_flops"][1]["flops_per_s"]  # the 2-thread peak
    found = speed_checks.roof_mismatches(document)
    assert len(found) == 1 and "1-thread roof" in found[0]["words"] and "peak" in found[0]["words"]
    document = consistent_run()
    document["roofs"][0]["bandwidth_bytes_per_s"] = document["roofs"][1]["bandwidth_bytes_per_s"]
    document["roofs"][0]["bandwidth_from"] = document["roofs"][1]["bandwidth_from"]
    found = speed_checks.roof_mismatches(document)
    assert len(found) == 1 and "bandwidth" in found[0]["words"]


def test_an_in_cache_set_above_a_quarter_of_the_cache_is_a_contradiction():
    document = consistent_run()
    big = find_result(document, "torch backward (2 threads)", "in cache")
    big["working_set_bytes"] = LLC // 4 + 1
    found = speed_checks.oversized_cache_sets(document)
    assert len(found) == 1 and "torch backward (2 threads)" in found[0]["words"]
    big["working_set_bytes"] = LLC // 4
    assert speed_checks.oversized_cache_sets(document) == []


def test_backward_faster_than_forward_from_memory_is_reported_not_refused():
    document = consistent_run()
    find_result(document, "torch backward (1 thread)", "from memory")["repeat_medians"] = [80e-6, 82e-6, 84e-6]
    found = speed_checks.findings(document)
    assert [f["check"] for f in found] == ["backward faster than forward from memory"]
    assert found[0]["severity"] == speed_checks.UNEXPLAINED and speed_checks.contradictions(document) == []
    assert "1.5× the bytes" in found[0]["words"]


def test_a_busy_machine_is_found_per_thread_count():
    document = consistent_run()
    document["quietness"]["by_threads"][1]["others_cores"] = 0.2  # fine for 1 thread, too much for 2
    found = speed_checks.quietness_findings(document)
    assert len(found) == 1 and found[0]["severity"] == speed_checks.BUSY and "2-thread" in found[0]["words"]


def kernel_run(layer_norm, multiply_add, row_sum):
    results = [
        result(name, "in cache", medians, threads=2)
        for name, medians in (
            ("copy, torch (2 threads)", [10e-6, 10e-6]),
            ("sum only, torch (2 threads)", row_sum),
            ("multiply-add, torch (2 threads)", multiply_add),
            ("torch LayerNorm (2 threads)", layer_norm),
            ("F.rms_norm (2 threads)", [30e-6, 31e-6]),
        )
    ]
    return results


def test_welford_share_is_what_the_elementwise_pass_leaves():
    results = kernel_run(layer_norm=[50e-6, 40e-6], multiply_add=[10e-6, 10e-6], row_sum=[10e-6, 5e-6])
    welford = speed_checks.welford_share(results, "in cache", 64, 2)
    assert welford["share"] == {"median": pytest.approx(0.775), "low": pytest.approx(0.75), "high": pytest.approx(0.8)}
    assert welford["sums"]["low"] == pytest.approx(4.0) and welford["sums"]["high"] == pytest.approx(6.0)
    costs = speed_checks.kernel_costs(results, "in cache", 64, 2)
    assert costs["torch LayerNorm"]["median"] == pytest.approx(4.5) and costs["F.rms_norm"]["low"] == 3.0
    assert list(costs) == list(speed_checks.KERNEL_PARTS)


def test_checks_do_not_change_the_document():
    document = consistent_run()
    before = copy.deepcopy(document)
    speed_checks.findings(document)
    assert document == before


def test_outputs_that_stay_in_cache_are_a_contradiction_from_memory():
    document = consistent_run()
    fetched = find_result(document, "torch LayerNorm (1 thread)", "from memory")
    fetched["output_buffers"] = 1  # the allocator handed every call the same block: its writes stayed cached
    found = speed_checks.findings(document)
    assert [f["check"] for f in found] == ["outputs stayed in cache"]
    assert found[0]["severity"] == speed_checks.CONTRADICTION and "torch LayerNorm (1 thread)" in found[0]["words"]
    written = 64 * FEATURES * 4
    fetched["output_buffers"] = -(-2 * LLC // written)  # just covers twice the cache: streams
    assert speed_checks.cached_outputs(document) == []
    fetched["output_buffers"] -= 1
    assert len(speed_checks.cached_outputs(document)) == 1
    cached = find_result(document, "torch LayerNorm (1 thread)", "in cache")
    cached["output_buffers"] = 1
    assert len(speed_checks.cached_outputs(document)) == 1  # in cache, one output is what the regime means


def test_page_faults_in_timed_calls_take_a_case_out_of_every_verdict():
    document = consistent_run()
    cached = find_result(document, "torch LayerNorm (1 thread)", "in cache")
    fetched = find_result(document, "torch LayerNorm (1 thread)", "from memory")
    cached["repeat_medians"] = [200e-6, 210e-6, 205e-6]  # slower in cache: a contradiction while it counts
    assert [f["check"] for f in speed_checks.findings(document)] == ["in cache slower than from memory"]
    cached["faulted_calls"] = [0, 5, 0]  # 5 of 300 timed calls faulted: above 1 %
    cached["page_faults_per_call"] = 1.0
    assert speed_checks.faulted(cached) and speed_checks.verdict(cached, fetched) == speed_checks.FAULTED
    found = speed_checks.findings(document)
    assert [f["check"] for f in found] == ["page faults in timed calls"]  # reported, and no longer a verdict
    assert found[0]["severity"] == speed_checks.FAULTS and speed_checks.contradictions(document) == []
    words = speed_checks.comparison_words("a", "b", speed_checks.ratio(cached, fetched))
    assert "cannot compare a with b" in words and "page faults" in words
    cached["faulted_calls"] = [0, 3, 0]  # 1 % exactly: a stray fault or three leave the medians alone
    assert not speed_checks.faulted(cached) and speed_checks.verdict(cached, fetched) == speed_checks.SLOWER


def lesson(name, medians, faulted_calls=0):
    return {"implementation": name, "repeat_medians": medians, "calls": [1000] * len(medians),
            "faulted_calls": [faulted_calls] + [0] * (len(medians) - 1)}  # fmt: skip


def test_a_ranking_names_a_fastest_only_when_no_repeats_overlap():
    python = lesson("pure Python", [7.1e-6, 7.2e-6, 7.3e-6])
    numpy = lesson("numpy", [10.1e-6, 10.4e-6, 10.9e-6])
    torch = lesson("torch", [4.1e-6, 6.7e-6, 7.9e-6])  # straddles pure Python's repeats
    words = speed_checks.ranking_words([python, numpy, torch], "5 × 3")
    assert words.startswith("At 5 × 3 this run cannot tell torch, pure Python apart: their repeats overlap")
    assert "Slower than torch in every repeat: numpy" in words and "fastest" not in words
    torch["repeat_medians"] = [4.1e-6, 5.0e-6, 6.9e-6]  # now every repeat below pure Python's fastest
    words = speed_checks.ranking_words([python, numpy, torch], "5 × 3")
    assert words.startswith("At 5 × 3 the fastest was torch (4.10–6.90 µs across repeats), faster than every")
    assert "pure Python" in words and "numpy" in words
    torch["faulted_calls"] = [100, 0, 0]  # page faults: out of the ranking
    words = speed_checks.ranking_words([python, numpy, torch], "5 × 3")
    assert words.startswith("At 5 × 3 the fastest was pure Python") and words.endswith("calls: torch.")


@pytest.mark.parametrize(
    ("share", "words"),
    [
        (speed_checks.BYTES_SET_PACE + 0.01, "moving the bytes sets most"),
        (speed_checks.BYTES_SET_PACE, "cannot say"),
        (speed_checks.WORK_SETS_PACE, "cannot say"),
        (speed_checks.WORK_SETS_PACE - 0.01, "the work on each row, not the bytes"),
    ],
)
def test_what_sets_the_pace_follows_the_share_of_the_copy_at_each_edge(share, words):
    # One rule for every sentence in notebook 12 that reads LayerNorm against the copy: a few per cent
    # slower than the copy is still the bytes' pace, never "something other than moving the bytes".
    assert words in speed_checks.pace_words(share)


def test_repeats_that_touch_cannot_tell_the_cases_apart():
    """Slower means a's fastest repeat was slower than b's slowest: a tie at the edge is "cannot tell"."""
    fast = {"repeat_medians": [1.0, 1.1, 1.2]}
    assert speed_checks.verdict({"repeat_medians": [1.2, 1.3, 1.4]}, fast) == speed_checks.UNCLEAR
    assert speed_checks.verdict({"repeat_medians": [0.8, 0.9, 1.0]}, fast) == speed_checks.UNCLEAR


def test_cases_that_cannot_be_told_apart_are_given_with_their_ranges_in_microseconds():
    """A tie names each case's fastest and slowest repeat in µs, as the fastest case's range is."""
    python = lesson("pure Python", [7.1e-6, 7.2e-6, 7.3e-6])
    torch = lesson("torch", [4.1e-6, 6.7e-6, 7.9e-6])
    words = speed_checks.ranking_words([python, torch], "5 × 3")
    assert "(torch 4.10–7.90 µs; pure Python 7.10–7.30 µs)" in words
