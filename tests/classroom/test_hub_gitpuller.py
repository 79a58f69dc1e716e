"""A fix pushed mid-course reaches every student at their next link click, and costs none of them
their work.

The student works as in JupyterLab: writes the "Your turn" function in notebook 02, runs the
check, saves the notebook with its outputs (through the server's contents API, as JupyterLab
saves), and keeps notes of their own. The lecturer then fixes the series (a sentence in notebook
02, a line of the helpers, a new notebook, and, to force a collision, the very cell the student
rewrote) and publishes it. nbgitpuller commits the student's changes and merges the fix with
"ours" on conflicts, so the student's lines win where both changed the same lines, and every
other line of the fix arrives.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import nbformat
import pytest

from classroom.hub import mirror

from hub_support import class_hub, on_own_server, run_async

pytestmark = pytest.mark.hub

NAME = "pull-student"
STUDENT_CODE = "def mean(row):\n    # my own answer\n    return sum(row) / len(row)\n"
SUMMARY_FIX = "- The mean of a row is the sum of its values divided by $n$, the number of values (fixed)."
HELPERS_FIX = "# A fix the lecturer published mid-course.\n"


@pytest.fixture(scope="module")
def hub():
    with class_hub([NAME]) as running:
        yield running


def lecturer_publishes_a_fix(bare: Path) -> str:
    """Clone the served series, change it as a lecturer fixing it would, push it back; returns the commit."""
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder) / "series"
        subprocess.run(["git", "clone", "--quiet", str(bare), str(work)], check=True)
        notebook_path = work / "notebooks" / "02_mean.ipynb"
        notebook = nbformat.read(notebook_path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "markdown" and cell.source.startswith("## Summary"):
                cell.source = cell.source.replace(
                    "- The mean of a row is the sum of its values divided by $n$, the number of values.", SUMMARY_FIX
                )
            if cell.cell_type == "code" and "raise NotImplementedError" in cell.source and "def mean" in cell.source:
                cell.source = cell.source.replace("len(row) is the number", "len(row) gives the number")
        nbformat.write(notebook, notebook_path)
        helpers_file = work / "helpers" / "checking" / "exercises.py"
        helpers_file.write_text(helpers_file.read_text() + HELPERS_FIX)
        new = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# An extra exercise sheet")])
        nbformat.write(new, work / "notebooks" / "extra.ipynb")
        git = ["git", "-c", "user.name=Lecturer", "-c", "user.email=lecturer@example.edu"]
        subprocess.run([*git, "add", "-A"], cwd=work, check=True)
        subprocess.run([*git, "commit", "--quiet", "-m", "Fix notebook 02 and the helpers"], cwd=work, check=True)
        subprocess.run(["git", "push", "--quiet", "origin", f"HEAD:{mirror.BRANCH}"], cwd=work, check=True)
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=work, capture_output=True, text=True).stdout.strip()


def test_a_published_fix_arrives_and_the_students_work_stays(hub):
    async def lesson():
        async with on_own_server(hub, NAME) as student:
            notebook = await student.notebook("02_mean.ipynb")
            kernel = await student.open_kernel("02_mean.ipynb")
            setup = next(c for c in notebook["cells"] if "SetupProblem" in "".join(c["source"]))
            await kernel.run("".join(setup["source"]))
            await kernel.run(STUDENT_CODE)
            verdict = (await kernel.run('import helpers.checking.exercises\nhelpers.exercises.check("mean", mean)'))[
                "text"
            ]
            await kernel.close()
            for cell in notebook["cells"]:
                text = "".join(cell["source"])
                if cell["cell_type"] == "code" and "def mean" in text and "raise NotImplementedError" in text:
                    cell["source"] = STUDENT_CODE
                    cell["execution_count"] = 1
                if cell["cell_type"] == "code" and 'helpers.exercises.check("mean"' in text:
                    cell["outputs"] = [nbformat.v4.new_output("stream", name="stdout", text=verdict)]
                    cell["execution_count"] = 2
            await student.save("02_mean.ipynb", notebook)
            own = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("my notes on the mean")])
            await student.save("my_notes.ipynb", json.loads(nbformat.writes(own)))

            commit = lecturer_publishes_a_fix(hub.settings.bare_repo)
            log = await student.pull(hub.settings.series_repo)  # the student's next link click

            after = await student.notebook("02_mean.ipynb")
            notes = await student.notebook("my_notes.ipynb")
            extra = await student.notebook("extra.ipynb")
            status, helpers_text = await student.request(
                student.server("api/contents/layernorm-step-by-step/helpers/checking/exercises.py?content=1")
            )
            return verdict, commit, log, after, notes, extra, json.loads(helpers_text)["content"]

    verdict, commit, log, after, notes, extra, helpers_text = run_async(lesson())
    assert verdict.startswith("✓ mean"), verdict
    nbformat.validate(nbformat.from_dict(after))  # the merge left a valid notebook
    sources = ["".join(cell["source"]) for cell in after["cells"]]
    # the student's work: their function and its output
    assert STUDENT_CODE in sources
    check_cell = next(c for c in after["cells"] if 'helpers.exercises.check("mean"' in "".join(c["source"]))
    assert verdict in "".join(check_cell["outputs"][0]["text"])
    assert "my notes on the mean" in "".join(notes["cells"][0]["source"])
    # the fix: every line the student did not touch
    assert any(SUMMARY_FIX in source for source in sources), "the fixed sentence did not arrive"
    assert helpers_text.endswith(HELPERS_FIX)
    assert extra["cells"][0]["source"] == "# An extra exercise sheet"
    # the collision: the lecturer also changed the cell the student rewrote; the student's version stays
    assert not any("len(row) gives the number" in source for source in sources)
    assert "merge" in log.lower() and commit
