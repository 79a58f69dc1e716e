"""What notebook 12 and the benchmark read from a speed run, word for word, at every edge the checks decide.

helpers.lessons.speed.checks turns a run into verdicts ("slower", "faster", "cannot tell", "page faults"),
ratios with their range across repeats, and findings whose severity decides whether the run is saved.
Each test builds a small run by hand and works the expected numbers out from what it put in."""

import math
import statistics

import pytest
from test_speed_checks import FEATURES, result

from helpers.lessons.speed import checks as speed_checks
from helpers.lessons.speed import timing as speed

LLC = 32 * 2**20  # the last-level cache of the hand-made runs: 32 MiB
ROWS = 64
ALL_WELL = [100e-6, 100e-6, 100e-6]


def case(name, regime, medians, direction="forward", buffers=1, rows=ROWS, threads=1, calls=100):
    """One timed case of a hand-made run (test_speed_checks' ``result``), with ``calls`` timed calls per repeat."""
    built = result(name, regime, medians, rows=rows, threads=threads, direction=direction, buffers=buffers)
    return {**built, "calls": [calls] * len(medians)}


def run(*extra) -> dict:
    """A one-thread run with nothing to report: in cache twice as fast, outputs rotating over 600 buffers."""
    results = []
    for regime, slow, buffers in (("in cache", 0.5, 1), ("from memory", 1.0, 600)):
        results += [
            case("copy, torch (1 thread)", regime, [20e-6 * slow] * 3, direction="copy", buffers=buffers),
            case("torch LayerNorm (1 thread)", regime, [t * slow for t in ALL_WELL], buffers=buffers),
            case("torch backward (1 thread)", regime, [200e-6 * slow] * 3, direction="backward", buffers=buffers),
        ]
    document = {
        "last_level_cache_bytes": LLC,
        "peak_flops": [{"threads": 1, "flops_per_s": 50e9}],
        "results": results + list(extra),
        "quietness": {"by_threads": [{"threads": 1, "others_cores": 0.05, "steal_cores": 0.0, "limit_cores": 0.3}]},
    }
    document["roofs"] = speed.roofs(document)
    return document


def get(document, name, regime):
    return speed.find(document["results"], implementation=name, regime=regime)


def spread(a, b):
    """The ratio words worked out here: per-repeat ratios, their median, lowest and highest, two places."""
    ratios = [x / y for x, y in zip(a, b, strict=True)]
    return f"{statistics.median(ratios):.2f}× ({min(ratios):.2f}–{max(ratios):.2f}× across repeats)"


def test_the_hand_made_run_has_nothing_to_report():
    assert speed_checks.findings(run()) == []


# ---- page faults: more than 1 % of the timed calls -------------------------------------------------


@pytest.mark.parametrize(
    ("hit", "calls", "faulted"),
    [(99, 10_000, False), (100, 10_000, False), (101, 10_000, True), (1, 100, False), (2, 100, True)],
)
def test_a_case_is_faulted_only_above_one_percent_of_its_timed_calls(hit, calls, faulted):
    assert (hit / calls > speed_checks.FAULT_SHARE) is faulted  # the edge worked out: 1 % exactly is not above
    assert speed_checks.faulted({"calls": [calls // 2, calls - calls // 2], "faulted_calls": [hit, 0]}) is faulted


def test_a_single_timed_call_that_faulted_is_all_of_its_calls():
    assert speed_checks.faulted({"calls": [1], "faulted_calls": [1]})
    once = {"repeat_medians": [1.0], "calls": [1], "faulted_calls": [1]}
    assert speed_checks.verdict(once, {"repeat_medians": [9.0]}) == speed_checks.FAULTED
    assert not speed_checks.faulted({"calls": [1], "faulted_calls": [0]})


def test_a_case_without_faults_is_not_faulted_however_few_its_calls():
    assert not speed_checks.faulted({"calls": [10, 10], "faulted_calls": [0, 0]})
    assert not speed_checks.faulted({"calls": [10, 10]})  # a run that recorded no faulted calls


def test_a_case_that_recorded_no_timed_calls_has_no_share_to_exceed():
    assert not speed_checks.faulted({})
    assert not speed_checks.faulted({"calls": [], "faulted_calls": [3]})
    assert not speed_checks.faulted({"faulted_calls": [3]})


# ---- repeat medians --------------------------------------------------------------------------------


def test_a_single_repeat_is_a_range_of_one_time():
    assert speed_checks.repeat_range({"repeat_medians": [2e-6]}) == (2e-6, 2e-6)
    assert speed_checks.verdict({"repeat_medians": [3e-6]}, {"repeat_medians": [2e-6]}) == speed_checks.SLOWER


@pytest.mark.parametrize("medians", [[], [0.0, 1e-6], [1e-6, -1e-6], [None, 1e-6]])
def test_a_case_without_positive_repeat_medians_is_refused_by_name(medians):
    named = {"implementation": "torch LayerNorm (1 thread)", "repeat_medians": medians}
    message = "torch LayerNorm (1 thread): no positive repeat medians."
    with pytest.raises(ValueError, match=f"^{message}$".replace("(", r"\(").replace(")", r"\)")):
        speed_checks.repeat_medians(named)
    with pytest.raises(ValueError, match="^a result: no positive repeat medians.$"):
        speed_checks.repeat_range({"repeat_medians": medians})


def test_the_repeat_medians_are_seconds_as_floats():
    values = speed_checks.repeat_medians({"repeat_medians": [1, 2, 3]})
    assert values.dtype.kind == "f" and values.tolist() == [1.0, 2.0, 3.0]


# ---- ratios and the sentences that say them --------------------------------------------------------


def test_cases_timed_in_different_numbers_of_repeats_are_refused_in_plain_words():
    with pytest.raises(ValueError, match=r"^The two cases were not timed in the same number of repeats\.$"):
        speed_checks.ratio({"repeat_medians": [1.0, 2.0]}, {"repeat_medians": [1.0, 2.0, 3.0]})


def test_a_ratio_is_the_median_of_the_ratios_within_each_repeat():
    a, b = [2.0, 9.0, 3.0], [1.0, 3.0, 3.0]  # per repeat 2, 3, 1; the ratio of the medians would be 1
    summary = speed_checks.ratio({"repeat_medians": a}, {"repeat_medians": b})
    assert summary == {"median": 2.0, "low": 1.0, "high": 3.0, "verdict": speed_checks.UNCLEAR}


def test_ratio_words_give_two_places_as_the_docstring_shows():
    summary = {"median": 1.854, "low": 1.7, "high": 1.9249}
    assert speed_checks.ratio_words(summary) == "1.85× (1.70–1.92× across repeats)"
    assert speed_checks.ratio_words(summary, places=1) == "1.9× (1.7–1.9× across repeats)"


def test_each_comparison_sentence_says_only_what_the_repeats_support():
    slow, fast, between = [3.0, 3.3, 3.6], [1.0, 1.1, 1.2], [1.1, 3.3, 1.2]

    def words(a, b):
        return speed_checks.comparison_words("A", "B", speed_checks.ratio({"repeat_medians": a}, {"repeat_medians": b}))

    assert words(slow, fast) == f"A was slower than B: {spread(slow, fast)} its time, every repeat slower."
    assert words(fast, slow) == f"A was faster than B: {spread(fast, slow)} its time, every repeat faster."
    assert words(between, fast) == (
        f"this run cannot tell A from B: {spread(between, fast)} its time, and the repeats overlap."
    )
    faulted = speed_checks.ratio({"repeat_medians": slow, "calls": [10] * 3, "faulted_calls": [0, 1, 0]},
                                 {"repeat_medians": fast})  # fmt: skip
    assert speed_checks.comparison_words("A", "B", faulted) == (
        "this run cannot compare A with B: timed calls took page faults, so the timing includes the operating "
        "system's work."
    )


@pytest.mark.parametrize(
    ("share", "words"),
    [
        (math.nextafter(speed_checks.BYTES_SET_PACE, math.inf), "close to the copy, so moving the bytes sets most of its pace"),
        (speed_checks.BYTES_SET_PACE, "between the two, so this run cannot say whether the bytes or the work on each row set its pace"),
        (speed_checks.WORK_SETS_PACE, "between the two, so this run cannot say whether the bytes or the work on each row set its pace"),
        (math.nextafter(speed_checks.WORK_SETS_PACE, -math.inf), "far from the copy, so the work on each row, not the bytes, sets its pace"),
    ],
)  # fmt: skip
def test_what_sets_the_pace_is_said_in_whole_sentences_at_each_edge(share, words):
    assert speed_checks.pace_words(share) == words


# ---- findings: whole sentences and severities -------------------------------------------------------


def test_a_case_slower_in_cache_is_a_contradiction_in_whole_words():
    document = run()
    cached = [300e-6, 320e-6, 310e-6]
    get(document, "torch LayerNorm (1 thread)", "in cache")["repeat_medians"] = cached
    assert speed_checks.contradictions(document) == [
        {
            "check": "in cache slower than from memory",
            "severity": "contradiction",
            "words": f"torch LayerNorm (1 thread) at 64 × 1024 took {spread(cached, ALL_WELL)} as long in cache as "
            "from memory: data in the cache cannot be slower to reach, so one of the two regimes did not measure "
            "what its name says.",
        }
    ]


@pytest.mark.parametrize(("fastest", "found"), [(100e-6, 0), (math.nextafter(100e-6, math.inf), 1)])
def test_in_cache_touching_from_memory_cannot_be_told_slower(fastest, found):
    document = run()
    get(document, "torch LayerNorm (1 thread)", "in cache")["repeat_medians"] = [fastest, 150e-6, 120e-6]
    assert len(speed_checks.cache_inversions(document)) == found


def test_two_from_memory_timings_of_one_case_are_not_an_in_cache_one():
    document = run(case("torch LayerNorm (1 thread)", "from memory", [50e-6] * 3, buffers=600))
    get(document, "torch LayerNorm (1 thread)", "in cache")["regime"] = "from memory"  # first of the two
    document["results"][1]["repeat_medians"] = [400e-6] * 3  # slower than the other from-memory timing
    assert speed_checks.cache_inversions(document) == []


def test_a_roof_wrong_in_both_peak_and_bandwidth_says_both():
    document = run()
    document["roofs"][0]["peak_flops_per_s"] *= 2
    document["roofs"][0]["bandwidth_bytes_per_s"] *= 2
    assert speed_checks.contradictions(document) == [
        {
            "check": "roof at another thread count",
            "severity": "contradiction",
            "words": "The 1-thread roof: its peak flop/s is not the matrix product timed with that many threads; "
            "its bandwidth is not the fastest copy from memory made with that many threads.",
        }
    ]


def test_a_roof_bandwidth_is_wrong_when_its_value_or_its_thread_count_is():
    document = run()
    document["roofs"][0]["bandwidth_bytes_per_s"] *= 0.9  # the right thread count, not its fastest copy
    assert ["bandwidth" in f["words"] for f in speed_checks.roof_mismatches(document)] == [True]
    document = run()
    document["roofs"][0]["bandwidth_from"]["threads"] = 2  # the right value, said to come from 2 threads
    assert ["bandwidth" in f["words"] for f in speed_checks.roof_mismatches(document)] == [True]
    document = run()
    del document["roofs"][0]["bandwidth_from"]  # no source at all
    assert [f["words"] for f in speed_checks.roof_mismatches(document)] == [
        "The 1-thread roof: its bandwidth is not the fastest copy from memory made with that many threads."
    ]


def test_a_run_without_stored_roofs_or_quietness_has_nothing_to_say_of_them():
    document = run()
    del document["roofs"], document["quietness"]
    assert speed_checks.findings(document) == []
    document["quietness"] = {}
    assert speed_checks.quietness_findings(document) == []


@pytest.mark.parametrize("llc", [LLC, LLC + 2])  # a cache whose quarter is a whole number of bytes, and one not
def test_an_in_cache_set_is_oversized_one_byte_above_a_quarter_of_the_cache(llc):
    document = run()
    document["last_level_cache_bytes"] = llc
    cached = get(document, "torch backward (1 thread)", "in cache")
    quarter = llc // 4  # the largest whole number of bytes not above llc / 4
    cached["working_set_bytes"] = quarter
    assert quarter <= llc / 4 and speed_checks.oversized_cache_sets(document) == []
    cached["working_set_bytes"] = quarter + 1
    assert quarter + 1 > llc / 4 and len(speed_checks.oversized_cache_sets(document)) == 1


def test_an_oversized_in_cache_set_is_a_contradiction_in_whole_words():
    document = run()
    get(document, "torch backward (1 thread)", "in cache")["working_set_bytes"] = 12 * 2**20
    assert speed_checks.contradictions(document) == [
        {
            "check": "in-cache working set too large",
            "severity": "contradiction",
            "words": "torch backward (1 thread) at 64 × 1024 was timed 'in cache' with a working set of 12.0 MiB, "
            "more than a quarter of the 32 MiB last-level cache, which it shares.",
        }
    ]


def test_outputs_kept_in_cache_from_memory_are_a_contradiction_in_whole_words():
    document = run()
    get(document, "torch LayerNorm (1 thread)", "from memory")["output_buffers"] = 2
    written = 4 * ROWS * FEATURES  # LayerNorm writes one float32 per value: 256 KiB, 0.5 MiB in two buffers
    assert 2 * written / 2**20 == 0.5
    assert speed_checks.contradictions(document) == [
        {
            "check": "outputs stayed in cache",
            "severity": "contradiction",
            "words": "torch LayerNorm (1 thread) at 64 × 1024 was timed 'from memory', but its outputs went to 2 "
            "buffer(s), 0.5 MiB, less than 2 × the 32 MiB last-level cache: its writes stayed in the cache.",
        }
    ]


def test_outputs_rotating_over_exactly_twice_the_cache_went_to_memory():
    document = run()
    fetched = get(document, "torch LayerNorm (1 thread)", "from memory")
    written = 4 * ROWS * FEATURES
    exact = speed_checks.OUTPUT_CACHE_FACTOR * LLC // written
    assert exact * written == speed_checks.OUTPUT_CACHE_FACTOR * LLC  # 256 buffers of 256 KiB: 64 MiB
    for buffers, found in ((exact - 1, 1), (exact, 0), (exact + 1, 0)):
        fetched["output_buffers"] = buffers
        assert len(speed_checks.cached_outputs(document)) == found


def test_a_row_sum_writes_nothing_worth_rotating():
    document = run(case("sum only, torch (1 thread)", "from memory", ALL_WELL, direction="sum", buffers=1))
    assert speed_checks.cached_outputs(document) == []


def test_a_backward_faster_than_its_forward_is_unexplained_in_whole_words():
    document = run()
    backward = [80e-6, 85e-6, 90e-6]
    get(document, "torch backward (1 thread)", "from memory")["repeat_medians"] = backward
    get(document, "torch backward (1 thread)", "in cache")["repeat_medians"] = [40e-6] * 3  # still faster in cache
    moved = speed.bytes_moved(ROWS, FEATURES, "backward") / speed.bytes_moved(ROWS, FEATURES, "forward")
    assert speed_checks.findings(document) == [
        {
            "check": "backward faster than forward from memory",
            "severity": "unexplained",
            "words": f"From memory at 64 × 1024, torch backward (1 thread) took {spread(backward, ALL_WELL)} the "
            f"forward pass's time while moving {moved:.1f}× the bytes: this run does not explain that.",
        }
    ]
    assert speed_checks.contradictions(document) == []  # reported, not refused


@pytest.mark.parametrize(("slowest", "found"), [(100e-6, 0), (math.nextafter(100e-6, -math.inf), 1)])
def test_a_backward_touching_its_forward_cannot_be_told_faster(slowest, found):
    document = run()
    get(document, "torch backward (1 thread)", "from memory")["repeat_medians"] = [80e-6, slowest, 90e-6]
    assert len(speed_checks.backward_faster_than_forward(document)) == found


def test_page_faults_are_reported_in_whole_words_and_refuse_nothing():
    document = run()
    cached = get(document, "torch LayerNorm (1 thread)", "in cache")
    cached["faulted_calls"], cached["page_faults_per_call"] = [0, 5, 0], 1.5
    assert speed_checks.findings(document) == [
        {
            "check": "page faults in timed calls",
            "severity": "page faults",
            "words": "torch LayerNorm (1 thread) (in cache, 64 × 1024) took minor page faults in 5 of its 300 timed "
            "calls (1.5 per call): its timing includes the operating system's work, so no verdict uses it.",
        }
    ]
    assert speed_checks.contradictions(document) == []


def test_a_busy_machine_is_said_in_whole_words():
    document = run()
    document["quietness"]["by_threads"][0].update(others_cores=0.35, steal_cores=0.01, limit_cores=0.3)
    assert speed_checks.findings(document) == [
        {
            "check": "busy machine",
            "severity": "busy",
            "words": "While the 1-thread cases ran, other programs used 0.35 of a core and the hypervisor took 0.01 "
            "(steal), above the 0.30 allowed for 1 thread(s): those timings include other work.",
        }
    ]


def test_steal_time_counts_as_other_work_and_noise_below_zero_is_said_as_zero():
    document = run()
    document["quietness"]["by_threads"][0].update(others_cores=-0.02, steal_cores=0.5, limit_cores=0.3)
    assert [f["words"] for f in speed_checks.quietness_findings(document)] == [
        "While the 1-thread cases ran, other programs used 0.00 of a core and the hypervisor took 0.50 (steal), "
        "above the 0.30 allowed for 1 thread(s): those timings include other work."
    ]


@pytest.mark.parametrize(
    ("limit", "busy"),
    [(math.nextafter(0.25, math.inf), False), (0.25, False), (math.nextafter(0.25, -math.inf), True)],
)
def test_the_machine_is_busy_only_above_the_allowed_share(limit, busy):
    document = run()
    document["quietness"]["by_threads"][0].update(others_cores=0.125, steal_cores=0.125, limit_cores=limit)
    assert (0.125 + 0.125 > limit) is busy  # the sum worked out: 0.125 + 0.125 is 0.25 exactly
    assert len(speed_checks.quietness_findings(document)) == int(busy)


# ---- kernel costs: the asked regime and size only -----------------------------------------------------


def kernel_results():
    """The kernel parts at two sizes in both regimes: each (regime, rows) with its own times."""
    results = []
    sizes = (("in cache", 64), ("in cache", 128), ("from memory", 64), ("from memory", 128))
    for k, (regime, rows) in enumerate(sizes):
        scale = k + 1
        for name, medians in (
            ("copy, torch (2 threads)", [10e-6, 10e-6]),
            ("sum only, torch (2 threads)", [10e-6, 5e-6]),
            ("multiply-add, torch (2 threads)", [10e-6, 10e-6]),
            ("torch LayerNorm (2 threads)", [50e-6, 40e-6]),
            ("F.rms_norm (2 threads)", [30e-6, 31e-6]),
        ):
            results.append(case(name, regime, [t * scale**2 if "copy" in name else t * scale for t in medians],
                                rows=rows, threads=2))  # fmt: skip
    return results


def test_kernel_costs_and_the_welford_share_read_only_the_asked_regime_and_size():
    results = kernel_results()
    scale = 4  # ("from memory", 128) is the fourth: copies × 16, the parts × 4
    costs = speed_checks.kernel_costs(results, "from memory", 128, 2)
    layer_norm = [50e-6 * scale, 40e-6 * scale]
    copy = [10e-6 * scale**2] * 2
    ratios = [x / y for x, y in zip(layer_norm, copy, strict=True)]
    assert costs["torch LayerNorm"]["median"] == pytest.approx(statistics.median(ratios))
    assert costs["torch LayerNorm"]["low"] == pytest.approx(min(ratios))
    welford = speed_checks.welford_share(results, "from memory", 128, 2)
    moments = [(ln - ma) * scale for ln, ma in zip([50e-6, 40e-6], [10e-6, 10e-6], strict=True)]
    shares = [m / (ln * scale) for m, ln in zip(moments, [50e-6, 40e-6], strict=True)]
    sums = [m / (s * scale) for m, s in zip(moments, [10e-6, 5e-6], strict=True)]
    assert welford["share"]["low"] == pytest.approx(min(shares))
    assert welford["share"]["high"] == pytest.approx(max(shares))
    assert welford["sums"]["median"] == pytest.approx(statistics.median(sums))


# ---- rankings ------------------------------------------------------------------------------------------


def lesson(name, medians, faulted_calls=0):
    return {"implementation": name, "repeat_medians": medians, "calls": [1000] * len(medians),
            "faulted_calls": [faulted_calls] + [0] * (len(medians) - 1)}  # fmt: skip


def test_a_ranking_with_a_tie_lists_every_slower_case_in_whole_words():
    a, b = [4e-6, 5e-6, 8e-6], [7e-6, 7.5e-6, 9e-6]  # b's fastest repeat is below a's slowest: a tie
    c, d = [12e-6, 15e-6, 24e-6], [20e-6, 25e-6, 40e-6]  # every repeat above a's slowest
    cases = [lesson(name, m) for name, m in (("D", d), ("B", b), ("A", a), ("C", c))]
    assert speed_checks.ranking_words(cases, "5 × 3") == (
        "At 5 × 3 this run cannot tell A, B apart: their repeats overlap (A 4.00–8.00 µs; B 7.00–9.00 µs). "
        f"Slower than A in every repeat: C {spread(c, a)} its time; D {spread(d, a)} its time."
    )


def test_a_ranking_with_a_fastest_lists_every_slower_case_and_every_faulted_one():
    a, c, d = [4e-6, 5e-6, 6e-6], [12e-6, 15e-6, 18e-6], [20e-6, 25e-6, 30e-6]
    cases = [lesson("C", c), lesson("A", a), lesson("E", [1e-6] * 3, 100), lesson("D", d), lesson("F", a, 100)]
    assert speed_checks.ranking_words(cases, "5 × 3") == (
        "At 5 × 3 the fastest was A (4.00–6.00 µs across repeats), faster than every other in every repeat: "
        f"C {spread(c, a)} its time; D {spread(d, a)} its time. Left out for page faults in timed calls: E, F."
    )


def test_a_ranking_touching_the_fastest_cannot_tell_them_apart():
    a, b = [4e-6, 5e-6, 6e-6], [6e-6, 7e-6, 8e-6]  # b's fastest repeat equals a's slowest
    words = speed_checks.ranking_words([lesson("A", a), lesson("B", b)], "n")
    assert words.startswith("At n this run cannot tell A, B apart")
    b[0] = math.nextafter(6e-6, 1)
    words = speed_checks.ranking_words([lesson("A", a), lesson("B", b)], "n")
    assert words.startswith("At n the fastest was A")


def test_slow_cases_are_given_in_microseconds_to_the_hundredth():
    """Tens of milliseconds, as pure Python takes at a large size, still printed exactly in µs."""
    a, b, c = [0.02, 0.025, 0.03], [0.05, 0.06, 0.07], [0.029, 0.04, 0.045]
    fastest = speed_checks.ranking_words([lesson("A", a), lesson("B", b)], "1024 × 1024")
    assert fastest.startswith("At 1024 × 1024 the fastest was A (20000.00–30000.00 µs across repeats)")
    tied = speed_checks.ranking_words([lesson("A", a), lesson("C", c)], "1024 × 1024")
    assert "(A 20000.00–30000.00 µs; C 29000.00–45000.00 µs)" in tied


def test_a_ranking_with_one_case_left_names_no_fastest():
    """Page faults in two of the lesson's three cases leave nothing to be faster than: no "fastest" is said."""
    cases = [lesson("torch", [2.7e-6, 2.8e-6, 2.9e-6]), lesson("pure Python", [4e-6] * 3, 500)]
    cases.append(lesson("numpy", [5e-6] * 3, 500))
    assert speed_checks.ranking_words(cases, "5 × 3") == (
        "At 5 × 3 this run ranks nothing: torch is the only case left to compare. "
        "Left out for page faults in timed calls: pure Python, numpy."
    )
    assert speed_checks.ranking_words(cases[:1], "5 × 3") == (
        "At 5 × 3 this run ranks nothing: torch is the only case left to compare."
    )


def test_a_ranking_with_every_case_faulted_says_so_instead_of_failing():
    cases = [lesson("torch", [2.7e-6] * 3, 900), lesson("numpy", [5e-6] * 3, 900)]
    assert speed_checks.ranking_words(cases, "5 × 3") == (
        "At 5 × 3 this run ranks nothing: no case is left to compare. "
        "Left out for page faults in timed calls: torch, numpy."
    )
    assert speed_checks.ranking_words([], "5 × 3") == "At 5 × 3 this run ranks nothing: no case is left to compare."
