"""Start a class hub: check the machine, install, apply the class list, publish the series, run.

Used by ``python3 run.py hub`` (in the foreground) and by the tests and the class benchmark (in
the background, on free loopback ports). Every problem a lecturer can meet stops with one
sentence: not root, a port in use, npm missing, a name the system cannot use.

Standard library only.
"""

from __future__ import annotations

import errno
import json
import os
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from classroom.hub import accounts, install, mirror, roster
from classroom.hub.proctree import descendants, end_processes, snapshot
from classroom.hub.settings import SETTINGS_VARIABLE, HubSettings

CLASSROOM = Path(__file__).resolve().parent.parent
REPOSITORY = CLASSROOM.parent
CONFIG = CLASSROOM / "jupyterhub_config.py"
READY_SECONDS = 120.0  # how long a starting hub may take to answer, on a quiet machine
STOP_SECONDS = 60.0  # how long a stopping hub may take to end its processes before they are killed


class HubError(RuntimeError):
    """Why the hub cannot start, in one sentence."""


def require_root() -> None:
    if os.geteuid() != 0:
        raise HubError(
            "the class hub runs each student's server as that student's own Unix user, which only root can do: "
            "run it as root (sudo python3 run.py hub); for yourself alone, `python3 run.py lab` needs no hub"
        )


def port_free(port: int, ip: str = "") -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((ip, port))
        except OSError as error:
            if error.errno in (errno.EADDRINUSE, errno.EACCES):
                return False
            raise
    return True


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def check_ports(settings: HubSettings) -> None:
    if not 0 < settings.port < 65536:
        raise HubError(f"--port {settings.port} is not a port number (1 to 65535)")
    if not port_free(settings.port, settings.ip):
        raise HubError(
            f"port {settings.port} is already in use by another program (perhaps a hub started earlier): "
            f"stop it, or choose another port with --port"
        )
    for name in ("hub_port", "proxy_api_port", "class_service_port"):
        if not port_free(getattr(settings, name), "127.0.0.1"):
            setattr(settings, name, free_port())  # internal ports: any free one will do


def prepare(settings: HubSettings, say=print) -> roster.Roster:
    """Everything before the hub process: install, state folder, accounts, the series."""
    require_root()
    home = Path(settings.home)
    try:
        install.ensure_python_env(home, say)
        install.ensure_proxy(home, say)
    except install.InstallError as error:
        raise HubError(str(error)) from None
    state = Path(settings.state)
    os.umask(0o022)
    state.mkdir(parents=True, exist_ok=True)
    state.chmod(0o755)
    settings.private.mkdir(mode=0o700, exist_ok=True)
    settings.private.chmod(0o700)
    if not settings.roster_path.exists():
        settings.roster_path.write_text(roster.TEMPLATE, encoding="utf-8")
        raise HubError(f"there is no class list yet: add the students' names to {settings.roster_path} (made for you)")
    try:
        class_list = roster.read(settings.roster_path)
        for name in class_list.everyone:
            accounts.ensure_student(name)
    except (roster.RosterError, accounts.AccountError) as error:
        raise HubError(str(error)) from None
    if not settings.repo:
        try:
            commit = mirror.publish(REPOSITORY, settings.bare_repo)
        except mirror.MirrorError as error:
            raise HubError(str(error)) from None
        say(f"Serving the series at commit {commit[:7]} from {settings.bare_repo}.")
        changed = mirror.uncommitted(REPOSITORY)
        if changed:
            say(f"Note: {len(changed)} changed file(s) are not committed, so students do not get them yet.")
    mirror.safe_config(settings.bare_repo, settings.git_config)
    set_up_grading(settings)
    return class_list


def set_up_grading(settings: HubSettings) -> None:
    """nbgrader's course, exchange and per-role configuration in STATE/grading, with the hub's Python
    (classroom/grading/hubsetup.py); kept across starts (the gradebook, the submissions)."""
    python = install.venv_python(Path(settings.home))
    done = subprocess.run(
        [str(python), "-m", "classroom.grading.hubsetup", str(settings.grading), str(settings.roster_path)],
        cwd=REPOSITORY,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise HubError(f"the graded course could not be set up in {settings.grading}: {said[-1] if said else '?'}")


@dataclass
class Hub:
    settings: HubSettings
    process: subprocess.Popen

    @property
    def url(self) -> str:
        return f"http://{self.settings.ip or '127.0.0.1'}:{self.settings.port}"

    def api(self, path: str, token: str, method: str = "GET", body: dict | None = None):
        """A call to the hub's REST API; returns (status, decoded JSON or None)."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            f"{self.url}/hub/api{path}", data=data, method=method, headers={"Authorization": f"token {token}"}
        )
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                text = answer.read()
                return answer.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            return error.code, None

    def wait_ready(self, timeout: float = READY_SECONDS) -> None:
        """Until the hub answers and, with the class service on, the proxy routes to that service too
        (the hub adds a service's route only once the service runs, a moment after the hub answers)."""
        deadline = time.monotonic() + timeout
        self._wait(deadline, "/hub/api/", lambda status, json_body: status == 200, "the hub did not answer")
        if self.settings.class_service:
            # Its own answer to a request without a token: 401, in JSON (the proxy's would be HTML).
            self._wait(deadline, "/services/class/api/summary", lambda status, json_body: status == 401 and json_body,
                       "the class service was not reachable through the proxy")  # fmt: skip

    def _wait(self, deadline: float, path: str, ready, failure: str) -> None:
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise HubError(f"the hub stopped while starting (exit code {self.process.returncode}); see its log")
            try:
                with urllib.request.urlopen(f"{self.url}{path}", timeout=5) as answer:
                    status, kind = answer.status, answer.headers.get("Content-Type", "")
            except urllib.error.HTTPError as error:
                status, kind = error.code, error.headers.get("Content-Type", "")
            except OSError:
                status, kind = 0, ""
            if ready(status, kind.startswith("application/json")):
                return
            time.sleep(0.3)
        raise HubError(f"{failure} in time")

    def stop(self, timeout: float = STOP_SECONDS) -> list[int]:
        """Stop the hub; returns the processes it left behind (its proxy, its services), now ended.

        The hub stops every student's server, its proxy and its services as it exits; one that has to
        be killed (a busy machine, twenty servers to stop) cannot, and they would run on, orphaned."""
        below = snapshot(descendants(self.process.pid))  # the processes, not only their ids (proctree's text)
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return end_processes(below)


def start(settings: HubSettings, log=None, env: dict | None = None) -> Hub:
    """Start JupyterHub with ``settings`` (after :func:`prepare`) and return at once."""
    check_ports(settings)
    path = settings.save()
    python = install.venv_python(Path(settings.home))
    environment = {**(env if env is not None else os.environ), SETTINGS_VARIABLE: str(path)}
    process = subprocess.Popen(
        [str(python), "-m", "jupyterhub", "-f", str(CONFIG)],
        cwd=settings.private,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT if log is not None else None,
        stdin=subprocess.DEVNULL,
    )
    return Hub(settings, process)
