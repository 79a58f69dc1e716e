"""How fast is LayerNorm here, in cache and from memory, against a read + write stream and the roofline?

    python3 run.py bench                                  # writes data/speed_results.local.json (git-ignored)
    .venv/bin/python benchmarks/bench_speed.py --save-committed   # writes data/speed_results.json
    .venv/bin/python benchmarks/bench_speed.py --quick --force --output /tmp/s.json   # a smoke test

Two regimes, each what its name says (``speedbench.data``):

- in cache: the same input and the same output on every call, and only at sizes whose working set
  (inputs and outputs of the largest case, the backward pass) is at most a quarter of the last-level
  cache (``helpers.lessons.speed.timing.in_cache_limit``);
- from memory: inputs AND outputs rotate over pools in which each array alone covers 4 × the
  last-level cache, so every call reads its inputs from memory and its writes go back to memory.
  Calls with ``out=`` write into the next preallocated output. Calls that allocate their output
  (``F.layer_norm``, the backward kernel, ``F.rms_norm``, numpy with new arrays) keep a ring of
  their last outputs alive and free the oldest before each call, outside the timed region, so
  glibc malloc hands the call a block last written a whole rotation ago; the run records how many
  distinct output addresses the timed calls got (``output_buffers``), and a check refuses a run in
  which they cover less than twice the cache. The memory roof is the copy of the same bytes, input
  and output rotating: a measured read + write stream.

PyTorch's CPU allocator does not cache (``c10/core/impl/alloc_cpu.cpp``: posix_memalign and free);
reuse of freed blocks is glibc malloc's, and above its mmap threshold (dynamic, at most 32 MiB on
64 bits, ``malloc/malloc.c``) every block is fresh memory and every page a page fault. So the script
sets that threshold, turns trimming off and a top pad on with ``mallopt``, then grows the heap and
writes every page of it once, before allocating anything else
(``speedbench.machine.tune_allocator``), allocates and writes every buffer before timing, and reads
the minor page faults (``getrusage``) around every timed call: a case whose timed calls fault (more
than 1 % of them) is reported and left out of every verdict (``helpers.lessons.speed.checks``).

``native_layer_norm.out`` is timed too, into rotating outputs: PyTorch generates that ``out=`` variant
to compute into new tensors and then copy, so it costs a copy more than the kernel.

Every case is timed in REPEATS repeats; each repeat runs every case (regime, size, implementation,
thread count, the matrix products that give the peak flop/s, and the lesson's 5 × 3 matrix) once,
in its own order drawn from a seeded generator. Each case: warm-up calls, then at least MIN_SAMPLES
timed calls and MIN_SECONDS; the JSON keeps each repeat's median (``repeat_medians``), their median
(``time.median``) and the quartiles of all samples pooled. Flops and bytes per value come from
``helpers.lessons.speed.kernels.COUNTS``, next to the timed code.

Around every case the script reads /proc/stat and its own CPU time, so it knows how much of the
machine others used while that case ran. It refuses to save (exit code 3, unless ``--force``, which
marks the JSON) a run that started under load, a busy run, and a run that contradicts itself.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from anywhere without installing helpers

from benchmarks.speedbench import cases as bench_cases  # noqa: E402
from benchmarks.speedbench import data as bench_data  # noqa: E402
from benchmarks.speedbench import machine, report, sampling  # noqa: E402
from helpers.lessons.speed import checks as speed_checks  # noqa: E402
from helpers.lessons.speed import timing as speed  # noqa: E402

FEATURES = 1024
ROWS = (64, 512, 2048)  # in cache only where the working set is ≤ ¼ of the last-level cache (64, 512 on 32 MiB)
QUICK_FEATURES, QUICK_ROWS = 1024, (64, 256)
QUICK_ROTATION_BYTES = 4 * 2**20  # --quick rotates over 4 × 4 MiB only: a smoke test, not a from-memory run
REPEATS, QUICK_REPEATS = 5, 2
MIN_SAMPLES, MIN_SECONDS = 15, 0.25
QUICK_MIN_SAMPLES, QUICK_MIN_SECONDS = 5, 0.002
MATRIX, QUICK_MATRIX = 1024, 256
SEED = 12
LOAD_LIMIT = 0.5  # load average per core at the start above which the run is refused
OTHERS_LIMIT_CORES = {1: 0.3, 2: 0.1}  # CPU others (and steal) may take while cases of that many threads run
COMMITTED = ROOT / "data" / speed.COMMITTED_RESULTS
LOCAL = ROOT / "data" / speed.LOCAL_RESULTS
AGREEMENT_TOLERANCE = 1e-3
PREFAULT_FACTOR = 6  # the heap is grown (and every page written) to 6 × the rotated cache before timing
FORMAT = 2  # 2: outputs rotate from memory, page faults per timed call, the lesson in the repeats (issue 32)
say = machine.say
load_average = machine.load_average


def under_load(load, cores) -> bool:
    return machine.under_load(load, cores, LOAD_LIMIT)


def reasons_to_refuse(findings, load_start, cores) -> list[str]:
    """Why a run must not be saved without --force: a busy start, a busy run, or a contradiction."""
    reasons = [f["words"] for f in findings if f["severity"] in (speed_checks.CONTRADICTION, speed_checks.BUSY)]
    if under_load(load_start, cores):
        reasons.insert(0, f"The load average was {load_start:.2f} on {cores} cores at the start.")
    return reasons


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, short timings, two repeats (a smoke test)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--output", type=Path, help=f"where to write the JSON (default {LOCAL.relative_to(ROOT)})")
    where.add_argument(
        "--save-committed",
        action="store_true",
        help=f"write {COMMITTED.relative_to(ROOT)}, the file the notebook's stored outputs use",
    )
    parser.add_argument(
        "--force", action="store_true", help="save even a busy or self-contradicting run (the JSON says so)"
    )
    parser.add_argument("--repeats", type=int, help=f"repeats of every case (default {REPEATS}, quick {QUICK_REPEATS})")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse(argv)
    output = COMMITTED if args.save_committed else (args.output or LOCAL)
    import torch

    started = time.perf_counter()
    allocator = machine.tune_allocator()  # before any large buffer exists
    info = machine.machine_info()
    cores = info["cores"] or 1
    load_start = load_average()
    if under_load(load_start, cores) and not args.force:
        say(
            f"error: the load average is {load_start:.2f} on {cores} cores (above {LOAD_LIMIT} per core): other "
            "programs are running and the timings would be noise. Wait for a quiet machine, or give --force."
        )
        return 3
    llc = machine.last_level_cache(info)
    limit = speed.in_cache_limit(llc)
    features, row_counts = (QUICK_FEATURES, QUICK_ROWS) if args.quick else (FEATURES, ROWS)
    min_samples, min_seconds = (QUICK_MIN_SAMPLES, QUICK_MIN_SECONDS) if args.quick else (MIN_SAMPLES, MIN_SECONDS)
    repeats = args.repeats or (QUICK_REPEATS if args.quick else REPEATS)
    threads = info["torch_threads"]
    thread_counts = sorted({threads, 1})
    regime_rows = {
        "in cache": [r for r in row_counts if speed.bytes_moved(r, features, "backward") <= limit],
        "from memory": list(row_counts),
    }
    say(
        f"LayerNorm speed on {info['cpu']} ({cores} cores, last-level cache {llc / 2**20:.0f} MiB, in cache "
        f"≤ {limit / 2**20:.0f} MiB: rows {regime_rows['in cache']}), torch {info['torch']}, threads "
        f"{thread_counts}, {repeats} repeats, glibc mallopt {'set' if allocator['glibc_mallopt'] else 'NOT set'}"
    )
    rotation = min(llc, QUICK_ROTATION_BYTES) if args.quick else llc
    if allocator["glibc_mallopt"]:  # room for a ring of outputs (4 × the rotation) and the temporaries beside it
        allocator["prefaulted_bytes"] = machine.prefault_heap(torch, PREFAULT_FACTOR * rotation)
    data = bench_data.make_data(torch, regime_rows, features, rotation)
    cases = [
        case
        for regime, rows_list in regime_rows.items()
        for rows in rows_list
        for case in bench_cases.cases_for(torch, regime, rows, features, data, threads)
    ]
    matrices = bench_cases.matrix_cases(torch, thread_counts, QUICK_MATRIX if args.quick else MATRIX)
    lesson = bench_cases.lesson_cases(torch)
    quiet = sampling.run_repeats(torch, cases + matrices + lesson, repeats, min_samples, min_seconds, SEED)
    torch.set_num_threads(threads)
    differences = report.agreement(torch, features, data)
    results = [report.result(case, differences) for case in cases]
    for r in sorted(results, key=lambda r: (r["regime"], r["rows"], r["implementation"])):
        low, high = speed_checks.repeat_range(r)
        say(
            f"  {r['regime']:<11} {r['rows']:>5} × {r['features']:<5} {r['implementation']:<32} "
            f"{r['time']['median'] * 1e6:>9.1f} µs (repeats {low * 1e6:.1f}–{high * 1e6:.1f}) "
            f"{r['gb_per_s']:>7.2f} GB/s {r['page_faults_per_call']:>6.1f} faults/call, "
            f"{sum(r['faulted_calls'])}/{sum(r['calls'])} calls faulted, {r['output_buffers']} outputs"
        )
    document = {
        "format": FORMAT,
        "description": "LayerNorm (float32, last axis, eps=1e-5, with γ and β) timed by benchmarks/bench_speed.py. "
        "Every case timed in several repeats, each repeat in its own shuffled order; times in seconds: "
        "repeat_medians (one per repeat), time.median (their median), and the quartiles, min, max and n of "
        "all samples pooled. bytes_moved: forward 8 bytes per value (read x, write y), backward 12 (read x "
        "and dy, write dx), a copy and a multiply-add 8, a row sum 4; flops per value in counts. calls and "
        "faulted_calls: per repeat, the timed calls and those that took a minor page fault. output_buffers: "
        "the distinct outputs the timed calls wrote (fewest over the repeats). others_cores and steal_cores: "
        "per repeat, the CPU that other programs and the hypervisor took while that case ran.",
        "quick": args.quick,
        "machine": info,
        "allocator": allocator,
        "last_level_cache_bytes": llc,
        "plan": {
            "repeats": repeats,
            "seed": SEED,
            "min_samples": min_samples,
            "min_seconds": min_seconds,
            "in_cache_limit_bytes": limit,
            "rotation_cache_bytes": rotation,
            "in_cache_rows": regime_rows["in cache"],
            "from_memory_rows": regime_rows["from memory"],
            "features": features,
            "thread_counts": thread_counts,
        },
        "load_average": {"start": load_start, "end": load_average(), "limit_per_core": LOAD_LIMIT},
        "quietness": {**quiet, "by_threads": sampling.by_threads(cases, OTHERS_LIMIT_CORES)},
        "counts": report.counts_table(),
        "operators": report.operators(torch, features),
        "peak_flops": [report.peak(m) for m in matrices],
        "lesson": [report.lesson_result(c) for c in lesson],
        "results": results,
    }
    document["roofs"] = speed.roofs(document)
    findings = speed_checks.findings(document)
    refusals = reasons_to_refuse(findings, load_start, cores)
    document["consistency"] = {
        "findings": findings,
        "consistent": not speed_checks.contradictions(document),
        "refusals": refusals,
    }
    document["forced"] = bool(refusals) and args.force
    document["total_seconds"] = time.perf_counter() - started
    for finding in findings:
        say(f"  {finding['severity']}: {finding['words']}")
    wrong = {name: d for name, d in differences.items() if d > AGREEMENT_TOLERANCE}
    if wrong:
        say(f"error: {', '.join(wrong)} differ from the float64 formula by more than {AGREEMENT_TOLERANCE}")
        return 1
    if refusals and not args.force:
        say(f"error: not saved ({len(refusals)} reason(s) above); give --force to save it anyway, marked as forced.")
        return 3
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(document, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    say(f"{len(results)} cases × {repeats} repeats in {document['total_seconds']:.0f} s; written to {output}")
    if output == LOCAL:
        say("notebook 12 now shows this run (delete the file to see the committed one again)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
