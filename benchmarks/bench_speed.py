"""How fast is LayerNorm here? Pure Python, numpy (two-pass and one-pass), torch, torch.compile.

LayerNorm does a handful of additions and multiplications per number it reads, so its speed is
set by how fast memory moves, not by arithmetic: it is memory-bound. Each result is reported as
a time, as GB/s moved (the input read once and the output written once: 2 · rows · features ·
4 bytes for float32, divided by the time), and as a fraction of this machine's copy bandwidth
(np.copyto on a large array, which also reads and writes every byte once).

    python benchmarks/bench_speed.py            # full run (a few minutes at most), writes data/speed_results.json
    python benchmarks/bench_speed.py --quick    # small sizes only, no torch.compile: a smoke test

Two things to keep in mind when reading the table. Sizes whose input and output fit in the CPU's
cache (a few MB) are re-read from cache on every repeat, so they can beat the copy bandwidth,
which is measured on an array far bigger than the cache. And every implementation returns a new
array: at the largest size the operating system has to hand over fresh memory pages for it on
every call, which costs more than the arithmetic; the "numpy copy (new array)" row, ``x.copy()``,
shows that floor for each size.

Each time is the best of several repeats after one warm-up call (torch cases are timed for a few
seconds, see TORCH_SECONDS); the JSON keeps the median too. torch.compile runs in a separate
process with a time limit, so a missing compiler or a slow first compile cannot stall the run.
Numbers differ between machines and runs; notebook 12 reads the saved file.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from anywhere without installing helpers

from helpers.layernorm import layer_norm  # noqa: E402

EPS = 1e-5
BYTES_PER_VALUE = 4  # float32
SIZES = [(5, 3), (64, 64), (256, 768), (1024, 1024), (4096, 1024), (8192, 4096)]
QUICK_SIZES = [(5, 3), (64, 64), (256, 256)]
PURE_PYTHON_MAX_VALUES = 300_000  # beyond this the loops take seconds per call
COPY_BYTES = 256 * 2**20  # array size for measuring copy bandwidth
QUICK_COPY_BYTES = 16 * 2**20
COMPILE_TIMEOUT_SECONDS = 180
# PyTorch's worker threads fall asleep between calls; on a virtual machine waking them can stall a
# call for milliseconds, in bursts lasting up to a second or two. Timing each torch case for this
# long, in several passes, and keeping the best call measures the kernel rather than the wake-up.
TORCH_SECONDS = 3.0  # in total per case, spread over TORCH_ROUNDS passes over all sizes
QUICK_TORCH_SECONDS = 0.3
TORCH_ROUNDS = 3
TORCH_MAX_REPEATS = 1_000_000
OUTPUT = ROOT / "data" / "speed_results.json"
AGREEMENT_TOLERANCE = 1e-3  # float32 results must match the float64 truth this closely


def say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def timed_calls(function, min_total: float = 0.25, min_repeats: int = 3, max_repeats: int = 200) -> list[float]:
    """Seconds taken by each of several calls, after one warm-up call."""
    function()
    times: list[float] = []
    total = 0.0
    while len(times) < min_repeats or (total < min_total and len(times) < max_repeats):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
        total += times[-1]
    return times


def best_time(function, min_total: float = 0.25, min_repeats: int = 3, max_repeats: int = 200) -> tuple[float, int]:
    """The shortest of several timed calls after one warm-up, and how many were timed."""
    times = timed_calls(function, min_total, min_repeats, max_repeats)
    return min(times), len(times)


def copy_bandwidth(total_bytes: int) -> float:
    """GB/s that np.copyto reaches on a large float32 array (bytes read + bytes written)."""
    source = np.ones(total_bytes // BYTES_PER_VALUE, dtype=np.float32)
    target = np.empty_like(source)
    seconds, _ = best_time(lambda: np.copyto(target, source), min_total=1.0, min_repeats=5)
    return 2 * source.nbytes / seconds / 1e9


# ---- the implementations ------------------------------------------------------------------------

def pure_python_layer_norm(rows: list[list[float]]) -> list[list[float]]:
    """LayerNorm with Python lists and loops: what the lesson's arithmetic looks like as code."""
    output = []
    for row in rows:
        n = len(row)
        mean = sum(row) / n
        variance = sum((value - mean) ** 2 for value in row) / n
        std = (variance + EPS) ** 0.5
        output.append([(value - mean) / std for value in row])
    return output


def numpy_one_pass(x: np.ndarray) -> np.ndarray:
    """One sweep for the statistics: E[x²] − E[x]² (fast to write, unsafe far from zero)."""
    mean = x.mean(axis=-1, keepdims=True)
    mean_of_squares = (x * x).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(mean_of_squares - mean * mean + np.float32(EPS))


def numpy_two_pass(x: np.ndarray) -> np.ndarray:
    return layer_norm(x, eps=EPS)


def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
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
            kind = (folder / "type").read_text().strip()
            if kind != "Instruction":
                caches[f"L{(folder / 'level').read_text().strip()}"] = (folder / "size").read_text().strip()
        except OSError:
            pass
    info = {
        "cpu": cpu,
        "caches": caches,
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        # Other programs running at the same time slow multi-threaded code most: keep the load here.
        "load_average_at_start": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
    }
    try:
        import torch

        info["torch"] = torch.__version__
        info["torch_threads"] = torch.get_num_threads()
    except ImportError:
        info["torch"] = None
    return info


def make_input(rows: int, features: int) -> np.ndarray:
    return np.random.default_rng(0).standard_normal((rows, features), dtype=np.float32)


def record(name: str, rows: int, features: int, times: list[float], copy_gb_per_s: float,
           difference: float | None) -> dict:
    """One timing as a JSON-ready dict: the best call counts, the median is kept to show the spread.

    ``difference`` (largest distance from the float64 truth) is None for the copy, which is no LayerNorm.
    """
    seconds, repeats = min(times), len(times)
    moved = 2 * rows * features * BYTES_PER_VALUE
    gb_per_s = moved / seconds / 1e9
    result = {
        "implementation": name,
        "rows": rows,
        "features": features,
        "bytes_moved": moved,
        "seconds": seconds,
        "median_seconds": float(np.median(times)),
        "gb_per_s": gb_per_s,
        "fraction_of_copy": gb_per_s / copy_gb_per_s,
        "repeats": repeats,
        "max_abs_difference": difference,
        "agrees": difference is None or difference <= AGREEMENT_TOLERANCE,
    }
    checked = "" if difference is None else f"   max diff {difference:.1e}"
    say(f"  {name:<22} {rows:>5} × {features:<5} {seconds * 1e3:>10.3f} ms {gb_per_s:>8.2f} GB/s "
        f"{100 * gb_per_s / copy_gb_per_s:>6.1f}% of copy{checked}")
    return result


def difference_from_truth(output, truth: np.ndarray) -> float:
    return float(np.max(np.abs(np.asarray(output, dtype=np.float64) - truth)))


def run_in_process(sizes, copy_gb_per_s: float, torch_seconds: float) -> tuple[list[dict], list[dict]]:
    results, skipped = [], []
    for rows, features in sizes:
        say(f"{rows} × {features} (float32, {2 * rows * features * BYTES_PER_VALUE / 1e6:.3g} MB moved per call)")
        x = make_input(rows, features)
        truth = layer_norm(x.astype(np.float64), eps=EPS)
        if x.size <= PURE_PYTHON_MAX_VALUES:
            lists = x.tolist()
            times = timed_calls(lambda: pure_python_layer_norm(lists), min_total=0.2)
            results.append(record("pure Python loops", rows, features, times, copy_gb_per_s,
                                  difference_from_truth(pure_python_layer_norm(lists), truth)))
        else:
            skipped.append({"implementation": "pure Python loops", "rows": rows, "features": features,
                            "reason": f"more than {PURE_PYTHON_MAX_VALUES} values"})
        for name, function in (("numpy copy (new array)", np.copy), ("numpy two-pass", numpy_two_pass),
                               ("numpy one-pass", numpy_one_pass)):
            times = timed_calls(lambda: function(x))
            results.append(record(name, rows, features, times, copy_gb_per_s,
                                  None if function is np.copy else difference_from_truth(function(x), truth)))
    try:
        import torch
    except ImportError:
        skipped.append({"implementation": "torch", "reason": "torch is not installed"})
        return results, skipped
    threads = torch.get_num_threads()
    for name, count in (("torch F.layer_norm", threads), ("torch, 1 thread", 1)):
        torch.set_num_threads(count)
        results.extend(time_torch(name, lambda t: torch.nn.functional.layer_norm(t, (t.shape[-1],), eps=EPS),
                                  sizes, copy_gb_per_s, torch_seconds))
    torch.set_num_threads(threads)
    return results, skipped


def time_torch(name: str, function, sizes, copy_gb_per_s: float, torch_seconds: float) -> list[dict]:
    """Time a torch function at every size in TORCH_ROUNDS passes, keeping every call's time.

    Spreading the calls over passes, minutes apart, keeps one burst of slow thread wake-ups from
    deciding a result.
    """
    import torch

    tensors = {size: torch.from_numpy(make_input(*size)) for size in sizes}
    times: dict[tuple, list[float]] = {size: [] for size in sizes}
    for round_number in range(1, TORCH_ROUNDS + 1):
        say(f"{name}: timing pass {round_number} of {TORCH_ROUNDS} over all sizes")
        for size in sizes:
            with torch.no_grad():
                times[size] += timed_calls(lambda: function(tensors[size]), torch_seconds / TORCH_ROUNDS,
                                           max_repeats=TORCH_MAX_REPEATS)
    results = []
    for size in sizes:
        with torch.no_grad():
            output = function(tensors[size]).numpy()
        truth = layer_norm(tensors[size].numpy().astype(np.float64), eps=EPS)
        results.append(record(name, *size, times[size], copy_gb_per_s, difference_from_truth(output, truth)))
    return results


def compile_worker(sizes, copy_gb_per_s: float, torch_seconds: float) -> None:
    """Runs in a child process: time torch.compile'd LayerNorm, print one JSON document to stdout."""
    import torch

    compiled = torch.compile(lambda t: torch.nn.functional.layer_norm(t, (t.shape[-1],), eps=EPS), dynamic=False)
    compile_seconds = []
    for rows, features in sizes:
        start = time.perf_counter()
        with torch.no_grad():
            compiled(torch.from_numpy(make_input(rows, features)))
        compile_seconds.append(time.perf_counter() - start)
        say(f"  torch.compile ready for {rows} × {features} after {compile_seconds[-1]:.1f} s")
    results = time_torch("torch.compile", compiled, sizes, copy_gb_per_s, torch_seconds)
    print(json.dumps({"results": results, "compile_seconds": compile_seconds}))


def run_torch_compile(sizes, copy_gb_per_s: float, torch_seconds: float) -> tuple[list[dict], dict]:
    """torch.compile in a child process with a time limit; never raises."""
    say(f"torch.compile (separate process, at most {COMPILE_TIMEOUT_SECONDS} s)")
    command = [sys.executable, __file__, "--compile-worker", json.dumps(sizes), str(copy_gb_per_s), str(torch_seconds)]
    start = time.perf_counter()
    try:
        finished = subprocess.run(command, stdout=subprocess.PIPE, text=True, timeout=COMPILE_TIMEOUT_SECONDS)
    except subprocess.TimeoutExpired:
        return [], {"works": False, "reason": f"did not finish within {COMPILE_TIMEOUT_SECONDS} s"}
    if finished.returncode != 0:
        return [], {"works": False, "reason": f"the compile process failed (exit code {finished.returncode}); "
                                              "its error is printed above"}
    report = json.loads(finished.stdout.strip().splitlines()[-1])
    return report["results"], {"works": True, "compile_seconds": report["compile_seconds"],
                               "total_seconds": time.perf_counter() - start}


def table(results: list[dict]) -> str:
    lines = [f"{'implementation':<22} {'size':>13} {'time':>12} {'GB/s':>8} {'of copy':>8}"]
    results = sorted(results, key=lambda r: (r["rows"] * r["features"], r["rows"]))
    for r in results:
        lines.append(f"{r['implementation']:<22} {r['rows']:>5} × {r['features']:<5} "
                     f"{r['seconds'] * 1e3:>9.3f} ms {r['gb_per_s']:>8.2f} {100 * r['fraction_of_copy']:>7.1f}%")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, no torch.compile (a smoke test)")
    parser.add_argument("--output", type=Path, default=OUTPUT, help=f"where to write the JSON (default {OUTPUT})")
    parser.add_argument("--no-compile", action="store_true", help="skip torch.compile")
    parser.add_argument("--compile-worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.compile_worker:
        compile_worker([tuple(size) for size in json.loads(args.compile_worker[0])], float(args.compile_worker[1]),
                       float(args.compile_worker[2]))
        return 0

    started = time.perf_counter()
    sizes = QUICK_SIZES if args.quick else SIZES
    info = machine_info()
    say(f"LayerNorm speed on {info['cpu']} ({info['cores']} cores), numpy {info['numpy']}, torch {info['torch']}")
    if (info["load_average_at_start"] or 0) > 0.5 * (info["cores"] or 1):
        say(f"warning: the load average is {info['load_average_at_start']:.1f} on {info['cores']} cores: other "
            "programs are running, so timings (multi-threaded ones most) will be slower and noisier")
    copy_gb_per_s = copy_bandwidth(QUICK_COPY_BYTES if args.quick else COPY_BYTES)
    say(f"copy bandwidth (np.copyto, read + write): {copy_gb_per_s:.2f} GB/s")
    torch_seconds = QUICK_TORCH_SECONDS if args.quick else TORCH_SECONDS
    results, skipped = run_in_process(sizes, copy_gb_per_s, torch_seconds)
    if args.quick or args.no_compile or info["torch"] is None:
        compile_status = {"works": None, "reason": "skipped (--quick, --no-compile or no torch)"}
    else:
        compiled_results, compile_status = run_torch_compile(sizes, copy_gb_per_s, torch_seconds)
        results.extend(compiled_results)
        if not compile_status["works"]:
            say(f"torch.compile: {compile_status['reason']}")
    document = {
        "description": "LayerNorm (float32, last axis, eps=1e-5) timed on this machine; best of several runs. "
                       "gb_per_s counts the input read once and the output written once.",
        "quick": args.quick,
        "machine": info,
        "copy_bandwidth_gb_per_s": copy_gb_per_s,
        "sizes": [list(size) for size in sizes],
        "results": results,
        "skipped": skipped,
        "torch_compile": compile_status,
        "load_average_at_end": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "total_seconds": time.perf_counter() - started,
    }
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(document, indent=1) + "\n")
    print(table(results))
    print(f"copy bandwidth {copy_gb_per_s:.2f} GB/s; {len(results)} timings in {document['total_seconds']:.0f} s; "
          f"written to {args.output}")
    disagreeing = [r for r in results if not r["agrees"]]
    if disagreeing:
        print(f"error: {len(disagreeing)} result(s) differ from the float64 truth by more than {AGREEMENT_TOLERANCE}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
