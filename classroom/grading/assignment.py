"""The assignments, generated from the series: one per notebook 02–08, in nbgrader's source format.

Each is built from the notebook itself (its set-up cell, its "Your turn" text and the answer cell's
stub, word for word) and from ``lecturer/solutions.py`` (the solution, between nbgrader's
``### BEGIN SOLUTION`` markers, so that ``nbgrader generate_assignment`` puts the notebook's own
stub back). The tests come from :mod:`classroom.grading.plan`: one locked, graded cell per named
mistake, and one hidden test. Nothing is written twice: change a notebook or a solution, and the
next ``assignment.build`` (``cycle.Course.set_up``) follows.
"""

from __future__ import annotations

import ast
import json
import textwrap
from pathlib import Path

from classroom.grading import plan

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"
SOLUTIONS = ROOT / "lecturer" / "solutions.py"
SCHEMA = 3
STUB = "raise NotImplementedError"
BEGIN, END = "### BEGIN SOLUTION", "### END SOLUTION"
BEGIN_HIDDEN, END_HIDDEN = "### BEGIN HIDDEN TESTS", "### END HIDDEN TESTS"


class SourceError(ValueError):
    """A notebook or lecturer/solutions.py cannot make its assignment (an edit broke it): one sentence
    naming the file and what is missing, for ``run.py hub-grade`` to print instead of a traceback."""


def name_of(step: str) -> str:
    """The assignment's name: the notebook's file name without .ipynb (``02_mean``, ``08_pytorch``)."""
    return _notebook_path(step).stem


def _notebook_path(step: str) -> Path:
    found = sorted(NOTEBOOKS.glob(f"{plan.notebook_of(step)}_*.ipynb"))
    if len(found) != 1:
        raise FileNotFoundError(
            f"notebooks/ has {len(found)} notebooks numbered {plan.notebook_of(step)}; expected one."
        )
    return found[0]


def _source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else text


def _series_cells(step: str) -> tuple[str, str, str]:
    """The notebook's set-up cell, its "Your turn" text and its answer stub (the code cell after it)."""
    path = _notebook_path(step)
    try:
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        kinds = [(c["cell_type"], _source(c)) for c in cells]
    except (ValueError, KeyError, TypeError) as error:
        raise SourceError(f"{path.name} cannot be read as a notebook ({type(error).__name__}: {error}).") from error
    setup = next((text for kind, text in kinds if kind == "code" and "Set-up" in text), None)
    turn = next((i for i, (kind, text) in enumerate(kinds) if kind == "markdown" and "## Your turn" in text), None)
    if setup is None or turn is None:
        missing = "set-up code cell" if setup is None else "'## Your turn' cell"
        raise SourceError(f"{path.name} has no {missing}, so its assignment cannot be made.")
    stub = kinds[turn + 1][1] if turn + 1 < len(kinds) else ""
    if _definition(step) not in stub or STUB not in stub:
        raise SourceError(f"{path.name}: the cell after 'Your turn' is not {plan.function_name(step)}'s stub.")
    return setup, kinds[turn][1], stub


def _definition(step: str) -> str:
    keyword = "class" if step in plan.MODULE_STEPS else "def"
    return f"{keyword} {plan.function_name(step)}("


_SOLUTIONS_NAME = "lecturer/solutions.py"


def _solutions() -> tuple[str, ast.Module]:
    """lecturer/solutions.py's text and its parsed tree; a SourceError if it does not parse."""
    text = SOLUTIONS.read_text(encoding="utf-8")
    try:
        return text, ast.parse(text)
    except SyntaxError as error:
        raise SourceError(f"{_SOLUTIONS_NAME} does not parse: line {error.lineno}: {error.msg}.") from error


def _solution_body(step: str) -> str:
    """The solution's body from lecturer/solutions.py, with any solution it calls as a nested def
    (the answer cell is graded alone), indented for the function."""
    text, tree = _solutions()
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    if plan.function_name(step) not in functions:
        raise SourceError(
            f"{_SOLUTIONS_NAME} has no function {plan.function_name(step)}, so its assignment cannot be made."
        )
    node = functions[plan.function_name(step)]
    names = [n for n in ast.walk(node) if isinstance(n, ast.Name)]
    local = {n.id for n in names if isinstance(n.ctx, ast.Store)} | {a.arg for a in node.args.args}
    used = {n.id for n in names if isinstance(n.ctx, ast.Load)} & (set(functions) - {node.name} - local)
    parts = [ast.get_source_segment(text, functions[name]) for name in sorted(used)]
    parts += [textwrap.dedent(ast.get_source_segment(text, stmt, padded=True)) for stmt in node.body]
    return textwrap.indent("\n".join(parts), "    ")


def _module_solutions() -> dict[str, list[str]]:
    """Each method of the module class in lecturer/solutions.py (``make_module``): its statements' source."""
    text, tree = _solutions()
    maker = next((n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "make_module"), None)
    found = next((n for n in maker.body if isinstance(n, ast.ClassDef)), None) if maker else None
    if found is None:
        raise SourceError(
            f"{_SOLUTIONS_NAME} has no make_module defining a class, so the module's assignment cannot be made."
        )
    return {
        method.name: [textwrap.dedent(ast.get_source_segment(text, stmt, padded=True)) for stmt in method.body]
        for method in found.body
        if isinstance(method, ast.FunctionDef)
    }


def _module_answer(stub: str) -> str:
    """The stub class with each method's ``raise NotImplementedError`` replaced by that method's solution
    (between the markers), less the statements the stub already has (its ``super().__init__()``)."""
    solutions = _module_solutions()
    lines = stub.rstrip("\n").split("\n")
    cls = next(n for n in ast.parse(stub).body if isinstance(n, ast.ClassDef))
    for method in sorted((n for n in cls.body if isinstance(n, ast.FunctionDef)), key=lambda n: -n.lineno):
        raised = [n for n in method.body if ast.get_source_segment(stub, n) == STUB]
        if not raised or method.name not in solutions:
            continue
        at = raised[0].lineno - 1
        indent = lines[at][: len(lines[at]) - len(lines[at].lstrip())]
        kept = {ast.get_source_segment(stub, n) for n in method.body}
        body = [part for part in solutions[method.name] if part.strip() not in kept]
        block = [indent + BEGIN, textwrap.indent("\n".join(body), indent), indent + END]
        lines[at : at + 1] = block
    return "\n".join(lines)


def answer_source(step: str, stub: str) -> str:
    """The answer cell of the source notebook: what it needs imported (the cell is graded alone), the
    stub's own lines, and the solution in place of each ``raise NotImplementedError``."""
    if step in plan.MODULE_STEPS:
        return "import torch\nfrom torch import nn\n\n" + _module_answer(stub)
    solution = f"    {BEGIN}\n{_solution_body(step)}\n    {END}"
    lines = stub.rstrip("\n").split("\n")
    at = next((i for i, line in enumerate(lines) if line.strip() == STUB), None)
    if at is None:
        raise SourceError(f"{name_of(step)}.ipynb: the stub's '{STUB}' is not a line of its own.")
    return "import numpy as np\n\n" + "\n".join(lines[:at] + [solution] + lines[at + 1 :])


def _meta(grade_id: str, *, grade=False, solution=False, locked=False, points=None) -> dict:
    info = {"grade": grade, "solution": solution, "locked": locked, "grade_id": grade_id, "schema_version": SCHEMA}
    if points is not None:
        info["points"] = points
    return {"nbgrader": info}


def _cell(kind: str, source: str, metadata: dict) -> dict:
    cell = {"cell_type": kind, "id": metadata["nbgrader"]["grade_id"], "metadata": metadata, "source": source}
    if kind == "code":
        cell.update(execution_count=None, outputs=[])
    return cell


def test_source(step: str, test: plan.Test) -> str:
    """A test cell's code. Grading never runs it (the answer cell is judged alone in a fresh Python);
    in the student's kernel it runs the same check, for a preview."""
    name = plan.function_name(step)
    if test.hidden:
        return (
            f"# Hidden test ({test.points} points): the full check on cases you have not seen.\n"
            f"{BEGIN_HIDDEN}\nassert helpers.exercises.check({step!r}, {name}).passed\n{END_HIDDEN}\n"
        )
    return (
        f"# Test ({test.points} point{'s' if test.points != 1 else ''}): the mistake “{test.name}”.\n"
        f"# Graded from your answer cell alone, in a fresh Python; here it runs the same check in your kernel.\n"
        f"verdict = helpers.exercises.check({step!r}, {name})\n"
        f"assert {test.key!r} not in str(verdict.mistake).split('+'), verdict.diagnosis\n"
    )


def source_notebook(step: str) -> dict:
    """The assignment's source notebook (nbgrader's format, solutions and hidden tests in)."""
    setup, turn, stub = _series_cells(step)
    cells = [
        _cell(
            "markdown",
            f"# {name_of(step)}: graded\n\nWrite the {'class' if step in plan.MODULE_STEPS else 'function'} in "
            "its answer cell; each test below "
            "is worth its points. Grading runs your answer cell alone, in a fresh Python, so put every import "
            "it needs in that cell.",
            _meta(f"intro_{step}", locked=True),
        ),
        _cell("code", setup, _meta(f"setup_{step}", locked=True)),
        _cell("code", "import helpers.exercises", _meta(f"import_{step}", locked=True)),
        _cell("markdown", turn, _meta(f"turn_{step}", locked=True)),
        _cell("code", answer_source(step, stub), _meta(plan.answer_id(step), solution=True)),
    ]
    for test in plan.tests_for(step):
        cells.append(
            _cell("code", test_source(step, test), _meta(test.grade_id, grade=True, locked=True, points=test.points))
        )
    return {
        "cells": cells,
        "metadata": {
            "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }


def build(course: Path, steps=None) -> list[Path]:
    """Write ``course/source/<name>/<name>.ipynb`` for each step; the paths written."""
    written = []
    for step in steps or plan.STEPS:
        folder = Path(course) / "source" / name_of(step)
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name_of(step)}.ipynb"
        path.write_text(json.dumps(source_notebook(step), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written
