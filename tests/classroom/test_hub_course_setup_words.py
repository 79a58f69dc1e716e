"""The hub-free parts of the course's set-up (classroom/grading/hubsetup.py): the course the hub grades
(its Python, the judge as nobody, the graders' group, the class list), a failed system command in one
sentence, and ``python -m classroom.grading.hubsetup``'s usage and refusals. What needs root (the
graders' group, the owners and modes, the instructors' links) is tested in test_grading_hubsetup. Fast.
"""

from __future__ import annotations

import os
import shutil
import sys

import pytest

from classroom.grading import hubsetup


def test_the_hubs_course_is_graded_by_its_python_as_nobody_for_the_graders(tmp_path):
    made = hubsetup.course_for(tmp_path / "grading", "/opt/hub/bin/python")
    assert (made.state, made.folder) == (tmp_path / "grading", tmp_path / "grading" / "course")
    assert (made.python, made.judge_python, made.judge_user) == ("/opt/hub/bin/python",) * 2 + ("nobody",)
    assert made.group == "layernorm-graders"
    assert made.students is None  # no class list: every submission is graded


def test_with_a_class_list_its_students_and_instructors_are_the_class(tmp_path):
    class_list = tmp_path / "students.txt"
    class_list.write_text("# the class\nana\nteach instructor\nbo  # late joiner\n", encoding="utf-8")
    made = hubsetup.course_for(tmp_path / "grading", "/py", str(class_list))
    assert made.students == frozenset({"ana", "bo", "teach"})


def test_a_failed_system_command_is_one_sentence_with_its_last_line(tmp_path):
    with pytest.raises(hubsetup.SetupError) as failed:
        hubsetup._run(
            ["sh", "-c", "echo out; echo 1 >&2; echo 2 >&2; echo 'gpasswd: user x does not exist' >&2; exit 3"]
        )
    assert str(failed.value) == (
        "`sh -c echo out; echo 1 >&2; echo 2 >&2; echo 'gpasswd: user x does not exist' >&2; exit 3` failed: "
        "gpasswd: user x does not exist"
    )


def test_a_failed_command_silent_on_stderr_gives_its_output_and_a_silent_one_says_so():
    with pytest.raises(hubsetup.SetupError) as failed:
        hubsetup._run(["sh", "-c", "echo first; echo second; echo 'the last word'; exit 1"])
    assert str(failed.value).endswith("` failed: the last word")
    with pytest.raises(hubsetup.SetupError) as failed:
        hubsetup._run(["false"])
    assert str(failed.value) == "`false` failed: no reason given"


def test_a_command_that_succeeds_says_nothing(capfd):
    assert hubsetup._run(["sh", "-c", "echo done; echo warned >&2"]) is None
    assert capfd.readouterr() == ("", "")


@pytest.mark.parametrize("argv", [[], ["STATE/grading"], ["a", "b", "c"]])
def test_it_takes_the_grading_folder_and_the_class_list(argv, capsys):
    assert hubsetup.main(argv) == 2
    said = capsys.readouterr()
    assert said.err == "usage: python -m classroom.grading.hubsetup STATE/grading STATE/students.txt\n"
    assert said.out == ""


def test_without_root_nothing_is_set_up(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert hubsetup.main([str(tmp_path / "grading"), str(tmp_path / "students.txt")]) == 1
    assert capsys.readouterr().err == "error: the course is set up as root, on a machine with gpasswd\n"
    assert list(tmp_path.iterdir()) == []


def test_without_gpasswd_nothing_is_set_up(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda name: None if name == "gpasswd" else "/usr/bin/" + name)
    assert hubsetup.main([str(tmp_path / "grading"), str(tmp_path / "students.txt")]) == 1
    assert capsys.readouterr().err == "error: the course is set up as root, on a machine with gpasswd\n"
    assert list(tmp_path.iterdir()) == []


def test_a_missing_class_list_is_one_sentence_and_nothing_is_set_up(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/sbin/" + name)
    class_list = tmp_path / "students.txt"
    assert hubsetup.main([str(tmp_path / "grading"), str(class_list)]) == 1
    assert capsys.readouterr().err == f"error: the class list {class_list} does not exist\n"
    assert list(tmp_path.iterdir()) == []


def test_the_class_lists_instructors_and_students_are_set_up_with_this_python(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/sbin/" + name)
    seen = []
    monkeypatch.setattr(hubsetup, "set_up", lambda *args: seen.append(args))  # root's work: test_grading_hubsetup
    class_list = tmp_path / "students.txt"
    class_list.write_text("ana\nteach instructor\nbo\nhead instructor\n", encoding="utf-8")
    assert hubsetup.main([str(tmp_path / "grading"), str(class_list)]) == 0
    assert seen == [(tmp_path / "grading", sys.executable, ["teach", "head"], ["ana", "bo"])]
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize("error", [hubsetup.SetupError("`groupadd` failed: no"), PermissionError("not yours")])
def test_a_set_up_that_fails_is_one_sentence_and_exit_status_1(tmp_path, monkeypatch, capsys, error):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/sbin/" + name)

    def fail(*args):
        raise error

    monkeypatch.setattr(hubsetup, "set_up", fail)
    (tmp_path / "students.txt").write_text("ana\n", encoding="utf-8")
    assert hubsetup.main([str(tmp_path / "grading"), str(tmp_path / "students.txt")]) == 1
    assert capsys.readouterr().err == f"error: {error}\n"
