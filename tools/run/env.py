"""run.py's environment: the private .venv/ (created and kept in step with requirements.txt and
pyproject.toml), the child processes' environment, and the small shared helpers of every command.

Standard library only: run.py imports this before any package is installed.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import time
from pathlib import Path

from classroom.hub import cpu_torch

ROOT = Path(__file__).resolve().parents[2]
VENV = ROOT / ".venv"
REQUIREMENTS = ROOT / "requirements.txt"
PYPROJECT = ROOT / "pyproject.toml"
STAMP = VENV / ".installed-requirements.sha256"
PIP_LOG = VENV / "pip-install.log"
NOTEBOOKS = ROOT / "notebooks"
TESTS = ROOT / "tests"
BENCHMARKS = ROOT / "benchmarks"


class Failure(Exception):
    """An expected failure: print the message, exit non-zero, no traceback."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


def say(message: str) -> None:
    print(message, flush=True)


def venv_python(venv: Path = VENV) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


# pyproject.toml's tables that change what ``pip install -e .`` installs; the rest (pytest's, ruff's, mutmut's
# settings) can change without reinstalling anything.
INSTALL_TABLES = ("build-system", "project", "tool.setuptools")


def install_part(text: str) -> str:
    """The lines of pyproject.toml's install tables (``INSTALL_TABLES`` and their sub-tables), in order."""
    kept, keep = [], False
    for line in text.replace("\r\n", "\n").splitlines():
        header = re.match(r"\[\[?\s*([A-Za-z0-9_.\-\" ]+?)\s*\]\]?\s*(#.*)?$", line)
        if header:
            name = header.group(1).replace('"', "").replace(" ", "")
            keep = any(name == table or name.startswith(table + ".") for table in INSTALL_TABLES)
        if keep:
            kept.append(line)
    return "\n".join(kept) + "\n"


def requirements_hash(requirements: Path = REQUIREMENTS, pyproject: Path = PYPROJECT) -> str:
    """What the venv's stamp records: requirements.txt whole, and pyproject.toml's install tables only."""
    digest = hashlib.sha256()
    for path in (requirements, pyproject):
        if not path.is_file():
            raise Failure(f"error: {path.name} is missing from {ROOT}")
        digest.update(path.name.encode() + b"\0")
        # Normalise line endings so a Windows checkout hashes the same.
        text = path.read_bytes().replace(b"\r\n", b"\n")
        if path.name == "pyproject.toml":
            text = install_part(text.decode("utf-8")).encode("utf-8")
        digest.update(text)
        digest.update(b"\0")
    return digest.hexdigest()


def create_venv(venv: Path = VENV, base_python: str = sys.executable) -> None:
    say(f"Creating virtual environment in {venv.name} …")
    cmd = [base_python, "-m", "venv", str(venv)]
    if venv.exists():
        # The folder is there but has no working Python (e.g. the Python it
        # was made with is gone): start it again from scratch.
        cmd.insert(3, "--clear")
    result = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0 or not venv_python(venv).exists():
        tail = "\n".join(result.stdout.strip().splitlines()[-10:])
        if tail:
            print(tail, file=sys.stderr)
        hint = ""
        if "ensurepip" in result.stdout:
            hint = " (on Debian/Ubuntu: `sudo apt install python3-venv`)"
        raise Failure(f"error: could not create the virtual environment in {venv.name}{hint}")


def pip_install(args: list[str], what: str, venv: Path = VENV, required: bool = True) -> bool:
    """``pip install args`` into ``venv``, logged; whether it succeeded (a failure raises if ``required``)."""
    cmd = [str(venv_python(venv)), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", *args]
    log_path = venv / PIP_LOG.name
    with open(log_path, "a", encoding="utf-8", errors="replace") as log:
        log.write(f"\n$ {' '.join(cmd)}\n")
        log.flush()
        code = subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode
    if code != 0 and not required:
        return False
    if code != 0:
        lines = log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        # pip's own ERROR lines say what went wrong; without them, show the end.
        errors = [line for line in lines if line.startswith("ERROR")]
        print("\n".join(errors[-10:] or lines[-15:]), file=sys.stderr)
        rel = log_path.relative_to(ROOT)
        raise Failure(f"error: installing {what} failed (pip exit code {code}); full log in {rel}")
    return True


def ensure_env(venv: Path = VENV, requirements: Path = REQUIREMENTS, base_python: str = sys.executable) -> Path:
    """Make sure ``venv`` exists and holds what ``requirements`` asks for, plus helpers itself."""
    if not venv_python(venv).exists():
        create_venv(venv, base_python)
    wanted = requirements_hash(requirements)
    stamp = venv / STAMP.name
    try:
        installed = stamp.read_text(encoding="utf-8").strip()
    except OSError:
        installed = ""
    if installed != wanted:
        say(f"Installing packages into {venv.name} (first time takes a few minutes) …")
        start = time.monotonic()
        stamp.unlink(missing_ok=True)  # an interrupted install must retry
        (venv / PIP_LOG.name).write_text("", encoding="utf-8")
        cpu_torch.install_first(  # the CPU build first: the file's pin is then met
            requirements, lambda args: pip_install(args, "torch's CPU build", venv, required=False), say
        )
        pip_install(["-r", str(requirements)], f"the packages in {requirements.name}", venv)
        pip_install(["-e", ".", "--no-deps"], "the helpers package (pip install -e .)", venv)
        stamp.write_text(wanted + "\n", encoding="utf-8")
        say(f"Packages installed in {time.monotonic() - start:.0f} s.")
    return venv_python(venv)


def pinned_kernels() -> dict[str, str]:
    """On an x86 CPU with AVX-512, torch's CPU kernels pinned to their AVX2 build (``ATEN_CPU_CAPABILITY``), so
    that stored notebook outputs and the tests' bit-for-bit claims (notebooks 09 and 11: how torch's
    vectorised kernels round) are the same on every x86 machine; an AVX-512 kernel arranges its sums in 16
    lanes, not 8. Empty elsewhere, and when the variable is already set. Used by run.py test and execute
    (and tests/conftest.py), never by run.py lab: a learner sees their own machine's kernels."""
    if os.environ.get("ATEN_CPU_CAPABILITY"):
        return {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            flags = next((line for line in info if line.startswith("flags")), "").split()
    except OSError:
        return {}
    return {"ATEN_CPU_CAPABILITY": "avx2"} if "avx512f" in flags and "avx2" in flags else {}


def child_env(pinned: bool = False) -> dict[str, str]:
    env = dict(os.environ)
    if pinned:
        env.update(pinned_kernels())
    # Quieten a debugger notice that every Python 3.11+ kernel prints at start.
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    # Notebook kernels must draw with Jupyter's inline backend; a MPLBACKEND set in the shell
    # (Agg, say) would make every stored figure go missing under nbval.
    env.pop("MPLBACKEND", None)
    return env


def run(cmd: list[str], stdout=None, pinned: bool = False) -> int:
    """Run a command in the project folder and return its exit code (its output to ``stdout``, a file, if
    given)."""
    try:
        if stdout is not None:
            return subprocess.run(
                cmd, cwd=ROOT, env=child_env(pinned), stdout=stdout, stderr=subprocess.STDOUT
            ).returncode
        return subprocess.run(cmd, cwd=ROOT, env=child_env(pinned)).returncode
    except KeyboardInterrupt:
        return 130


def has_files(folder: Path, patterns: tuple[str, ...]) -> bool:
    if not folder.is_dir():
        return False
    for pattern in patterns:
        for path in folder.rglob(pattern):
            rel = path.relative_to(folder).parts
            if not any(part.startswith(".") for part in rel):
                return True
    return False


def natural_key(path: Path) -> list:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]
