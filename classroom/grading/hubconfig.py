"""Who sees which part of nbgrader on the hub: Jupyter configuration folders (standard library only).

nbgrader's package enables all its parts for everyone (its own files in the environment's
``etc/jupyter``). The hub puts one of two folders first on each server's JUPYTER_CONFIG_PATH:

- ``students/``: the assignment list (fetch, submit, fetch feedback) and validate; the formgrader,
  the course list and "create assignment" off, as server extensions and in JupyterLab;
  nbgrader's exchange and course id.
- ``instructors/`` (then ``students/``): those three back on, and the course folder, as
  ``~/layernorm-course`` (a link hubsetup.py makes in each instructor's home): the formgrader works
  only on a course folder inside the server's root folder, the home.

Students cannot turn them back on: the hub sets ``disable_user_config``, so ``~/.jupyter`` is not
read. And what protects the gradebook and the sources is not the menu but Unix permissions (the
course folder is not theirs): a formgrader started by a student would find nothing it could read.
"""

from __future__ import annotations

import json
from pathlib import Path

from classroom.grading.course import COURSE_ID

COURSE_LINK = "layernorm-course"  # in each instructor's home, to the course folder
STAFF_SERVER = ("nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list")
STAFF_LAB = ("nbgrader:formgrader", "nbgrader:course-list", "nbgrader:create-assignment")
EVERYONE_SERVER = ("nbgrader.server_extensions.assignment_list", "nbgrader.server_extensions.validate_assignment")


def _write(path: Path, data: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    path.chmod(0o644)


def write(folder: Path, exchange: Path, course: Path) -> tuple[Path, Path]:
    """Write ``folder/students`` and ``folder/instructors``; both paths."""
    students, instructors = folder / "students", folder / "instructors"
    for target, staff in ((students, False), (instructors, True)):
        server = {name: staff for name in STAFF_SERVER} | {name: True for name in EVERYONE_SERVER}
        _write(target / "jupyter_server_config.json", {"ServerApp": {"jpserver_extensions": server}})
        _write(target / "labconfig" / "page_config.json", {"disabledExtensions": {n: not staff for n in STAFF_LAB}})
        lines = [
            "c = get_config()  # noqa: F821",
            f"c.CourseDirectory.course_id = {COURSE_ID!r}",
            f"c.Exchange.root = {str(exchange)!r}",
        ]
        if staff:
            lines[0:0] = ["import os", ""]
            lines.append(
                f"c.CourseDirectory.root = os.path.join(os.path.expanduser('~'), {COURSE_LINK!r})  # -> {course}"
            )
        (target / "nbgrader_config.py").write_text("\n".join(lines) + "\n", encoding="utf-8")
        (target / "nbgrader_config.py").chmod(0o644)
        for part in (folder, target, target / "labconfig"):
            part.chmod(0o755)
    return students, instructors


def config_path(folder: Path, instructor: bool) -> str:
    """The JUPYTER_CONFIG_PATH for a student's or an instructor's server."""
    students, instructors = folder / "students", folder / "instructors"
    return f"{instructors}:{students}" if instructor else str(students)
