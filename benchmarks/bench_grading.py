"""Grading, measured: how long one submission takes and how much memory its grading process uses,
and how long a class of N takes with J grading processes at once.

    .venv/bin/python benchmarks/bench_grading.py                     # 120 students, 2 at once
    .venv/bin/python benchmarks/bench_grading.py --students 120 --jobs 2 --step layer_norm
    .venv/bin/python benchmarks/bench_grading.py --nbgrader /opt/layernorm-hub/venv/bin/python

Each submission is an answer cell judged alone in a fresh ``python -I`` process
(classroom/grading/judge.py), exactly as the hub's autograde does; the class is a mix of right
functions, every catalogued mistake of the step, two mistakes at once and tampering (each kind in
turn, so the figures do not depend on luck). One warm-up submission first, not counted. Prints, per
submission: wall time and the grading process's peak resident memory (median, p95, max); for the
class: the wall time from the first to the last grade, and what that means for a 16-core server
(the same work spread over 16 processes, at this machine's per-core speed). nbgrader's own work per
student (reading and writing the notebook, the gradebook) comes on top; the README gives it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from classroom.grading import grade, plan  # noqa: E402
from helpers.checking.mistakes import MISTAKES  # noqa: E402

ARGS = {"mean": "row", "variance": "row", "std": "row, eps", "normalise": "row, eps"}


MODULE = (
    "import torch\nfrom torch import nn\n{head}\nclass MyLayerNorm(nn.Module):\n"
    "    def __init__(self, n_features, eps=1e-5):\n        super().__init__()\n        self.eps = eps\n"
    "        self.gamma = nn.Parameter(torch.ones(n_features))\n        self.beta = nn.Parameter(torch.zeros(n_features))\n\n"
    "    def forward(self, x):\n        {forward}\n"
)
MODULE_RIGHT = (
    "mean = x.mean(-1, keepdim=True)\n        var = x.var(-1, keepdim=True, unbiased=False)\n"
    "        return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta"
)


def module_submissions(count: int) -> list[str]:
    """Notebook 08's class: right modules, the variance's and ε's mistakes, PyTorch's own, tampering."""
    good = MODULE.format(head="", forward=MODULE_RIGHT)
    kinds = [
        good,
        MODULE.format(head="", forward=MODULE_RIGHT.replace(", unbiased=False", "")),
        MODULE.format(head="", forward=MODULE_RIGHT.replace("var + self.eps", "var")),
        MODULE.format(head="", forward="return nn.functional.layer_norm(x, x.shape[-1:], self.gamma, self.beta)"),
        MODULE.format(head="torch.Tensor.var = lambda self, *a, **k: self * 0\n", forward=MODULE_RIGHT),
        "import helpers.exercises\nhelpers.exercises.check = lambda s, f: True\n" + good,
    ]
    return [kinds[i % len(kinds)] for i in range(count)]


def submissions(step: str, count: int) -> list[str]:
    """``count`` answer cells for ``step``: right, each catalogued mistake, tampering, in turn."""
    if step in plan.MODULE_STEPS:
        return module_submissions(count)
    name = plan.function_name(step)
    right = {
        "mean": "return sum(row) / len(row)",
        "variance": "return float(np.var(row))",
        "std": "return float(np.sqrt(np.var(row) + eps))",
        "normalise": "row = np.asarray(row)\n    return (row - row.mean()) / np.sqrt(row.var() + eps)",
        "scale_shift": "return gamma * x_hat + beta",
        "layer_norm": "return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps)",
    }[step]
    args = ARGS.get(step, "x_hat, gamma, beta" if step == "scale_shift" else "x, eps")
    good = f"import numpy as np\ndef {name}({args}):\n    {right}\n"
    keys = {key for key, _ in plan.mistakes_for(step)}
    quantity = {"mean": "mean", "variance": "variance", "std": "std"}.get(step, "normalised")
    wrong = []
    for m in MISTAKES:
        if m.key in keys and not m.signature and quantity in m.quantities and step in ARGS:
            call = f"_m.value({quantity!r}, np.asarray(row, dtype=float){', eps' if 'eps' in args else ''})"
            body = f"float(np.asarray({call}).reshape(()))" if step != "normalise" else call
            pick = f"[m for m in MISTAKES if m.key == {m.key!r} and m.name == {m.name!r}][0]"
            wrong.append(
                f"import numpy as np\nfrom helpers.checking.mistakes import MISTAKES\n_m = {pick}\n"
                f"def {name}({args}):\n    return {body}\n"
            )
    tampering = [
        "import helpers.exercises\nhelpers.exercises.check = lambda s, f: True\n" + good,
        "import numpy as np\nnp.allclose = lambda *a, **k: True\n" + good,
        "open('grades.csv', 'w').write('100')\n" + good,
    ]
    kinds = [good, *wrong, *tampering] if wrong else [good, *tampering]
    return [kinds[i % len(kinds)] for i in range(count)]


def pct(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q * (len(ordered) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--students", type=int, default=120)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--step", default="std", choices=list(plan.STEPS))
    parser.add_argument(
        "--nbgrader", metavar="PYTHON", help="also time nbgrader's autograde of the class with this Python"
    )
    options = parser.parse_args()
    cells = submissions(options.step, options.students)
    grade.grade_code(options.step, cells[0])  # warm-up: the OS's file cache, not counted
    load = os.getloadavg()[0]
    started = time.perf_counter()
    with ThreadPoolExecutor(options.jobs) as pool:
        grades = list(pool.map(lambda code: grade.grade_code(options.step, code), cells))
    wall = time.perf_counter() - started
    seconds = [g.seconds for g in grades]
    memory = [g.peak_kib / 1024 for g in grades]
    failures = [g for g in grades if g.problem]
    print(
        f"Grading {options.students} submissions of {options.step!r} ({plan.notebook_of(options.step)}), "
        f"{options.jobs} at once, on {os.cpu_count()} cores (load {load:.2f} before)."
    )
    print(
        f"  per submission, wall time: median {statistics.median(seconds):.2f} s, p95 {pct(seconds, 0.95):.2f} s, "
        f"max {max(seconds):.2f} s"
    )
    print(
        f"  per submission, peak memory of its grading process: median {statistics.median(memory):.0f} MiB, "
        f"p95 {pct(memory, 0.95):.0f} MiB, max {max(memory):.0f} MiB"
    )
    print(
        f"  the class of {options.students}: {wall:.1f} s from the first grade to the last "
        f"({options.students / wall:.1f} submissions/s)"
    )
    print(
        f"  on a 16-core server, 16 at once: about {sum(seconds) / 16:.0f} s for the class "
        f"({sum(seconds):.0f} process-seconds here, spread over 16 cores of this speed)"
    )
    print(f"  submissions that could not be judged: {len(failures)} (expected 0)")
    if options.nbgrader:
        whole_class(options.nbgrader, options.step, cells)


def whole_class(python: str, step: str, cells: list[str]) -> None:
    """nbgrader's autograde and generate_feedback of the whole class, with GradeCells, as one user."""
    import json
    import tempfile

    from classroom.grading import assignment, cycle

    name = assignment.name_of(step)
    with tempfile.TemporaryDirectory(prefix="bench-grading-") as state:
        course = cycle.Course(Path(state), python, judge_python=python)
        course.set_up([step])
        released = json.loads(course.generate(step).read_text())
        for i, code in enumerate(cells):
            nb = json.loads(json.dumps(released))
            for cell in nb["cells"]:
                if cell["metadata"].get("nbgrader", {}).get("grade_id") == plan.answer_id(step):
                    cell["source"] = code
            folder = course.folder / "submitted" / f"s{i:03d}" / name
            folder.mkdir(parents=True)
            (folder / f"{name}.ipynb").write_text(json.dumps(nb))
            (folder / "timestamp.txt").write_text("2026-12-02 10:00:00.000000 UTC")
        begun = time.perf_counter()
        course.autograde(step)
        autograde = time.perf_counter() - begun
        begun = time.perf_counter()
        course.nbgrader("generate_feedback", name, "--force")
        feedback = time.perf_counter() - begun
    print(
        f"  with nbgrader ({python}), one process at a time as nbgrader runs them: autograde of the class "
        f"{autograde:.0f} s ({autograde / len(cells):.2f} s per submission), generate_feedback {feedback:.0f} s "
        f"({feedback / len(cells):.2f} s per submission)"
    )


if __name__ == "__main__":
    main()
