"""A real class hub for the tests and the class benchmark: JupyterHub, the proxy, the idle culler
and nbgitpuller, with students as Unix users, on free loopback ports, in a fresh state folder that
is removed afterwards (with the students' accounts). Needs root. Standard library only.
"""

from __future__ import annotations

import os
import secrets
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

from classroom.hub import accounts, launch
from classroom.hub.settings import TOKEN_VARIABLE, HubSettings

PASSWORD = "a-long-class-password"  # every simulated student's first-login password


def names(prefix: str, count: int) -> list[str]:
    return [f"{prefix}{number:03d}" for number in range(1, count + 1)]


def last_lines(path: Path, count: int = 12) -> str:
    """The last ``count`` lines of a log, joined with " | " (or why it could not be read)."""
    try:
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError as error:
        return f"(unreadable: {error})"
    return " | ".join(line.strip() for line in lines[-count:]) or "(empty)"


@contextmanager
def class_hub(students: list[str], instructors: list[str] = (), patience: float = 1.0, **options):
    """A running hub with these students; yields the launch.Hub, with .token (admin) and .log_path.

    ``patience`` multiplies how long the hub may take to answer and to stop (a quiet machine's times).
    """
    state = Path(tempfile.mkdtemp(prefix="layernorm-hub-test-", dir="/tmp"))
    state.chmod(0o755)  # students' git must read state/series.git
    lines = [f"{name} instructor" for name in instructors] + list(students)
    (state / "students.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    settings = HubSettings(
        state=str(state),
        ip="127.0.0.1",
        port=launch.free_port(),
        hub_port=launch.free_port(),
        proxy_api_port=launch.free_port(),
        # every port its own: two class hubs start side by side when the suite runs in halves, and a
        # fixed class-service port let one hub's students post to the other hub's service (401)
        class_service_port=launch.free_port(),
        **options,
    )
    token = secrets.token_hex(32)  # the admin token: in this process's memory and the hub's environment only
    hub = log = None
    try:
        launch.prepare(settings, say=lambda message: None)
        log_path = settings.private / "hub.log"
        log = open(log_path, "w", encoding="utf-8")
        hub = launch.start(settings, log=log, env={**os.environ, TOKEN_VARIABLE: token})
        hub.token = token
        hub.log_path = log_path
        try:
            hub.wait_ready(timeout=launch.READY_SECONDS * patience)
        except launch.HubError as error:  # its log is deleted with the state below: its last lines go with the error
            log.flush()
            raise launch.HubError(f"{error}; its log ended: {last_lines(log_path)}") from None
        yield hub
    finally:
        if hub is not None:
            # what a killed hub left running, now ended
            hub.leftovers = hub.stop(timeout=launch.STOP_SECONDS * patience)
        if log is not None:
            log.close()
        problems = []
        for name in [*instructors, *students]:  # every account, even when one cannot be removed
            try:
                accounts.remove_student(name)
            except accounts.AccountError as error:
                problems.append(str(error))
        shutil.rmtree(state, ignore_errors=True)
        if problems:
            raise accounts.AccountError(f"{len(problems)} student account(s) could not be removed: {problems[0]}")
