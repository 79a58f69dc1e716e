"""``hubsetup.set_up`` (classroom/grading/hubsetup.py) with each part stood in for: the grading folder made and
open to all to enter (0755), the course set up with this Python, the graders' group from the class list's
instructors and students, the course folder and the exchange's course folder shared with that group (in that
order, after the course exists), the servers' Jupyter configuration written in ``grading/jupyter`` for this
exchange and course, and a link in each instructor's home; the course returned.
"""

from __future__ import annotations

import stat

from classroom.grading import hubconfig, hubsetup


def test_set_up_wires_each_part_in_order(tmp_path, monkeypatch):
    calls = []
    grading = tmp_path / "grading"

    class Course:
        folder = grading / "course"
        exchange = grading / "exchange"

        def set_up(self):
            calls.append(("set_up",))

    made = Course()

    def course_for(where, python, class_list=None):
        calls.append(("course_for", where, python, class_list))
        return made

    monkeypatch.setattr(hubsetup, "course_for", course_for)
    monkeypatch.setattr(hubsetup, "graders_gid", lambda i, s: calls.append(("gid", i, s)) or 777)
    monkeypatch.setattr(hubsetup, "share_with_graders", lambda folder, gid: calls.append(("share", folder, gid)))
    monkeypatch.setattr(hubsetup, "share_exchange", lambda ours, gid: calls.append(("exchange", ours, gid)))
    monkeypatch.setattr(hubconfig, "write", lambda folder, ex, course: calls.append(("jupyter", folder, ex, course)))
    monkeypatch.setattr(hubsetup, "link_course", lambda name, folder: calls.append(("link", name, folder)))
    returned = hubsetup.set_up(grading, "/opt/hub/python", ["teach", "ta"], ["ana"])
    assert returned is made
    assert stat.S_IMODE(grading.stat().st_mode) == 0o755
    assert calls == [
        ("course_for", grading, "/opt/hub/python", None),
        ("set_up",),
        ("gid", ["teach", "ta"], ["ana"]),
        ("share", grading / "course", 777),
        ("exchange", grading / "exchange" / "layernorm", 777),
        ("jupyter", grading / "jupyter", grading / "exchange", grading / "course"),
        ("link", "teach", grading / "course"),
        ("link", "ta", grading / "course"),
    ]


def test_the_judge_is_nobody_and_the_graders_group_is_layernorm_graders():
    assert (hubsetup.JUDGE_USER, hubsetup.GRADERS) == ("nobody", "layernorm-graders")
