"""Reading a submitted notebook's cells (classroom/grading/notebook.py), from its docstrings, without a kernel:
the answer cell is found by its nbgrader grade_id (the first of a repeated id, never by position); a test
cell must keep its source, its points and its grade_id; the sentence about edited, deleted or moved test cells
names at most three and counts the rest."""

from __future__ import annotations

import copy

import pytest

from classroom.grading import notebook


def cell(grade_id, source, points=None, cell_type="code"):
    meta = {"grade_id": grade_id} if points is None else {"grade_id": grade_id, "points": points}
    return {"cell_type": cell_type, "source": source, "metadata": {"nbgrader": meta}}


TESTS = [f"test_mean_{n}" for n in range(6)]


def released():
    cells = [cell("answer_mean", "def mean(row):\n    ...\n")]
    cells += [cell(key, f"check({n})", points=1) for n, key in enumerate(TESTS)]
    return {"cells": cells}


def test_a_repeated_answer_id_takes_the_first_cell_not_the_last():
    submitted = released()
    submitted["cells"].append(cell("answer_mean", "def mean(row):\n    return 0\n"))  # pasted again below
    assert notebook.answer(submitted, "answer_mean") == "def mean(row):\n    ...\n"
    assert notebook.by_id(submitted)["answer_mean"] is submitted["cells"][0]


def test_a_test_cell_keeps_its_source_its_points_and_its_id():
    original = cell("test_mean_0", "check(0)", points=1)
    assert notebook.checksum(copy.deepcopy(original)) == notebook.checksum(original)
    for changed in (
        cell("test_mean_0", "check(0)", points=2),  # more points
        cell("test_mean_0", "check(0)", points=None),  # its points removed
        cell("test_mean_0", "pass", points=1),  # its code
        cell("test_mean_1", "check(0)", points=1),  # its id
        cell("test_mean_0", "check(0)", points=1, cell_type="markdown"),  # no longer code
    ):
        assert notebook.checksum(changed) != notebook.checksum(original)


def test_edited_points_alone_are_named():
    submitted = released()
    submitted["cells"][1]["metadata"]["nbgrader"]["points"] = 100
    assert notebook.changed_tests(submitted, released(), TESTS) == (
        "Your notebook edited test cell test_mean_0 (its code or points): the grade uses the tests as released, "
        "found by their ids, so that was ignored."
    )


def edited(count: int) -> str | None:
    submitted = released()
    for c in submitted["cells"][1 : count + 1]:
        c["source"] = "pass"
    return notebook.changed_tests(submitted, released(), TESTS)


@pytest.mark.parametrize(
    ("count", "named"),
    [
        (1, "test cell test_mean_0"),
        (3, "test cells test_mean_0, test_mean_1, test_mean_2"),
        (4, "test cells test_mean_0, test_mean_1, test_mean_2 and 1 more"),
        (6, "test cells test_mean_0, test_mean_1, test_mean_2 and 3 more"),
    ],
)
def test_at_most_three_cells_are_named_and_the_rest_counted(count, named):
    assert edited(count).startswith(f"Your notebook edited {named} (its code or points):")


def test_nothing_changed_says_nothing():
    assert notebook.changed_tests(released(), released(), TESTS) is None
