"""helpers.core.data: the lesson's CSV files, anybody's CSV file, and rows typed by a person.

Expected matrices are written out here from the lesson (and ../shared/GUIDE.md), not read back
through the code under test. Every bad file must raise ValueError with a message naming what is wrong.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import helpers
from helpers.core.data import load_matrix, parse_matrix_text, parse_number, parse_row, split_row

from conftest import LESSON_X, PUBLISHED_OUTPUT  # the lesson's matrix and its (wrong) published output, as printed


def write(tmp_path: Path, content: str | bytes, name: str = "matrix.csv") -> Path:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_bytes(content.encode("utf-8"))  # bytes, so "\r\n" stays exactly as given
    return path


# ---------------------------------------------------------------------------------------------
# The lesson's files


def test_load_residual_is_the_lessons_matrix():
    x = helpers.load_residual()
    assert x.dtype == np.float64
    assert x.shape == (5, 3)
    np.testing.assert_array_equal(x, np.array(LESSON_X))


def test_load_published_output_is_the_lessons_table_as_printed():
    published = helpers.load_published_output()
    assert published.shape == (5, 3)
    np.testing.assert_array_equal(published, np.array(PUBLISHED_OUTPUT))


# ---------------------------------------------------------------------------------------------
# Files people really save


GOOD_FILES = {
    "plain": ("1.133,-0.299,0.503\n-0.176,0.911,0.143\n", [[1.133, -0.299, 0.503], [-0.176, 0.911, 0.143]]),
    "header line": ("a,b,c\n1,2,3\n4,5,6\n", [[1, 2, 3], [4, 5, 6]]),
    "windows line endings": ("x,y\r\n1.5,2\r\n3,4\r\n", [[1.5, 2], [3, 4]]),
    "byte-order mark": ("\ufefffeature_1,feature_2\n1,2\n", [[1, 2]]),
    "byte-order mark, no header": ("\ufeff1,2\n3,4\n", [[1, 2], [3, 4]]),
    "semicolons with decimal commas": ("a;b\n1,5;-2,25\n0,125;3\n", [[1.5, -2.25], [0.125, 3]]),
    "semicolons with decimal points": ("1.5;2\n3;4\n", [[1.5, 2], [3, 4]]),
    "tabs": ("x\ty\n1\t2\n3\t4\n", [[1, 2], [3, 4]]),
    "blank lines": ("\n1,2\n\n   \n3,4\n\n", [[1, 2], [3, 4]]),
    "unicode minus": ("\u22120.299,0.5\n1,\u22122e\u22123\n", [[-0.299, 0.5], [1, -2e-3]]),
    "spaces after commas": ("1, 2, 3\n4,  5, 6\n", [[1, 2, 3], [4, 5, 6]]),
    "quoted numbers": ('"1.5","2"\n"3",4\n', [[1.5, 2], [3, 4]]),
    "exponents": ("1e-5,2.5E+2\n-.5,+3.\n", [[1e-5, 250], [-0.5, 3]]),
    "one column": ("value\n1\n2\n", [[1], [2]]),
    "no newline at the end": ("1,2\n3,4", [[1, 2], [3, 4]]),
}


@pytest.mark.parametrize("content, expected", GOOD_FILES.values(), ids=GOOD_FILES.keys())
def test_load_matrix_reads_files_people_save(tmp_path, content, expected):
    matrix = load_matrix(write(tmp_path, content))
    assert matrix.dtype == np.float64
    np.testing.assert_array_equal(matrix, np.array(expected, dtype=np.float64))


def test_load_matrix_accepts_a_str_path(tmp_path):
    path = write(tmp_path, "1,2\n")
    np.testing.assert_array_equal(load_matrix(str(path)), [[1.0, 2.0]])


# ---------------------------------------------------------------------------------------------
# Bad files: ValueError, in plain words, naming the line and column


BAD_FILES = {
    "ragged row": ("1,2,3\n4,5,6\n7,8\n", r"matrix\.csv, line 3: this row has 2 values but the first row has 3"),
    "ragged row after a header": ("a,b\n1,2\n3\n", r"line 3: this row has 1 value but the first row has 2"),
    "a word in a cell": ("1,2\n3,abc\n", r"line 2, column 2: the cell 'abc' is not a number"),
    "NaN": ("1,2\n3,4\nnan,5\n", r"line 3, column 1: the cell 'nan' is not a number \(NaN\)"),
    "infinity": ("1,2\n3,-inf\n", r"line 2, column 2: the cell '-inf' is infinity"),
    "1e400": ("1,2\n1e400,3\n", r"line 2, column 1: the cell '1e400' is too large to store"),
    "1e400 on the first line": ("1e400\n", r"line 1, column 1: the cell '1e400' is too large"),
    "empty cell": ("1,,3\n", r"line 1, column 2: the cell is empty"),
    "trailing comma": ("1,2,\n", r"line 1, column 3: the cell is empty"),
    "two decimal points": ("1.2.3,4\n", r"line 1, column 1: the cell '1\.2\.3' is not a number"),
    "hex": ("0x1F,2\n", r"the cell '0x1F' is not a number"),
    "underscores": ("1_000,2\n", r"the cell '1_000' is not a number"),
    # An unclosed quote swallows the comma; the first line must not be dropped as a "header".
    "unclosed quote": ('"1,2\n3,4\n', r"line 2: this row has 2 values but the first row has 1"),
    "unclosed quote, one column": ('"1,2\n3\n', r"line 1, column 1: the cell '1,2' is not a number"),
    "empty file": ("", r"matrix\.csv is empty: there are no numbers in it"),
    "only blank lines": ("\n  \n\t\n", r"matrix\.csv is empty"),
    "header only": ("feature_1,feature_2\n", r"matrix\.csv has a header line but no rows of numbers"),
    "a cell too long for csv": ("1," + "1" * 200_000 + "\n", r"line 1: this line cannot be read as CSV"),
}


@pytest.mark.parametrize("content, message", BAD_FILES.values(), ids=BAD_FILES.keys())
def test_load_matrix_bad_file_names_the_problem(tmp_path, content, message):
    with pytest.raises(ValueError, match=message):
        load_matrix(write(tmp_path, content))


def test_load_matrix_missing_file(tmp_path):
    with pytest.raises(ValueError, match=r"There is no file at .*nowhere\.csv"):
        load_matrix(tmp_path / "nowhere.csv")


def test_load_matrix_folder(tmp_path):
    with pytest.raises(ValueError, match=r"is a folder, not a CSV file"):
        load_matrix(tmp_path)


@pytest.mark.parametrize(
    "content",
    [
        bytes(range(256)),  # arbitrary binary
        b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",  # the start of a PNG picture
        "1;2\n".encode("utf-16"),  # text, but not UTF-8
        "1,2\n3,\xe9\n".encode("latin-1"),  # a Latin-1 accent
    ],
    ids=["binary", "png", "utf-16", "latin-1"],
)
def test_load_matrix_binary_or_not_utf8(tmp_path, content):
    with pytest.raises(ValueError, match=r"is not a text file \(save it as CSV, UTF-8\)"):
        load_matrix(write(tmp_path, content))


def test_load_matrix_unreadable_file(tmp_path, monkeypatch):
    # Running as root in CI, chmod cannot take read permission away; make reading fail instead.
    path = write(tmp_path, "1,2\n")

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "read_text", refuse)
    with pytest.raises(ValueError, match=r"could not be read: Permission denied"):
        load_matrix(path)


def test_parse_matrix_text_names_its_source():
    with pytest.raises(ValueError, match=r"^pasted text, line 2, column 1: the cell 'x' is not a number"):
        parse_matrix_text("1\nx\n", source="pasted text")


# ---------------------------------------------------------------------------------------------
# Numbers and rows typed by a person


@pytest.mark.parametrize(
    "text, expected",
    [
        ("-0.299", -0.299),
        ("\u22120.299", -0.299),
        ("\u20130.299", -0.299),
        ("  1.133 ", 1.133),
        ("1e-5", 1e-5),
        ("+2", 2.0),
        (".5", 0.5),
        ("5.", 5.0),
        ("1E3", 1000.0),
    ],
)
def test_parse_number_reads_what_people_write(text, expected):
    assert parse_number(text) == expected


@pytest.mark.parametrize(
    "text, message",
    [
        ("", r"^is empty; type a number$"),
        ("   ", r"^is empty"),
        ("abc", r"^'abc' is not a number$"),
        ("NaN", r"^'NaN' is not a number \(NaN\)"),
        ("-inf", r"^'-inf' is infinity"),
        ("Infinity", r"'Infinity' is infinity"),
        ("1e400", r"^'1e400' is too large to store as a number"),
        ("-1e400", r"'-1e400' is too large"),
        ("0x10", r"'0x10' is not a number"),
        ("1_0", r"'1_0' is not a number"),
        ("1,5", r"'1,5' is not a number"),
    ],
)
def test_parse_number_refuses_in_plain_words(text, message):
    with pytest.raises(ValueError, match=message):
        parse_number(text)


@pytest.mark.parametrize(
    "text",
    [
        "1.133, -0.299, 0.503",
        "[1.133 -0.299 0.503]",
        "1.133\t\u22120.299\t0.503",
        "(1.133; -0.299; 0.503)",
        "[1.133, -0.299, 0.503,]",
        "  1.133   -0.299\n0.503 ",
    ],
)
def test_parse_row_reads_pasted_rows(text):
    np.testing.assert_array_equal(parse_row(text), [1.133, -0.299, 0.503])
    assert parse_row(text).dtype == np.float64


@pytest.mark.parametrize(
    "text, pieces",
    [
        ("1, 2, 3", ["1", "2", "3"]),
        ("[1.50 \u22122, 3e-2]", ["1.50", "-2", "3e-2"]),
        ("[ ]", []),
        ("1, [, 2", ["1", "", "2"]),  # parse_row then says "Value 2 is empty"
    ],
)
def test_split_row_keeps_each_value_as_it_was_typed(text, pieces):
    assert split_row(text) == pieces


@pytest.mark.parametrize(
    "text, message",
    [
        ("", r"^The row is empty"),
        ("[ ]", r"^The row is empty"),
        (",", r"^The row is empty"),
        (" ; ,\t", r"^The row is empty"),
        ("[,]", r"^The row is empty"),
        ("1, two, 3", r"^Value 2 'two' is not a number\.$"),
        ("1 2 nan", r"^Value 3 'nan' is not a number \(NaN\)"),
        ("1e999 2", r"^Value 1 '1e999' is too large"),
    ],
)
def test_parse_row_names_the_bad_value(text, message):
    with pytest.raises(ValueError, match=message):
        parse_row(text)


@pytest.mark.parametrize("path, shown", [(None, "None"), ("a\0b", "'a\\x00b'"), (42, "42")])
def test_load_matrix_of_something_that_is_not_a_path_is_a_plain_value_error(path, shown):
    with pytest.raises(ValueError, match="load_matrix needs the path of a CSV file") as problem:
        load_matrix(path)
    assert str(problem.value).endswith(f"got {shown}.")


# ---------------------------------------------------------------------------------------------
# Notebook 01's question: which token (row) has the smallest spread?


def _least_spread_row(rows: list[list[float]]) -> str:
    """Worked out here by the hint's own rule (largest minus smallest value), not by a variance."""
    spans = [max(row) - min(row) for row in rows]
    return f"row {spans.index(min(spans)) + 1}"


def test_the_spread_question_on_the_lesson_matrix_is_answered_by_the_flattest_row():
    from helpers.core.data import smallest_spread_question

    question = smallest_spread_question(LESSON_X)
    assert question["options"] == [f"row {i}" for i in range(1, 6)]
    assert question["answer"] == _least_spread_row([list(row) for row in LESSON_X]) == "row 5"
    assert question["answer"] in question["options"]
    assert question["explanation"] == "Its three values are almost equal."


@pytest.mark.parametrize(
    "rows",
    [
        # columns spread least in the first column, rows least in the last row: a token is a row
        [[0.0, 5.0, -5.0], [0.1, 9.0, 2.0], [0.2, 1.0, 1.5]],
        # wider than tall: four features per token, two tokens
        [[1.0, 1.1, 0.9, 1.0], [-3.0, 3.0, 0.0, 0.5]],
        # more tokens than features, the flattest one in the middle
        [[0.0, 2.0], [5.0, -5.0], [1.0, 1.01], [3.0, 0.0]],
    ],
)
def test_the_spread_question_names_the_row_whose_values_are_closest_together(rows):
    from helpers.core.data import smallest_spread_question

    question = smallest_spread_question(rows)
    assert question["options"] == [f"row {i + 1}" for i in range(len(rows))]
    assert question["answer"] == _least_spread_row(rows)
    three = len(rows[0]) == 3
    assert question["explanation"] == (
        "Its three values are almost equal." if three else "Its values are almost equal."
    )
