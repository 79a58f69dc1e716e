"""The hub's home (classroom/hub/install.py): "Students' servers run as their own Unix users, so the Python they
run, and every package in it, must be readable and executable by everyone." A home folder that exists already
closed (mode 700, as a careful administrator or a restored backup leaves it) is opened to 755 before it is
checked, and a second start with the same pins then installs nothing; a home inside a folder others cannot
enter is refused in one sentence, before anything is made. No install runs here: the stamp says it was done.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from classroom.hub import install
from classroom.hub.install import InstallError


@pytest.fixture
def open_folder(monkeypatch):
    """A folder every user can enter (pytest's own are mode 700), with pins of its own; removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="layernorm-home-test-", dir="/tmp"))
    folder.chmod(0o755)
    pins = folder / "requirements-hub.txt"
    pins.write_text("jupyterhub==5.0\n", encoding="utf-8")
    monkeypatch.setattr(install, "REQUIREMENTS", pins)
    mask = os.umask(0o022)
    yield folder
    os.umask(mask)
    shutil.rmtree(folder, ignore_errors=True)


def installed(home: Path) -> Path:
    """A home whose venv was installed from the current pins (its python and its stamp)."""
    python = install.venv_python(home)
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n", encoding="utf-8")
    python.chmod(0o755)
    (home / "venv" / ".installed-requirements.sha256").write_text(install._digest([install.REQUIREMENTS]) + "\n")
    return python


def test_a_closed_home_is_opened_to_every_user_and_nothing_is_installed_again(open_folder, monkeypatch):
    home = open_folder / "hub"
    python = installed(home)
    home.chmod(0o700)
    monkeypatch.setattr(install, "system_python", lambda: pytest.fail("a second start made a new environment"))
    said = []
    assert install.ensure_python_env(home, said.append) == python
    assert stat.S_IMODE(home.stat().st_mode) == 0o755 and said == []


def test_a_home_inside_a_closed_folder_is_refused_in_one_sentence_before_anything_is_made(open_folder):
    closed = open_folder / "root-only"
    closed.mkdir(mode=0o700)
    closed.chmod(0o700)
    home = closed / "hub"
    with pytest.raises(InstallError) as caught:
        install.ensure_python_env(home, lambda message: None)
    assert str(caught.value) == (
        f"{home} is inside a folder other users cannot enter: choose another LAYERNORM_HUB_HOME"
    )
    assert not (home / "venv").exists() and not (home / "pip-install.log").exists()
