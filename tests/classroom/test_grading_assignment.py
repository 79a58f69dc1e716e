"""The assignments (classroom/grading/assignment.py), from its docstrings, without nbgrader: each is named for its
notebook and built from it (its set-up cell, its "Your turn" text and its answer stub, word for word) and from
lecturer/solutions.py, the solution between nbgrader's markers so that clearing it (nbgrader's code stub,
``raise NotImplementedError``, classroom/grading/course.py) gives the notebook's own stub back; the answer cell
alone passes the check (it is graded alone); one locked, graded cell per test of the plan; and it refuses a
notebook it cannot find, or whose cell after "Your turn" is not the stub.
"""

from __future__ import annotations

import json
import locale
import re

import pytest

import helpers.exercises
from classroom.grading import assignment, plan

LOCKED_NOT_GRADED = {"grade": False, "solution": False, "locked": True, "schema_version": 3}
ROW_AND_MATRIX = [step for step in plan.STEPS if step not in plan.MODULE_STEPS]  # the module needs torch


def cleared(source: str) -> str:
    """What nbgrader's generate_assignment makes of a solution cell: each marked block, markers included,
    becomes ``raise NotImplementedError`` at the marker's indent."""
    pattern = r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION$"
    return re.sub(pattern, r"\1raise NotImplementedError", source, flags=re.S | re.M)


@pytest.fixture
def c_locale():
    """The C locale (ASCII) for this process's text files, as a hub started without LANG has."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    yield
    locale.setlocale(locale.LC_CTYPE, before)


def cells_by_id(step: str) -> dict[str, dict]:
    return {cell["metadata"]["nbgrader"]["grade_id"]: cell for cell in assignment.source_notebook(step)["cells"]}


def test_each_assignment_is_named_for_its_notebook():
    assert [assignment.name_of(step) for step in ("mean", "module")] == ["02_mean", "08_pytorch"]
    for step in plan.STEPS:
        assert assignment.name_of(step).startswith(plan.notebook_of(step) + "_")
        assert (assignment.NOTEBOOKS / f"{assignment.name_of(step)}.ipynb").is_file()


@pytest.mark.parametrize("count", [0, 2])
def test_a_notebook_number_with_no_notebook_or_two_is_refused(tmp_path, monkeypatch, count):
    monkeypatch.setattr(assignment, "NOTEBOOKS", tmp_path)
    for name in ["02_mean", "02_mean_copy"][:count]:
        (tmp_path / f"{name}.ipynb").write_text("{}", encoding="utf-8")
    with pytest.raises(FileNotFoundError) as refused:
        assignment.name_of("mean")
    assert str(refused.value) == f"notebooks/ has {count} notebooks numbered 02; expected one."


def notebook_with(turn_cell: dict) -> dict:
    return {
        "cells": [
            {"cell_type": "markdown", "source": "Run the Set-up cell below first.", "metadata": {}},
            {"cell_type": "code", "metadata": {}},  # no source at all: read as empty
            {"cell_type": "code", "source": "# Set-up\nimport numpy as np\n", "metadata": {}},
            {"cell_type": "markdown", "source": ["## Your turn\n", "Write the mean."], "metadata": {}},
            turn_cell,
        ]
    }


@pytest.mark.parametrize(
    "source",
    [
        "def mean(row):\n    return sum(row) / len(row)\n",  # a solution, not the stub
        "def average(row):\n    raise NotImplementedError\n",  # another function's stub
    ],
)
def test_a_cell_after_your_turn_that_is_not_the_stub_is_refused(tmp_path, monkeypatch, source):
    monkeypatch.setattr(assignment, "NOTEBOOKS", tmp_path)
    cell = {"cell_type": "code", "source": source, "metadata": {}}
    (tmp_path / "02_mine.ipynb").write_text(json.dumps(notebook_with(cell)), encoding="utf-8")
    with pytest.raises(ValueError) as refused:
        assignment.source_notebook("mean")
    assert str(refused.value) == "02_mine.ipynb: the cell after 'Your turn' is not mean's stub."


def test_the_set_up_turn_and_stub_are_the_notebooks_own_cells_word_for_word(tmp_path, monkeypatch):
    monkeypatch.setattr(assignment, "NOTEBOOKS", tmp_path)
    stub = ["def mean(row):\n", "    raise NotImplementedError\n"]
    (tmp_path / "02_mine.ipynb").write_text(
        json.dumps(notebook_with({"cell_type": "code", "source": stub, "metadata": {}})), encoding="utf-8"
    )
    cells = cells_by_id("mean")
    assert cells["setup_mean"]["source"] == "# Set-up\nimport numpy as np\n"
    assert cells["turn_mean"]["source"] == "## Your turn\nWrite the mean."
    assert cleared(cells["answer_mean"]["source"]) == "import numpy as np\n\n" + "".join(stub).rstrip("\n")


@pytest.mark.parametrize("step", list(plan.STEPS))
def test_the_released_answer_cell_is_the_notebooks_stub_with_its_imports(step):
    _, turn, stub = assignment._series_cells(step)
    imports = "import torch\nfrom torch import nn\n\n" if step in plan.MODULE_STEPS else "import numpy as np\n\n"
    answer = cells_by_id(step)[plan.answer_id(step)]["source"]
    assert cleared(answer) == imports + stub.rstrip("\n")
    assert "## Your turn" in turn and answer.count("### BEGIN SOLUTION") == answer.count("### END SOLUTION") >= 1


@pytest.mark.parametrize("step", ROW_AND_MATRIX)
def test_each_answer_cell_alone_passes_the_check(step):
    """Graded alone: whatever its solution calls (std calls variance) comes with it."""
    namespace: dict = {}
    exec(cells_by_id(step)[plan.answer_id(step)]["source"], namespace)  # noqa: S102 — the lecturer's own solution
    verdict = helpers.exercises.check(step, namespace[plan.function_name(step)])
    assert verdict.passed, verdict.diagnosis


def test_the_modules_answer_has_each_methods_solution_once_and_the_stubs_own_lines():
    answer = cells_by_id("module")[plan.answer_id("module")]["source"]
    compile(answer, "<answer_module>", "exec")
    for method, statements in assignment._module_solutions().items():
        for statement in statements:
            assert statement.strip() in answer, (method, statement)
    assert answer.count("super().__init__()") == 1  # the stub's, not the solution's again
    assert answer.count("### BEGIN SOLUTION") == 2  # __init__ and forward


@pytest.mark.parametrize("step", list(plan.STEPS))
def test_the_notebook_is_the_intro_set_up_turn_answer_then_a_locked_graded_cell_per_test(step):
    notebook = assignment.source_notebook(step)
    cells = notebook["cells"]
    kinds = [(c["cell_type"], c["metadata"]["nbgrader"]["grade_id"]) for c in cells]
    tests = plan.tests_for(step)
    assert kinds == [
        ("markdown", f"intro_{step}"),
        ("code", f"setup_{step}"),
        ("code", f"import_{step}"),
        ("markdown", f"turn_{step}"),
        ("code", plan.answer_id(step)),
        *[("code", t.grade_id) for t in tests],
    ]
    for cell in cells:
        info = cell["metadata"]["nbgrader"]
        assert cell["id"] == info["grade_id"] and info["schema_version"] == assignment.SCHEMA == 3
        if cell["cell_type"] == "code":
            assert cell["execution_count"] is None and cell["outputs"] == []
        else:
            assert "execution_count" not in cell and "outputs" not in cell
    answer = cells[4]["metadata"]["nbgrader"]
    assert answer == {**LOCKED_NOT_GRADED, "solution": True, "locked": False, "grade_id": plan.answer_id(step)}
    for cell in cells[:4]:
        assert cell["metadata"]["nbgrader"] == {**LOCKED_NOT_GRADED, "grade_id": cell["id"]}  # and no points
    for cell, test in zip(cells[5:], tests):
        assert cell["metadata"]["nbgrader"] == {
            "grade": True,
            "solution": False,
            "locked": True,
            "grade_id": test.grade_id,
            "schema_version": 3,
            "points": test.points,
        }
        assert cell["source"] == assignment.test_source(step, test)
    assert cells[2]["source"] == "import helpers.exercises"
    what = "class" if step in plan.MODULE_STEPS else "function"
    assert cells[0]["source"] == (
        f"# {assignment.name_of(step)}: graded\n\nWrite the {what} in its answer cell; each test below is worth its "
        "points. Grading runs your answer cell alone, in a fresh Python, so put every import it needs in that cell."
    )
    assert notebook["metadata"] == {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    }
    assert (notebook["nbformat"], notebook["nbformat_minor"]) == (4, 5)


def test_a_test_cell_says_its_points_and_mistake_and_hides_the_full_check():
    n_1, *_, hidden = plan.tests_for("variance")
    assert assignment.test_source("variance", hidden) == (
        "# Hidden test (2 points): the full check on cases you have not seen.\n"
        "### BEGIN HIDDEN TESTS\nassert helpers.exercises.check('variance', variance).passed\n### END HIDDEN TESTS\n"
    )
    assert assignment.test_source("variance", n_1) == (
        f"# Test (1 point): the mistake “{n_1.name}”.\n"
        "# Graded from your answer cell alone, in a fresh Python; here it runs the same check in your kernel.\n"
        "verdict = helpers.exercises.check('variance', variance)\n"
        f"assert {n_1.key!r} not in str(verdict.mistake).split('+'), verdict.diagnosis\n"
    )
    two = plan.Test("test_variance_x", "n-1", "dividing by n − 1", 2)
    assert assignment.test_source("variance", two).startswith("# Test (2 points): ")


def test_in_the_students_kernel_a_test_cell_fails_only_on_its_own_mistake():
    tests = {test.key: test for test in plan.tests_for("mean")}
    wrong = {"helpers": helpers, "mean": lambda row: sum(row) / (len(row) - 1)}  # dividing by n − 1
    right = {"helpers": helpers, "mean": lambda row: sum(row) / len(row)}
    exec(assignment.test_source("mean", tests["n-1"]), right)  # noqa: S102 — the generated test cell
    exec(assignment.test_source("mean", tests["median"]), wrong)  # noqa: S102 — another mistake's test
    with pytest.raises(AssertionError):
        exec(assignment.test_source("mean", tests["n-1"]), wrong)  # noqa: S102


def test_build_writes_each_source_notebook_in_its_own_folder(tmp_path):
    written = assignment.build(tmp_path / "course", ["variance", "mean"])
    assert written == [
        tmp_path / "course" / "source" / "03_variance" / "03_variance.ipynb",
        tmp_path / "course" / "source" / "02_mean" / "02_mean.ipynb",
    ]
    text = written[0].read_text(encoding="utf-8")
    assert json.loads(text) == assignment.source_notebook("variance")
    assert text == json.dumps(assignment.source_notebook("variance"), indent=1, ensure_ascii=False) + "\n"
    assert "“" in text  # as written, not escaped
    assert assignment.build(tmp_path / "course", ["mean"]) == written[1:]  # again: the same place, overwritten
    every = assignment.build(tmp_path / "all")
    assert [p.parent.name for p in every] == [assignment.name_of(step) for step in plan.STEPS]


def test_an_assignment_is_built_the_same_whatever_the_locale(tmp_path, c_locale):
    """The notebooks and solutions hold "γ", "–" and "“": read and written as UTF-8 all the same."""
    written = assignment.build(tmp_path, ["std", "module"])
    locale.setlocale(locale.LC_CTYPE, "C.UTF-8")
    assert [json.loads(path.read_text(encoding="utf-8")) for path in written] == [
        assignment.source_notebook("std"),
        assignment.source_notebook("module"),
    ]


def test_only_the_solutions_the_solution_calls_come_with_it():
    """std calls variance: it comes as a nested def. layer_norm's ``mean`` is its own variable, not the solution."""
    import ast

    def nested(step: str) -> list[str]:
        tree = ast.parse(cells_by_id(step)[plan.answer_id(step)]["source"])
        function = next(node for node in tree.body if isinstance(node, ast.FunctionDef))
        return [node.name for node in function.body if isinstance(node, ast.FunctionDef)]

    assert nested("std") == ["variance"]
    assert nested("layer_norm") == [] and nested("mean") == []


SOLUTIONS = """\
def mean(row):
    total = sum(
        row
    )
    return total / len(row)


def make_module():
    class MyLayerNorm:
        def __init__(self, n_features, eps=1e-5):
            super().__init__()
            self.sizes = dict(
                n=n_features,
            )

        def forward(self, x):
            return x

        def extra(self):
            return 1
"""


def test_a_solution_over_several_lines_keeps_its_shape(tmp_path, monkeypatch):
    monkeypatch.setattr(assignment, "SOLUTIONS", tmp_path / "solutions.py")
    (tmp_path / "solutions.py").write_text(SOLUTIONS, encoding="utf-8")
    stub = "def mean(row):\n    # yours here\n    raise NotImplementedError\n    # (one float out)  \n"
    answer = assignment.answer_source("mean", stub)
    assert answer == (
        "import numpy as np\n\ndef mean(row):\n    # yours here\n    ### BEGIN SOLUTION\n    total = sum(\n"
        "        row\n    )\n    return total / len(row)\n    ### END SOLUTION\n    # (one float out)  "
    )
    assert cleared(answer) == "import numpy as np\n\n" + stub.rstrip("\n")
    methods = assignment._module_solutions()
    assert methods["__init__"] == ["super().__init__()", "self.sizes = dict(\n    n=n_features,\n)"]


def test_a_module_method_already_written_or_without_a_solution_is_left_as_the_stub_has_it(tmp_path, monkeypatch):
    monkeypatch.setattr(assignment, "SOLUTIONS", tmp_path / "solutions.py")
    (tmp_path / "solutions.py").write_text(SOLUTIONS, encoding="utf-8")
    stub = (
        "\nclass MyLayerNorm(nn.Module):\n    def __init__(self, n_features, eps=1e-5):\n        super().__init__()\n"
        "        raise NotImplementedError\n\n    def forward(self, x):\n        return x\n\n"
        "    def more(self):\n        raise NotImplementedError  \n"
    )
    answer = assignment.answer_source("module", stub)
    assert cleared(answer) == "import torch\nfrom torch import nn\n\n" + stub.rstrip("\n")
    assert answer.count("### BEGIN SOLUTION") == 1  # __init__ only: forward is written, more() has no solution
    assert "        self.sizes = dict(\n            n=n_features,\n        )\n" in answer
