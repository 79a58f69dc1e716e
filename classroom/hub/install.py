"""The hub's own installation: a Python environment every student can run, and the proxy.

Students' servers run as their own Unix users, so the Python they run, and every package in it,
must be readable and executable by everyone. A Python under root's home folder (pyenv's, say) is
not, so the environment is made from a system Python (Debian's /usr/bin/python3) in a folder
outside any home (default /opt/layernorm-hub). It holds JupyterHub, JupyterLab, nbgitpuller, the
idle culler and what the notebooks import (numpy, matplotlib, ipywidgets, the CPU torch wheel),
pinned in classroom/requirements-hub.txt. The proxy, configurable-http-proxy, comes from the npm
registry with ``npm ci`` against the committed lock file, which pins every package and checks
its sha512.

Both installs are redone only when their pins change (a stamp holds their hash). Standard
library only.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

from classroom.hub import cpu_torch

CLASSROOM = Path(__file__).resolve().parent.parent
REQUIREMENTS = CLASSROOM / "requirements-hub.txt"
PROXY_FILES = (CLASSROOM / "proxy" / "package.json", CLASSROOM / "proxy" / "package-lock.json")
DEFAULT_HOME = Path(os.environ.get("LAYERNORM_HUB_HOME", "/opt/layernorm-hub"))
SYSTEM_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3")
# Installed by the pins but never used by a Jupyter schema, and slow: rfc3987-syntax builds ~35 Lark
# parsers when jsonschema imports it, 1.6 of the 3.4 CPU seconds a student's server takes to start
# (measured here; jupyter_server issue 1559). jsonschema skips a format library that is missing.
UNUSED_SLOW_PACKAGES = ("rfc3987-syntax",)
PIP_TIMEOUT = 1800  # seconds for the whole pip install (torch alone is a few hundred MB)
NPM_TIMEOUT = 600


class InstallError(RuntimeError):
    """An install problem, in one sentence (the log's path included where there is one)."""


def _digest(paths) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.name.encode() + b"\0" + path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()


def readable_by_all(path: Path) -> bool:
    """Whether any user can reach and run ``path``: every folder on the way is world-searchable."""
    path = Path(os.path.realpath(path))
    if not os.stat(path).st_mode & 0o001:
        return False
    return all(os.stat(parent).st_mode & 0o001 for parent in path.parents)


def system_python() -> str:
    for candidate in SYSTEM_PYTHONS:
        if not Path(candidate).is_file() or not readable_by_all(Path(candidate)):
            continue
        probe = subprocess.run(
            [candidate, "-c", "import sys, venv; print(sys.version_info >= (3, 10))"], capture_output=True, text=True
        )
        if probe.returncode == 0 and probe.stdout.strip() == "True":
            return candidate
    raise InstallError(
        "no Python 3.10+ that every user can run was found (looked for "
        + ", ".join(SYSTEM_PYTHONS)
        + "): install Debian's python3 (apt-get install python3) and run this again"
    )


def venv_python(home: Path) -> Path:
    return home / "venv" / "bin" / "python"


def _log_tail(log: Path, lines: int = 12) -> str:
    text = log.read_text(encoding="utf-8", errors="replace").splitlines()
    errors = [line for line in text if line.startswith(("ERROR", "npm ERR", "npm error"))]
    return "\n".join(errors[-lines:] or text[-lines:])


def _logged(
    command: list[str], log: Path, timeout: int, what: str, cwd: Path | None = None, required: bool = True
) -> bool:
    """Run ``command`` into ``log``; whether it succeeded (a failure raises InstallError if ``required``)."""
    with open(log, "a", encoding="utf-8", errors="replace") as out:
        out.write(f"\n$ {' '.join(command)}\n")
        out.flush()
        try:
            code = subprocess.run(
                command, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=timeout, cwd=cwd
            ).returncode
        except subprocess.TimeoutExpired:
            raise InstallError(f"{what} took longer than {timeout} s; log in {log}") from None
    if code != 0 and required:
        print(_log_tail(log), file=sys.stderr)
        raise InstallError(f"{what} failed (exit code {code}); full log in {log}")
    return code == 0


def ensure_python_env(home: Path = DEFAULT_HOME, say=print) -> Path:
    """The hub's environment in ``home``/venv, installed from requirements-hub.txt once."""
    os.umask(0o022)  # everything installed must be readable by the students
    home.mkdir(parents=True, exist_ok=True)
    os.chmod(home, 0o755)
    if not readable_by_all(home):
        raise InstallError(f"{home} is inside a folder other users cannot enter: choose another LAYERNORM_HUB_HOME")
    python = venv_python(home)
    stamp = home / "venv" / ".installed-requirements.sha256"
    wanted = _digest([REQUIREMENTS])
    if python.exists() and stamp.is_file() and stamp.read_text().strip() == wanted:
        return python
    log = home / "pip-install.log"
    log.write_text("", encoding="utf-8")
    if not python.exists():
        base = system_python()
        say(f"Creating the hub's Python environment in {home / 'venv'} (from {base}) …")
        made = subprocess.run([base, "-m", "venv", str(home / "venv")], capture_output=True, text=True)
        if made.returncode != 0:  # Debian without python3-venv: no ensurepip; pip is run from outside
            shutil.rmtree(home / "venv", ignore_errors=True)
            _logged([base, "-m", "venv", "--without-pip", str(home / "venv")], log, 120, "creating the venv")
    say("Installing the hub's packages (JupyterHub, JupyterLab, torch CPU, …); the first time takes a few minutes …")
    stamp.unlink(missing_ok=True)
    has_pip = subprocess.run([str(python), "-c", "import pip"], capture_output=True).returncode == 0
    pip = [str(python), "-m", "pip"] if has_pip else [sys.executable, "-m", "pip", "--python", str(python)]
    install = [*pip, "install", "--disable-pip-version-check", "--no-input"]
    cpu_torch.install_first(  # the CPU build first: the file's pin is then met
        REQUIREMENTS,
        lambda args: _logged([*install, *args], log, PIP_TIMEOUT, "torch's CPU build", required=False),
        say,
    )
    _logged(
        [*install, "-r", str(REQUIREMENTS)],
        log,
        PIP_TIMEOUT,
        "installing the hub's packages",
    )
    _logged([*pip, "uninstall", "--yes", *UNUSED_SLOW_PACKAGES], log, 120, "removing an unused slow package")
    stamp.write_text(wanted + "\n", encoding="utf-8")
    return python


def ensure_proxy(home: Path = DEFAULT_HOME, say=print) -> Path:
    """configurable-http-proxy in ``home``/proxy, from the committed lock file (checked sha512s)."""
    target = home / "proxy"
    command = target / "node_modules" / ".bin" / "configurable-http-proxy"
    stamp = target / ".installed-lock.sha256"
    wanted = _digest(PROXY_FILES)
    if command.exists() and stamp.is_file() and stamp.read_text().strip() == wanted:
        return command
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        raise InstallError(
            "the hub's proxy (configurable-http-proxy) is installed with npm, and npm or node is missing: "
            "install Node.js and npm (Debian/Ubuntu: apt-get install npm) and run this again"
        )
    os.umask(0o022)
    target.mkdir(parents=True, exist_ok=True)
    for path in PROXY_FILES:
        shutil.copyfile(path, target / path.name)
    say("Installing configurable-http-proxy with npm (pinned, checked) …")
    log = home / "npm-install.log"
    log.write_text("", encoding="utf-8")
    stamp.unlink(missing_ok=True)
    _logged(
        [npm, "ci", "--no-audit", "--no-fund", "--loglevel=error"],
        log,
        NPM_TIMEOUT,
        "installing configurable-http-proxy with npm",
        cwd=target,
    )
    stamp.write_text(wanted + "\n", encoding="utf-8")
    return command
