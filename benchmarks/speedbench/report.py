"""What a speed run writes: each case's timings, faults and outputs, checked against the formula."""

from __future__ import annotations

import numpy as np

from benchmarks.speedbench import sampling
from helpers.core.formula import layer_norm_forward
from helpers.lessons.speed import kernels
from helpers.lessons.speed import timing as speed

EPS = kernels.EPS


def agreement(torch, features: int, data: dict) -> dict:
    """Each normalisation's largest difference from the float64 formula, on a fresh 64-row input."""
    rng = np.random.default_rng(1)
    x = rng.standard_normal((64, features), dtype=np.float32)
    gamma, beta = data["gamma"], data["beta"]
    x64 = x.astype(np.float64)
    truth = layer_norm_forward(x64, EPS)[0] * gamma + beta
    rms_truth = x64 / np.sqrt((x64**2).mean(axis=-1, keepdims=True) + EPS) * gamma
    tx, tg, tb = torch.from_numpy(x), torch.from_numpy(gamma), torch.from_numpy(beta)
    y = kernels.torch_forward_out(torch, tx, tg, tb, torch.empty_like(tx), torch.empty(64, 1), torch.empty(64, 1))
    outputs = {
        "numpy two-pass, out=": (kernels.numpy_out(x, np.empty_like(x), gamma, beta), truth),
        "numpy two-pass, new arrays": (kernels.numpy_formula(x, gamma, beta), truth),
        "native_layer_norm.out": (y.numpy(), truth),
        "torch LayerNorm": (kernels.torch_forward(torch, tx, tg, tb).numpy(), truth),
        "F.rms_norm": (kernels.torch_rms_norm(torch, tx, tg).numpy(), rms_truth),
    }
    return {name: float(np.max(np.abs(output - expected))) for name, (output, expected) in outputs.items()}


def operators(torch, features: int) -> dict:
    """The aten operators F.layer_norm, F.rms_norm and native_layer_norm.out run on the CPU (torch.profiler)."""
    from torch.profiler import ProfilerActivity, profile

    x, g, b = torch.randn(8, features), torch.ones(features), torch.zeros(features)
    found = {}
    for name, call in (
        ("F.layer_norm", lambda: kernels.torch_forward(torch, x, g, b)),
        ("native_layer_norm.out",
         lambda: kernels.torch_forward_out(torch, x, g, b, torch.empty_like(x), torch.empty(8, 1), torch.empty(8, 1))),
        ("F.rms_norm", lambda: kernels.torch_rms_norm(torch, x, g)),
    ):  # fmt: skip
        call()
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            call()
        calls = [e.name for e in prof.events() if e.name.startswith("aten::")]
        found[name] = [[op, calls.count(op)] for op in dict.fromkeys(calls)]  # in order of first call, with counts
    return found


def result(case: dict, differences: dict) -> dict:
    """One timed case as the JSON keeps it."""
    t = sampling.timing(case)
    moved = speed.bytes_moved(case["rows"], case["features"], case["direction"])
    keys = ("implementation", "regime", "rows", "features", "threads", "direction", "ceiling", "buffers", "allocates")
    record = {key: case[key] for key in keys}
    record.update(sampling.faults_record(case))
    record.update(
        bytes_moved=moved,
        working_set_bytes=case["buffers"] * case["read_bytes"] + record["output_buffers"] * case["written_bytes"],
        time=t,
        repeat_medians=case["repeat_medians"],
        gb_per_s=speed.gb_per_s(moved, t["median"]),
        others_cores=case["others"],
        steal_cores=case["steal"],
        max_abs_difference=differences.get(kernels.base_name(case["implementation"])),
    )
    return record


def lesson_result(case: dict) -> dict:
    record = {key: case[key] for key in ("implementation", "rows", "features")}
    record.update(time=sampling.timing(case), repeat_medians=case["repeat_medians"], **sampling.faults_record(case))
    return record


def peak(case: dict) -> dict:
    return {
        "threads": case["threads"],
        "matrix": case["matrix"],
        "time": sampling.timing(case),
        "repeat_medians": case["repeat_medians"],
        "flops_per_s": 2 * case["matrix"] ** 3 / float(np.median(case["repeat_medians"])),
    }


def counts_table() -> dict:
    """kernels.COUNTS as JSON: flops, bytes read and written per value, and where each count comes from."""
    return {
        name: {"flops": c.flops, "read": c.read, "written": c.written, "how": c.how}
        for name, c in kernels.COUNTS.items()
    }
