"""Speed arithmetic for notebook 12: spreads of timings, bytes moved, the roofline, which file to read.

Pure Python and numpy: nothing here times, displays or imports torch. ``benchmarks/bench_speed.py``
measures; this module turns measurements into the figures notebook 12 shows, and
``helpers.lessons.speed.checks`` says what a run can and cannot tell (and whether it contradicts itself).

Counting (per value of a rows × features float32 matrix, γ and β present, as in a model): the
flops and bytes of every timed implementation come from one table next to its code,
``helpers.lessons.speed.kernels.COUNTS``; the roofline below reads it. In bytes, the least any
implementation must move:

- forward: read x, write y: 2 × 4 bytes;
- backward, counted as the Triton layer-norm tutorial counts it: read x and dy, write dx: 3 × 4 bytes
  (mean and rstd, one number per row, and γ are negligible);
- a copy and a multiply-add (``torch.addcmul``) read x and write y: 8 bytes; a row sum reads x: 4.

Introduced in notebook 12.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from helpers.lessons.speed import kernels

BYTES_PER_VALUE = 4  # float32
FORWARD_BYTES_PER_VALUE = 2 * BYTES_PER_VALUE
BACKWARD_BYTES_PER_VALUE = 3 * BYTES_PER_VALUE

IN_CACHE_FRACTION = 4  # "in cache" means a working set of at most ¼ of the last-level cache

COMMITTED_RESULTS = "speed_results.json"
LOCAL_RESULTS = "speed_results.local.json"  # written by `python3 run.py bench`, ignored by git
CHOICE_VARIABLE = "LAYERNORM_SPEED_RESULTS"  # set to "committed" to ignore a local run


def spread(times) -> dict:
    """Median, quartiles, minimum and maximum of a list of timings (seconds), and how many."""
    values = np.asarray(list(times), dtype=np.float64)
    if values.size == 0 or not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError("spread needs at least one positive, finite timing.")
    q1, median, q3 = np.percentile(values, [25, 50, 75])
    return {
        "median": float(median),
        "q1": float(q1),
        "q3": float(q3),
        "min": float(values.min()),
        "max": float(values.max()),
        "n": int(values.size),
    }


def bytes_moved(rows: int, features: int, direction: str = "forward") -> int:
    """Bytes a LayerNorm of rows × features float32 values must move at least (see module docstring)."""
    per_value = {
        "forward": FORWARD_BYTES_PER_VALUE,
        "backward": BACKWARD_BYTES_PER_VALUE,
        "copy": FORWARD_BYTES_PER_VALUE,
        "multiply-add": FORWARD_BYTES_PER_VALUE,  # read x, write y
        "sum": BYTES_PER_VALUE,  # read x; one number per row out
    }
    if direction not in per_value:
        raise ValueError(f"direction must be one of {', '.join(per_value)}; got {direction!r}.")
    return per_value[direction] * rows * features


def intensity(implementation: str) -> float:
    """Flops per byte moved by the code an implementation runs (``kernels.COUNTS``)."""
    return kernels.count(implementation).intensity


def ridge_point(peak_flops_per_s: float, bandwidth_bytes_per_s: float) -> float:
    """Flops per byte above which a kernel is compute-bound on this machine: peak ÷ bandwidth."""
    if not (peak_flops_per_s > 0 and bandwidth_bytes_per_s > 0):
        raise ValueError("The peak and the bandwidth must both be positive.")
    return peak_flops_per_s / bandwidth_bytes_per_s


def roofline(intensity, peak_flops_per_s: float, bandwidth_bytes_per_s: float):
    """The roofline's ceiling in flop/s at the given intensity: min(peak, intensity × bandwidth)."""
    return np.minimum(peak_flops_per_s, np.asarray(intensity, dtype=np.float64) * bandwidth_bytes_per_s)


def gb_per_s(bytes_count: int, seconds: float) -> float:
    """Bytes moved per second, in units of 10⁹."""
    return bytes_count / seconds / 1e9


def results_path(data_dir, environ) -> Path:
    """The speed results notebook 12 reads: a fresh local run when there is one, else the committed one.

    The committed file is used whenever the local one is missing, when ``environ`` asks for it
    (``LAYERNORM_SPEED_RESULTS=committed``), or under pytest (``PYTEST_CURRENT_TEST``, which the
    kernel nbval starts inherits), so the stored outputs nbval compares always come from the
    committed file.
    """
    data_dir = Path(data_dir)
    local = data_dir / LOCAL_RESULTS
    forced = environ.get(CHOICE_VARIABLE, "").strip().lower() == "committed"
    if local.is_file() and not forced and "PYTEST_CURRENT_TEST" not in environ:
        return local
    return data_dir / COMMITTED_RESULTS


def find(results, **match) -> dict:
    """The one result whose fields equal every ``match`` value (a plain-words KeyError otherwise)."""
    found = [r for r in results if all(r.get(key) == value for key, value in match.items())]
    if len(found) != 1:
        raise KeyError(f"Expected one result with {match}; found {len(found)}.")
    return found[0]


def cache_bytes(text: str) -> int:
    """A sysfs cache size such as ``"32768K"`` or ``"1M"`` in bytes."""
    text = str(text).strip().upper()
    units = {"K": 2**10, "M": 2**20, "G": 2**30}
    if text and text[-1] in units:
        return int(float(text[:-1]) * units[text[-1]])
    if text.isdigit():
        return int(text)
    raise ValueError(f"Not a cache size: {text!r}.")


def buffers_to_rotate(bytes_per_call: int, last_level_cache: int, factor: int = 4) -> int:
    """How many separate input/output sets to rotate over so the total is ≥ factor × the last-level cache."""
    if bytes_per_call <= 0 or last_level_cache <= 0:
        raise ValueError("Sizes must be positive.")
    return max(2, math.ceil(factor * last_level_cache / bytes_per_call))


def fraction_of_ceiling(results, result: dict) -> float:
    """A result's median rate as a share of its copy ceiling (same regime, size, threads and library)."""
    ceiling = find(
        results,
        implementation=result["ceiling"],
        regime=result["regime"],
        rows=result["rows"],
        features=result["features"],
    )
    return result["gb_per_s"] / ceiling["gb_per_s"]


def in_cache_limit(last_level_cache: int) -> int:
    """The largest working set the benchmark calls "in cache": a quarter of the last-level cache.

    The last-level cache is shared (with the other core, and on a virtual machine with other guests),
    so a working set near its size is partly evicted; a quarter leaves room for everyone else."""
    if last_level_cache <= 0:
        raise ValueError("The cache size must be positive.")
    return last_level_cache // IN_CACHE_FRACTION


def roof(document: dict, threads: int) -> dict:
    """The roofline of ``threads`` threads: the peak flop/s of the matrix product run with that many
    threads, and the bandwidth of the fastest copy from memory made with that many threads."""
    peaks = [p for p in document["peak_flops"] if p["threads"] == threads]
    if len(peaks) != 1:
        raise ValueError(f"Expected one matrix product with {threads} thread(s); found {len(peaks)}.")
    copies = [
        r
        for r in document["results"]
        if r["regime"] == "from memory" and r["implementation"].startswith("copy") and r["threads"] == threads
    ]
    if not copies:
        raise ValueError(f"The results hold no copy from memory with {threads} thread(s): no bandwidth for its roof.")
    fastest = max(copies, key=lambda r: r["gb_per_s"])
    peak, bandwidth = peaks[0]["flops_per_s"], fastest["gb_per_s"] * 1e9
    return {
        "threads": threads,
        "peak_flops_per_s": peak,
        "peak_threads": peaks[0]["threads"],
        "bandwidth_bytes_per_s": bandwidth,
        "bandwidth_from": {key: fastest[key] for key in ("implementation", "rows", "features", "threads")},
        "ridge_flops_per_byte": ridge_point(peak, bandwidth),
        "forward_intensity": intensity("torch LayerNorm"),
        "backward_intensity": intensity("torch backward"),
    }


def roofs(document: dict) -> list[dict]:
    """One roof per thread count measured, fewest threads first."""
    return [roof(document, n) for n in sorted({p["threads"] for p in document["peak_flops"]})]


def share_of_roof(document: dict, result: dict) -> float:
    """A LayerNorm result's flop/s as a share of the memory roof of its own thread count."""
    own = roof(document, result["threads"])
    ceiling = roofline(intensity(result["implementation"]), own["peak_flops_per_s"], own["bandwidth_bytes_per_s"])
    return float(achieved_flops(result) / ceiling)


def achieved_flops(result: dict) -> float:
    """The flop/s a result reached: its code's intensity (``kernels.COUNTS``) times its median rate."""
    return intensity(result["implementation"]) * result["gb_per_s"] * 1e9


def residual_layer_norm_bytes(fused: bool) -> int:
    """Bytes per value for ``h = a + b; y = LayerNorm(h)`` in float32, γ and β aside.

    Unfused, two kernels: the add reads a and b and writes h; LayerNorm reads h again and writes y
    (5 × 4 bytes). Fused, one kernel: read a and b, write h (the next residual needs it) and y (4 × 4).
    """
    return (4 if fused else 5) * BYTES_PER_VALUE


def bytes_question(rows: int = 1024, features: int = 1024) -> dict:
    """Notebook 12's check-yourself question on the bytes a float32 backward pass moves, as the keyword
    arguments of ``widgets.number_question``: its answer and the usual miscounts stay out of the cell."""
    one_array = rows * features * 4 / 1e6  # MB in one rows × features float32 array
    return {
        "question": f"Backward pass, {rows} × {features} float32: how many MB (millions of bytes) must at least move?",
        "answer": bytes_moved(rows, features, "backward") / 1e6,
        "tolerance": 0.01,
        "hint": "Count the arrays the backward pass must read and write, at 4 bytes per float32 number.",
        "mistakes": {  # the usual miscounts, so a wrong answer is told which one
            one_array: "That is one array: the backward pass reads x and dy and writes dx.",
            2 * one_array: "That is two arrays: it reads x and dy and writes dx, three in all.",
            4
            * one_array: "That is four arrays: x̂ need not be read; a kernel recomputes it from x and the saved mean and 1/σ.",
            3 * rows * features * 4 / 2**20: "That is in MiB (2²⁰ bytes); the question asks for MB, 10⁶ bytes.",
            6 * one_array: "That counts 8 bytes per number (float64); float32 has 4.",
        },
    }
