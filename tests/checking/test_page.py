"""The checker judges the function on the page: in a real IPython shell, a cell that failed to define the
function gets one sentence (which cell, the error, its line) and no verdict about older code; outside
IPython nothing changes."""

from __future__ import annotations

import atexit

import numpy as np
import pytest

from helpers.checking import page
from helpers.checking.exercises import check

GOOD = "def normalise(row, eps):\n    return (row - np.mean(row)) / np.sqrt(np.var(row) + eps)\n"
STUB = "def normalise(row, eps):\n    raise NotImplementedError\n"
BROKEN = "def normalise(row, eps):\n    centred = row - np.mean(row\n    return centred / np.sqrt(np.var(row) + eps)\n"
CHECK = "result = check('normalise', normalise)"
VERDICTS = ("right on all", "Not written yet", "differs", "known mistake", "should return")


@pytest.fixture
def shell():
    interactive = pytest.importorskip("IPython.core.interactiveshell")
    found = interactive.InteractiveShell.instance()
    found.run_cell("import numpy as np\nfrom helpers.checking.exercises import check", store_history=True)
    page.watch(found)  # what importing the checker in a fresh kernel does
    yield found
    # Closed now, not at exit: each shell registers an exit hook that empties it and collects garbage, and
    # this file's shells made the fast loop's processes take 15 s to exit.
    atexit.unregister(found.atexit_operations)
    if found.history_manager is not None:
        found.history_manager.end_session()
        found.history_manager.close()
    interactive.InteractiveShell.clear_instance()


def run(shell, *cells):
    for source in cells:
        shell.run_cell(source, store_history=True)
    return shell.user_ns.get("result")


def judged_nothing(result):
    return not result.passed and not any(words in result.diagnosis for words in VERDICTS)


def test_a_syntax_error_after_a_good_function_gets_the_cell_the_error_and_its_line(shell):
    first = run(shell, GOOD, CHECK)
    assert first.passed, first
    number = shell.execution_count
    result = run(shell, BROKEN, CHECK)
    assert judged_nothing(result), result
    assert result.mistake == "off-the-page"
    assert f"Cell [{number}]" in result.diagnosis and "SyntaxError" in result.diagnosis
    assert "line 2" in result.diagnosis, result.diagnosis
    assert result.diagnosis.count(". ") == 0  # one sentence
    assert result.passed is False and result.step == "normalise", result  # a grade reads these two


def test_a_syntax_error_after_the_stub_is_not_called_not_written_yet(shell):
    result = run(shell, STUB, BROKEN, CHECK)
    assert judged_nothing(result), result
    assert "did not run" in result.diagnosis


def test_the_sentence_comes_from_the_history_even_when_no_event_was_seen(shell, monkeypatch):
    monkeypatch.setattr(page, "_ERRORS", {})  # cells run before the checker was imported
    run(shell, GOOD)
    monkeypatch.setattr(page, "_ERRORS", {})
    result = run(shell, BROKEN, CHECK)
    page._ERRORS.clear()
    result = check("normalise", shell.user_ns["normalise"])
    assert judged_nothing(result) and "SyntaxError" in result.diagnosis, result


def test_an_error_before_the_definition_is_named_with_its_line(shell):
    result = run(shell, GOOD, "x = 1\n1 / 0\n" + GOOD, CHECK)
    assert judged_nothing(result), result
    assert "ZeroDivisionError" in result.diagnosis and "line 2" in result.diagnosis


def test_fixing_the_cell_brings_the_verdict_back(shell):
    result = run(shell, GOOD, BROKEN, CHECK, GOOD, CHECK)
    assert result.passed, result


def test_an_error_after_the_definition_still_judges_the_new_function(shell):
    result = run(shell, STUB, GOOD + "1 / 0\n", CHECK)
    assert result.passed, result


def test_the_module_class_is_followed_too(shell):
    pytest.importorskip("torch")
    good = (
        "import torch\nfrom torch import nn\nclass MyLayerNorm(nn.Module):\n"
        "    def __init__(self, n, eps=1e-5):\n        super().__init__()\n        self.eps = eps\n"
        "        self.gamma = nn.Parameter(torch.ones(n))\n        self.beta = nn.Parameter(torch.zeros(n))\n"
        "    def forward(self, x):\n        m = x.mean(-1, keepdim=True)\n"
        "        v = ((x - m) ** 2).mean(-1, keepdim=True)\n"
        "        return self.gamma * (x - m) / torch.sqrt(v + self.eps) + self.beta\n"
    )
    result = run(shell, good, "result = check('module', MyLayerNorm)")
    assert result.passed, result
    result = run(
        shell, good.replace("super().__init__()", "super().__init__("), "result = check('module', MyLayerNorm)"
    )
    assert judged_nothing(result) and "class from cell" in result.diagnosis, result


def test_a_function_no_cell_defines_is_judged_as_before(shell):
    run(shell, GOOD)

    def normalise(row, eps):  # defined in this file, not in a cell
        return (row - np.mean(row)) / np.sqrt(np.var(row) + eps)

    assert check("normalise", normalise).passed


def test_a_function_of_unknown_origin_after_a_failed_defining_cell_is_not_judged(shell):
    run(shell, BROKEN)

    def normalise(row, eps):  # defined in this file, not in a cell: it may be the older code
        return (row - np.mean(row)) / np.sqrt(np.var(row) + eps)

    result = check("normalise", normalise)
    assert judged_nothing(result) and "may be older code" in result.diagnosis, result


def test_outside_ipython_nothing_changes():
    assert page.shell() is None or page.off_the_page(print) is None
    assert page.off_the_page(lambda row: row) is None


def test_a_cell_that_ran_but_did_not_define_it_is_named(shell):
    hidden = "if False:\n" + "".join("    " + line + "\n" for line in GOOD.splitlines())
    result = run(shell, STUB, hidden, CHECK)
    assert judged_nothing(result) and "not the one cell" in result.diagnosis, result


def test_a_cell_that_only_mentions_the_definition_in_a_string_is_not_the_defining_cell(shell):
    result = run(shell, GOOD, 'notes = """\ndef normalise(row, eps):\n    return row\n"""', CHECK)
    assert result.passed, result


BAD = "def normalise(row, eps):\n    return (row - np.mean(row)) / np.std(row)\n"


@pytest.mark.parametrize(
    "older",
    [
        "%%time\n" + BAD,  # the code runs as "<timed exec>", not as the cell
        "%%capture\n" + BAD,  # an inner cell, filed under the next cell's number
        "exec(" + repr(BAD) + ")",
        "import functools\ndef deco(f):\n    def w(*a):\n        return f(*a)\n    return w\n@deco\n" + BAD,
        "import functools\ndef _n(row, eps):\n    return row\nnormalise = functools.partial(_n)",
        "normalise = lambda row, eps: (row - np.mean(row)) / np.std(row)",
    ],
)
def test_older_code_whose_cell_cannot_be_traced_is_not_judged_after_a_failed_cell(shell, older):
    result = run(shell, older, BROKEN, CHECK)
    assert judged_nothing(result) and result.mistake == "off-the-page", (older, result)
    assert f"Cell [{shell.execution_count - 2}]" in result.diagnosis, result


def test_a_partial_of_a_cell_function_is_followed_to_that_function(shell):
    result = run(
        shell,
        GOOD.replace("def normalise", "def norm2"),
        "import functools\nnormalise = functools.partial(norm2)",
        "def norm2(row, eps):\n    return (\n",
        CHECK,
    )
    assert judged_nothing(result) and "`norm2`" in result.diagnosis, result


@pytest.mark.parametrize(
    "inner",
    [
        "def variance(row):\n    def mean(r):\n        return sum(r) / len(r)\n    return mean(row)\n",
        "class Stats:\n    def mean(self, row):\n        return sum(row) / len(row)\n",
        "def variance(row):\n    def mean(r):\n        return sum(r) / len(r\n",  # does not parse
    ],
)
def test_a_def_inside_a_def_or_a_class_does_not_define_the_cells_name(shell, inner):
    result = run(shell, "def mean(row):\n    return sum(row) / len(row)\n", inner, "result = check('mean', mean)")
    assert result.passed, (inner, result)


def test_a_def_under_a_top_level_block_counts_and_the_sentence_says_so(shell):
    hidden = "if False:\n" + "".join("    " + line + "\n" for line in GOOD.splitlines())
    result = run(shell, STUB, hidden, CHECK)
    assert judged_nothing(result) and "block" in result.diagnosis and "run cell" not in result.diagnosis, result
    result = run(
        shell, STUB, "for _ in range(1):\n" + "".join("    " + line + "\n" for line in GOOD.splitlines()), CHECK
    )
    assert result.passed, result


def test_an_alias_of_the_older_function_is_not_said_to_come_from_a_cell_that_stopped_early(shell):
    result = run(shell, BAD, "old = normalise", GOOD + "raise ValueError('x')\n", "result = check('normalise', old)")
    assert judged_nothing(result), result
    assert "before defining" not in result.diagnosis and "ValueError" in result.diagnosis, result
    result = run(shell, BAD, "old = normalise", "1 / 0\n" + GOOD, "result = check('normalise', old)")
    assert judged_nothing(result) and "before defining" in result.diagnosis, result


def test_a_lambda_calling_older_code_after_a_failed_cell_is_not_judged(shell):
    result = run(
        shell,
        "import functools\n@functools.lru_cache\ndef mean(row):\n    return sum(row) / len(row)\n",
        "def mean(row):\n    return sum(row) / len(row\n",
        "result = check('mean', lambda row: mean(tuple(row)))",
    )
    assert judged_nothing(result) and "`mean`" in result.diagnosis, result


def test_a_lambda_reading_an_attribute_of_the_same_name_is_judged(shell):
    result = run(
        shell,
        "def mean(row):\n    return sum(row) / len(row)\n",
        "def mean(row):\n    return sum(row) / len(row\n",
        "result = check('variance', lambda row: np.mean((np.asarray(row) - np.mean(row)) ** 2))",
    )
    assert result.passed, result
