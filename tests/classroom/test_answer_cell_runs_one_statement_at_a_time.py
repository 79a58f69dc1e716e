"""The answer cell as the grading process runs it (classroom/grading/runner.py, ``_run_cell``), in this
process: one top-level statement at a time, a statement that raises is skipped and named by its line
(counted from 1, as the student sees the cell) and the rest still run; a syntax error names its line; the
cell's own code has ``limit`` seconds in all; the watchdog's clock is set only while a statement runs.
"""

from __future__ import annotations

import time

from classroom.grading import runner


def run(code: str, limit: float = 5.0, clock: dict | None = None):
    namespace: dict = {"__name__": "__answer__"}
    failed = runner._run_cell(code, limit, namespace, {} if clock is None else clock)
    return failed, namespace


def test_a_raising_statement_is_skipped_by_its_line_and_the_rest_still_runs():
    code = "a = 1\nraise ValueError('no')\nb = 2\n"
    failed, space = run(code)
    assert failed == ["your cell's line 2 raised ValueError: no"]
    assert (space["a"], space["b"]) == (1, 2)


def test_the_line_named_is_where_the_statement_starts_counted_from_one():
    code = "x = 0\n\n\ndef f():\n    return 1\n\n\nopen('/nonexistent/p7/file')\ny = 3\n"
    failed, space = run(code)
    assert failed == [
        "your cell's line 8 raised FileNotFoundError: [Errno 2] No such file or directory: '/nonexistent/p7/file'"
    ]
    assert space["f"]() == 1 and space["y"] == 3


def test_each_failing_statement_is_named_in_order():
    failed, space = run("1 / 0\nz = 5\n[][1]\n")
    assert failed == [
        "your cell's line 1 raised ZeroDivisionError: division by zero",
        "your cell's line 3 raised IndexError: list index out of range",
    ]
    assert space["z"] == 5


def test_a_long_error_message_is_cut_at_160_characters():
    failed, _ = run(f"raise RuntimeError({'x' * 500!r})\n")
    assert failed == ["your cell's line 1 raised RuntimeError: " + "x" * 160]


def test_even_an_exit_is_only_a_skipped_line():
    failed, space = run("import sys\nsys.exit(3)\nafter = True\n")
    assert failed == ["your cell's line 2 raised SystemExit: 3"]
    assert space["after"] is True


def test_a_syntax_error_runs_nothing_and_names_its_line():
    failed, space = run("a = 1\nb = 2\ndef f(:\n    pass\n")
    assert len(failed) == 1
    assert failed[0].startswith("your cell has a syntax error on its line 3: ")
    assert "a" not in space


def test_with_no_time_at_all_nothing_runs_and_the_first_line_is_named():
    failed, space = run("a = 1\nb = 2\n", limit=0)
    assert failed == ["your cell's own code did not finish within 0 s (from its line 1)"]
    assert "a" not in space


def test_a_cell_that_did_everything_reports_nothing():
    failed, space = run("def mean(row):\n    return sum(row) / len(row)\n")
    assert failed == [] and space["mean"]([1, 2, 3]) == 2


def test_once_the_time_is_spent_the_next_statement_is_not_run_and_its_line_is_named():
    code = "import time\nwhile time.monotonic() <= clock['until']:\n    pass\nlate = 1\nlater = 2\n"
    clock: dict = {}
    space = {"clock": clock}
    failed = runner._run_cell(code, 0.05, space, clock)
    assert failed == ["your cell's own code did not finish within 0.05 s (from its line 4)"]
    assert "late" not in space and "later" not in space


def test_the_watchdogs_clock_holds_the_deadline_only_while_a_statement_runs():
    clock: dict = {"until": "unset"}
    seen = []
    before = time.monotonic()
    namespace = {"seen": seen, "clock": clock}
    failed = runner._run_cell("seen.append(clock['until'])\nseen.append(clock['until'])\n", 2.0, namespace, clock)
    assert failed == [] and len(seen) == 2
    assert seen[0] == seen[1]  # one deadline for the whole cell, not one per statement
    assert before + 2.0 <= seen[0] <= time.monotonic() + 2.0
    assert clock["until"] is None  # after the cell: the watchdog stands down


def test_a_cell_stopped_by_the_watchdog_names_the_line_and_runs_no_more():
    code = "a = 1\nraise CellTimeout()\nb = 2\n"
    namespace = {"CellTimeout": runner.CellTimeout}
    clock: dict = {}
    failed = runner._run_cell(code, 1.5, namespace, clock)
    assert failed == ["your cell's own code did not finish within 1.5 s (its line 2)"]
    assert namespace["a"] == 1 and "b" not in namespace
    assert clock["until"] is None


def test_a_traceback_shows_the_cells_own_lines():
    namespace: dict = {}
    runner._run_cell("def f():\n    return 1 / 0\n", 5.0, namespace, {})
    import traceback

    try:
        namespace["f"]()
    except ZeroDivisionError as error:
        frame = traceback.extract_tb(error.__traceback__)[-1]
    assert (frame.filename, frame.lineno, frame.line) == (runner.CELL_FILE, 2, "return 1 / 0")
