"""The nbgrader course: its folder, its exchange and its configuration (standard library only).

``STATE/course`` holds ``source/`` (the generated assignments, with their solutions), the gradebook
and the students' collected submissions: root's, mode 700, so no student reads any of it. The
exchange (``STATE/exchange``) is nbgrader's filesystem exchange: ``inbound`` is writable by every
student but readable by none (mode 2733, as nbgrader's documentation asks), so a student submits
but never lists or reads another's submission; ``outbound`` (released assignments) and
``feedback`` (files named by a hash only their owner knows) are world-readable.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

COURSE_ID = "layernorm"
GRADING_CODE = ("helpers", "data", "classroom/__init__.py", "classroom/grading")  # what the judge needs, no lecturer/


def config_text(course: Path, exchange: Path, code: Path, *, python: str = "", user: str = "") -> str:
    """nbgrader_config.py for the instructor's commands, run in ``course``: our grader in place of
    nbgrader's Execute, the series' stub, the exchange."""
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


def make_exchange(exchange: Path, group_gid: int | None = None) -> None:
    """The exchange's folders and modes (as root on the hub; any user in the tests)."""
    exchange.mkdir(parents=True, exist_ok=True)
    os.chmod(exchange, 0o755)
    for name, mode in (("inbound", 0o2733), ("outbound", 0o755), ("feedback", 0o711)):
        folder = exchange / name
        folder.mkdir(exist_ok=True)
        os.chmod(folder, mode)


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
