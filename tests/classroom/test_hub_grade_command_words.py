"""``run.py hub-grade``'s words without nbgrader (classroom/grading/cli.py): how an assignment is named,
what the command accepts and says in its help, and each refusal, one sentence on stderr with exit status
1 and nothing changed. The expected names are read from notebooks/ and the sentences from
classroom/README.md, not from the module. No root (the root check is given a non-root and a root
euid), no hub, no nbgrader: fast.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

import pytest

from classroom.grading import cli, cycle

ROOT = Path(__file__).resolve().parents[2]
# step: its notebook's number, in the order of the series
NUMBERS = {
    "mean": "02",
    "variance": "03",
    "std": "04",
    "normalise": "05",
    "scale_shift": "06",
    "layer_norm": "07",
    "module": "08",
}
ASSIGNMENTS = (
    "02 (02_mean), 03 (03_variance), 04 (04_epsilon_and_std), 05 (05_normalise), 06 (06_gamma_and_beta), "
    "07 (07_whole_matrix), 08 (08_pytorch)"
)


def _notebook_name(number: str) -> str:
    (found,) = sorted(ROOT.glob(f"notebooks/{number}_*.ipynb"))
    return found.stem


@pytest.mark.parametrize("step", list(NUMBERS))
def test_an_assignment_is_named_by_its_number_its_notebooks_name_or_its_step(step):
    number = NUMBERS[step]
    assert [cli.step_of(name) for name in (number, _notebook_name(number), step)] == [step] * 3


@pytest.mark.parametrize("name", ["09", "01", "2", "04_epsilon", "STD", ""])
def test_another_name_is_refused_with_every_assignment_listed(name):
    with pytest.raises(cli.Refused) as refused:
        cli.step_of(name)
    assert str(refused.value) == f"There is no assignment {name!r}; the assignments are {ASSIGNMENTS}."


@pytest.mark.parametrize(
    "argv",
    [
        ["--state", "/srv/other", "collect", "04"],
        ["collect", "04", "--state", "/srv/other"],
        ["collect", "--state", "/srv/other", "04"],
    ],
)
def test_the_state_folder_is_given_before_or_after_the_action(argv):
    args = cli.parser().parse_args(argv)
    assert vars(args) == {"state": "/srv/other", "action": "collect", "assignment": "04"}


def test_each_action_takes_its_own_arguments_and_no_state_means_the_default():
    parse = cli.parser().parse_args
    for action in ("release", "collect", "autograde", "feedback"):
        assert vars(parse([action, "std"])) == {"action": action, "assignment": "std"}
    assert vars(parse(["due", "04", "2026-12-09 23:59 UTC"])) == {
        "action": "due",
        "assignment": "04",
        "date": "2026-12-09 23:59 UTC",
    }
    assert vars(parse(["export", "grades.csv"])) == {"action": "export", "out": "grades.csv"}
    assert cli.DEFAULT_STATE == Path("/srv/layernorm-hub")


@pytest.mark.parametrize("argv", [[], ["grade", "04"], ["collect"], ["due", "04"], ["export"]])
def test_a_missing_or_unknown_action_or_argument_is_a_usage_error(argv, capsys):
    with pytest.raises(SystemExit) as stopped:
        cli.parser().parse_args(argv)
    assert stopped.value.code == 2
    assert capsys.readouterr().err.startswith("usage: run.py hub-grade")


def _words(text: str) -> str:
    return " ".join(text.split())


def test_the_help_names_each_action_and_what_it_does(monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # one line per action
    made = cli.parser()
    top = made.format_help()
    assert top.startswith("usage: run.py hub-grade [-h] ACTION ...\n")
    assert (
        "The grading cycle of the class hub's course (as root): release, collect, autograde, feedback, export."
        in _words(top)
    )
    for line in (
        "release generate the assignment from the series and release it to the class",
        "collect collect the class's submissions",
        "autograde grade every collected submission (the answer cell alone, as nobody)",
        "feedback generate the feedback and release it (each student fetches their own)",
        "due set the assignment's due date (later submissions get a note)",
        "export the gradebook as CSV, one column per exercise",
    ):
        assert line in _words(top), line
    actions = next(a for a in made._actions if isinstance(a, argparse._SubParsersAction))
    for action in ("release", "collect", "autograde", "feedback"):
        words = _words(actions.choices[action].format_help())
        assert f"usage: run.py hub-grade {action} [-h] [--state STATE] assignment" in words
        assert "assignment 04, 04_epsilon_and_std or std" in words
        assert "--state STATE the hub's folder (default /srv/layernorm-hub)" in words
    due = _words(actions.choices["due"].format_help())
    assert "usage: run.py hub-grade due [-h] [--state STATE] assignment date" in due
    assert 'date e.g. "2026-12-09 23:59 UTC"' in due
    export = _words(actions.choices["export"].format_help())
    assert "usage: run.py hub-grade export [-h] [--state STATE] out" in export
    assert "out the CSV file to write" in export
    assert "--state" not in _words(top)  # accepted before the action too, but shown with each action


def _hub(tmp_path: Path, *, course: bool) -> Path:
    """A hub's folder; with ``course``, the course's configuration file that `run.py hub` writes."""
    state = tmp_path / "hub"
    (state / "grading" / "course").mkdir(parents=True)
    if course:
        (state / "grading" / "course" / "nbgrader_config.py").write_text("c = get_config()  # noqa: F821\n")
    return state


def _listing(folder: Path) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


def test_a_hub_without_a_course_is_refused_saying_how_to_make_one(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    state = _hub(tmp_path, course=False)
    before = _listing(state)
    assert cli.main(["--state", str(state), "collect", "04"]) == 1
    said = capsys.readouterr()
    grading = state / "grading"
    assert said.err == f"error: {grading} has no course yet: start the hub once (`sudo python3 run.py hub`).\n"
    assert said.out == ""
    assert _listing(state) == before


def test_a_folder_named_like_the_configuration_is_no_course(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    state = _hub(tmp_path, course=False)
    (state / "grading" / "course" / "nbgrader_config.py").mkdir()
    assert cli.main(["export", "grades.csv", "--state", str(state)]) == 1
    assert capsys.readouterr().err.startswith(f"error: {state / 'grading'} has no course yet")


def test_the_default_state_is_the_hubs_folder(monkeypatch):
    seen = []
    monkeypatch.setattr(Path, "is_file", lambda self: seen.append(self) or False)
    with pytest.raises(cli.Refused) as refused:
        cli.run(cli.parser().parse_args(["collect", "04"]))
    assert seen == [Path("/srv/layernorm-hub/grading/course/nbgrader_config.py")]
    assert str(refused.value).startswith("/srv/layernorm-hub/grading has no course yet")


def test_without_root_nothing_runs_and_it_says_why(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    state = _hub(tmp_path, course=True)
    before = _listing(state)
    assert cli.main(["--state", str(state), "export", str(tmp_path / "grades.csv")]) == 1
    said = capsys.readouterr()
    assert said.err == "error: grading runs students' code as nobody: run it as root (sudo …)\n"
    assert said.out == ""
    assert _listing(state) == before and not (tmp_path / "grades.csv").exists()


@pytest.mark.parametrize("name", ["09", "mean_02"])
def test_an_unknown_assignment_is_one_sentence_and_exit_status_1(tmp_path, monkeypatch, capsys, name):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    state = _hub(tmp_path, course=True)
    before = _listing(state)
    assert cli.main(["--state", str(state), "release", name]) == 1
    said = capsys.readouterr()
    assert said.err == f"error: There is no assignment {name!r}; the assignments are {ASSIGNMENTS}.\n"
    assert said.out == "" and _listing(state) == before


@pytest.mark.parametrize("name, step", [("04", "std"), ("std", "std"), ("08_pytorch", "module")])
def test_autograde_before_any_collect_is_refused_naming_the_collect_to_run(tmp_path, monkeypatch, capsys, name, step):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    state = _hub(tmp_path, course=True)
    other = state / "grading" / "course" / "submitted" / "ana" / _notebook_name("02")
    other.mkdir(parents=True)  # another assignment's submission is not this one's
    before = _listing(state)
    assert cli.main(["--state", str(state), "autograde", name]) == 1
    said = capsys.readouterr()
    notebook = _notebook_name(NUMBERS[step])
    assert said.err == (
        f"error: No submission of {notebook} has been collected: run `hub-grade collect {name}` first.\n"
    )
    assert said.out == "" and _listing(state) == before


class _Gradebook:
    """What `autograde` reads back after grading: a course whose export is nbgrader's CSV, made per exercise
    by cycle.per_exercise (nbgrader's export itself runs in test_grading_nbgrader)."""

    def __init__(self, raw: str):
        self.raw = raw

    def export(self, out: Path) -> Path:
        raw = out.with_name("raw.csv")
        raw.write_text(self.raw, encoding="utf-8")
        return cycle.per_exercise(raw, out)


def test_autograde_prints_each_graded_students_score_of_the_maximum_then_the_count():
    raw = (
        "assignment,student_id,score\n04_epsilon_and_std,bo,2.0\n04_epsilon_and_std,ana,15.0\n"
        "02_mean,cy,6.0\n04_epsilon_and_std,dee,0.0\n"
    )
    lines = cli._scores(_Gradebook(raw), "04_epsilon_and_std", 15)
    assert lines == ["ana: 15 of 15", "bo: 2 of 15", "dee: 0 of 15", "Autograded 04_epsilon_and_std: 3 submissions."]


@pytest.mark.parametrize("count, word", [(0, "submissions"), (1, "submission"), (2, "submissions")])
def test_the_count_of_autograded_submissions_is_singular_only_for_one(count, word):
    raw = "assignment,student_id,score\n02_mean,zed,1.0\n" + "".join(f"03_variance,s{n},{n}.5\n" for n in range(count))
    lines = cli._scores(_Gradebook(raw), "03_variance", 11)
    assert lines == [*(f"s{n}: {n}.5 of 11" for n in range(count)), f"Autograded 03_variance: {count} {word}."]


@pytest.mark.parametrize(
    "text, why",
    [
        (
            "ana\nAna Bo\n",
            "line 2: 'Ana Bo' is not a name: write one name per line, optionally followed by \"instructor\"",
        ),
        ("# nobody yet\n", "lists nobody: add the students' names, one per line, and start the hub again"),
    ],
)
def test_a_class_list_that_cannot_be_read_is_one_sentence_and_nothing_runs(tmp_path, monkeypatch, capsys, text, why):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    state = _hub(tmp_path, course=True)
    (state / "students.txt").write_text(text, encoding="utf-8")
    before = _listing(state)
    assert cli.main(["--state", str(state), "autograde", "04"]) == 1
    said = capsys.readouterr()
    assert said.err == f"error: {state / 'students.txt'} {why}\n"
    assert said.out == "" and _listing(state) == before
