"""Judge one answer cell in a fresh process: ``python -I runner.py``, its own limits, nothing shared.

The process starts in an empty temporary folder, with ``-I`` (no PYTHONPATH, no user site, not the
current folder on the path), a minimal environment (no hub token: its verdict goes to nobody's class
page), a memory ceiling (RLIMIT_AS, set by the runner relative to its own imports), a CPU-time ceiling,
no file it may grow (RLIMIT_FSIZE 0) and a wall-clock timeout. It receives the cell's source on stdin, never the notebook, never the student's
kernel. Run as root (the hub's autograde), it can run as an unprivileged account as well (``user``).
"""

from __future__ import annotations

import json
import os
import resource
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from classroom.grading import runner

ROOT = Path(__file__).resolve().parents[2]  # the checkout, holding helpers/ and lecturer/
SOLUTIONS = ROOT / "lecturer"
TIMEOUT = 60.0  # seconds of wall clock for the whole process (the checker's own per-call limits are shorter)
CELL_LIMIT = 5.0  # seconds for the answer cell's own top-level code
# Bytes of address space the student's code may add to what the grading process has mapped once its own
# imports are done (numpy, the checker, and torch for the module step). Relative, not absolute: the same
# torch release maps 0.6 GB as the CPU build and 3.2 GB as the CUDA build, and the grader's own imports
# must never be what runs out (the runner lowers the ceiling itself, just before the student's code).
MEMORY = 2 << 30
THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


@dataclass
class Verdict:
    """What the grading process reported. ``passed``/``mistake``/``diagnosis``/``text``: the checker's
    verdict (``judged`` False: there was none); ``ignored``: sentences on what the grader refused or
    undid; ``seconds`` and ``peak_kib`` (the process's maximum resident size) for the benchmark."""

    judged: bool
    passed: bool = False
    mistake: str | None = None
    diagnosis: str = ""
    text: str = ""
    ignored: list[str] = field(default_factory=list)
    problem: str = ""  # why there was no verdict, in one sentence
    seconds: float = 0.0
    peak_kib: int = 0


def _limits(cpu: float):
    def apply():
        os.setsid()
        resource.setrlimit(resource.RLIMIT_CPU, (int(cpu), int(cpu) + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write fails with EFBIG instead of killing

    return apply


def _environment(home: str) -> dict:
    env = {"PATH": "/usr/bin:/bin", "HOME": home, "LANG": "C.UTF-8", "PYTHONIOENCODING": "utf-8"}
    env.update({name: "1" for name in THREAD_ENV})
    env["MPLBACKEND"] = "Agg"
    return env


def _as_user(user: str | None) -> dict:
    """Popen's arguments to run as ``user`` (root only: the hub's autograde); none for None."""
    if user is None:
        return {}
    import pwd

    entry = pwd.getpwnam(user)
    return {"user": entry.pw_uid, "group": entry.pw_gid, "extra_groups": []}


def judge(
    step: str,
    name: str,
    code: str,
    *,
    timeout: float = TIMEOUT,
    memory: int = MEMORY,
    user: str | None = None,
    python: str | None = None,
    forbidden: tuple = (),
) -> Verdict:
    """The checker's verdict on the function ``name`` defined by ``code`` alone, for ``step``. ``user``
    (as root): the unprivileged account to judge as; ``python``: the interpreter (default this one's,
    with its environment: not resolved past a venv's link); ``forbidden``: folders it must not read,
    besides lecturer/ (the course folder, with the sources and the gradebook)."""
    seal = secrets.token_hex(16)
    job = {
        "root": str(ROOT),
        "step": step,
        "name": name,
        "code": code,
        "forbidden": [str(SOLUTIONS), *map(str, forbidden)],
        "cell_limit": min(CELL_LIMIT, timeout / 2),
        "memory": memory,
        "seal": seal,
    }
    python = python or sys.executable
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="grading-") as folder:
        os.chmod(folder, 0o711)
        try:
            process = subprocess.Popen(
                [python, "-I", "-X", "utf8", runner.__file__],
                cwd=folder,
                env=_environment(folder),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE if os.environ.get("GRADING_DEBUG") else subprocess.DEVNULL,
                preexec_fn=_limits(timeout),
                **_as_user(user),
            )
        except OSError as error:
            return Verdict(False, problem=f"The grader could not start Python ({error}).")
        try:
            out, err = process.communicate(json.dumps(job).encode(), timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            timed_out = True
    if err:  # GRADING_DEBUG=1 only: what the process wrote to its error stream (a crash's traceback), passed on
        sys.stderr.write(err.decode("utf-8", "replace"))
    seconds = time.perf_counter() - started
    verdict, peak = _read(out.decode("utf-8", "replace"), seal, name, timed_out, timeout, process.returncode)
    verdict.seconds, verdict.peak_kib = seconds, peak
    return verdict


def _read(out: str, seal: str, name: str, timed_out: bool, timeout: float, code: int) -> tuple[Verdict, int]:
    """The verdict the sealed report gives, and the process's peak resident size (KiB; 0 unknown)."""
    mark = runner.MARK + seal
    lines = [line for line in out.split("\n") if line.startswith(mark)]
    if not lines:
        if timed_out:
            problem = f"Your code did not finish within {timeout:g} s, so it earns nothing."
        elif code in (-signal.SIGKILL, -signal.SIGXCPU, -signal.SIGSEGV) or code == 1 and not out:
            problem = "Your code used more memory or time than grading allows, so it earns nothing."
        else:
            problem = "Your code ended the grading process before it was judged, so it earns nothing."
        return Verdict(False, problem=problem), 0
    report = json.loads(lines[-1][len(mark) :])
    if "grader_problem" in report:  # the grader could not check even its own module: nothing was judged
        return Verdict(
            False,
            problem="The grader could not run its checks here, so nothing was judged and this is not your "
            f"grade: tell the course's staff ({report['grader_problem']}).",
        ), 0
    if "defined" not in report:  # the runner's worker ended without a report (it writes "{}" then)
        return Verdict(False, problem="Your function could not be judged, so it earns nothing."), 0
    peak = int(report.get("peak_kib", 0))
    ignored = [_refused(report["refused"])] if report["refused"] else []
    ignored += [_patched(report["patched"])] if report["patched"] else []
    failed = [line for line in report["cell_failed"] if "Not allowed while grading" not in line]  # said above
    if failed and report["defined"]:
        ignored.append(f"In your answer cell, {'; '.join(failed)}; that was skipped, and the rest of the cell ran.")
    if not report["defined"]:
        why = "; ".join(failed) or f"it does not define {name}"
        return Verdict(False, ignored=ignored, problem=f"Your answer cell defines nothing to judge: {why}."), peak
    if "passed" not in report:
        during = report.get("changed_while_judged")
        problem = (
            f"Your function changed the checker, numpy or torch while it was being judged ({', '.join(during)}), "
            "so its verdict cannot be trusted and it earns nothing."
            if during
            else "Your function could not be judged, so it earns nothing."
        )
        return Verdict(False, ignored=ignored, problem=problem), peak
    return Verdict(
        True,
        passed=report["passed"],
        mistake=report["mistake"],
        diagnosis=report["diagnosis"],
        text=report["text"],
        ignored=ignored,
    ), peak


def _refused(what: list[str]) -> str:
    return (
        f"Your code tried to do what grading does not allow ({'; '.join(what)}): that was refused and "
        "ignored, and your function was graded on its own."
    )


def _patched(what: list[str]) -> str:
    return (
        f"Your code {'; '.join(what)}: that was undone and ignored, and your function was graded by the "
        "original checker."
    )
