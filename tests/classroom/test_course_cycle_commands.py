"""The lecturer's cycle as commands (classroom/grading/cycle.py), without nbgrader's work: which nbgrader
command each step runs, in which folder, with which Python and umask, what a failed command says (one
sentence: the command and its last line), a second release refused before any command runs, and the
screening before autograde: strangers' submissions set aside, unreadable notebooks kept beside a stand-in
that carries their sentence. nbgrader is replaced by a recording stand-in for the Python (the commands
are classroom/README.md's); the real nbgrader runs them in test_grading_nbgrader. Fast, no root.
"""

from __future__ import annotations

import csv
import json
import locale
import os
import sys
from pathlib import Path

import pytest

from classroom.grading import cycle, plan

STAND_IN = f"""#!{sys.executable}
import json, os, sys, time
args = sys.argv[1:]
mask = os.umask(0)
with open(os.environ["STAND_IN_LOG"], "a") as log:
    log.write(json.dumps({{"args": args, "cwd": os.getcwd(), "path": os.environ["PATH"], "umask": mask}}) + "\\n")
if os.environ.get("STAND_IN_SLEEP"):
    time.sleep(float(os.environ["STAND_IN_SLEEP"]))
if "--to" in args:
    with open(args[args.index("--to") + 1], "w") as out:
        out.write(os.environ.get("STAND_IN_CSV", "assignment,student_id,score\\n"))
sys.stderr.write(os.environ.get("STAND_IN_SAYS", ""))
sys.exit(int(os.environ.get("STAND_IN_EXIT", "0")))
"""


@pytest.fixture
def nbgrader(tmp_path, monkeypatch):
    """The stand-in Python (``python -m nbgrader ARGS`` records ARGS) and what it recorded."""
    python = tmp_path / "env" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(STAND_IN)
    python.chmod(0o755)
    log = tmp_path / "commands.jsonl"
    monkeypatch.setenv("STAND_IN_LOG", str(log))

    def recorded() -> list[dict]:
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    return str(python), recorded


def _course(tmp_path: Path, python: str, **options) -> cycle.Course:
    made = cycle.Course(tmp_path / "state", python, **options)
    made.folder.mkdir(parents=True)
    return made


def test_a_course_is_its_state_folders_and_who_grades_it(tmp_path):
    made = cycle.Course(
        str(tmp_path), "/py", judge_python="/judge", judge_user="nobody", group="g", students=["b", "a"]
    )
    assert (made.state, made.folder, made.exchange, made.code) == (
        tmp_path,
        tmp_path / "course",
        tmp_path / "exchange",
        tmp_path / "grading-code",
    )
    assert (made.python, made.judge_python, made.judge_user, made.group) == ("/py", "/judge", "nobody", "g")
    assert made.students == frozenset({"a", "b"})
    plain = cycle.Course(tmp_path, "/py")
    assert (plain.judge_python, plain.judge_user, plain.group, plain.students) == ("", "", "", None)
    assert cycle.Course(tmp_path, "/py", students=()).students == frozenset()


def test_each_step_is_its_nbgrader_command_in_the_course_folder(tmp_path, nbgrader):
    python, recorded = nbgrader
    made = _course(tmp_path, python)
    assert made.generate("std") == made.folder / "release" / "04_epsilon_and_std" / "04_epsilon_and_std.ipynb"
    made.release("std")
    made.collect("std")
    assert made.autograde("std") == {}
    made.feedback("std")
    assert [r["args"] for r in recorded()] == [
        ["-m", "nbgrader", "generate_assignment", "04_epsilon_and_std", "--force"],
        ["-m", "nbgrader", "release_assignment", "04_epsilon_and_std"],
        ["-m", "nbgrader", "collect", "04_epsilon_and_std", "--update"],
        ["-m", "nbgrader", "autograde", "04_epsilon_and_std", "--force"],
        ["-m", "nbgrader", "generate_feedback", "04_epsilon_and_std", "--force"],
        ["-m", "nbgrader", "release_feedback", "04_epsilon_and_std"],
    ]
    assert {r["cwd"] for r in recorded()} == {str(made.folder)}
    # the Python's own folder first on PATH (nbgrader runs alembic from there), the rest after it
    assert {r["path"] for r in recorded()} == {f"{Path(python).parent}{os.pathsep}{os.environ['PATH']}"}


def test_the_commands_find_nbgraders_tools_even_with_no_path(tmp_path, nbgrader, monkeypatch):
    python, recorded = nbgrader
    monkeypatch.delenv("PATH")
    _course(tmp_path, python).collect("mean")
    assert recorded()[0]["path"] == f"{Path(python).parent}{os.pathsep}"


def test_the_hubs_course_writes_group_writable_files_and_another_keeps_the_umask(tmp_path, nbgrader):
    python, recorded = nbgrader
    before = os.umask(0o027)
    try:
        _course(tmp_path / "hub", python, group="layernorm-graders").collect("mean")
        _course(tmp_path / "alone", python).collect("mean")
    finally:
        os.umask(before)
    assert [r["umask"] for r in recorded()] == [0o002, 0o027]


def test_a_command_returns_what_nbgrader_said(tmp_path, nbgrader, monkeypatch):
    python, _ = nbgrader
    monkeypatch.setenv("STAND_IN_SAYS", "[DbApp | INFO] Added 02_mean\n")
    assert _course(tmp_path, python).nbgrader("db", "assignment", "add", "02_mean") == "[DbApp | INFO] Added 02_mean\n"


def test_a_failed_command_is_one_sentence_with_the_command_and_its_last_line(tmp_path, nbgrader, monkeypatch):
    python, _ = nbgrader
    monkeypatch.setenv("STAND_IN_EXIT", "1")
    monkeypatch.setenv("STAND_IN_SAYS", "[CollectApp | ERROR] first\n[CollectApp | ERROR] nbgrader collect failed\n\n")
    with pytest.raises(cycle.CycleError) as failed:
        _course(tmp_path, python).collect("variance")
    assert (
        str(failed.value)
        == "`nbgrader collect 03_variance --update` failed: [CollectApp | ERROR] nbgrader collect failed"
    )


@pytest.mark.parametrize("said", ["", "  \n\n"])
def test_a_failed_command_that_said_nothing_says_so(tmp_path, nbgrader, monkeypatch, said):
    python, _ = nbgrader
    monkeypatch.setenv("STAND_IN_EXIT", "2")
    monkeypatch.setenv("STAND_IN_SAYS", said)
    with pytest.raises(cycle.CycleError) as failed:
        _course(tmp_path, python).nbgrader("db", "student", "list")
    assert str(failed.value) == "`nbgrader db student list` failed: (no output)"


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_command_that_does_not_finish_in_time_is_stopped(tmp_path, nbgrader, monkeypatch):
    python, _ = nbgrader
    monkeypatch.setenv("STAND_IN_SLEEP", "60")
    with pytest.raises(cycle.subprocess.TimeoutExpired):
        _course(tmp_path, python).nbgrader("collect", "02_mean", timeout=0.5)


def test_a_second_release_is_refused_and_runs_nothing(tmp_path, nbgrader):
    python, recorded = nbgrader
    made = _course(tmp_path, python)
    (made.exchange / "layernorm" / "outbound" / "02_mean").mkdir(parents=True)
    (made.exchange / "layernorm" / "outbound" / "03_variance.txt").touch()
    with pytest.raises(cycle.CycleError) as refused:
        made.release("mean")
    assert str(refused.value) == (
        "02_mean is already released; nothing was changed (to replace it, run "
        f"`nbgrader release_assignment 02_mean --force` in {made.folder})."
    )
    assert recorded() == []
    made.release("variance")  # another assignment's name in the outbound is not this one's release
    assert [r["args"][2:] for r in recorded()] == [["release_assignment", "03_variance"]]


def test_the_export_is_nbgraders_csv_made_one_column_per_exercise(tmp_path, nbgrader, monkeypatch):
    python, recorded = nbgrader
    monkeypatch.setenv("STAND_IN_CSV", "assignment,student_id,score\n02_mean,ana,6.0\n03_variance,ana,10.5\n")
    made = _course(tmp_path, python)
    out = made.export(tmp_path / "grades.csv")
    raw = made.state / "nbgrader-grades.csv"
    assert out == tmp_path / "grades.csv"
    assert recorded()[0]["args"] == ["-m", "nbgrader", "export", "--to", str(raw)]
    rows = list(csv.reader(out.open(encoding="utf-8")))
    assert rows == [
        ["student", "02_mean", "03_variance", "04_epsilon_and_std", "05_normalise", "06_gamma_and_beta",
         "07_whole_matrix", "08_pytorch", "total", "max"],
        ["ana", "6", "10.5", "", "", "", "", "", "16.5", "109"],
    ]  # fmt: skip


@pytest.mark.parametrize(
    "score, shown", [("0.0", "0"), ("1.0", "1"), ("12.0", "12"), ("2.5", "2.5"), ("0.25", "0.25"), ("3", "3")]
)
def test_a_whole_score_is_shown_without_decimals_and_a_part_one_as_nbgrader_gave_it(tmp_path, score, shown):
    raw = tmp_path / "raw.csv"
    raw.write_text(f"assignment,student_id,score\n05_normalise,bo,{score}\n", encoding="utf-8")
    rows = list(csv.DictReader(cycle.per_exercise(raw, tmp_path / "out.csv").open(encoding="utf-8")))
    assert [(r["05_normalise"], r["02_mean"], r["total"]) for r in rows] == [(shown, "", shown)]


def test_students_are_rows_in_name_order_with_their_total(tmp_path):
    raw = tmp_path / "raw.csv"
    raw.write_text(
        "assignment,student_id,score\n02_mean,cy,1.0\n02_mean,ana,6.0\n08_pytorch,ana,31.0\n03_variance,bo,0.0\n",
        encoding="utf-8",
    )
    rows = list(csv.DictReader(cycle.per_exercise(raw, tmp_path / "out.csv").open(encoding="utf-8")))
    assert [(r["student"], r["02_mean"], r["03_variance"], r["08_pytorch"], r["total"]) for r in rows] == [
        ("ana", "6", "", "31", "37"),
        ("bo", "", "0", "", "0"),
        ("cy", "1", "", "", "1"),
    ]


# ---- screening before autograde ----

NAME = "03_variance"
ANSWER = plan.answer_id("variance")


def _released() -> dict:
    cell = {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": ANSWER}}, "source": "def variance(row):\n"}
    test = {"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "test_variance_n-1"}}, "source": "check()"}
    intro = {"cell_type": "markdown", "metadata": {}, "source": "# Variance"}
    return {"cells": [intro, cell, test], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}


def _screened_course(tmp_path: Path, students=None) -> cycle.Course:
    made = cycle.Course(tmp_path / "state", "/no/python", students=students)
    released = made.folder / "release" / NAME / f"{NAME}.ipynb"
    released.parent.mkdir(parents=True)
    released.write_text(json.dumps(_released()))
    return made


def _submit(made: cycle.Course, student: str, text: str, name: str = NAME) -> Path:
    path = made.folder / "submitted" / student / name / f"{name}.ipynb"
    path.parent.mkdir(parents=True)
    path.write_text(text)
    (path.parent / "timestamp.txt").write_text("2026-12-02 10:00:00.000000 UTC")
    return path


def test_an_unreadable_notebook_is_kept_and_replaced_by_the_released_one_saying_why(tmp_path):
    made = _screened_course(tmp_path)
    good = json.dumps({**_released(), "cells": [{**c, "source": "mine"} for c in _released()["cells"]]})
    _submit(made, "ana", good)
    _submit(made, "bo", '{"cells": [')
    nb = _released()
    nb["cells"] = [c for c in nb["cells"] if c["metadata"] == {}]
    _submit(made, "cy", json.dumps(nb))
    problems = made.screen("variance")
    broken = f"{NAME}.ipynb is not a readable notebook (its JSON breaks at line 1); submit it again from JupyterLab."
    lost = (
        f"Your notebook has no answer cell {ANSWER} (it was deleted, or its metadata removed), so there is nothing "
        "to grade: fetch the assignment again and copy your code into its answer cell."
    )
    assert problems == {"bo": broken, "cy": lost}
    submitted = made.folder / "submitted"
    assert (submitted / "ana" / NAME / f"{NAME}.ipynb").read_text() == good
    assert (submitted / "bo" / NAME / f"{NAME}.ipynb.unreadable").read_text() == '{"cells": ['
    assert (submitted / "cy" / NAME / f"{NAME}.ipynb.unreadable").read_text() == json.dumps(nb)
    for student, sentence in (("bo", broken), ("cy", lost)):
        stand_in = json.loads((submitted / student / NAME / f"{NAME}.ipynb").read_text())
        expected = _released()
        expected["cells"][1]["source"] = "# Not graded: " + sentence
        assert stand_in == expected, student
        assert sorted(p.name for p in (submitted / student / NAME).iterdir()) == [
            f"{NAME}.ipynb",
            f"{NAME}.ipynb.unreadable",
            "timestamp.txt",
        ]


def test_only_this_assignments_submissions_are_screened(tmp_path):
    made = _screened_course(tmp_path)
    other = _submit(made, "ana", "not json", name="02_mean")
    assert made.screen("variance") == {}
    assert other.read_text() == "not json"


def test_without_a_class_list_every_submission_is_graded(tmp_path):
    made = _screened_course(tmp_path)
    _submit(made, "zed", json.dumps(_released()))
    assert made.set_aside_strangers(NAME) == {}
    assert (made.folder / "submitted" / "zed" / NAME).is_dir() and not (made.folder / "refused").exists()


def test_a_submission_from_a_name_not_on_the_class_list_is_set_aside_ungraded(tmp_path):
    made = _screened_course(tmp_path, students=("ana", "teacher"))
    _submit(made, "ana", json.dumps(_released()))
    _submit(made, "zed", "zed's first")
    _submit(made, "zed", "zed's other", name="02_mean")
    _submit(made, "amy", "not json at all")
    problems = made.screen("variance")
    refused = made.folder / "refused"
    assert problems == {
        "amy": f"amy is not on the class list: their {NAME} was kept in {refused} and not graded.",
        "zed": f"zed is not on the class list: their {NAME} was kept in {refused} and not graded.",
    }
    assert (refused / "zed" / NAME / f"{NAME}.ipynb").read_text() == "zed's first"
    assert (refused / "amy" / NAME / f"{NAME}.ipynb").read_text() == "not json at all"  # not screened as unreadable
    assert sorted(p.parent.name for p in (made.folder / "submitted").glob(f"*/{NAME}")) == ["ana"]
    assert (made.folder / "submitted" / "zed" / "02_mean" / "02_mean.ipynb").read_text() == "zed's other"


def test_a_stranger_who_submits_again_has_only_the_newest_kept(tmp_path):
    made = _screened_course(tmp_path, students=["ana"])
    _submit(made, "zed", "first")
    made.set_aside_strangers(NAME)
    (made.folder / "submitted" / "zed").rmdir()
    _submit(made, "zed", "second")
    assert list(made.set_aside_strangers(NAME)) == ["zed"]
    kept = made.folder / "refused" / "zed" / NAME
    assert sorted(p.name for p in kept.iterdir()) == [f"{NAME}.ipynb", "timestamp.txt"]
    assert (kept / f"{NAME}.ipynb").read_text() == "second"


def test_autograde_screens_first_and_returns_what_it_set_aside(tmp_path, nbgrader):
    python, recorded = nbgrader
    made = _screened_course(tmp_path, students=["ana"])
    made.python = python
    _submit(made, "ana", '{"cells": [')
    _submit(made, "zed", json.dumps(_released()))
    problems = made.autograde("variance")
    assert sorted(problems) == ["ana", "zed"]
    assert problems["ana"].startswith(f"{NAME}.ipynb is not a readable notebook")
    assert [r["args"][2:] for r in recorded()] == [["autograde", NAME, "--force"]]
    assert (made.folder / "refused" / "zed" / NAME).is_dir()


@pytest.mark.parametrize("group, shared", [("layernorm-graders", True), ("", False)])
def test_setting_up_writes_the_folders_the_code_the_configuration_and_the_sources(tmp_path, group, shared):
    from classroom.grading import course

    made = cycle.Course(tmp_path, "/hub/python", judge_python="/judge/python", judge_user="nobody", group=group)
    made.set_up(["mean", "std"])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["course", "exchange", "grading-code"]
    assert (os.stat(made.folder).st_mode & 0o7777, os.stat(made.exchange).st_mode & 0o7777) == (0o700, 0o1777)
    assert (made.code / "classroom" / "grading" / "cycle.py").is_file()
    config = (made.folder / "nbgrader_config.py").read_text(encoding="utf-8")
    assert config == course.config_text(
        made.folder, made.exchange, made.code, python="/judge/python", user="nobody", groupshared=shared
    )
    assert sorted(p.relative_to(made.folder).as_posix() for p in (made.folder / "source").rglob("*.ipynb")) == [
        "source/02_mean/02_mean.ipynb",
        "source/04_epsilon_and_std/04_epsilon_and_std.ipynb",
    ]


def test_setting_up_without_steps_writes_every_assignments_source(tmp_path):
    made = cycle.Course(tmp_path, "/hub/python")
    made.set_up()
    assert sorted(p.name for p in (made.folder / "source").iterdir()) == [
        "02_mean", "03_variance", "04_epsilon_and_std", "05_normalise", "06_gamma_and_beta", "07_whole_matrix",
        "08_pytorch",
    ]  # fmt: skip
    assert "c.CourseDirectory.groupshared = False" in (made.folder / "nbgrader_config.py").read_text()


@pytest.fixture
def c_locale():
    """The C locale (ASCII) for this process's text files, as a hub started without LANG has."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    yield
    locale.setlocale(locale.LC_CTYPE, before)


def test_a_course_in_a_folder_with_accents_is_configured_in_utf_8_whatever_the_locale(tmp_path, c_locale):
    from classroom.grading import course

    made = cycle.Course(tmp_path / "état", "/hub/python", judge_python="/hub/python")
    made.set_up(["mean"])
    config = (made.folder / "nbgrader_config.py").read_text(encoding="utf-8")
    assert config == course.config_text(made.folder, made.exchange, made.code, python="/hub/python")


def test_the_stand_in_keeps_the_released_notebooks_words_whatever_the_locale(tmp_path, c_locale):
    made = _screened_course(tmp_path)
    released = _released()
    released["cells"][0]["source"] = "# Variance: σ² = Σ (x − μ)² / n"
    (made.folder / "release" / NAME / f"{NAME}.ipynb").write_text(json.dumps(released, ensure_ascii=False), "utf-8")
    _submit(made, "bo", "")
    assert made.screen("variance") == {"bo": f"{NAME}.ipynb is empty: nothing was submitted."}
    stand_in = json.loads((made.folder / "submitted" / "bo" / NAME / f"{NAME}.ipynb").read_text(encoding="utf-8"))
    assert stand_in["cells"][0]["source"] == "# Variance: σ² = Σ (x − μ)² / n"
    assert stand_in["cells"][1]["source"] == f"# Not graded: {NAME}.ipynb is empty: nothing was submitted."
