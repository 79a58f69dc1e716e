"""The nbgrader exchange's root is writable by all but sticky, as classroom/grading/course.py says.

make_exchange's docstring: "The root is writable by all, as nbgrader requires, but sticky (1777), and the
course's folder exists from the start: no student can rename it, or make their own before the first
release". Checked on a folder of the test's own, so neither root nor a hub is needed (the set-up as root is
tests/classroom/test_grading_hubsetup.py's).
"""

from __future__ import annotations

import os
import stat

import pytest

from classroom.grading import course


def mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_the_exchange_root_is_sticky_and_writable_by_all(tmp_path):
    exchange = tmp_path / "exchange"
    course.make_exchange(exchange)
    assert mode(exchange) == 0o1777
    assert mode(exchange) & stat.S_ISVTX, "without the sticky bit any student may rename or remove the course folder"


def test_the_course_folder_is_made_at_once_and_only_its_owner_writes_it(tmp_path):
    exchange = tmp_path / "exchange"
    course.make_exchange(exchange)
    ours = exchange / course.COURSE_ID
    assert ours.is_dir() and not ours.is_symlink()
    assert mode(ours) == 0o755


def test_a_course_folder_made_as_a_link_beforehand_is_refused(tmp_path):
    exchange = tmp_path / "exchange"
    exchange.mkdir()
    (exchange / course.COURSE_ID).symlink_to(tmp_path)
    with pytest.raises(PermissionError, match="was not made by this course"):
        course.make_exchange(exchange)
