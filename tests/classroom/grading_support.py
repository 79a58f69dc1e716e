"""The Python whose nbgrader the grading tests run: LAYERNORM_NBGRADER_PYTHON, or the class hub's, which
``run.py hub`` installs with nbgrader (classroom/requirements-hub.txt). As root the hub's environment is
installed here when it is missing or out of date (as the class hub tests do). Where there is none, the
tests are skipped, saying so, unless REQUIRE_HUB=1 (CI): there a missing nbgrader fails them.
"""

from __future__ import annotations

import functools
import html
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from classroom.hub import install


def _has_nbgrader(python: str) -> bool:
    if not Path(python).exists():
        return False
    return subprocess.run([python, "-c", "import nbgrader, numpy"], capture_output=True).returncode == 0


@functools.cache
def _find() -> tuple[str | None, str]:
    """(the Python, or None and why there is none)."""
    chosen = os.environ.get("LAYERNORM_NBGRADER_PYTHON")
    if chosen:
        return (chosen, "") if _has_nbgrader(chosen) else (None, f"LAYERNORM_NBGRADER_PYTHON={chosen} has no nbgrader")
    hub = str(install.venv_python(install.DEFAULT_HOME))
    if os.geteuid() == 0:
        try:
            install.ensure_python_env(install.DEFAULT_HOME, say=lambda message: None)
        except install.InstallError as error:
            return None, f"the hub's environment could not be installed: {error}"
    if _has_nbgrader(hub):
        return hub, ""
    return None, "no Python with nbgrader: run `python3 run.py hub` as root once, or set LAYERNORM_NBGRADER_PYTHON"


def nbgrader_python() -> str:
    """The Python with nbgrader; skips the test (fails it under REQUIRE_HUB=1) where there is none."""
    python, why = _find()
    if python is None:
        if os.environ.get("REQUIRE_HUB") == "1":
            pytest.fail(why + "; REQUIRE_HUB=1 asks for the grading tests", pytrace=False)
        pytest.skip(why)
    return python


@pytest.fixture(scope="session", name="python")
def python_fixture() -> str:
    """The Python with nbgrader, as the fixture ``python`` (import ``python_fixture`` to use it)."""
    return nbgrader_python()


@functools.cache
def _site(python: str) -> str:
    """The folder nbgrader is installed in, in ``python``'s environment."""
    return subprocess.run(
        [python, "-c", "import os, nbgrader; print(os.path.dirname(os.path.dirname(nbgrader.__file__)))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


@pytest.fixture(name="hooks")
def hooks_fixture(monkeypatch):
    """classroom.grading.nbgrader_hooks, with nbgrader importable (the hub environment's, put last on the path)."""
    try:
        import nbgrader.api  # noqa: F401
    except ImportError:
        python = nbgrader_python()
        monkeypatch.setattr(sys, "path", [*sys.path, _site(python)])
        monkeypatch.setenv("PATH", f"{Path(python).parent}{os.pathsep}{os.environ['PATH']}")  # its alembic
    from classroom.grading import nbgrader_hooks

    return nbgrader_hooks


def gradebook_scores(course: Path) -> dict[str, float]:
    """student → the sum of their autograded points, read from nbgrader's gradebook in ``course`` (SQLite)."""
    import sqlite3

    with sqlite3.connect(Path(course) / "gradebook.db") as db:
        return dict(
            db.execute(
                "select s.student_id, sum(coalesce(g.auto_score, 0)) from grade g join submitted_notebook n "
                "on g.notebook_id = n.id join submitted_assignment s on n.assignment_id = s.id "
                "group by s.student_id"
            ).fetchall()
        )


def text_of(page: str) -> str:
    """A feedback page as the student reads it: no tags, entities decoded, spaces folded."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))
