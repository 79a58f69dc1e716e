"""What a student may change without a note (classroom/grading/notebook.py, ``changed_tests``): the sentence is
about the test cells only, found by their ids: their answer (every submission changes it), cells of their own
added anywhere (scratch code, notes, a cell with an id the release does not have), and a test cell's source
saved as a list of lines (as JupyterLab saves it) where the release has one string, say nothing. Moving one
test cell past another is "moved"; a test cell appearing in the notebook's order where it was is not.
"""

from __future__ import annotations

import copy

from classroom.grading import notebook

TESTS = ["test_mean_n-1", "test_mean_median", "test_mean_hidden"]


def cell(grade_id, source, points=None, cell_type="code"):
    meta = {"grade_id": grade_id} if points is None else {"grade_id": grade_id, "points": points}
    return {"cell_type": cell_type, "source": source, "metadata": {"nbgrader": meta}}


def released():
    return {
        "cells": [
            cell("intro_mean", "# 02_mean: graded", cell_type="markdown"),
            cell("answer_mean", "def mean(row):\n    raise NotImplementedError\n"),
            cell(TESTS[0], "verdict = check('mean', mean)\nassert 'n-1' not in verdict\n", points=1),
            cell(TESTS[1], "verdict = check('mean', mean)\nassert 'median' not in verdict\n", points=1),
            cell(TESTS[2], "assert check('mean', mean).passed\n", points=2),
        ]
    }


def test_an_answer_written_is_no_edit_to_the_tests():
    submitted = released()
    submitted["cells"][1]["source"] = "def mean(row):\n    return sum(row) / len(row)\n"
    assert notebook.changed_tests(submitted, released(), TESTS) is None


def test_cells_of_the_students_own_anywhere_are_no_edit_and_no_move():
    submitted = released()
    scratch = {"cell_type": "code", "source": "print(mean([1, 2]))", "metadata": {}}
    note = {"cell_type": "markdown", "source": "my notes", "metadata": {"nbgrader": {}}}
    foreign = cell("my_own_id", "x = 1")
    submitted["cells"][3:3] = [scratch, note, foreign]  # between two test cells
    submitted["cells"].insert(0, copy.deepcopy(scratch))
    submitted["cells"].append(copy.deepcopy(note))
    assert notebook.changed_tests(submitted, released(), TESTS) is None


def test_a_source_saved_as_lines_is_the_same_source():
    submitted = released()
    for c in submitted["cells"]:
        c["source"] = c["source"].splitlines(keepends=True)
    assert notebook.changed_tests(submitted, released(), TESTS) is None
    assert notebook.checksum(submitted["cells"][2]) == notebook.checksum(released()["cells"][2])


def test_extra_metadata_jupyterlab_adds_is_no_edit():
    submitted = released()
    for c in submitted["cells"]:
        c["metadata"]["tags"] = []
        c["metadata"]["nbgrader"]["schema_version"] = 3
        c["execution_count"] = 4
        c["outputs"] = [{"output_type": "stream", "name": "stdout", "text": "ran\n"}]
    assert notebook.changed_tests(submitted, released(), TESTS) is None


def test_a_test_moved_past_another_is_moved_and_nothing_else():
    submitted = released()
    cells = submitted["cells"]
    cells[2], cells[4] = cells[4], cells[2]
    assert notebook.changed_tests(submitted, released(), TESTS) == (
        "Your notebook moved cells: the grade uses the tests as released, found by their ids, so that was ignored."
    )


def test_the_answer_moved_below_the_tests_is_moved():
    submitted = released()
    submitted["cells"].append(submitted["cells"].pop(1))
    assert notebook.changed_tests(submitted, released(), TESTS) == (
        "Your notebook moved cells: the grade uses the tests as released, found by their ids, so that was ignored."
    )


def test_a_deleted_test_is_deleted_not_also_moved():
    submitted = released()
    del submitted["cells"][3]
    assert notebook.changed_tests(submitted, released(), TESTS) == (
        "Your notebook deleted test cell test_mean_median: the grade uses the tests as released, found by their "
        "ids, so that was ignored."
    )


def test_only_the_test_ids_asked_about_are_named():
    submitted = released()
    submitted["cells"][0]["source"] = "# my title"  # the intro, which is no test
    assert notebook.changed_tests(submitted, released(), TESTS) is None
    assert notebook.changed_tests(submitted, released(), ["intro_mean"]) == (
        "Your notebook edited test cell intro_mean (its code or points): the grade uses the tests as released, "
        "found by their ids, so that was ignored."
    )


def test_a_test_id_the_release_lacks_is_neither_edited_nor_deleted_there():
    submitted = released()
    assert notebook.changed_tests(submitted, released(), [*TESTS, "test_mean_new"]) == (
        "Your notebook deleted test cell test_mean_new: the grade uses the tests as released, found by their ids, "
        "so that was ignored."
    )
    submitted["cells"].append(cell("test_mean_new", "anything", points=5))
    assert notebook.changed_tests(submitted, released(), [*TESTS, "test_mean_new"]) is None
