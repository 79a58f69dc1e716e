"""Students as Unix users: each student's server runs as that student's own account.

Every account the hub creates has the class group as its primary group and a home folder only its
owner can read (mode 700), so one student's kernel cannot open another's files. The hub refuses to
run a server as an account it did not create (root, a system user, a colleague's login): the check
is made both when the class list is applied and again just before each spawn.

Standard library only (``run.py hub`` runs it before the hub's environment exists). Needs root.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import signal
import subprocess
import time
from pathlib import Path

CLASS_GROUP = "layernorm-class"
HOME_ROOT = Path("/home")
MIN_UID = 1000


class AccountError(RuntimeError):
    """An account problem, in one sentence."""


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise AccountError(f"`{' '.join(command)}` failed: {said[-1] if said else 'no reason given'}")


def class_gid() -> int:  # pragma: no mutate block (root only: a mutant would change the machine's groups)
    try:
        return grp.getgrnam(CLASS_GROUP).gr_gid
    except KeyError:
        if shutil.which("groupadd") is None:
            raise AccountError("groupadd is missing: the hub needs a Linux machine with the shadow utilities") from None
        _run(["groupadd", "--system", CLASS_GROUP])
        return grp.getgrnam(CLASS_GROUP).gr_gid


def is_student_account(name: str) -> bool:
    """True when ``name`` is an account this hub made: in the class group, not a system account."""
    try:
        entry = pwd.getpwnam(name)
        gid = grp.getgrnam(CLASS_GROUP).gr_gid
    except KeyError:
        return False
    return entry.pw_gid == gid and entry.pw_uid >= MIN_UID


def ensure_student(name: str) -> Path:  # pragma: no mutate block (root only: useradd, chown)
    """Create the Unix account of a student (idempotent) and return the home folder."""
    gid = class_gid()
    try:
        entry = pwd.getpwnam(name)
    except KeyError:
        home = HOME_ROOT / name
        _run(["useradd", "--create-home", "--home-dir", str(home), "--gid", str(gid), "--shell", "/bin/bash", name])
        entry = pwd.getpwnam(name)
    if not is_student_account(name):
        raise AccountError(
            f"{name!r} is already an account on this machine that is not a student of this class "
            "(a system or staff account): choose another name in the class list"
        )
    home = Path(entry.pw_dir)
    home.mkdir(mode=0o700, exist_ok=True)
    os.chown(home, entry.pw_uid, entry.pw_gid)
    os.chmod(home, 0o700)  # only the student reads their own files
    return home


def remove_student(name: str) -> None:  # pragma: no mutate block (root only: a mutant could remove any account)
    """Delete a student's account and home folder (for tests and the end of a course), after ending
    any process the student still runs. Leaves alone any account that is not one of this hub's students."""
    if not is_student_account(name):
        return
    uid = pwd.getpwnam(name).pw_uid
    for sig in (signal.SIGTERM, signal.SIGKILL):
        pids = processes_of(uid)
        for pid in pids:
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        while processes_of(uid) and time.monotonic() < deadline:
            time.sleep(0.1)
    _run(["userdel", "--remove", name])


def processes_of(uid: int) -> list[int]:
    """The ids of every process running as ``uid``."""
    pids = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and entry.stat().st_uid == uid:
                pids.append(int(entry.name))
        except FileNotFoundError:
            continue
    return pids


def end_leftovers(name: str) -> int:
    """Kill whatever a student still runs after their server stopped; returns how many.

    A server stopped under load (the culler, the end of class) can be killed before it has shut
    down its kernels, and jupyter_client starts kernels in sessions of their own, so they outlive
    it and keep their memory (seen in the class benchmark). Each student has one server, so once
    it has stopped nothing of theirs should run."""
    if not is_student_account(name):
        return 0
    pids = processes_of(pwd.getpwnam(name).pw_uid)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(pids)
