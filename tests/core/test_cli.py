"""``python -m helpers``, run the way a person runs it: a separate process, reading its output.

Also checks that ``import helpers`` stays light (no torch, ipywidgets or matplotlib).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from cli_driver import ENV, finish, run, start

ROOT = Path(__file__).resolve().parents[2]


def numbers_of(output: str, label: str, occurrence: int = 0) -> list[str]:
    """The values printed on the ``label`` line of a step table (the n-th such line)."""
    lines = [line.split() for line in output.splitlines() if line.strip().startswith(label + " ")]
    return [word for word in lines[occurrence] if word[0].isdigit() or word[0] == "-"]


@pytest.fixture(scope="module")
def default_walkthrough() -> subprocess.CompletedProcess:
    return run()


def test_default_walkthrough_shows_row_1_of_the_lesson(default_walkthrough):
    result = default_walkthrough
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    out = result.stdout
    assert "the lesson's residual matrix" in out
    assert numbers_of(out, "mean")[-1] == "0.4457"
    assert numbers_of(out, "output")[-3:] == ["1.1729", "-1.2707", "0.0978"]
    assert "row 1   1.1729  -1.2707   0.0978" in out  # the output matrix at the end
    assert out.count("Row ") == 5
    # every row's output, as in the guide's table
    assert numbers_of(out, "output", 4)[-3:] == ["-0.5743", "1.4044", "-0.8301"]


def test_default_walkthrough_is_deterministic(default_walkthrough):
    again = run()
    assert again.stdout == default_walkthrough.stdout
    assert str(ROOT) not in again.stdout and "0x" not in again.stdout


def test_decimals_3_shows_the_lessons_pencil_numbers():
    result = run("--decimals", "3")
    assert result.returncode == 0, result.stderr
    out = result.stdout
    # row 1 by hand, then beside it the exact values to 5 places (the guide's 0.44567, 0.34341, 0.58602)
    assert numbers_of(out, "mean") == ["0.446", "0.44567"]
    assert numbers_of(out, "variance") == ["0.343", "0.343414"]  # σ² at the places of σ² + ε beside it
    assert numbers_of(out, "std") == ["0.586", "0.58602"]
    assert numbers_of(out, "normalised") == ["1.172", "-1.271", "0.097", "1.17288", "-1.27071", "0.09783"]
    assert "rounded by hand to 3 places" in out
    assert numbers_of(out, "std", 4) == ["0.055", "0.05862"]  # row 5 drifts
    assert "≠ exact: rounding to 3 places moved: squares, variance" in out


def test_row_of_your_own():
    result = run("--row", "1.133", "\u22120.299", "0.503")
    assert result.returncode == 0, result.stderr
    assert "(your row): 1 row(s) × 3 feature(s)" in result.stdout
    assert numbers_of(result.stdout, "output")[-3:] == ["1.1729", "-1.2707", "0.0978"]
    assert result.stdout.count("Row ") == 1


def test_row_with_negative_first_value():
    result = run("--row", "-1", "0", "1", "--decimals", "2")
    assert result.returncode == 0, result.stderr
    # by hand to 2 places, then exactly: (x − 0) / √(2/3 + 1e-5) = ±1.2247
    assert numbers_of(result.stdout, "normalised") == ["-1.22", "0.00", "1.22", "-1.2247", "0.0000", "1.2247"]


def test_csv_of_your_own(tmp_path):
    path = tmp_path / "mine.csv"
    path.write_text("a;b;c\n1,133;-0,299;0,503\n0;1;2\n", encoding="utf-8")
    result = run("--csv", str(path), "--eps", "1e-6")
    assert result.returncode == 0, result.stderr
    assert "(" + str(path) + "): 2 row(s) × 3 feature(s)" in result.stdout
    assert "eps = 1e-06" in result.stdout
    assert "row 2  -1.2247   0.0000   1.2247" in result.stdout


def test_gamma_and_beta():
    result = run("--row", "1.133", "-0.299", "0.503", "--gamma", "2", "1", "1", "--beta", "0", "0", "1")
    assert result.returncode == 0, result.stderr
    # output = gamma · (1.1729, -1.2707, 0.0978) + beta
    assert numbers_of(result.stdout, "output")[-3:] == ["2.3458", "-1.2707", "1.0978"]
    assert numbers_of(result.stdout, "gamma")[-3:] == ["2.0000", "1.0000", "1.0000"]


def test_help():
    result = run("--help")
    assert result.returncode == 0
    for option in ("--row", "--csv", "--eps", "--gamma", "--beta", "--decimals"):
        assert option in result.stdout


BAD_ARGUMENTS = {
    "non-number row value": (["--row", "1", "x", "3"], r"--row: Value 2 'x' is not a number"),
    "NaN in row": (["--row", "1", "nan"], r"--row: Value 2 'nan' is not a number \(NaN\)"),
    "wrong gamma length": (["--gamma", "1", "2"], r"gamma needs one value per feature: 3 values; got 2"),
    "wrong beta length": (["--row", "1", "2", "--beta", "1"], r"beta needs one value per feature: 2 values; got 1"),
    "eps -1": (["--eps", "-1"], r"eps must be a number 0 or larger"),
    "eps abc": (["--eps", "abc"], r"--eps 'abc' is not a number"),
    "missing csv": (["--csv", "no/such/file.csv"], r"There is no file at no/such/file\.csv"),
    "ragged csv": (None, r"ragged\.csv, line 2: this row has 2 values but the first row has 3"),
    "decimals -1": (["--decimals", "-1"], r"decimal places must be a whole number from 0 to 12"),
    "decimals 13": (["--decimals", "13"], r"decimal places must be a whole number from 0 to 12"),
    "decimals abc": (["--decimals", "abc"], r"argument --decimals: invalid int value: 'abc'"),
    "constant row, eps 0": (["--row", "2", "2", "--eps", "0"], r"Every value in the row is the same and eps is 0"),
    "std rounds to 0": (["--decimals", "1"], r"At 1 decimal places the standard deviation rounds to 0"),
    "row and csv": (["--row", "1", "--csv", "x.csv"], r"not allowed with argument"),
    "unknown option": (["--bogus"], r"unrecognized arguments: --bogus"),
    "row with no values": (["--row"], r"expected at least one argument"),
}


# Each bad command line is a fresh Python: together a subprocess sweep, so most are marked slow. The fast
# loop keeps one of each kind: a bad --row value, a missing file, argparse's own error, a row the maths refuses.
QUICK_BAD_ARGUMENTS = ("non-number row value", "missing csv", "unknown option", "constant row, eps 0")
BAD_ARGUMENT_CASES = [
    pytest.param(name, marks=() if name in QUICK_BAD_ARGUMENTS else pytest.mark.slow) for name in BAD_ARGUMENTS
]


@pytest.fixture(scope="module")
def bad_argument_results(request, tmp_path_factory) -> dict[str, subprocess.CompletedProcess]:
    """Every bad command line this run tests, run side by side (one after another is slow)."""
    chosen = {
        item.callspec.params["name"]
        for item in request.session.items
        if getattr(item, "module", None) is request.module  # a notebook cell (nbval) has no module
        and getattr(item, "originalname", "") == "test_bad_arguments_exit_2_with_one_line"
    }
    ragged = tmp_path_factory.mktemp("cli") / "ragged.csv"
    ragged.write_text("1,2,3\n4,5\n", encoding="utf-8")
    processes = {
        name: start(*(args if args is not None else ["--csv", str(ragged)]))
        for name, (args, _) in BAD_ARGUMENTS.items()
        if name in chosen
    }
    return {name: finish(process) for name, process in processes.items()}


@pytest.mark.parametrize("name", BAD_ARGUMENT_CASES)
def test_bad_arguments_exit_2_with_one_line(bad_argument_results, name):
    message = BAD_ARGUMENTS[name][1]
    result = bad_argument_results[name]
    assert result.returncode == 2
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("python -m helpers: error: ")
    assert re.search(message, lines[0]), lines[0]


def test_output_into_a_closed_pipe_is_not_an_error():
    process = subprocess.Popen(
        [sys.executable, "-m", "helpers"], cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    process.stdout.close()  # the reader leaves before the walkthrough is printed, like `| head -0`
    _, stderr = process.communicate(timeout=60)
    assert process.returncode == 0
    assert stderr == b""


def test_import_helpers_does_not_import_torch_ipywidgets_or_matplotlib():
    code = (
        "import sys, helpers\n"
        "helpers.layer_norm_steps(helpers.load_residual()[0], decimals=3)._repr_html_()\n"
        "heavy = sorted(m for m in ('torch', 'ipywidgets', 'matplotlib', 'pandas', 'scipy') if m in sys.modules)\n"
        "print(','.join(heavy) or 'none')\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "none"


def test_the_output_matrix_uses_the_eps_given():

    from conftest import LESSON_X, numpy_layer_norm

    result = run("--eps", "0.1")
    assert result.returncode == 0, result.stderr
    tail = result.stdout.split("LayerNorm output (exact, eps = 0.1)")[1]
    expected = numpy_layer_norm(LESSON_X, eps=0.1)  # row 5 moves a lot with a large eps
    for i, row in enumerate(expected):
        assert numbers_of(tail, f"row {i + 1}")[1:] == [f"{v:.4f}" for v in row]  # [0] is the row's number
    assert f"{numpy_layer_norm(LESSON_X)[4, 1]:.4f}" not in numbers_of(tail, "row 5")
