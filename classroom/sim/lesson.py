"""What a simulated student does in class, and what the class run measures.

Each student: logs in (first login: sets a password), gets a token, starts a server, clicks the
nbgitpuller link, opens notebook 02 from their own copy, runs its set-up cell, writes the "Your
turn" function wrongly (forgets to divide by n) and runs the check, then writes it right and runs
the check again, and logs out. Some students also open the torch notebook 08 and run all its
cells. Memory and CPU are read from the student's own processes at each stage.
"""

from __future__ import annotations

import asyncio
import pwd
import statistics
import time
from dataclasses import asdict, dataclass, field

from classroom.sim.client import Student, StudentError
from classroom.sim.processes import Usage, usage

WRONG_MEAN = "def mean(row):\n    return row.sum()  # forgot to divide by the number of values\n"
RIGHT_MEAN = "def mean(row):\n    return row.sum() / len(row)\n"


@dataclass
class Result:
    name: str
    ok: bool = False
    error: str = ""
    login_seconds: float = 0.0
    spawn_seconds: float = 0.0
    pull_seconds: float = 0.0
    check_seconds: float = 0.0
    wrong_verdict: str = ""
    right_verdict: str = ""
    started: Usage | None = None  # the server alone, just after it started
    numpy: Usage | None = None
    check_cpu_seconds: float = 0.0  # the kernel's CPU for the two checks alone
    torch: Usage | None = None
    torch_errors: list = field(default_factory=list)
    reconnects: list = field(default_factory=list)  # kernel websockets reopened, refused links clicked again
    kernels: list = field(default_factory=list)  # the ids of the kernels it started


def code_cells(notebook: dict) -> list[str]:
    return ["".join(cell["source"]) for cell in notebook["cells"] if cell["cell_type"] == "code"]


def exercise_cells(notebook: dict) -> tuple[str, str]:
    """Notebook 02's set-up cell and its check cell, found by what they hold, not by position."""
    cells = code_cells(notebook)
    setup = next(source for source in cells if "import helpers" in source and "SetupProblem" in source)
    check = next(source for source in cells if 'helpers.exercises.check("mean"' in source)
    return setup, check


async def attend(
    hub_url: str, name: str, password: str, repo: str, torch: bool = False, patience: float = 1.0
) -> Result:
    result = Result(name)
    student = Student(hub_url, name, password, patience)
    uid = pwd.getpwnam(name).pw_uid
    try:
        start = time.monotonic()
        await student.sign_in()
        result.login_seconds = time.monotonic() - start
        result.spawn_seconds = await student.spawn()
        result.started = usage(uid)
        start = time.monotonic()
        await student.pull(repo)
        result.pull_seconds = time.monotonic() - start
        start = time.monotonic()
        notebook = await student.notebook("02_mean.ipynb")
        setup, check = exercise_cells(notebook)
        kernel = await student.open_kernel("02_mean.ipynb")
        for code in (setup, WRONG_MEAN):
            await _cell(kernel, code)
        before = usage(uid).cpu_seconds
        result.wrong_verdict = (await _cell(kernel, check))["text"]
        await _cell(kernel, RIGHT_MEAN)
        result.right_verdict = (await _cell(kernel, check))["text"]
        result.check_cpu_seconds = usage(uid).cpu_seconds - before
        result.check_seconds = time.monotonic() - start
        result.numpy = usage(uid)
        if torch:
            await kernel.close()
            result.reconnects += kernel.reconnects
            kernel = await student.open_kernel("08_pytorch.ipynb")
            for code in code_cells(await student.notebook("08_pytorch.ipynb")):
                answer = await kernel.run(code)
                if answer["error"]:
                    result.torch_errors.append(answer["text"][-300:])
            result.torch = usage(uid)
        await kernel.close()
        result.reconnects += kernel.reconnects
        result.ok = result.wrong_verdict.startswith("✗") and result.right_verdict.startswith("✓")
        if not result.ok:
            result.error = (
                f"verdicts: wrong function {result.wrong_verdict[:80]!r}, right {result.right_verdict[:80]!r}"
            )
    except (StudentError, OSError, asyncio.TimeoutError) as error:
        result.error = str(error) or type(error).__name__
    finally:
        result.kernels = list(student.kernel_ids)
        result.reconnects += student.retried
        try:
            await student.stop_server()
            await student.logout()
        except (StudentError, OSError):
            pass
    return result


async def _cell(kernel, code: str) -> dict:
    answer = await kernel.run(code)
    if answer["error"]:
        raise StudentError(f"{kernel.student.name}: a cell failed: {answer['text'][-300:]}")
    return answer


async def run_class(
    hub_url: str, names: list[str], password: str, repo: str, torch_names=(), patience: float = 1.0
) -> list[Result]:
    """Every student at once, as at the start of a class; ``patience`` multiplies every step's time-out."""
    return list(await asyncio.gather(*(attend(hub_url, n, password, repo, n in torch_names, patience) for n in names)))


def log_excerpt(log: str, result: Result, lines: int = 40) -> str:
    """The hub log's lines about one student: its name or one of its kernels (the servers log there too)."""
    keys = [result.name, *result.kernels, "KernelRestarter", "Kernel died"]
    found = [line for line in log.splitlines() if any(key in line for key in keys)]
    return "\n".join(found[-lines:]) or f"(the hub's log says nothing of {result.name})"


def spread(values: list[float]) -> dict:
    values = sorted(values)
    if not values:
        return {}
    # nearest rank: the smallest value that at least 95 % of the values do not exceed (⌈0.95 n⌉-th, in
    # integers: round() sent 28.5 to 28, the 93rd percentile of 30 students)
    p95 = values[(95 * len(values) + 99) // 100 - 1]
    return {"median": round(statistics.median(values), 3), "p95": round(p95, 3), "max": round(values[-1], 3)}


def summary(results: list[Result], wall_seconds: float) -> dict:
    done = [r for r in results if r.ok]
    memory = {}
    for stage in ("numpy", "torch"):
        taken = [getattr(r, stage) for r in done if getattr(r, stage) is not None]
        if taken:
            memory[stage] = {
                "students": len(taken),
                "rss": spread([u.rss_mib for u in taken]),
                "pss": spread([u.pss_mib for u in taken]),
            }
    return {
        "students": len(results),
        "failures": len(results) - len(done),
        "errors": sorted({r.error for r in results if r.error})[:10],
        "wall_seconds": round(wall_seconds, 1),
        "websocket_reconnects": sum(len(r.reconnects) for r in results),
        "reconnect_reasons": sorted({why for r in results for why in r.reconnects})[:5],
        "login_seconds": spread([r.login_seconds for r in done]),
        "spawn_seconds": spread([r.spawn_seconds for r in done]),
        "pull_seconds": spread([r.pull_seconds for r in done]),
        "check_seconds": spread([r.check_seconds for r in done]),
        "memory_mib": memory,
        "cpu_seconds_per_student": spread([r.numpy.cpu_seconds for r in done if r.numpy]),
        "cpu_seconds_server_start": spread([r.started.cpu_seconds for r in done if r.started]),
        "cpu_seconds_per_check": spread([r.check_cpu_seconds / 2 for r in done]),
    }


def as_dict(result: Result) -> dict:
    return asdict(result)
