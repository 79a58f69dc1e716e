"""An assignment is made from the series' notebook and lecturer/solutions.py (classroom/grading/assignment.py).
A lecturer's edit can break either: a notebook saved half-written, its "Your turn" heading renamed, its stub
filled in, or a solution renamed or left unparsable. ``run.py hub-grade`` and the course's set-up then say one
sentence naming the file and what is missing (``assignment.SourceError``), exit 1, and write no traceback."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from classroom.grading import assignment, cli, hubsetup

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def series(tmp_path, monkeypatch):
    """A copy of notebook 02 and of lecturer/solutions.py that the test may break."""
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    for number in ("02", "08"):  # mean's function and the module's class
        shutil.copy(next((ROOT / "notebooks").glob(f"{number}_*.ipynb")), notebooks)
    copy = next(notebooks.glob("02_*.ipynb"))
    solutions = tmp_path / "solutions.py"
    shutil.copy(ROOT / "lecturer" / "solutions.py", solutions)
    monkeypatch.setattr(assignment, "NOTEBOOKS", notebooks)
    monkeypatch.setattr(assignment, "SOLUTIONS", solutions)
    return copy, solutions


def edit_cells(path: Path, change) -> None:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    change(notebook["cells"])
    path.write_text(json.dumps(notebook), encoding="utf-8")


def text(cell) -> str:
    return "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]


def test_the_unbroken_copy_makes_its_assignment(series, tmp_path):
    (written,) = assignment.build(tmp_path / "course", ["mean"])
    assert written.name == "02_mean.ipynb" and "### BEGIN SOLUTION" in written.read_text(encoding="utf-8")


def rename_turn(cells):
    for cell in cells:
        if cell["cell_type"] == "markdown" and "## Your turn" in text(cell):
            cell["source"] = text(cell).replace("## Your turn", "## Now you")


def drop_setup(cells):
    cells[:] = [c for c in cells if not (c["cell_type"] == "code" and "Set-up" in text(c))]


def fill_stub(cells):
    at = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and "## Your turn" in text(c))
    cells[at + 1]["source"] = "def mean(row):\n    return sum(row) / len(row)\n"


def stub_with_comment(cells):
    at = next(i for i, c in enumerate(cells) if c["cell_type"] == "markdown" and "## Your turn" in text(c))
    cells[at + 1]["source"] = text(cells[at + 1]).replace(assignment.STUB, assignment.STUB + "  # yours")


@pytest.mark.parametrize(
    "change, said",
    [
        (rename_turn, "02_mean.ipynb has no '## Your turn' cell, so its assignment cannot be made."),
        (drop_setup, "02_mean.ipynb has no set-up code cell, so its assignment cannot be made."),
        (fill_stub, "02_mean.ipynb: the cell after 'Your turn' is not mean's stub."),
        (stub_with_comment, "02_mean.ipynb: the stub's 'raise NotImplementedError' is not a line of its own."),
    ],
)
def test_a_notebook_edit_that_breaks_the_assignment_is_named(series, tmp_path, change, said):
    notebook, _ = series
    edit_cells(notebook, change)
    with pytest.raises(assignment.SourceError) as caught:
        assignment.build(tmp_path / "course", ["mean"])
    assert str(caught.value) == said


def test_a_half_written_notebook_names_its_file(series, tmp_path):
    notebook, _ = series
    notebook.write_text(notebook.read_text(encoding="utf-8")[:500], encoding="utf-8")
    with pytest.raises(assignment.SourceError) as caught:
        assignment.build(tmp_path / "course", ["mean"])
    assert str(caught.value).startswith("02_mean.ipynb cannot be read as a notebook (JSONDecodeError: ")


def test_a_renamed_or_unparsable_solution_is_named(series, tmp_path):
    _, solutions = series
    original = solutions.read_text(encoding="utf-8")
    solutions.write_text(original.replace("def mean(", "def average("), encoding="utf-8")
    with pytest.raises(assignment.SourceError, match=r"^lecturer/solutions.py has no function mean, so"):
        assignment.build(tmp_path / "course", ["mean"])
    solutions.write_text(original + "\ndef broken(:\n", encoding="utf-8")
    lines = len(original.splitlines()) + 2
    with pytest.raises(assignment.SourceError) as caught:
        assignment.build(tmp_path / "course", ["mean"])
    assert str(caught.value) == f"lecturer/solutions.py does not parse: line {lines}: invalid syntax."
    solutions.write_text(original.replace("def make_module(", "def build_module("), encoding="utf-8")
    with pytest.raises(assignment.SourceError, match=r"^lecturer/solutions.py has no make_module defining a class"):
        assignment.build(tmp_path / "course", ["module"])


class Course:
    def __init__(self, folder):
        self.folder = folder

    def set_up(self):
        assignment.build(self.folder, ["mean"])


def test_hub_grade_and_the_course_set_up_say_it_in_one_sentence(series, tmp_path, monkeypatch, capsys):
    notebook, _ = series
    edit_cells(notebook, rename_turn)
    sentence = "error: 02_mean.ipynb has no '## Your turn' cell, so its assignment cannot be made.\n"
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    course = tmp_path / "grading" / "course"
    course.mkdir(parents=True)
    (course / "nbgrader_config.py").write_text("c = get_config()  # noqa: F821\n")
    monkeypatch.setattr(hubsetup, "course_for", lambda grading, python, class_list=None: Course(course))
    assert cli.main(["--state", str(tmp_path), "release", "02"]) == 1
    said = capsys.readouterr()
    assert (said.out, said.err) == ("", sentence)

    monkeypatch.setattr(hubsetup, "set_up", lambda grading, *a, **k: Course(grading).set_up())
    monkeypatch.setattr(shutil, "which", lambda name: "/usr/sbin/" + name)
    (tmp_path / "students.txt").write_text("ana\n")
    assert hubsetup.main([str(tmp_path / "grading"), str(tmp_path / "students.txt")]) == 1
    said = capsys.readouterr()
    assert (said.out, said.err) == ("", sentence)
