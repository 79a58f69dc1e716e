"""The grading part of ``python3 run.py hub``: the course, its exchange, who reaches what.

Run as root with the hub's Python (it has nbgrader and numpy), by ``classroom.hub.launch.prepare``::

    /opt/layernorm-hub/venv/bin/python -m classroom.grading.hubsetup STATE/grading STATE/students.txt

Idempotent and additive: a second start keeps the gradebook, the submissions and the exchange, and
rebuilds only the sources, the grading code and the configuration. Who reaches what:

- ``course/`` (sources with solutions, gradebook, submissions, feedback): ``root:layernorm-graders``,
  mode 2770, so the instructors (the roster's ``instructor`` names, added to that group; its students
  taken out of it) read and write it from their formgrader; a student cannot even list it.
- ``exchange/``: sticky (1777); its course folder root's and the graders', in nbgrader's groupshared
  modes (the inbound writable by all, listable by the graders only), so an instructor's formgrader
  releases, collects and returns feedback as the instructor.
- ``jupyter/students`` and ``jupyter/instructors``: the servers' configuration (hubconfig.py).

The judge runs as ``nobody`` when root autogrades (``sudo python3 run.py hub-grade autograde NN``); an
autograde started from an instructor's formgrader, as the instructor, is refused with one sentence.
"""

from __future__ import annotations

import grp
import os
import pwd
import shutil
import subprocess
import sys
from pathlib import Path

from classroom.grading import assignment, cycle, hubconfig
from classroom.grading.course import COURSE_ID
from classroom.hub import roster

GRADERS = "layernorm-graders"
JUDGE_USER = "nobody"


class SetupError(RuntimeError):
    """Why the course could not be set up, in one sentence."""


def _run(command: list[str]) -> None:
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise SetupError(f"`{' '.join(command)}` failed: {said[-1] if said else 'no reason given'}")


def graders_gid(instructors: list[str], students: list[str] = ()) -> int:
    """The graders' group, with ``instructors`` in it and ``students`` (an instructor once, perhaps) out
    of it; other members are left alone (another hub on this machine may have put them there)."""
    try:
        grp.getgrnam(GRADERS)
    except KeyError:
        _run(["groupadd", "--system", GRADERS])
    members = set(grp.getgrnam(GRADERS).gr_mem)
    for name in instructors:
        if name not in members:
            _run(["gpasswd", "--add", name, GRADERS])
    for name in students:
        if name in members:
            _run(["gpasswd", "--delete", name, GRADERS])
    return grp.getgrnam(GRADERS).gr_gid


def share_with_graders(folder: Path, gid: int) -> None:
    """``folder`` and everything in it: group ``gid``, group read/write, nothing for others; folders setgid
    so what nbgrader makes later stays the group's."""
    for path, _dirs, files in os.walk(folder):
        os.chown(path, 0, gid)
        os.chmod(path, 0o2770)
        for name in files:
            file = os.path.join(path, name)
            if not os.path.islink(file):
                os.chown(file, 0, gid)
                os.chmod(file, 0o660)


# The exchange's course folder and nbgrader's three folders in it, as nbgrader's groupshared mode makes them:
# the graders write each; everyone else reads what was released, submits into the inbound without listing
# it, and finds only their own feedback, by a name they alone can compute.
EXCHANGE_MODES = {".": 0o2775, "outbound": 0o2775, "inbound": 0o2773, "feedback": 0o2771}


def share_exchange(ours: Path, gid: int) -> None:
    """The exchange's course folder (made by root, course.make_exchange) and its outbound, inbound and
    feedback: root's and the graders' group, in nbgrader's groupshared modes, so that an instructor's
    formgrader releases, collects and returns feedback as the instructor; a released assignment's files
    become the group's too. The students' submissions and feedback files are left as they are."""
    for part, mode in EXCHANGE_MODES.items():
        folder = ours / part
        folder.mkdir(exist_ok=True)
        os.chown(folder, 0, gid)
        os.chmod(folder, mode)
    for path, dirs, files in os.walk(ours / "outbound"):
        for name in dirs:
            os.chown(os.path.join(path, name), -1, gid)
            os.chmod(os.path.join(path, name), 0o2775)
        for name in files:
            file = os.path.join(path, name)
            if not os.path.islink(file):
                os.chown(file, -1, gid)
                os.chmod(file, 0o664)


def course_for(grading: Path, python: str, class_list: Path | None = None) -> cycle.Course:
    """The hub's course (STATE/grading), graded with the hub's Python, the judge as ``nobody``; with
    ``class_list`` (STATE/students.txt), submissions from anyone not on it are set aside, ungraded."""
    students = roster.read(Path(class_list)).everyone if class_list else None
    return cycle.Course(grading, python, judge_python=python, judge_user=JUDGE_USER, group=GRADERS, students=students)


def set_up(grading: Path, python: str, instructors: list[str], students: list[str] = ()) -> cycle.Course:
    grading = Path(grading)
    grading.mkdir(parents=True, exist_ok=True)
    grading.chmod(0o755)
    course = course_for(grading, python)
    course.set_up()
    gid = graders_gid(instructors, students)
    share_with_graders(course.folder, gid)
    share_exchange(course.exchange / COURSE_ID, gid)
    hubconfig.write(grading / "jupyter", course.exchange, course.folder)
    for name in instructors:
        link_course(name, course.folder)
    return course


def link_course(instructor: str, folder: Path) -> None:
    """``~/layernorm-course`` in the instructor's home, a link to the course folder (the formgrader
    wants the course inside the server's root folder); a file of theirs by that name is left alone."""
    entry = pwd.getpwnam(instructor)
    link = Path(entry.pw_dir) / hubconfig.COURSE_LINK
    if link.is_symlink():
        if os.readlink(link) == str(folder):
            return
        link.unlink()
    elif link.exists():
        raise SetupError(
            f"{link} exists and is not the course's link: rename it, so that the formgrader can use that name"
        )
    link.symlink_to(folder)
    os.lchown(link, entry.pw_uid, entry.pw_gid)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m classroom.grading.hubsetup STATE/grading STATE/students.txt", file=sys.stderr)
        return 2
    if os.geteuid() != 0 or shutil.which("gpasswd") is None:
        print("error: the course is set up as root, on a machine with gpasswd", file=sys.stderr)
        return 1
    try:
        class_list = roster.read(Path(argv[1]))
        set_up(Path(argv[0]), sys.executable, list(class_list.instructors), list(class_list.students))
    except (SetupError, OSError, roster.RosterError, assignment.SourceError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
