"""What a speed run times: every implementation at every size and regime, the matrix products that
give the peak flop/s, and the lesson's 5 × 3 matrix. Each case is a dict with its ``call(i)``."""

from __future__ import annotations

import numpy as np

from helpers.core.formula import layer_norm_forward
from helpers.lessons.speed import checks as speed_checks
from helpers.lessons.speed import kernels

EPS = kernels.EPS
LESSON_SIZE = (5, 3)


def cases_for(torch, regime: str, rows: int, features: int, data: dict, threads: int) -> list[dict]:
    """Every implementation at one size in one regime: name, threads, direction, ceiling and the call.

    ``allocates``: the call returns a new output (the sampler then keeps a ring of them alive)."""
    sets, small = data["sets"][regime, rows], data["small"][regime, rows]
    gamma, beta, tg, tb = data["gamma"], data["beta"], data["tgamma"], data["tbeta"]
    numpy_copy = "copy, numpy (1 thread)"
    cases = [
        (numpy_copy, 1, "copy", numpy_copy, False, lambda i: np.copyto(sets[i]["y"], sets[i]["x"])),
        ("numpy two-pass, out=", 1, "forward", numpy_copy, False,
         lambda i: kernels.numpy_out(sets[i]["x"], sets[i]["y"], gamma, beta)),
        ("numpy two-pass, new arrays", 1, "forward", numpy_copy, True,
         lambda i: kernels.numpy_formula(sets[i]["x"], gamma, beta)),
        ("native_layer_norm.out (1 thread)", 1, "forward", "copy, torch (1 thread)", False,
         lambda i: kernels.torch_forward_out(torch, sets[i]["tx"], tg, tb, sets[i]["ty"], small["mean"], small["rstd"])),
    ]  # fmt: skip
    for n in sorted({threads, 1}):
        label = speed_checks.thread_label(n)
        copy = f"copy, torch ({label})"
        cases += [
            (copy, n, "copy", copy, False, lambda i: sets[i]["ty"].copy_(sets[i]["tx"])),
            (f"torch LayerNorm ({label})", n, "forward", copy, True,
             lambda i: kernels.torch_forward(torch, sets[i]["tx"], tg, tb)),
            (f"torch backward ({label})", n, "backward", copy, True,
             lambda i: kernels.torch_backward(torch, sets[i]["tdy"], sets[i]["tx"], sets[i]["mean"], sets[i]["rstd"],
                                              tg, tb)),
            (f"sum only, torch ({label})", n, "sum", copy, False,
             lambda i: torch.sum(sets[i]["tx"], dim=-1, out=small["row"])),
            (f"multiply-add, torch ({label})", n, "multiply-add", copy, False,
             lambda i: torch.addcmul(tb, sets[i]["tx"], tg, out=sets[i]["ty"])),
            (f"F.rms_norm ({label})", n, "forward", copy, True, lambda i: kernels.torch_rms_norm(torch, sets[i]["tx"], tg)),
        ]  # fmt: skip
    found = []
    for name, n, direction, ceiling, allocates, call in cases:
        per_call = kernels.count(name)
        values = rows * features
        found.append(
            {
                "implementation": name,
                "regime": regime,
                "rows": rows,
                "features": features,
                "threads": n,
                "direction": direction,
                "ceiling": ceiling,
                "buffers": len(sets),
                "allocates": allocates,
                "read_bytes": per_call.read * values,
                "written_bytes": per_call.written * values,
                "call": call,
            }
        )
    return found


def matrix_cases(torch, thread_counts, n: int) -> list[dict]:
    """float32 matrix product n × n × n (2n³ flops): the most arithmetic this CPU does per second here."""
    a, b, c = torch.randn(n, n), torch.randn(n, n), torch.empty(n, n)
    return [
        {"implementation": "matrix product", "threads": t, "matrix": n, "buffers": 1, "allocates": False,
         "call": lambda i: torch.mm(a, b, out=c)}
        for t in thread_counts
    ]  # fmt: skip


def pure_python(rows):
    out = []
    for row in rows:
        mean = sum(row) / len(row)
        var = sum((v - mean) ** 2 for v in row) / len(row)
        out.append([(v - mean) / (var + EPS) ** 0.5 for v in row])
    return out


def lesson_cases(torch) -> list[dict]:
    """The lesson's 5 × 3 matrix, one thread (even 5 rows are split across threads, and waking them is
    what this would time): all overhead, which pure Python loops show best."""
    rows, features = LESSON_SIZE
    x = np.random.default_rng(0).standard_normal(LESSON_SIZE).astype(np.float32)
    lists, tx = x.tolist(), torch.from_numpy(x)
    calls = [
        ("pure Python loops", lambda i: pure_python(lists)),
        ("numpy (helpers.core.formula)", lambda i: layer_norm_forward(x, EPS)),
        ("torch F.layer_norm (1 thread)", lambda i: torch.nn.functional.layer_norm(tx, (features,), eps=EPS)),
    ]
    return [
        {"implementation": name, "rows": rows, "features": features, "threads": 1, "buffers": 1, "allocates": True,
         "lesson": True, "call": call}
        for name, call in calls
    ]  # fmt: skip
