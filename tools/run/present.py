"""run.py lab, lecture, slides and bench: what a student, a lecturer and a maintainer start.
Standard library only."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

from tools.run.env import BENCHMARKS, NOTEBOOKS, ROOT, child_env, ensure_env, natural_key, run, say

LECTURE = ROOT / "lecture" / "layernorm_lecture.ipynb"
SLIDES_TOOL = ROOT / "tools" / "build" / "lecture_slides.py"


def cmd_lab(extra: list[str]) -> int:
    python = ensure_env()
    cmd = [str(python), "-m", "jupyter", "lab"]
    if NOTEBOOKS.is_dir():
        cmd.append(str(NOTEBOOKS.relative_to(ROOT)))
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in extra:
        # Jupyter refuses to start as root unless told; containers and CI run as root.
        cmd.append("--allow-root")
    cmd += extra
    say("Starting JupyterLab (stop it with Ctrl-C) …")
    if os.name == "posix":
        # Replace this process, so Ctrl-C and signals go straight to Jupyter.
        os.chdir(ROOT)
        os.execve(str(python), cmd, child_env())
    return run(cmd)


# The lecture's Voila template (lecture/jupyter/voila/templates/presenter/): large type for a room,
# presenter mode for a clicker, a presenter view in a window of its own, nothing loaded from a network.
LECTURE_TEMPLATE_ROOT = ROOT / "lecture" / "jupyter"
# Every page load starts a kernel: free those of closed pages after 2 idle minutes (a page that
# stays open keeps its kernel, as Jupyter never culls a kernel with a connection).
LECTURE_KERNEL_CULLING = ("--MappingKernelManager.cull_idle_timeout=120", "--MappingKernelManager.cull_interval=30")


def lecture_command(python: Path | str, extra: list[str]) -> list[str]:
    """The voila command line `run.py lecture` runs (tests run the same one); ``extra`` may set the
    culling options itself (traitlets takes each option once)."""
    culling = [
        option
        for option in LECTURE_KERNEL_CULLING
        if not any(arg.startswith(option.split("=")[0] + "=") for arg in extra)
    ]
    return [str(python), "-m", "voila", str(LECTURE.relative_to(ROOT)), "--template=presenter", *culling, *extra]


def lecture_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the lecture's template folder first on JUPYTER_PATH, where Voila finds templates."""
    paths = [str(LECTURE_TEMPLATE_ROOT), *filter(None, env.get("JUPYTER_PATH", "").split(os.pathsep))]
    return {**env, "JUPYTER_PATH": os.pathsep.join(paths)}


def cmd_lecture(extra: list[str]) -> int:
    python = ensure_env()
    cmd = lecture_command(python, extra)
    say(
        "Starting the lecture in Voila (stop it with Ctrl-C). Keys: PageDown / PageUp (or a clicker) "
        "step through, S (or N) presenter view with notes and timer in its own window, B or . black screen, "
        "P whole page …"
    )
    if os.name == "posix":
        # Replace this process, so Ctrl-C and signals go straight to Voila.
        os.chdir(ROOT)
        os.execve(str(python), cmd, lecture_env(child_env()))
    try:
        return subprocess.run(cmd, cwd=ROOT, env=lecture_env(child_env())).returncode
    except KeyboardInterrupt:
        return 130


def cmd_slides(extra: list[str]) -> int:
    python = ensure_env()
    return run([str(python), str(SLIDES_TOOL), *extra])


def cmd_bench(extra: list[str]) -> int:
    if not BENCHMARKS.is_dir():
        say("No benchmarks/ folder: nothing to run.")
        return 0
    scripts = sorted(BENCHMARKS.glob("*.py"), key=natural_key)
    if not scripts:
        say("benchmarks/ has no .py scripts: nothing to run.")
        return 0
    python = ensure_env()
    failed = []
    for script in scripts:
        rel = script.relative_to(ROOT).as_posix()
        say(f"== {rel}")
        start = time.monotonic()
        code = run([str(python), str(script), *extra])
        if code == 130:
            return 130
        say(f"== {rel}: {'ok' if code == 0 else f'FAILED (exit code {code})'}, {time.monotonic() - start:.1f} s")
        if code != 0:
            failed.append(rel)
    if failed:
        print(f"error: {len(failed)} of {len(scripts)} benchmark(s) failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0
