"""The graders' group (classroom/grading/hubsetup.py, ``graders_gid``), with the system's group database and
commands stood in for: made (as a system group) only when missing; each instructor not yet in it added, each
listed student in it taken out, nobody else touched (another hub may have put them there); its gid returned.
"""

from __future__ import annotations

import grp

import pytest

from classroom.grading import hubsetup


@pytest.fixture
def system(monkeypatch):
    """A group database of one mutable group (or none), and the commands run against it."""
    state = {"members": None, "commands": []}

    def getgrnam(name):
        assert name == hubsetup.GRADERS == "layernorm-graders"
        if state["members"] is None:
            raise KeyError(name)
        return grp.struct_group((name, "x", 777, list(state["members"])))

    def run(command):
        state["commands"].append(command)
        if command[0] == "groupadd":
            state["members"] = []
        elif command[1] == "--add":
            state["members"].append(command[2])
        elif command[1] == "--delete":
            state["members"].remove(command[2])

    monkeypatch.setattr(hubsetup.grp, "getgrnam", getgrnam)
    monkeypatch.setattr(hubsetup, "_run", run)
    return state


def test_a_missing_group_is_made_as_a_system_group_and_the_instructors_added(system):
    assert hubsetup.graders_gid(["teach", "ta"]) == 777
    assert system["commands"] == [
        ["groupadd", "--system", "layernorm-graders"],
        ["gpasswd", "--add", "teach", "layernorm-graders"],
        ["gpasswd", "--add", "ta", "layernorm-graders"],
    ]


def test_an_existing_group_is_kept_and_members_already_in_it_not_added_again(system):
    system["members"] = ["teach", "other-hubs"]
    assert hubsetup.graders_gid(["teach", "ta"]) == 777
    assert system["commands"] == [["gpasswd", "--add", "ta", "layernorm-graders"]]
    assert system["members"] == ["teach", "other-hubs", "ta"]


def test_a_student_who_was_an_instructor_is_taken_out_and_other_students_untouched(system):
    system["members"] = ["former", "other-hubs"]
    hubsetup.graders_gid([], ["former", "ana"])
    assert system["commands"] == [["gpasswd", "--delete", "former", "layernorm-graders"]]
    assert system["members"] == ["other-hubs"]


def test_no_instructors_and_no_students_changes_nothing(system):
    system["members"] = ["someone"]
    assert hubsetup.graders_gid([]) == 777
    assert system["commands"] == [] and system["members"] == ["someone"]
