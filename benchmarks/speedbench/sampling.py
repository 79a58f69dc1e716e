"""How a speed run times: warm-up, per-call page-fault counts, repeats in shuffled orders."""

from __future__ import annotations

import resource
import time

import numpy as np

from benchmarks.speedbench import machine
from helpers.lessons.speed import timing as speed

WARMUP_CALLS = 3
MAX_SAMPLES = 4000


def pointer(output) -> int | None:
    """The address of a call's (first) output array, or None when the call returns nothing."""
    if isinstance(output, tuple):
        output = output[0]
    if output is None:
        return None
    if hasattr(output, "data_ptr"):
        return output.data_ptr()
    if hasattr(output, "__array_interface__"):
        return output.__array_interface__["data"][0]
    return None


def sample(case: dict, min_samples: int, min_seconds: float) -> dict:
    """Time ``case["call"](i)`` after warm-up; no buffer is allocated between the clock readings.

    i runs on from the warm-up calls over the case's ``buffers`` sets, so a rotating case never times
    a set it has just warmed. A call that allocates its output (``allocates``) keeps the last
    ``buffers`` outputs alive in a ring and frees the oldest before each call (outside the timed
    region), so glibc malloc hands it a block written ``buffers`` calls ago: from memory, its output
    rotates like everyone else's. The warm-up then goes round the ring twice. Minor page faults are
    read (``getrusage``) just outside each call's clock readings."""
    count = case.get("buffers", 1)
    ring = [None] * (count if case.get("allocates") else 1)
    warmup = max(WARMUP_CALLS, 2 * len(ring)) if len(ring) > 1 else WARMUP_CALLS
    for i in range(warmup):
        ring[i % len(ring)] = None
        ring[i % len(ring)] = case["call"](i % count)
    minimum = max(min_samples, len(ring) if len(ring) > 1 else 0)  # every output of the ring, at least once
    times = np.empty(max(MAX_SAMPLES, minimum))
    faults = faulted = n = 0
    total, pointers = 0.0, set()
    rusage, me, clock = resource.getrusage, resource.RUSAGE_SELF, time.perf_counter
    i = warmup
    while n < minimum or (total < min_seconds and n < MAX_SAMPLES):
        slot = i % len(ring)
        ring[slot] = None
        before = rusage(me).ru_minflt
        start = clock()
        output = case["call"](i % count)
        elapsed = clock() - start
        took = rusage(me).ru_minflt - before
        ring[slot] = output
        if case.get("allocates"):
            pointers.add(pointer(output))
        times[n] = elapsed
        faults += took
        faulted += took > 0
        total += elapsed
        n += 1
        i += 1
    return {
        "times": times[:n].tolist(),
        "faults": faults,
        "faulted_calls": faulted,
        "calls": n,
        "output_buffers": len(pointers) if case.get("allocates") else count,
    }


def run_repeats(torch, cases, repeats, min_samples, min_seconds, seed) -> dict:
    """Every case once per repeat, each repeat in its own seeded order; what others used around each."""
    rng = np.random.default_rng(seed)
    for case in cases:
        case.update(times=[], repeat_medians=[], faults=[], faulted_calls=[], calls=[], output_buffers=[])
        case.update(others=[], steal=[], wall=[])
    per_repeat = []
    for repeat in range(repeats):
        order = rng.permutation(len(cases))
        load_start, start = machine.load_average(), machine.cpu_counters()
        for index in order:
            case = cases[index]
            torch.set_num_threads(case["threads"])
            before = machine.cpu_counters()
            got = sample(case, min_samples, min_seconds)
            wall, other, steal = machine.others(before, machine.cpu_counters())
            case["times"] += got["times"]
            case["repeat_medians"].append(float(np.median(got["times"])))
            for key in ("faults", "faulted_calls", "calls", "output_buffers"):
                case[key].append(got[key])
            case["others"].append(other)
            case["steal"].append(steal)
            case["wall"].append(wall)
        wall, other, steal = machine.others(start, machine.cpu_counters())
        per_repeat.append(
            {"repeat": repeat, "seconds": wall, "others_cores": other, "steal_cores": steal, "load_start": load_start}
        )
        machine.say(
            f"  repeat {repeat + 1} of {repeats}: {wall:.1f} s, others {other:.2f} cores, steal {steal:.2f} cores"
        )
    return {"per_repeat": per_repeat}


def timing(case: dict) -> dict:
    """Pooled quartiles of every sample, with the median replaced by the median of the repeat medians."""
    return {**speed.spread(case["times"]), "median": float(np.median(case["repeat_medians"]))}


def faults_record(case: dict) -> dict:
    """What the run keeps of a case's page faults and outputs: per repeat, and per call overall."""
    return {
        "calls": case["calls"],
        "faulted_calls": case["faulted_calls"],
        "page_faults_per_call": sum(case["faults"]) / max(1, sum(case["calls"])),
        "output_buffers": min(case["output_buffers"]),
    }


def by_threads(cases, limits: dict) -> list[dict]:
    """Per thread count: the cores others and the hypervisor used, weighted by each case's time, and its limit."""
    entries = []
    for n in sorted({c["threads"] for c in cases}):
        chosen = [c for c in cases if c["threads"] == n]
        wall = sum(sum(c["wall"]) for c in chosen)
        other = sum(sum(o * w for o, w in zip(c["others"], c["wall"])) for c in chosen) / wall
        steal = sum(sum(s * w for s, w in zip(c["steal"], c["wall"])) for c in chosen) / wall
        limit = limits.get(n, min(limits.values()))
        entries.append(
            {"threads": n, "seconds": wall, "others_cores": other, "steal_cores": steal, "limit_cores": limit}
        )
    return entries
