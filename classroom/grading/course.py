"""The nbgrader course: its folder, its exchange and its configuration (standard library only).

``STATE/course`` holds ``source/`` (the generated assignments, with their solutions), the gradebook
and the students' collected submissions: root's, mode 700, so no student reads any of it. The
exchange (``STATE/exchange``) is nbgrader's filesystem exchange, with nbgrader's own modes:
``inbound`` is writable by every student but listable by none (2733) and each submission's folder
name ends in a random string, so a student submits but never finds another's submission;
``outbound`` (released assignments) is world-readable; ``feedback`` files are named by a hash of
the submission's secret, which only its author has.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

COURSE_ID = "layernorm"
GRADING_CODE = ("helpers", "data", "classroom/__init__.py", "classroom/grading")  # what the judge needs, no lecturer/


def config_text(
    course: Path, exchange: Path, code: Path, *, python: str = "", user: str = "", groupshared: bool = False
) -> str:
    """nbgrader_config.py for the instructor's commands, run in ``course``: our grader in place of
    nbgrader's Execute, the series' stub, the exchange. ``groupshared``: the course and the exchange's
    course folder belong to the graders' group (the hub), so that what one instructor releases or
    collects from the formgrader, root and the other instructors can change too (nbgrader's own mode)."""
    return f"""# Written by `python3 run.py hub` (classroom/grading/course.py); rewritten at every start.
import sys

sys.path.insert(0, {str(code)!r})  # classroom.grading and helpers, without lecturer/

from nbconvert.preprocessors import ClearMetadataPreprocessor
from nbgrader.preprocessors import AssignLatePenalties, CheckCellMetadata, IgnorePattern, LimitOutput, SaveAutoGrades

from classroom.grading.nbgrader_hooks import GradeCells

c = get_config()  # noqa: F821 — nbgrader's config loader defines it
c.CourseDirectory.course_id = {COURSE_ID!r}
c.CourseDirectory.root = {str(course)!r}
c.Exchange.root = {str(exchange)!r}
c.Exchange.path_includes_course = False
c.CourseDirectory.groupshared = {groupshared!r}
c.ClearSolutions.code_stub = {{"python": "raise NotImplementedError"}}
c.Autograde.autograde_preprocessors = [
    GradeCells, IgnorePattern, ClearMetadataPreprocessor, LimitOutput, SaveAutoGrades, AssignLatePenalties,
    CheckCellMetadata,
]
c.GradeCells.python = {python!r}
c.GradeCells.user = {user!r}
c.GradeCells.course_root = {str(course)!r}
"""


def student_config_text(exchange: Path) -> str:
    """The system-wide nbgrader config every student's server reads (``/etc/jupyter``)."""
    return f"""# Written by `python3 run.py hub` (classroom/grading/course.py).
c = get_config()  # noqa: F821
c.CourseDirectory.course_id = {COURSE_ID!r}
c.Exchange.root = {str(exchange)!r}
c.Exchange.path_includes_course = False
"""


def make_exchange(exchange: Path) -> None:
    """The exchange's root, and the course's folder in it, made now, by root: nbgrader's release makes
    ``outbound`` and ``inbound`` (mode 2733: students write, nobody lists) and its release_feedback
    ``feedback`` in that folder. The root is writable by all, as nbgrader requires, but sticky (1777),
    and the course's folder exists from the start: no student can rename it, or make their own
    before the first release and collect the class's submissions in it."""
    exchange.mkdir(parents=True, exist_ok=True)
    os.chmod(exchange, 0o1777)
    ours = exchange / COURSE_ID
    if ours.is_symlink() or (ours.exists() and ours.stat().st_uid != os.geteuid()):
        raise PermissionError(f"{ours} was not made by this course: remove it and set the course up again")
    ours.mkdir(exist_ok=True)
    os.chmod(ours, 0o755)


def make_course(course: Path) -> None:
    course.mkdir(parents=True, exist_ok=True)
    os.chmod(course, 0o700)


def install_code(dest: Path) -> Path:
    """Copy what grading runs (``helpers``, ``data``, ``classroom.grading``; never ``lecturer/``) to
    ``dest``, readable by all (the judge may run as an unprivileged account); ``dest``."""
    if dest.exists():
        shutil.rmtree(dest)
    for part in GRADING_CODE:
        source, target = ROOT / part, dest / part
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, target)
    for folder, _dirs, files in os.walk(dest):
        os.chmod(folder, 0o755)
        for name in files:
            os.chmod(os.path.join(folder, name), 0o644)
    return dest
