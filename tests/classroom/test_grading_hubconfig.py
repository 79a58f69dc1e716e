"""Who gets which part of nbgrader: the configuration folders the hub puts first on each server's
JUPYTER_CONFIG_PATH (classroom/grading/hubconfig.py), read by the real jupyter_server and
jupyterlab_server of an environment with nbgrader 0.9.6 (whose own files enable every part for
everyone). Students: the assignment list and validate, no formgrader, course list or "create
assignment"; instructors: all of them. No root, no hub; skipped where no nbgrader is installed.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest
from grading_support import python_fixture  # noqa: F401 — the fixture `python`

from classroom.grading import hubconfig

pytestmark = pytest.mark.slow

PROBE = """
import json, logging, os
from jupyter_core.paths import jupyter_config_path
from jupyter_server.serverapp import ServerApp
from jupyterlab_server.config import get_page_config
app = ServerApp()
app.initialize(argv=["--port=0", "--ServerApp.open_browser=False", "--ServerApp.root_dir=" + os.getcwd()],
               new_httpserver=False)
lab = get_page_config([os.path.join(p, "labconfig") for p in jupyter_config_path()], logger=logging.getLogger())
from nbgrader.apps import NbGrader
config = NbGrader()
config.load_config_file()
print(json.dumps({"server": {k: v for k, v in app.jpserver_extensions.items() if "nbgrader" in k},
                  "lab_disabled": sorted(lab.get("disabledExtensions") or []),
                  "course_root": str(config.config.CourseDirectory.get("root", "")),
                  "exchange": str(config.config.Exchange.get("root", ""))}))
"""


def _seen(python: str, tmp_path, config_path: str) -> dict:
    env = {
        **os.environ,
        "JUPYTER_CONFIG_PATH": config_path,
        "JUPYTER_RUNTIME_DIR": str(tmp_path / "run"),
        "HOME": str(tmp_path / "home"),
    }
    done = subprocess.run([python, "-c", PROBE], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-800:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_students_get_the_assignment_list_and_instructors_the_formgrader(tmp_path, python):
    exchange, course = tmp_path / "exchange", tmp_path / "course"
    hubconfig.write(tmp_path / "jupyter", exchange, course)
    student = _seen(python, tmp_path, hubconfig.config_path(tmp_path / "jupyter", instructor=False))
    assert student["server"] == {
        "nbgrader.server_extensions.formgrader": False,
        "nbgrader.server_extensions.course_list": False,
        "nbgrader.server_extensions.assignment_list": True,
        "nbgrader.server_extensions.validate_assignment": True,
    }
    assert student["lab_disabled"] == sorted(hubconfig.STAFF_LAB)
    assert student["exchange"] == str(exchange) and student["course_root"] == ""
    instructor = _seen(python, tmp_path, hubconfig.config_path(tmp_path / "jupyter", instructor=True))
    assert set(instructor["server"].values()) == {True} and len(instructor["server"]) == 4
    assert instructor["lab_disabled"] == []
    assert instructor["course_root"] == str(tmp_path / "home" / hubconfig.COURSE_LINK)  # the link to the course
