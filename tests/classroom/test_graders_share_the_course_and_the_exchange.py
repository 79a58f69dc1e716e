"""Who owns what after the hub's set-up (classroom/grading/hubsetup.py), each helper alone, on a folder of this
test's (root only: skipped without, failed under REQUIRE_HUB=1): ``share_with_graders`` gives every folder root
and the group, mode 2770, and every file 0660, leaving links alone; ``share_exchange`` makes the exchange's
course folder and nbgrader's three folders in nbgrader's groupshared modes and gives what was released to the
group (folders 2775, files 0664), leaving the students' submissions and feedback as they are; ``link_course``
puts ``~/layernorm-course`` in an instructor's home, theirs, keeps a right link, replaces a wrong one and
refuses to replace a file of theirs.
"""

from __future__ import annotations

import os
import pwd
import stat

import pytest

from classroom.grading import hubconfig, hubsetup

from hub_support import require_root

GID = 65534  # a group that is not root's: nogroup on Debian, nobody elsewhere


def mode(path) -> tuple[str, int, int]:
    info = os.lstat(path)
    return oct(stat.S_IMODE(info.st_mode)), info.st_uid, info.st_gid


@pytest.fixture(autouse=True)
def root():
    require_root()


def test_the_course_folder_and_everything_in_it_become_the_graders(tmp_path):
    course = tmp_path / "course"
    (course / "source" / "02_mean").mkdir(parents=True)
    (course / "source" / "02_mean" / "02_mean.ipynb").write_text("{}")
    (course / "gradebook.db").write_text("")
    os.chmod(course / "gradebook.db", 0o644)
    os.chown(course / "gradebook.db", 65534, 0)
    hubsetup.share_with_graders(course, GID)
    for folder in (course, course / "source", course / "source" / "02_mean"):
        assert mode(folder) == ("0o2770", 0, GID)  # setgid: what nbgrader makes later stays the group's
    for file in (course / "gradebook.db", course / "source" / "02_mean" / "02_mean.ipynb"):
        assert mode(file) == ("0o660", 0, GID)  # nothing for others


def test_a_link_in_the_course_folder_is_left_as_it_is_and_not_followed(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("not the course's")
    os.chmod(outside, 0o600)
    course = tmp_path / "course"
    course.mkdir()
    (course / "link").symlink_to(outside)
    hubsetup.share_with_graders(course, GID)
    assert mode(outside) == ("0o600", 0, 0)
    assert os.lstat(course / "link").st_gid == 0


def test_the_exchange_course_folder_and_its_three_folders_get_nbgraders_groupshared_modes(tmp_path):
    ours = tmp_path / "exchange" / "layernorm"
    ours.mkdir(parents=True)
    hubsetup.share_exchange(ours, GID)
    assert mode(ours) == ("0o2775", 0, GID)
    assert mode(ours / "outbound") == ("0o2775", 0, GID)  # released: everyone reads
    assert mode(ours / "inbound") == ("0o2773", 0, GID)  # everyone submits; only the graders list
    assert mode(ours / "feedback") == ("0o2771", 0, GID)  # found only by a name its student can compute
    assert sorted(p.name for p in ours.iterdir()) == ["feedback", "inbound", "outbound"]


def test_what_was_released_becomes_the_groups_and_the_students_files_are_left(tmp_path):
    ours = tmp_path / "exchange" / "layernorm"
    released = ours / "outbound" / "02_mean"
    released.mkdir(parents=True)
    (released / "02_mean.ipynb").write_text("{}")
    os.chmod(released, 0o755)
    os.chmod(released / "02_mean.ipynb", 0o644)
    submission = ours / "inbound" / "ana+02_mean+2026"
    submission.mkdir(parents=True)
    (submission / "02_mean.ipynb").write_text("{}")
    os.chown(submission, 65534, 65534)
    os.chmod(submission, 0o700)
    hubsetup.share_exchange(ours, GID)
    assert mode(released) == ("0o2775", 0, GID)
    assert mode(released / "02_mean.ipynb") == ("0o664", 0, GID)
    assert mode(submission) == ("0o700", 65534, 65534)  # a student's own, as nbgrader's submit left it


def test_a_second_share_keeps_what_the_exchange_holds(tmp_path):
    ours = tmp_path / "layernorm"
    ours.mkdir()
    hubsetup.share_exchange(ours, GID)
    (ours / "inbound" / "x").write_text("a submission")
    hubsetup.share_exchange(ours, GID)
    assert (ours / "inbound" / "x").read_text() == "a submission"


@pytest.fixture
def home(tmp_path, monkeypatch):
    """An instructor "teach" whose home is a folder of this test's."""
    folder = tmp_path / "home"
    folder.mkdir()
    entry = pwd.struct_passwd(("teach", "x", 4242, 4343, "", str(folder), "/bin/sh"))
    monkeypatch.setattr(pwd, "getpwnam", lambda name: entry if name == "teach" else pwd.getpwnam(name))
    return folder


def test_the_instructors_home_gets_a_link_to_the_course_that_is_theirs(home, tmp_path):
    course = tmp_path / "course"
    course.mkdir()
    hubsetup.link_course("teach", course)
    link = home / hubconfig.COURSE_LINK
    assert hubconfig.COURSE_LINK == "layernorm-course"
    assert os.readlink(link) == str(course)
    assert (os.lstat(link).st_uid, os.lstat(link).st_gid) == (4242, 4343)


def test_a_right_link_is_kept_and_a_wrong_one_replaced(home, tmp_path):
    course = tmp_path / "course"
    link = home / hubconfig.COURSE_LINK
    link.symlink_to(course)
    before = os.lstat(link)
    hubsetup.link_course("teach", course)
    assert os.lstat(link).st_ino == before.st_ino and os.lstat(link).st_uid == 0  # untouched
    link.unlink()
    link.symlink_to(tmp_path / "old-course")
    hubsetup.link_course("teach", course)
    assert os.readlink(link) == str(course)
    dangling = tmp_path / "gone"
    link.unlink()
    link.symlink_to(dangling)
    hubsetup.link_course("teach", course)
    assert os.readlink(link) == str(course)


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_a_file_or_folder_of_theirs_by_that_name_is_refused_and_left(home, tmp_path, kind):
    link = home / hubconfig.COURSE_LINK
    if kind == "file":
        link.write_text("my notes")
    else:
        link.mkdir()
    with pytest.raises(hubsetup.SetupError) as refused:
        hubsetup.link_course("teach", tmp_path / "course")
    assert str(refused.value) == (
        f"{link} exists and is not the course's link: rename it, so that the formgrader can use that name"
    )
    assert not link.is_symlink() and (link.read_text() == "my notes" if kind == "file" else link.is_dir())
