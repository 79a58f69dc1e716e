"""``python -m helpers``'s ``main(argv)``, called in this process: what each documented command prints, exactly.

tests/core/test_cli.py runs the command as a person does, in a process of its own; these call the same
``main`` here, so that every line of helpers/cli.py is also reached where mutmut and coverage can see it. The
numbers expected are numpy's own LayerNorm (conftest's ``numpy_layer_norm``), never the CLI's output.
"""

from __future__ import annotations

import io
import re
import sys

import numpy as np
import pytest

from helpers import cli
from helpers.core.layernorm import layer_norm_steps
from helpers.display import show_matrix

from conftest import LESSON_X, numpy_layer_norm


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of ``main(argv)``; argparse's exits are caught as the status."""
    try:
        code = cli.main(argv)
    except SystemExit as ended:
        code = ended.code
    out, err = capsys.readouterr()
    return code, out, err


def _output_matrix(out: str) -> tuple[str, np.ndarray]:
    """The title and the numbers of the output matrix the walkthrough ends with."""
    last = out.rstrip("\n").split("\n\n")[-1].splitlines()
    numbers = [[float(v) for v in line.split()[2:]] for line in last[2:]]
    return last[0], np.array(numbers)


def test_with_no_arguments_it_walks_through_every_row_of_the_lessons_matrix(capsys):
    code, out, err = _run([], capsys)
    assert (code, err) == (0, "")
    parts = out.rstrip("\n").split("\n\n")
    assert (
        parts[0].splitlines()[0] == "Input (the lesson's residual matrix, residual_matrix.csv): 5 row(s) × 3 feature(s)"
    )
    assert [part.splitlines()[0] for part in parts[1:6]] == [f"Row {i}" for i in range(1, 6)]
    for index, part in enumerate(parts[1:6]):  # each row's own steps, with the default ε and nothing rounded
        assert part == f"Row {index + 1}\n{layer_norm_steps(LESSON_X[index])}"
    title, output = _output_matrix(out)
    assert title == "LayerNorm output (exact, eps = 1e-05)"
    assert np.allclose(output, numpy_layer_norm(LESSON_X, eps=1e-5), atol=5e-5)  # printed to 4 places
    assert len(parts) == 7 and out.endswith("\n") and not out.endswith("\n\n")


def test_a_row_of_your_own_is_one_row_and_is_called_yours(capsys):
    code, out, err = _run(["--row", "1", "2", "4"], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "Input (your row): 1 row(s) × 3 feature(s)"
    assert out.count("\nRow ") == 1
    title, output = _output_matrix(out)
    assert np.allclose(output, numpy_layer_norm(np.array([[1.0, 2.0, 4.0]]), eps=1e-5), atol=5e-5)


def test_a_csv_of_your_own_is_read_and_named_by_its_path(tmp_path, capsys):
    path = tmp_path / "mine.csv"
    path.write_text("0,1,2\n4,4,5\n", encoding="utf-8")
    code, out, err = _run(["--csv", str(path), "--eps", "1e-3"], capsys)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == f"Input ({path}): 2 row(s) × 3 feature(s)"
    title, output = _output_matrix(out)
    assert title == "LayerNorm output (exact, eps = 0.001)"
    assert np.allclose(output, numpy_layer_norm(np.array([[0.0, 1, 2], [4, 4, 5]]), eps=1e-3), atol=5e-5)


def test_eps_gamma_beta_and_decimals_reach_every_rows_steps_and_the_output(capsys):
    argv = ["--row", "1", "2", "4", "--eps", "0.1", "--gamma", "2", "1", "1", "--beta", "0", "0", "1"]
    code, out, err = _run([*argv, "--decimals", "2"], capsys)
    assert (code, err) == (0, "")
    row, gamma, beta = np.array([1.0, 2, 4]), np.array([2.0, 1, 1]), np.array([0.0, 0, 1])
    record = layer_norm_steps(row, eps=0.1, gamma=gamma, beta=beta, decimals=2)
    assert f"\n\nRow 1\n{record}\n\n" in out
    title, output = _output_matrix(out)
    assert title == "LayerNorm output (exact, eps = 0.1)"  # the output matrix is exact, whatever the rounding
    expected = gamma * numpy_layer_norm(row[np.newaxis, :], eps=0.1) + beta
    assert np.allclose(output, expected, atol=5e-5)
    assert out.rstrip("\n").split("\n\n")[-1] == str(
        show_matrix(np.round(expected, 12), "LayerNorm output (exact, eps = 0.1)")
    )


BAD = {
    # argv: the one line on stderr, whole
    ("--row", "1", "x", "3"): "python -m helpers: error: --row: Value 2 'x' is not a number.",
    ("--eps", "abc"): "python -m helpers: error: --eps 'abc' is not a number.",
    ("--gamma", "1", "x"): "python -m helpers: error: --gamma: Value 2 'x' is not a number.",
    ("--gamma", "1", "2", "3", "4"): "python -m helpers: error: gamma needs one value per feature: 3 values; got 4.",
    ("--row", "1", "2", "--beta", "1"): "python -m helpers: error: beta needs one value per feature: 2 values; got 1.",
    ("--beta", "1", "y", "1"): "python -m helpers: error: --beta: Value 2 'y' is not a number.",
    ("--csv", "no/such.csv"): "python -m helpers: error: There is no file at no/such.csv.",
    ("--bogus",): "python -m helpers: error: unrecognized arguments: --bogus (see --help)",
    ("--decimals", "abc"): "python -m helpers: error: argument --decimals: invalid int value: 'abc' (see --help)",
}


@pytest.mark.parametrize("argv", list(BAD), ids=[" ".join(argv) for argv in BAD])
def test_a_bad_command_line_is_one_line_ending_in_one_full_stop_and_status_2(argv, capsys):
    code, out, err = _run(list(argv), capsys)
    assert (code, out) == (2, "")
    assert err == BAD[argv] + "\n"


def test_a_message_is_ended_by_one_full_stop_whether_or_not_it_had_one(capsys):
    code, _, err = _run(["--row", "2", "2", "--eps", "0"], capsys)  # the maths' own sentence ends in "."
    assert code == 2 and err.startswith("python -m helpers: error: Every value in the row is the same and eps is 0")
    assert err.endswith("such as 1e-5.\n") and not err.endswith("..\n")


def test_the_help_names_each_option_with_its_meaning(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")  # argparse wraps the help to the terminal's width: one line each
    code, out, err = _run(["--help"], capsys)
    assert (code, err) == (0, "")
    assert out.startswith("usage: python -m helpers ")
    lines = out.splitlines()
    assert "Walk through Layer Normalization of the lesson's matrix (or your own), every step shown." in lines
    said = " ".join(out.split())
    for option, meaning in (
        ("--row X [X ...]", "one row of your own, e.g. --row 1.133 -0.299 0.503"),
        ("--csv PATH", "a CSV file of your own (one row per line)"),
        ("--eps EPS", "added to the variance (default 1e-05)"),
        ("--gamma G [G ...]", "scale, one value per feature (default all 1)"),
        ("--beta B [B ...]", "shift, one value per feature (default all 0)"),
        ("--decimals D", "round every step to D places, as by hand (default: exact)"),
    ):
        assert re.search(re.escape(option) + r"\s+" + re.escape(meaning), said), option


def test_row_and_csv_cannot_be_given_together(capsys):
    code, out, err = _run(["--row", "1", "2", "--csv", "x.csv"], capsys)
    assert (code, out) == (2, "")
    assert err == "python -m helpers: error: argument --csv: not allowed with argument --row (see --help)\n"


def test_the_walkthrough_of_a_matrix_names_no_source_unless_given_one():
    text = cli.walkthrough(np.array([[0.0, 1, 2], [4, 4, 5]]), 1e-5)
    assert text.splitlines()[0] == "Input: 2 row(s) × 3 feature(s)"
    assert cli.walkthrough(np.array([[0.0, 1, 2]]), 1e-5, source=" (mine)").startswith("Input (mine): 1 row(s)")


class _LeftReader(io.StringIO):
    """A stdout whose reader has gone (``python -m helpers | head``): every write raises BrokenPipeError."""

    def write(self, text):
        raise BrokenPipeError


def test_a_reader_that_leaves_early_is_not_an_error(monkeypatch):
    monkeypatch.setattr(sys, "stdout", _LeftReader())
    assert cli.main(["--row", "1", "2"]) == 0
    assert sys.stdout is None  # Python's exit then writes nothing more to the closed pipe
