"""The course `run.py hub` sets up (classroom/grading/hubsetup.py), without a hub: its owners and modes,
a second start that keeps the gradebook and what was released, and an exchange folder someone else
made first, refused in one sentence. Needs root (it owns the course and makes the graders' group);
skipped without, failed under REQUIRE_HUB=1 (hub_support.require_root).
"""

from __future__ import annotations

import grp
import os
import stat
import sys

import pytest

from classroom.grading import course, hubsetup

from hub_support import require_root

pytestmark = pytest.mark.slow


def _mode(path) -> tuple[str, str, str]:
    info = os.stat(path)
    owner = "root" if info.st_uid == 0 else str(info.st_uid)
    return oct(stat.S_IMODE(info.st_mode)), owner, grp.getgrgid(info.st_gid).gr_name


def test_the_course_is_the_graders_and_a_second_start_keeps_it(tmp_path):
    require_root()
    tmp_path.chmod(0o755)
    grading = tmp_path / "grading"
    made = hubsetup.set_up(grading, sys.executable, [])
    assert _mode(made.folder) == ("0o2770", "root", hubsetup.GRADERS)  # instructors only; students not at all
    assert _mode(made.folder / "nbgrader_config.py")[1:] == ("root", hubsetup.GRADERS)
    assert _mode(made.exchange) == ("0o1777", "root", "root")  # sticky: nobody renames what is not theirs
    ours = made.exchange / course.COURSE_ID
    assert _mode(ours) == ("0o2775", "root", hubsetup.GRADERS)  # made before any student can; graders write
    assert _mode(ours / "inbound") == ("0o2773", "root", hubsetup.GRADERS)  # all submit; graders alone list
    assert _mode(ours / "outbound") == ("0o2775", "root", hubsetup.GRADERS)
    assert _mode(ours / "feedback") == ("0o2771", "root", hubsetup.GRADERS)  # found only by its hashed name
    assert (made.folder / "source" / "03_variance" / "03_variance.ipynb").is_file()
    (made.folder / "gradebook.db").write_bytes(b"grades")
    (made.exchange / course.COURSE_ID / "outbound" / "03_variance").mkdir(parents=True)
    again = hubsetup.set_up(grading, sys.executable, [])
    assert (again.folder / "gradebook.db").read_bytes() == b"grades"
    assert (again.exchange / course.COURSE_ID / "outbound" / "03_variance").is_dir()


def test_an_exchange_folder_someone_else_made_is_refused(tmp_path):
    require_root()
    tmp_path.chmod(0o755)
    exchange = tmp_path / "grading" / "exchange"
    (exchange / course.COURSE_ID).mkdir(parents=True)
    os.chown(exchange / course.COURSE_ID, 65534, 65534)  # a student's (nobody's) folder, there first
    with pytest.raises(PermissionError, match=r"was not made by this course: remove it and set the course up"):
        hubsetup.set_up(tmp_path / "grading", sys.executable, [])


def test_instructors_join_the_graders_and_a_former_one_leaves(tmp_path):
    """The class list's instructors are put in the graders' group, a student who was one is taken out,
    and members another hub put there stay."""
    require_root()
    from classroom.hub import accounts

    tmp_path.chmod(0o755)
    names = ("grd-hs-teach", "grd-hs-former", "grd-hs-other")
    try:
        for name in names:
            accounts.ensure_student(name)
        hubsetup.graders_gid([])
        for name in names[1:]:
            hubsetup._run(["gpasswd", "--add", name, hubsetup.GRADERS])
        hubsetup.set_up(tmp_path / "grading", sys.executable, ["grd-hs-teach"], ["grd-hs-former"])
        members = set(grp.getgrnam(hubsetup.GRADERS).gr_mem)
        assert {"grd-hs-teach", "grd-hs-other"} <= members and "grd-hs-former" not in members
        link = f"{os.path.expanduser('~grd-hs-teach')}/layernorm-course"
        assert os.readlink(link) == str(tmp_path / "grading" / "course")  # where the formgrader finds it
    finally:
        for name in names:
            accounts.remove_student(name)
