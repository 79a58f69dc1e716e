"""What a speed run can tell, and whether it contradicts itself (notebook 12).

``benchmarks/bench_speed.py`` times every case in several *repeats*, each repeat in its own shuffled
order, and stores each repeat's median (``repeat_medians``). Everything here reads those:

- two timings differ only when their repeats do not overlap: every repeat of one was slower than
  every repeat of the other (``verdict``); otherwise the run cannot tell them apart;
- a case whose timed calls took minor page faults (more than ``FAULT_SHARE`` of them) timed the
  operating system too: it is never used for a verdict (``faulted``, verdict ``page faults``);
- from memory, a case whose outputs did not rotate over at least ``OUTPUT_CACHE_FACTOR`` × the
  last-level cache wrote into the cache, not to memory: a contradiction (``cached_outputs``);
- a ratio of two timings is the median of its per-repeat ratios, with their range (``ratio``),
  each repeat's ratio taken within that repeat, where both ran close together in time;
- ``findings`` lists, in plain words, what in a run cannot be right: a case slower in cache than
  from memory, a roof built from another thread count's measurements, an "in cache" working set
  larger than a quarter of the last-level cache (severity ``contradiction``: the run is not
  saved without ``--force``), and a backward pass faster than its forward pass from memory while
  moving 1.5 × the bytes (severity ``unexplained``: reported, not refused), and thread counts whose
  cases ran while other programs or the hypervisor took more CPU than allowed (severity ``busy``:
  not saved without ``--force`` either).

Introduced in notebook 12.
"""

from __future__ import annotations

import numpy as np

from helpers.lessons.speed import timing as speed

SLOWER, FASTER, UNCLEAR, FAULTED = "slower", "faster", "cannot tell", "page faults"
CONTRADICTION, UNEXPLAINED, BUSY, FAULTS = "contradiction", "unexplained", "busy", "page faults"
FAULT_SHARE = 0.01  # a case whose timed calls saw page faults in more than 1 % of them timed the OS too
OUTPUT_CACHE_FACTOR = 2  # from memory, outputs must rotate over ≥ 2 × the last-level cache (the bench aims at 4)


def faulted(result: dict) -> bool:
    """Whether more than FAULT_SHARE of a case's timed calls took a minor page fault (all repeats pooled).

    A kernel that gets new memory from the operating system faults on every call; one stray fault in
    a hundred calls leaves a median alone."""
    calls = sum(result.get("calls", [])) or 0
    hit = sum(result.get("faulted_calls", [])) or 0
    return calls > 0 and hit / calls > FAULT_SHARE


def repeat_medians(result: dict) -> np.ndarray:
    """The median time of each repeat of one case (seconds)."""
    values = np.asarray(result["repeat_medians"], dtype=np.float64)
    if values.size == 0 or not np.all(values > 0):
        raise ValueError(f"{result.get('implementation', 'a result')}: no positive repeat medians.")
    return values


def repeat_range(result: dict) -> tuple[float, float]:
    """(fastest, slowest) repeat median of a case, in seconds: the spread across repeats."""
    values = repeat_medians(result)
    return float(values.min()), float(values.max())


def verdict(a: dict, b: dict) -> str:
    """Whether case ``a`` was slower or faster than ``b`` beyond the spread across repeats.

    "slower" when a's fastest repeat was slower than b's slowest, "faster" the other way round,
    "cannot tell" when the repeats overlap, and "page faults" when either case's timed calls took
    page faults (``faulted``): then the timing includes the operating system's work."""
    if faulted(a) or faulted(b):
        return FAULTED
    a_low, a_high = repeat_range(a)
    b_low, b_high = repeat_range(b)
    if a_low > b_high:
        return SLOWER
    if a_high < b_low:
        return FASTER
    return UNCLEAR


# What sets LayerNorm's pace, read from its share of the copy's rate (the copy: the same bytes, no work):
# above BYTES_SET_PACE the bytes do, below WORK_SETS_PACE the work on each row does, between, this run
# cannot say. One rule for every sentence of notebook 12 that reads a share or a ratio to the copy.
BYTES_SET_PACE = 0.8
WORK_SETS_PACE = 0.5


def pace_words(share: float) -> str:
    """What a share of the copy's rate (LayerNorm's time over the copy's, inverted) says sets the pace."""
    if share > BYTES_SET_PACE:
        return "close to the copy, so moving the bytes sets most of its pace"
    if share < WORK_SETS_PACE:
        return "far from the copy, so the work on each row, not the bytes, sets its pace"
    return "between the two, so this run cannot say whether the bytes or the work on each row set its pace"


def ratio(a: dict, b: dict) -> dict:
    """a's time over b's: the median of the per-repeat ratios, their lowest and highest, and the verdict."""
    a_values, b_values = repeat_medians(a), repeat_medians(b)
    if a_values.size != b_values.size:
        raise ValueError("The two cases were not timed in the same number of repeats.")
    ratios = a_values / b_values
    return {
        "median": float(np.median(ratios)),
        "low": float(ratios.min()),
        "high": float(ratios.max()),
        "verdict": verdict(a, b),
    }


def ratio_words(summary: dict, places: int = 2) -> str:
    """``1.85× (1.70–1.92× across repeats)``: a ratio and its spread."""
    return f"{summary['median']:.{places}f}× ({summary['low']:.{places}f}–{summary['high']:.{places}f}× across repeats)"


def comparison_words(a_name: str, b_name: str, summary: dict) -> str:
    """A sentence that says only what the repeats support: slower, faster, or cannot tell."""
    spread = ratio_words(summary)
    if summary["verdict"] == SLOWER:
        return f"{a_name} was slower than {b_name}: {spread} its time, every repeat slower."
    if summary["verdict"] == FASTER:
        return f"{a_name} was faster than {b_name}: {spread} its time, every repeat faster."
    if summary["verdict"] == FAULTED:
        return (
            f"this run cannot compare {a_name} with {b_name}: timed calls took page faults, so the "
            "timing includes the operating system's work."
        )
    return f"this run cannot tell {a_name} from {b_name}: {spread} its time, and the repeats overlap."


def _key(result: dict) -> tuple:
    return result["implementation"], result["rows"], result["features"], result["threads"]


def cache_inversions(document: dict) -> list[dict]:
    """Cases slower in cache than from memory (same implementation, size and threads) beyond the spread."""
    from_memory = {_key(r): r for r in document["results"] if r["regime"] == "from memory"}
    found = []
    for cached in document["results"]:
        fetched = from_memory.get(_key(cached)) if cached["regime"] == "in cache" else None
        if fetched is not None and verdict(cached, fetched) == SLOWER:
            summary = ratio(cached, fetched)
            found.append(
                _finding(
                    "in cache slower than from memory",
                    CONTRADICTION,
                    f"{cached['implementation']} at {cached['rows']} × {cached['features']} took "
                    f"{ratio_words(summary)} as long in cache as from memory: data in the cache cannot be "
                    "slower to reach, so one of the two regimes did not measure what its name says.",
                )
            )
    return found


def roof_mismatches(document: dict) -> list[dict]:
    """Stored roofs whose peak or bandwidth was measured with another thread count than the roof's own."""
    found = []
    for stored in document.get("roofs", []):
        n = stored["threads"]
        words = []
        peaks = {p["threads"]: p["flops_per_s"] for p in document["peak_flops"]}
        if stored.get("peak_threads") != n or peaks.get(n) != stored["peak_flops_per_s"]:
            words.append("its peak flop/s is not the matrix product timed with that many threads")
        source = stored.get("bandwidth_from", {})
        try:
            own = speed.roof(document, n)["bandwidth_bytes_per_s"]
        except ValueError:
            own = None
        if source.get("threads") != n or own != stored["bandwidth_bytes_per_s"]:
            words.append("its bandwidth is not the fastest copy from memory made with that many threads")
        if words:
            found.append(
                _finding(
                    "roof at another thread count", CONTRADICTION, f"The {n}-thread roof: " + "; ".join(words) + "."
                )
            )
    return found


def oversized_cache_sets(document: dict) -> list[dict]:
    """ "In cache" results whose working set exceeds a quarter of the last-level cache."""
    limit = speed.in_cache_limit(document["last_level_cache_bytes"])
    return [
        _finding(
            "in-cache working set too large",
            CONTRADICTION,
            f"{r['implementation']} at {r['rows']} × {r['features']} was timed 'in cache' with a working set of "
            f"{r['working_set_bytes'] / 2**20:.1f} MiB, more than a quarter of the "
            f"{document['last_level_cache_bytes'] / 2**20:.0f} MiB last-level cache, which it shares.",
        )
        for r in document["results"]
        if r["regime"] == "in cache" and r["working_set_bytes"] > limit
    ]


def backward_faster_than_forward(document: dict) -> list[dict]:
    """From memory, a torch backward pass faster than its forward pass (same size and threads) beyond the spread."""
    found = []
    results = document["results"]
    for backward in results:
        if backward["regime"] != "from memory" or not backward["implementation"].startswith("torch backward"):
            continue
        forward_name = backward["implementation"].replace("backward", "LayerNorm")
        forward = [r for r in results if r["regime"] == "from memory" and _key(r)[1:] == _key(backward)[1:]]
        forward = [r for r in forward if r["implementation"] == forward_name]
        if forward and verdict(backward, forward[0]) == FASTER:
            summary = ratio(backward, forward[0])
            found.append(
                _finding(
                    "backward faster than forward from memory",
                    UNEXPLAINED,
                    f"From memory at {backward['rows']} × {backward['features']}, {backward['implementation']} took "
                    f"{ratio_words(summary)} the forward pass's time while moving "
                    f"{backward['bytes_moved'] / forward[0]['bytes_moved']:.1f}× the bytes: this run does not "
                    "explain that.",
                )
            )
    return found


def fault_findings(document: dict) -> list[dict]:
    """Cases whose timed calls took page faults: reported, and left out of every verdict."""
    return [
        _finding(
            "page faults in timed calls",
            FAULTS,
            f"{r['implementation']} ({r['regime']}, {r['rows']} × {r['features']}) took minor page faults in "
            f"{sum(r['faulted_calls'])} of its {sum(r['calls'])} timed calls ({r['page_faults_per_call']:.1f} per call): "
            "its timing includes the operating system's work, so no verdict uses it.",
        )
        for r in document["results"]
        if faulted(r)
    ]


def cached_outputs(document: dict) -> list[dict]:
    """From-memory cases whose outputs did not rotate over OUTPUT_CACHE_FACTOR × the last-level cache."""
    from helpers.lessons.speed import kernels

    llc = document["last_level_cache_bytes"]
    found = []
    for r in document["results"]:
        written = kernels.count(r["implementation"]).written * r["rows"] * r["features"]
        if r["regime"] != "from memory" or written == 0:
            continue
        if r["output_buffers"] * written < OUTPUT_CACHE_FACTOR * llc:
            found.append(
                _finding(
                    "outputs stayed in cache",
                    CONTRADICTION,
                    f"{r['implementation']} at {r['rows']} × {r['features']} was timed 'from memory', but its "
                    f"outputs went to {r['output_buffers']} buffer(s), {r['output_buffers'] * written / 2**20:.1f} "
                    f"MiB, less than {OUTPUT_CACHE_FACTOR} × the {llc / 2**20:.0f} MiB last-level cache: its "
                    "writes stayed in the cache.",
                )
            )
    return found


def quietness_findings(document: dict) -> list[dict]:
    """Thread counts whose cases ran while other programs (or the hypervisor, as steal time) took the CPU."""
    quiet = document.get("quietness", {})
    found = []
    for entry in quiet.get("by_threads", []):
        if entry["others_cores"] + entry["steal_cores"] > entry["limit_cores"]:
            found.append(
                _finding(
                    "busy machine",
                    BUSY,
                    f"While the {entry['threads']}-thread cases ran, other programs used {max(0.0, entry['others_cores']):.2f} "
                    f"of a core and the hypervisor took {entry['steal_cores']:.2f} (steal), above the "
                    f"{entry['limit_cores']:.2f} allowed for {entry['threads']} thread(s): those timings include other work.",
                )
            )
    return found


CHECKS = (
    cache_inversions,
    roof_mismatches,
    oversized_cache_sets,
    cached_outputs,
    backward_faster_than_forward,
    fault_findings,
    quietness_findings,
)


def findings(document: dict) -> list[dict]:
    """Every finding of every check, in plain words."""
    return [finding for check in CHECKS for finding in check(document)]


def contradictions(document: dict) -> list[dict]:
    """The findings that make a run unfit to be committed."""
    return [f for f in findings(document) if f["severity"] == CONTRADICTION]


def _finding(check: str, severity: str, words: str) -> dict:
    return {"check": check, "severity": severity, "words": words}


# ---- what LayerNorm's forward costs, against a copy of the same bytes ---------------------------


KERNEL_PARTS = ("sum only", "multiply-add", "torch LayerNorm", "F.rms_norm")


def thread_label(threads: int) -> str:
    return f"{threads} thread{'s' if threads > 1 else ''}"


def part_name(part: str, threads: int) -> str:
    """The implementation name the benchmark gives a kernel part at a thread count."""
    suffix = "" if part in ("torch LayerNorm", "F.rms_norm") else ", torch"
    return f"{part}{suffix} ({thread_label(threads)})"


def kernel_costs(results, regime: str, rows: int, threads: int) -> dict:
    """Each kernel part's time as a ratio to the torch copy of the same rows with the same threads."""
    match = {"regime": regime, "rows": rows}
    copy = speed.find(results, implementation=f"copy, torch ({thread_label(threads)})", **match)
    return {
        part: ratio(speed.find(results, implementation=part_name(part, threads), **match), copy)
        for part in KERNEL_PARTS
    }


def welford_share(results, regime: str, rows: int, threads: int) -> dict:
    """The share of torch LayerNorm's forward time left after its elementwise pass, taken to cost what a
    multiply-add over the same bytes costs: the one Welford pass for mean and variance.

    Per repeat: (LayerNorm − multiply-add) / LayerNorm, and how many plain row sums that pass is worth,
    (LayerNorm − multiply-add) / sum. Median and range over the repeats."""
    match = {"regime": regime, "rows": rows}
    layer_norm = repeat_medians(speed.find(results, implementation=part_name("torch LayerNorm", threads), **match))
    multiply_add = repeat_medians(speed.find(results, implementation=part_name("multiply-add", threads), **match))
    row_sum = repeat_medians(speed.find(results, implementation=part_name("sum only", threads), **match))
    moments = layer_norm - multiply_add
    share, sums = moments / layer_norm, moments / row_sum

    def summary(values):
        return {"median": float(np.median(values)), "low": float(values.min()), "high": float(values.max())}

    return {"share": summary(share), "sums": summary(sums)}


# ---- rankings -------------------------------------------------------------------------------------


def ranking_words(cases: list[dict], size: str) -> str:
    """Which of ``cases`` was fastest at ``size``, said only as far as the repeats allow.

    The case with the lowest median is the fastest only if every other case was slower than it in
    every repeat; the ones whose repeats overlap it are named with it, as "cannot tell apart". With
    fewer than two cases left once those with page faults are out, there is nothing to rank."""
    usable = [c for c in cases if not faulted(c)]
    dropped = [c["implementation"] for c in cases if faulted(c)]
    if len(usable) < 2:  # a fastest needs another case to be faster than
        words = f"At {size} this run ranks nothing: " + (
            f"{usable[0]['implementation']} is the only case left to compare."
            if usable
            else "no case is left to compare."
        )
        return words + (f" Left out for page faults in timed calls: {', '.join(dropped)}." if dropped else "")
    ordered = sorted(usable, key=lambda c: float(np.median(repeat_medians(c))))
    first, rest = ordered[0], ordered[1:]
    tied = [c for c in rest if verdict(c, first) != SLOWER]
    slower = [c for c in rest if verdict(c, first) == SLOWER]

    def slower_words(c):
        return f"{c['implementation']} {ratio_words(ratio(c, first))} its time"

    if tied:
        names = ", ".join(c["implementation"] for c in [first, *tied])
        words = (
            f"At {size} this run cannot tell {names} apart: their repeats overlap "
            f"({'; '.join(_range_words(c) for c in [first, *tied])})."
        )
        if slower:
            words += (
                f" Slower than {first['implementation']} in every repeat: "
                + "; ".join(slower_words(c) for c in slower)
                + "."
            )
    else:
        low, high = repeat_range(first)
        words = (
            f"At {size} the fastest was {first['implementation']} ({low * 1e6:.2f}–{high * 1e6:.2f} µs across "
            "repeats), faster than every other in every repeat: " + "; ".join(slower_words(c) for c in slower) + "."
        )
    if dropped:
        words += f" Left out for page faults in timed calls: {', '.join(dropped)}."
    return words


def _range_words(case: dict) -> str:
    low, high = repeat_range(case)
    return f"{case['implementation']} {low * 1e6:.2f}–{high * 1e6:.2f} µs"
