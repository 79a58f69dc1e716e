"""How fast is LayerNorm here, in cache and from memory, against a copy and against the roofline?

    python3 run.py bench                                  # writes data/speed_results.local.json (git-ignored)
    .venv/bin/python benchmarks/bench_speed.py --save-committed   # writes data/speed_results.json
    .venv/bin/python benchmarks/bench_speed.py --quick --force --output /tmp/s.json   # a smoke test

Two regimes, labelled in the output:

- in cache: the same input and the same preallocated output on every call (the working set fits in
  the last-level cache, so this measures the arithmetic and the caches, not memory);
- from memory: calls rotate over enough separate input/output sets to fill at least 4 × the
  last-level cache, so every call reads its input from memory.

Outputs are preallocated (``out=``) wherever the library allows, and minor page faults per call are
counted with ``resource.getrusage``, so a number never measures the operating system handing out
fresh pages. Every LayerNorm is compared with a copy of the same bytes made with the same threads
and the same allocation policy. Every case: warm-up calls, then at least MIN_SAMPLES timed calls;
the JSON keeps the median, quartiles, minimum and maximum. The roofline needs this machine's peak
flop/s (a float32 matrix product) and its memory bandwidth (the copy from memory).

A run taken while the load average exceeds half the cores is noisy: the script refuses to save it
unless ``--force`` is given (it says so and exits with code 3).
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import resource
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from anywhere without installing helpers

from helpers import speed  # noqa: E402
from helpers.formula import layer_norm_forward  # noqa: E402

EPS = 1e-5
FEATURES = 1024
ROWS = (64, 512, 2048)  # working sets of 0.5, 4 and 16 MiB (input + output): all fit a 32 MiB L3
QUICK_FEATURES, QUICK_ROWS = 256, (16, 64)
LESSON_SIZE = (5, 3)
MIN_SAMPLES, MIN_SECONDS, MAX_SAMPLES = 15, 0.5, 4000
QUICK_MIN_SAMPLES, QUICK_MIN_SECONDS = 5, 0.02
LOAD_LIMIT = 0.5  # load average per core above which timings are flagged as taken under load
COMMITTED = ROOT / "data" / speed.COMMITTED_RESULTS
LOCAL = ROOT / "data" / speed.LOCAL_RESULTS
AGREEMENT_TOLERANCE = 1e-3


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def load_average() -> float | None:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else None


def under_load(load: float | None, cores: int) -> bool:
    return load is not None and load > LOAD_LIMIT * cores


def machine_info() -> dict:
    cpu = platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.lower().startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    caches = {}
    for folder in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            if (folder / "type").read_text().strip() != "Instruction":
                caches[f"L{(folder / 'level').read_text().strip()}"] = (folder / "size").read_text().strip()
        except OSError:
            pass
    import torch

    return {
        "cpu": cpu,
        "caches": caches,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "torch": torch.__version__,
        "torch_threads": torch.get_num_threads(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
    }


def last_level_cache(info: dict) -> int:
    sizes = [speed.cache_bytes(size) for size in info["caches"].values()]
    return max(sizes) if sizes else 32 * 2**20


def sample(call, count: int, min_samples: int, min_seconds: float) -> tuple[dict, float]:
    """Time ``call(i)`` for i = 0, 1, ... after warm-up; returns its spread and minor page faults per call."""
    for i in range(min(count, 3)):
        call(i)
    times, total, i = [], 0.0, 0
    faults_before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    while len(times) < min_samples or (total < min_seconds and len(times) < MAX_SAMPLES):
        start = time.perf_counter()
        call(i % count)
        times.append(time.perf_counter() - start)
        total += times[-1]
        i += 1
    faults = (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults_before) / len(times)
    return speed.spread(times), faults


# ---- the implementations: each writes into preallocated outputs where its library allows -------


def numpy_out(x, out, gamma, beta):
    """Two-pass in numpy with ``out=`` wherever numpy has it (only the per-row statistics are new)."""
    mean = x.mean(axis=-1, keepdims=True)
    np.subtract(x, mean, out=out)
    var = np.einsum("ij,ij->i", out, out)[:, None] / np.float32(x.shape[-1])
    np.multiply(out, 1 / np.sqrt(var + np.float32(EPS)), out=out)
    np.multiply(out, gamma, out=out)
    np.add(out, beta, out=out)


def numpy_formula(x, out, gamma, beta):
    """helpers.formula.layer_norm_forward: clear, but every step allocates a new array."""
    return layer_norm_forward(x, EPS)[0] * gamma + beta


def case_functions(torch):
    aten = torch.ops.aten

    def torch_forward(t, buffers):
        aten.native_layer_norm.out(
            t["x"],
            [t["x"].shape[-1]],
            t["gamma"],
            t["beta"],
            EPS,
            out0=buffers["y"],
            out1=buffers["mean"],
            out2=buffers["rstd"],
        )

    def torch_backward(t, buffers):
        aten.native_layer_norm_backward.out(
            t["dy"],
            t["x"],
            [t["x"].shape[-1]],
            t["mean"],
            t["rstd"],
            t["gamma"],
            t["beta"],
            [True, True, True],
            out0=buffers["dx"],
            out1=buffers["dgamma"],
            out2=buffers["dbeta"],
        )

    return torch_forward, torch_backward


def make_sets(torch, rows: int, features: int, count: int, seed: int = 0) -> list[dict]:
    """``count`` independent input/output sets (numpy and torch views of the same memory)."""
    rng = np.random.default_rng(seed)
    sets = []
    for _ in range(count):
        x = rng.standard_normal((rows, features), dtype=np.float32)
        dy = rng.standard_normal((rows, features), dtype=np.float32)
        tx = torch.from_numpy(x)
        mean = tx.mean(dim=-1, keepdim=True)
        rstd = torch.rsqrt(tx.var(dim=-1, unbiased=False, keepdim=True) + EPS)
        # np.full writes every output page now, so no timed call pays for its first touch
        sets.append(
            {
                "x": x,
                "dy": dy,
                "out": np.full_like(x, 1.0),
                "t": {"x": tx, "dy": torch.from_numpy(dy), "mean": mean, "rstd": rstd},
                "tout": torch.from_numpy(np.full_like(x, 1.0)),
                "tdx": torch.from_numpy(np.full_like(x, 1.0)),
            }
        )
    return sets


def time_size(torch, rows, features, regime, llc, threads, min_samples, min_seconds) -> list[dict]:
    """Every implementation at one size in one regime."""
    forward_bytes = speed.bytes_moved(rows, features)
    backward_bytes = speed.bytes_moved(rows, features, "backward")
    count = 1 if regime == "in cache" else speed.buffers_to_rotate(forward_bytes, llc)
    backward_count = 1 if regime == "in cache" else speed.buffers_to_rotate(backward_bytes, llc)
    sets = make_sets(torch, rows, features, max(count, backward_count))
    gamma = np.linspace(0.5, 1.5, features, dtype=np.float32)
    beta = np.linspace(-0.1, 0.1, features, dtype=np.float32)
    tgamma, tbeta = torch.from_numpy(gamma), torch.from_numpy(beta)
    for s in sets:
        s["t"].update(gamma=tgamma, beta=tbeta)
    stats = {
        "y": None,
        "mean": torch.empty(rows, 1),
        "rstd": torch.empty(rows, 1),
        "dgamma": torch.empty(features),
        "dbeta": torch.empty(features),
    }
    torch_forward, torch_backward = case_functions(torch)
    cases = [
        ("copy, numpy (1 thread)", 1, "forward", count, lambda i: np.copyto(sets[i]["out"], sets[i]["x"])),
        ("numpy two-pass, out=", 1, "forward", count, lambda i: numpy_out(sets[i]["x"], sets[i]["out"], gamma, beta)),
        ("numpy two-pass, new arrays", 1, "forward", count, lambda i: numpy_formula(sets[i]["x"], None, gamma, beta)),
    ]
    ceilings = {name: "copy, numpy (1 thread)" for name, *_ in cases}
    for n in sorted({threads, 1}, reverse=True):
        label = f"{n} thread{'s' if n > 1 else ''}"
        cases += [
            (f"copy, torch ({label})", n, "forward", count, lambda i: sets[i]["tout"].copy_(sets[i]["t"]["x"])),
            (
                f"torch LayerNorm ({label})",
                n,
                "forward",
                count,
                lambda i: torch_forward(sets[i]["t"], {**stats, "y": sets[i]["tout"]}),
            ),
            (
                f"torch backward ({label})",
                n,
                "backward",
                backward_count,
                lambda i: torch_backward(sets[i]["t"], {**stats, "dx": sets[i]["tdx"]}),
            ),
        ]
        ceilings.update({name: f"copy, torch ({label})" for name, *_ in cases[-3:]})
    results = []
    for name, n, direction, rotate, call in cases:
        torch.set_num_threads(n)
        timing, faults = sample(call, rotate, min_samples, min_seconds)
        moved = speed.bytes_moved(rows, features, direction)
        results.append(
            {
                "implementation": name,
                "regime": regime,
                "rows": rows,
                "features": features,
                "threads": n,
                "direction": direction,
                "ceiling": ceilings[name],
                "buffers": rotate,
                "bytes_moved": moved,
                "working_set_bytes": rotate * moved,
                "time": timing,
                "page_faults_per_call": faults,
                "gb_per_s": speed.gb_per_s(moved, timing["median"]),
            }
        )
        say(
            f"  {regime:<11} {rows:>5} × {features:<5} {name:<28} {timing['median'] * 1e6:>10.1f} µs "
            f"(IQR {timing['q1'] * 1e6:.1f}–{timing['q3'] * 1e6:.1f}) {results[-1]['gb_per_s']:>7.2f} GB/s "
            f"{faults:>7.1f} faults/call"
        )
    torch.set_num_threads(threads)
    check_agreement(torch, sets[0], gamma, beta, results)
    return results


def check_agreement(torch, first, gamma, beta, results) -> None:
    """Each LayerNorm's output against the float64 formula, stored on its results."""
    x = first["x"]
    truth = layer_norm_forward(x.astype(np.float64), EPS)[0] * gamma + beta
    out = np.empty_like(x)
    numpy_out(x, out, gamma, beta)
    torch_forward, _ = case_functions(torch)
    y = torch.empty_like(first["t"]["x"])
    torch_forward(first["t"], {"y": y, "mean": torch.empty(x.shape[0], 1), "rstd": torch.empty(x.shape[0], 1)})
    differences = {"numpy two-pass, out=": out, "numpy two-pass, new arrays": numpy_formula(x, None, gamma, beta)}
    for r in results:
        output = differences.get(r["implementation"], y.numpy() if "LayerNorm" in r["implementation"] else None)
        r["max_abs_difference"] = None if output is None else float(np.max(np.abs(output - truth)))


def peak_flops(torch, threads: int, min_samples: int, min_seconds: float) -> dict:
    """float32 matrix product n × n × n (2n³ flops): the most arithmetic this CPU does per second here."""
    n = 1024
    a, b, c = torch.randn(n, n), torch.randn(n, n), torch.empty(n, n)
    torch.set_num_threads(threads)
    timing, _ = sample(lambda i: torch.mm(a, b, out=c), 1, min_samples, min_seconds)
    return {"threads": threads, "matrix": n, "time": timing, "flops_per_s": 2 * n**3 / timing["median"]}


def lesson_overhead(torch, threads, min_samples, min_seconds) -> list[dict]:
    """The lesson's 5 × 3 matrix: all overhead, which pure Python loops show best."""
    rows, features = LESSON_SIZE
    x = np.random.default_rng(0).standard_normal(LESSON_SIZE).astype(np.float32)
    lists, tx = x.tolist(), torch.from_numpy(x)

    def pure_python(rows_):
        out = []
        for row in rows_:
            mean = sum(row) / len(row)
            var = sum((v - mean) ** 2 for v in row) / len(row)
            out.append([(v - mean) / (var + EPS) ** 0.5 for v in row])
        return out

    cases = [
        ("pure Python loops", lambda i: pure_python(lists)),
        ("numpy (helpers.formula)", lambda i: layer_norm_forward(x, EPS)),
        ("torch F.layer_norm (1 thread)", lambda i: torch.nn.functional.layer_norm(tx, (features,), eps=EPS)),
    ]
    torch.set_num_threads(1)  # even 5 rows are split across threads, and waking them is what this would time
    results = []
    for name, call in cases:
        timing, _ = sample(call, 1, min_samples, min_seconds)
        results.append({"implementation": name, "rows": rows, "features": features, "time": timing})
        say(f"  lesson 5 × 3 {name:<30} {timing['median'] * 1e6:>8.2f} µs")
    torch.set_num_threads(threads)
    return results


def parse(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, short timings (a smoke test)")
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--output", type=Path, help=f"where to write the JSON (default {LOCAL.relative_to(ROOT)})")
    where.add_argument(
        "--save-committed",
        action="store_true",
        help=f"write {COMMITTED.relative_to(ROOT)}, the file the notebook's stored outputs use",
    )
    parser.add_argument("--force", action="store_true", help="save even if the machine was busy (load warning)")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse(argv)
    output = COMMITTED if args.save_committed else (args.output or LOCAL)
    import torch

    started = time.perf_counter()
    info = machine_info()
    cores = info["cores"] or 1
    load_start = load_average()
    if under_load(load_start, cores) and not args.force:
        say(
            f"error: the load average is {load_start:.2f} on {cores} cores (above {LOAD_LIMIT} per core): other "
            "programs are running and the timings would be noise. Wait for a quiet machine, or give --force."
        )
        return 3
    llc = last_level_cache(info)
    features, row_counts = (QUICK_FEATURES, QUICK_ROWS) if args.quick else (FEATURES, ROWS)
    min_samples, min_seconds = (QUICK_MIN_SAMPLES, QUICK_MIN_SECONDS) if args.quick else (MIN_SAMPLES, MIN_SECONDS)
    threads = info["torch_threads"]
    say(
        f"LayerNorm speed on {info['cpu']} ({cores} cores, last-level cache {llc / 2**20:.0f} MiB), "
        f"torch {info['torch']} with {threads} threads"
    )
    lesson = lesson_overhead(torch, threads, min_samples, min_seconds)
    results = []
    for regime in ("in cache", "from memory"):
        for rows in row_counts:
            results += time_size(torch, rows, features, regime, llc, threads, min_samples, min_seconds)
    peaks = [peak_flops(torch, n, min_samples, min_seconds) for n in sorted({threads, 1}, reverse=True)]
    torch.set_num_threads(threads)
    load_end = load_average()
    busy = under_load(load_start, cores) or under_load(load_end, cores)
    document = {
        "description": "LayerNorm (float32, last axis, eps=1e-5, with γ and β) timed by benchmarks/bench_speed.py. "
        "Times in seconds: median, quartiles, min, max of n calls after warm-up. Forward moves "
        "8 bytes per value (read x, write y), backward 12 (read x and dy, write dx).",
        "quick": args.quick,
        "machine": info,
        "last_level_cache_bytes": llc,
        "load_average": {"start": load_start, "end": load_end, "limit_per_core": LOAD_LIMIT, "under_load": busy},
        "flop_counts": {
            "forward_per_value": speed.FORWARD_FLOPS_PER_VALUE,
            "backward_per_value": speed.BACKWARD_FLOPS_PER_VALUE,
        },
        "peak_flops": peaks,
        "lesson": lesson,
        "results": results,
        "total_seconds": time.perf_counter() - started,
    }
    wrong = [
        r for r in results if r.get("max_abs_difference") is not None and r["max_abs_difference"] > AGREEMENT_TOLERANCE
    ]
    if wrong:
        say(f"error: {len(wrong)} result(s) differ from the float64 formula by more than {AGREEMENT_TOLERANCE}")
        return 1
    if busy and not args.force:
        say(
            f"error: the load average reached {load_end:.2f} on {cores} cores during the run; not saved "
            "(give --force to save it anyway)."
        )
        return 3
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(json.dumps(document, indent=0, ensure_ascii=False) + "\n", encoding="utf-8")
    say(f"{len(results)} timings in {document['total_seconds']:.0f} s; written to {output}")
    if output == LOCAL:
        say("notebook 12 now shows this run (delete the file to see the committed one again)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
