"""The nbgrader course's folders and configuration files (classroom/grading/course.py), without a hub
and without root: the modes of the course and the exchange, an exchange course folder that is a link
refused in one sentence, the grading code copied without lecturer/, and the two nbgrader_config.py
files as nbgrader's own config loader reads them (in the environment with nbgrader; skipped without).
A course folder someone else owns is refused too: that needs root (test_grading_hubsetup).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
from grading_support import python_fixture  # noqa: F401 — the fixture `python`

from classroom.grading import course

ROOT = Path(__file__).resolve().parents[2]


def _mode(path: Path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_the_exchange_is_sticky_and_writable_by_all_and_its_course_folder_readable_by_all(tmp_path):
    exchange = tmp_path / "state" / "exchange"
    course.make_exchange(exchange)
    assert sorted(p.name for p in exchange.iterdir()) == ["layernorm"]
    assert (_mode(exchange), _mode(exchange / "layernorm")) == (0o1777, 0o755)
    (exchange / "layernorm" / "outbound").mkdir()
    (exchange / "layernorm").chmod(0o700)
    exchange.chmod(0o755)
    course.make_exchange(exchange)  # a second start: the same modes, what was released kept
    assert (_mode(exchange), _mode(exchange / "layernorm")) == (0o1777, 0o755)
    assert (exchange / "layernorm" / "outbound").is_dir()


def test_a_link_in_place_of_the_exchanges_course_folder_is_refused_and_left(tmp_path):
    exchange, elsewhere = tmp_path / "exchange", tmp_path / "elsewhere"
    exchange.mkdir()
    elsewhere.mkdir()
    (exchange / "layernorm").symlink_to(elsewhere)
    before = _mode(elsewhere)
    with pytest.raises(PermissionError) as refused:
        course.make_exchange(exchange)
    ours = exchange / "layernorm"
    assert str(refused.value) == f"{ours} was not made by this course: remove it and set the course up again"
    assert os.readlink(ours) == str(elsewhere) and _mode(elsewhere) == before


def test_a_dangling_link_in_place_of_the_course_folder_is_refused_too(tmp_path):
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    (exchange / "layernorm").symlink_to(tmp_path / "nowhere")
    with pytest.raises(PermissionError, match="was not made by this course"):
        course.make_exchange(exchange)
    assert not (tmp_path / "nowhere").exists()


def test_the_course_folder_is_its_owners_alone_and_keeps_what_it_holds(tmp_path):
    folder = tmp_path / "state" / "course"
    course.make_course(folder)
    assert _mode(folder) == 0o700
    (folder / "gradebook.db").write_bytes(b"grades")
    folder.chmod(0o755)
    course.make_course(folder)
    assert _mode(folder) == 0o700 and (folder / "gradebook.db").read_bytes() == b"grades"


def _files(top: Path) -> dict[str, bytes]:
    return {
        p.relative_to(top).as_posix(): p.read_bytes()
        for p in top.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc"
    }


def test_the_grading_code_is_helpers_data_and_classroom_grading_readable_by_all(tmp_path):
    dest = tmp_path / "grading-code"
    (dest / "lecturer").mkdir(parents=True)
    (dest / "lecturer" / "solutions.py").write_text("stale")  # an older copy's file: gone
    assert course.install_code(dest) == dest
    expected = {}
    for part in ("helpers", "data", "classroom/grading"):
        expected |= {f"{part}/{name}": data for name, data in _files(ROOT / part).items()}
    expected["classroom/__init__.py"] = (ROOT / "classroom" / "__init__.py").read_bytes()
    copied = _files(dest)
    assert sorted(copied) == sorted(expected) and copied == expected
    assert sorted(p.name for p in dest.iterdir()) == ["classroom", "data", "helpers"]
    assert sorted(p.name for p in (dest / "classroom").iterdir()) == ["__init__.py", "grading"]
    assert not list(dest.rglob("__pycache__")) and not list(dest.rglob("*.pyc"))
    for path in [dest, *dest.rglob("*")]:
        assert _mode(path) == (0o755 if path.is_dir() else 0o644), path


def test_the_grading_code_is_readable_by_all_whatever_the_sources_modes(tmp_path, monkeypatch):
    source = tmp_path / "repo"
    for part in course.GRADING_CODE:
        target = source / part
        if part.endswith(".py"):
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("")
            target.chmod(0o600)
        else:
            (target / "inner").mkdir(parents=True)
            (target / "inner" / "module.py").write_text("x = 1\n")
            (target / "inner" / "module.py").chmod(0o700)
            (target / "inner").chmod(0o700)
    for compiled in ("helpers/__pycache__/module.cpython-311.pyc", "helpers/inner/old.pyc", "data/inner/__pycache__"):
        (source / compiled).parent.mkdir(parents=True, exist_ok=True)
        (source / compiled).write_bytes(b"compiled")
    monkeypatch.setattr(course, "ROOT", source)
    dest = course.install_code(tmp_path / "not made yet" / "code")
    modes = {p.relative_to(dest).as_posix(): _mode(p) for p in [dest, *dest.rglob("*")]}
    assert sorted(modes) == [
        ".", "classroom", "classroom/__init__.py", "classroom/grading", "classroom/grading/inner",
        "classroom/grading/inner/module.py", "data", "data/inner", "data/inner/module.py", "helpers", "helpers/inner",
        "helpers/inner/module.py",
    ]  # fmt: skip
    assert modes["."] == modes["helpers/inner"] == modes["classroom/grading"] == 0o755
    assert modes["classroom/__init__.py"] == modes["data/inner/module.py"] == 0o644
    assert set(modes.values()) == {0o755, 0o644}


LOAD = """
import json, sys
from traitlets.config.loader import PyFileConfigLoader
from nbgrader.converters.autograde import Autograde
path = sys.argv[1]
config = PyFileConfigLoader(path.rsplit("/", 1)[1], path.rsplit("/", 1)[0]).load_config()
names = lambda items: [getattr(i, "__name__", i) for i in items]
out = {section: {key: (names(value) if isinstance(value, list) else value) for key, value in values.items()}
       for section, values in config.items()}
grade_cells = config.get("Autograde", {}).get("autograde_preprocessors", [None])[0]
out["_"] = {"sys.path[0]": sys.path[0], "GradeCells from": getattr(sys.modules.get(getattr(grade_cells, "__module__", "")), "__file__", None),
            "nbgrader's": names(Autograde().autograde_preprocessors)}
print(json.dumps(out))
"""


def _loaded(python: str, path: Path) -> dict:
    done = subprocess.run([python, "-c", LOAD, str(path)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-1500:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("groupshared", [False, True])
def test_nbgrader_reads_the_course_configuration(tmp_path, python, groupshared):
    """As nbgrader's config loader reads it: the course, its exchange without the course in its path, the
    series' stub, our grader in place of nbgrader's Execute (from the installed grading code) and its settings."""
    folder, exchange = tmp_path / "the course", tmp_path / "exch'ange"
    code = course.install_code(tmp_path / "code")
    path = folder / "nbgrader_config.py"
    folder.mkdir()
    path.write_text(
        course.config_text(folder, exchange, code, python="/opt/py/bin/python", user="nobody", groupshared=groupshared)
    )
    seen = _loaded(python, path)
    extra = seen.pop("_")
    assert seen == {
        "CourseDirectory": {"course_id": "layernorm", "root": str(folder), "groupshared": groupshared},
        "Exchange": {"root": str(exchange), "path_includes_course": False},
        "ClearSolutions": {"code_stub": {"python": "raise NotImplementedError"}},
        "Autograde": {"autograde_preprocessors": ["GradeCells" if n == "Execute" else n for n in extra["nbgrader's"]]},
        "GradeCells": {"python": "/opt/py/bin/python", "user": "nobody", "course_root": str(folder)},
    }
    assert extra["sys.path[0]"] == str(code)
    assert extra["GradeCells from"] == str(code / "classroom" / "grading" / "nbgrader_hooks.py")


@pytest.mark.slow
def test_the_course_configuration_defaults_to_nbgraders_python_root_and_no_sharing(tmp_path, python):
    folder = tmp_path / "course"
    folder.mkdir()
    (folder / "nbgrader_config.py").write_text(course.config_text(folder, tmp_path / "x", ROOT))
    seen = _loaded(python, folder / "nbgrader_config.py")
    assert seen["GradeCells"] == {"python": "", "user": "", "course_root": str(folder)}
    assert seen["CourseDirectory"]["groupshared"] is False


@pytest.mark.slow
def test_each_students_server_reads_the_course_and_the_exchange_only(tmp_path, python):
    path = tmp_path / "etc" / "nbgrader_config.py"
    path.parent.mkdir()
    path.write_text(course.student_config_text(tmp_path / "the exchange"))
    seen = _loaded(python, path)
    seen.pop("_")
    assert seen == {
        "CourseDirectory": {"course_id": "layernorm"},
        "Exchange": {"root": str(tmp_path / "the exchange"), "path_includes_course": False},
    }
