"""Reading a submitted notebook's cells (classroom/grading/notebook.py), from its docstrings, without a kernel:
the answer cell is found by its nbgrader grade_id (the first of a repeated id, never by position); a test
cell must keep its source, its points and its grade_id; the sentence about edited, deleted or moved test cells
names at most three and counts the rest."""

from __future__ import annotations

import copy
import locale

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


# ---------------------------------------------------------------------------------------------
# Bad input gets one sentence, whole (read, answer), and any cell can be read without failing


@pytest.mark.parametrize(
    ("content", "sentence"),
    [
        (b"", "mean.ipynb is empty: nothing was submitted."),
        (b"  \n", "mean.ipynb is empty: nothing was submitted."),
        (b"\xff\xfe{}", "mean.ipynb could not be read (UnicodeDecodeError)."),
        (
            b'{\n"cells": [\n',
            "mean.ipynb is not a readable notebook (its JSON breaks at line 3); submit it again from JupyterLab.",
        ),
        (b"[]", "mean.ipynb is not a notebook (it has no list of cells); submit it again from JupyterLab."),
        (b'{"cells": {}}', "mean.ipynb is not a notebook (it has no list of cells); submit it again from JupyterLab."),
    ],
)
def test_a_submission_that_cannot_be_read_gets_its_one_sentence(tmp_path, content, sentence):
    path = tmp_path / "mean.ipynb"
    path.write_bytes(content)
    with pytest.raises(notebook.BadSubmission) as bad:
        notebook.read(path)
    assert str(bad.value) == sentence


def test_a_folder_in_place_of_the_notebook_could_not_be_read(tmp_path):
    (tmp_path / "mean.ipynb").mkdir()
    with pytest.raises(notebook.BadSubmission) as bad:
        notebook.read(tmp_path / "mean.ipynb")
    assert str(bad.value) == "mean.ipynb could not be read (IsADirectoryError)."


def test_a_notebook_reads_as_utf8_whatever_the_locale(tmp_path):
    """A hub started without LANG has the C locale (ASCII); a student's notebook holds "γ" all the same."""
    path = tmp_path / "mean.ipynb"
    path.write_text('{"cells": [{"source": "γ = 1"}], "nbformat": 4}', encoding="utf-8")
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        assert notebook.read(path) == {"cells": [{"source": "γ = 1"}], "nbformat": 4}
    finally:
        locale.setlocale(locale.LC_CTYPE, before)


def test_a_missing_or_retyped_answer_cell_gets_its_sentence():
    with pytest.raises(notebook.BadSubmission) as bad:
        notebook.answer({"cells": released()["cells"][1:]}, "answer_mean")
    assert str(bad.value) == (
        "Your notebook has no answer cell answer_mean (it was deleted, or its metadata removed), so there is "
        "nothing to grade: fetch the assignment again and copy your code into its answer cell."
    )
    submitted = released()
    submitted["cells"][0]["cell_type"] = "markdown"
    with pytest.raises(notebook.BadSubmission) as bad:
        notebook.answer(submitted, "answer_mean")
    assert str(bad.value) == "Your answer cell answer_mean was turned into markdown text; make it code again."


def test_a_cells_source_is_its_lines_joined_or_its_text_and_empty_when_missing():
    assert notebook.source({"source": ["def mean(row):\n", "    return 0\n"]}) == "def mean(row):\n    return 0\n"
    assert notebook.source({"source": "x = 1"}) == "x = 1"
    assert notebook.source({}) == ""
    assert notebook.source({"source": 42}) == "42"  # JSON allows any value: read as text, never a crash
    assert notebook.answer({"cells": [{"cell_type": "code", "metadata": {"nbgrader": {"grade_id": "a"}}}]}, "a") == ""


@pytest.mark.parametrize(
    "odd", ["a string", {"metadata": "none"}, {"metadata": {"nbgrader": ["grade_id"]}}, {"metadata": {}}]
)
def test_a_cell_without_nbgrader_metadata_has_no_grade_id(odd):
    assert notebook.grade_id(odd) is None
    assert notebook.by_id({"cells": [odd, cell("answer_mean", "x")]}) == {"answer_mean": cell("answer_mean", "x")}


def test_a_cell_without_metadata_has_a_checksum_of_its_own():
    plain = {"cell_type": "code", "source": "check(0)"}
    assert notebook.checksum(plain) == notebook.checksum({**plain, "metadata": {}})
    assert notebook.checksum(plain) != notebook.checksum(cell("test_mean_0", "check(0)", points=1))


def test_deleted_and_moved_test_cells_are_named_in_one_sentence():
    submitted = released()
    del submitted["cells"][2]  # test_mean_1
    assert notebook.changed_tests(submitted, released(), TESTS) == (
        "Your notebook deleted test cell test_mean_1: the grade uses the tests as released, found by their ids, "
        "so that was ignored."
    )
    submitted = released()
    submitted["cells"][1], submitted["cells"][2] = submitted["cells"][2], submitted["cells"][1]
    assert notebook.changed_tests(submitted, released(), TESTS) == (
        "Your notebook moved cells: the grade uses the tests as released, found by their ids, so that was ignored."
    )
    submitted["cells"][3]["source"] = "pass"  # test_mean_2 edited
    del submitted["cells"][-1]  # test_mean_5 deleted
    assert notebook.changed_tests(submitted, released(), TESTS) == (
        "Your notebook edited test cell test_mean_2 (its code or points) and deleted test cell test_mean_5 and "
        "moved cells: the grade uses the tests as released, found by their ids, so that was ignored."
    )
