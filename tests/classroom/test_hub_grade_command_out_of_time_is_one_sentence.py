"""``run.py hub-grade``'s promise (classroom/grading/cli.py): every failure is one sentence on stderr and exit
status 1. An nbgrader command that runs past its time (cycle.Course.nbgrader's timeout: an autograde of a
large class whose answers loop until their limits) is such a failure: one sentence naming the command and
its limit, not a traceback.
"""

from __future__ import annotations

import os
import subprocess
import sys

from classroom.grading import cli, hubsetup


class SlowCourse:
    folder = None

    def feedback(self, step):
        raise subprocess.TimeoutExpired(
            [sys.executable, "-m", "nbgrader", "generate_feedback", "02_mean", "--force"], 900
        )


def test_a_command_out_of_time_is_one_sentence_and_exit_status_1(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    (tmp_path / "grading" / "course").mkdir(parents=True)
    (tmp_path / "grading" / "course" / "nbgrader_config.py").write_text("c = get_config()  # noqa: F821\n")
    monkeypatch.setattr(hubsetup, "course_for", lambda grading, python, class_list=None: SlowCourse())
    assert cli.main(["--state", str(tmp_path), "feedback", "02"]) == 1
    said = capsys.readouterr()
    assert said.out == ""
    assert said.err == "error: `nbgrader generate_feedback 02_mean --force` did not finish within 900 s.\n"
