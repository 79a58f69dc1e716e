"""The two Jupyter configuration folders the hub puts first on each server's JUPYTER_CONFIG_PATH
(classroom/grading/hubconfig.py), read as files: which nbgrader parts each role has on, the nbgrader
settings each reads (executed as Jupyter does, with a ``get_config``), the modes (readable by every
server's account) and the path each role's server gets. Fast; the real servers read them in
test_grading_hubconfig.
"""

from __future__ import annotations

import json
import locale
import os
import stat
from pathlib import Path

import pytest
from traitlets.config import Config

from classroom.grading import hubconfig

STAFF_SERVER = ["nbgrader.server_extensions.formgrader", "nbgrader.server_extensions.course_list"]
EVERYONE_SERVER = ["nbgrader.server_extensions.assignment_list", "nbgrader.server_extensions.validate_assignment"]
STAFF_LAB = ["nbgrader:formgrader", "nbgrader:course-list", "nbgrader:create-assignment"]


def _written(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    folder, exchange, course = tmp_path / "jupyter", tmp_path / "srv" / "exchange", tmp_path / "srv" / "course"
    students, instructors = hubconfig.write(folder, exchange, course)
    return folder, students, instructors, exchange


def _json(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    assert text.endswith("}\n")
    return json.loads(text)


def _nbgrader_settings(path: Path, home: Path, monkeypatch) -> dict:
    monkeypatch.setenv("HOME", str(home))
    config = Config()
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), {"get_config": lambda: config})
    return {section: dict(values) for section, values in config.items()}


def test_the_two_folders_are_written_and_returned(tmp_path):
    folder, students, instructors, _ = _written(tmp_path)
    assert (students, instructors) == (folder / "students", folder / "instructors")
    for role in (students, instructors):
        files = sorted(p.relative_to(role).as_posix() for p in role.rglob("*"))
        assert files == ["jupyter_server_config.json", "labconfig", "labconfig/page_config.json", "nbgrader_config.py"]


def test_students_have_the_assignment_list_and_validate_and_none_of_the_staffs_parts(tmp_path):
    _, students, _, _ = _written(tmp_path)
    server = {name: False for name in STAFF_SERVER} | {name: True for name in EVERYONE_SERVER}
    assert _json(students / "jupyter_server_config.json") == {"ServerApp": {"jpserver_extensions": server}}
    assert _json(students / "labconfig" / "page_config.json") == {"disabledExtensions": dict.fromkeys(STAFF_LAB, True)}


def test_instructors_have_every_part(tmp_path):
    _, _, instructors, _ = _written(tmp_path)
    server = dict.fromkeys(STAFF_SERVER + EVERYONE_SERVER, True)
    assert _json(instructors / "jupyter_server_config.json") == {"ServerApp": {"jpserver_extensions": server}}
    assert _json(instructors / "labconfig" / "page_config.json") == {
        "disabledExtensions": dict.fromkeys(STAFF_LAB, False)
    }


def test_a_students_nbgrader_has_the_course_and_the_exchange_but_no_course_folder(tmp_path, monkeypatch):
    _, students, _, exchange = _written(tmp_path)
    settings = _nbgrader_settings(students / "nbgrader_config.py", tmp_path / "home" / "ana", monkeypatch)
    assert settings == {"CourseDirectory": {"course_id": "layernorm"}, "Exchange": {"root": str(exchange)}}


def test_an_instructors_nbgrader_has_the_course_folder_through_the_link_in_their_home(tmp_path, monkeypatch):
    _, _, instructors, exchange = _written(tmp_path)
    home = tmp_path / "home" / "teach"
    settings = _nbgrader_settings(instructors / "nbgrader_config.py", home, monkeypatch)
    assert settings == {
        "CourseDirectory": {"course_id": "layernorm", "root": str(home / "layernorm-course")},
        "Exchange": {"root": str(exchange)},
    }
    last = (instructors / "nbgrader_config.py").read_text(encoding="utf-8").splitlines()[-1]
    assert last.endswith(f"# -> {tmp_path / 'srv' / 'course'}")  # where the link leads, for whoever reads it


def test_every_server_can_read_them_and_nobody_but_root_change_them(tmp_path):
    folder, students, instructors, _ = _written(tmp_path)
    modes = {p.relative_to(tmp_path).as_posix(): stat.S_IMODE(os.stat(p).st_mode) for p in [folder, *folder.rglob("*")]}
    folders = {"jupyter"} | {f"jupyter/{r}" for r in ("students", "instructors")}
    folders |= {f"jupyter/{r}/labconfig" for r in ("students", "instructors")}
    assert {k for k, v in modes.items() if v == 0o755} == folders
    assert {k for k, v in modes.items() if v != 0o755} == {k for k in modes if k not in folders}
    assert set(modes[k] for k in modes if k not in folders) == {0o644}


def test_the_modes_are_set_whatever_the_umask(tmp_path):
    before = os.umask(0o077)
    try:
        folder, _, _, _ = _written(tmp_path)
    finally:
        os.umask(before)
    modes = {stat.S_IMODE(os.stat(p).st_mode) for p in [folder, *folder.rglob("*")]}
    assert modes == {0o755, 0o644}


def test_a_second_write_rewrites_them(tmp_path):
    folder, students, _, _ = _written(tmp_path)
    (students / "nbgrader_config.py").write_text("c.Exchange.root = '/elsewhere'\n")
    (students / "jupyter_server_config.json").write_text("{}")
    _written(tmp_path)
    assert "/elsewhere" not in (students / "nbgrader_config.py").read_text()
    assert _json(students / "jupyter_server_config.json") != {}


def test_an_instructors_server_reads_their_folder_first_then_the_students(tmp_path):
    folder = tmp_path / "jupyter"
    assert hubconfig.config_path(folder, True) == f"{folder}/instructors:{folder}/students"
    assert hubconfig.config_path(folder, False) == f"{folder}/students"


@pytest.fixture
def c_locale():
    """The C locale (ASCII) for this process's text files, as a hub started without LANG has."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    yield
    locale.setlocale(locale.LC_CTYPE, before)


def test_a_hub_folder_with_accents_is_written_in_utf_8_whatever_the_locale(tmp_path, monkeypatch, c_locale):
    folder, exchange, course = tmp_path / "jupyter", tmp_path / "échange", tmp_path / "cours é"
    students, instructors = hubconfig.write(folder, exchange, course)
    locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
    home = tmp_path / "home"
    for role in (students, instructors):
        assert _nbgrader_settings(role / "nbgrader_config.py", home, monkeypatch)["Exchange"] == {"root": str(exchange)}
    assert (instructors / "nbgrader_config.py").read_text(encoding="utf-8").endswith(f"# -> {course}\n")
