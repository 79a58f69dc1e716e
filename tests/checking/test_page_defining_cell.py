"""Which cell defines a function, and what the sentence says about it (helpers.checking.page): a def under
any branch of a top-level block counts, a def a class or a def encloses does not (also in a cell that does
not parse), a cell is read as IPython runs it (magics transformed), a lambda is followed to the functions it
calls by name, and the sentence names the error as IPython reported it. Asked of ``off_the_page`` directly,
so no verdict is computed, in one real IPython shell for the file (each test runs its own cells first, and
only the newest cells that define a name are read)."""

from __future__ import annotations

import atexit

import pytest

from helpers.checking import page


@pytest.fixture(scope="module")
def shell():
    interactive = pytest.importorskip("IPython.core.interactiveshell")
    found = interactive.InteractiveShell.instance()
    found.InteractiveTB.set_mode("Minimal")  # the failing cells' tracebacks printed short: the errors are the same
    page.watch(found)
    yield found
    atexit.unregister(found.atexit_operations)  # closed now, as test_page.py's shells are
    if found.history_manager is not None:
        found.history_manager.end_session()
        found.history_manager.close()
    interactive.InteractiveShell.clear_instance()


GOOD = "def mean(row):\n    return sum(row) / len(row)\n"
BROKEN = "def mean(row):\n    return sum(row) / len(row\n"


def said(shell, *cells, checked="mean", step="mean"):
    """Run the cells, then what off_the_page says of ``checked`` (an expression in the shell) for ``step``."""
    for source in cells:
        shell.run_cell(source, store_history=True)
    return page.off_the_page(shell.ev(checked), step)


def cell(shell, back):
    """The number of the cell run ``back`` cells ago (1: the last)."""
    return shell.execution_count - back


def indented(source, by="    "):
    return "".join(by + line + "\n" for line in source.splitlines())


@pytest.mark.parametrize(
    "block",
    [
        "if True:\n    pass\nelse:\n" + indented(GOOD),
        "try:\n    pass\nexcept Exception:\n" + indented(GOOD),
        "try:\n    pass\nfinally:\n    if False:\n" + indented(GOOD, "        "),
        "match 1:\n    case 2:\n" + indented(GOOD, "        "),
    ],
    ids=["else", "except", "finally", "match-case"],
)
def test_a_def_under_any_branch_of_a_top_level_block_makes_it_a_defining_cell(shell, block):
    sentence = said(shell, GOOD, block)
    newest, origin = cell(shell, 1), cell(shell, 2)
    assert sentence == (
        f"Cell [{newest}] defines `mean` only inside a block (an if, for, with or try), and the function checked is "
        f"still the one cell [{origin}] defined, not the one cell [{newest}] defines: that block's definition did "
        "not run, or the name was bound again: run the cell defining the `mean` you want checked, then this check "
        "again; nothing is judged until then."
    )


def test_a_def_after_another_def_in_the_cell_still_makes_it_the_defining_cell(shell):
    helper = "def helper(row):\n    return row\n"
    sentence = said(shell, GOOD, helper + "1 / 0\n" + GOOD)
    assert sentence == (
        f"Cell [{cell(shell, 1)}], the newest that defines `mean`, stopped before defining it (ZeroDivisionError: "
        f"division by zero at line 3), so `mean` is still the function from cell [{cell(shell, 2)}]: fix that cell "
        "and run it, then run this check again; nothing is judged until then."
    )
    sentence = said(shell, GOOD, helper + BROKEN)  # a cell that does not parse: read line by line
    assert sentence is not None and f"Cell [{cell(shell, 1)}], the newest that defines `mean`, did not run" in sentence


@pytest.mark.parametrize(
    "enclosed",
    [
        "class Stats:\n\n    def mean(self, row):\n        return sum(row) / len(row\n",
        "class Stats:\n# the helpers\n    def mean(self, row):\n        return sum(row) / len(row\n",
        "class Stats:\n    def other(self):\n        return 1\n    def mean(self, row):\n        return sum(row) / len(row\n",
        "class Stats:\n if True:\n  def mean(self, row):\n   return sum(row) / len(row\n",
        "def outer():\n    if True:\n        def mean(row):\n            return sum(row) / len(row\n",
    ],
    ids=["blank-line", "comment-at-the-margin", "after-a-method", "under-an-if-in-a-class", "under-an-if-in-a-def"],
)
def test_in_a_cell_that_does_not_parse_a_def_a_class_or_def_encloses_does_not_count(shell, enclosed):
    assert said(shell, GOOD, enclosed) is None


@pytest.mark.parametrize(
    "broken",
    [
        "if True:\n" + indented(BROKEN),
        BROKEN + "class Stats:\n    def mean(self, row):\n        return row\n",
    ],
    ids=["under-an-if", "then-a-method-of-the-same-name"],
)
def test_in_a_cell_that_does_not_parse_a_def_under_a_block_or_at_the_top_counts(shell, broken):
    sentence = said(shell, GOOD, broken)
    assert sentence is not None and f"Cell [{cell(shell, 1)}], the newest that defines `mean`, did not run" in sentence


def test_a_cell_with_a_magic_is_read_as_ipython_ran_it(shell):
    sentence = said(shell, GOOD, "%precision 3\nif False:\n" + indented(GOOD))
    assert sentence is not None and "only inside a block" in sentence and "Error" not in sentence, sentence
    sentence = said(shell, "%precision 3\n" + GOOD, BROKEN)  # its function is traced to it through the magic
    assert sentence is not None and f"still the function from cell [{cell(shell, 2)}]" in sentence, sentence


def _error_of(shell, source):
    """Run a cell; the error IPython reports for it (what the learner sees under the cell)."""
    result = shell.run_cell(source, store_history=True)
    return result.error_before_exec or result.error_in_exec


def test_the_sentence_names_the_error_as_ipython_reported_it(shell):
    shell.run_cell(GOOD, store_history=True)
    error = _error_of(shell, BROKEN)
    sentence = said(shell)
    assert f"did not run (SyntaxError: {error.msg} at line {error.lineno}), so `mean` is still" in sentence, sentence
    sentence = said(shell, GOOD, "x = 1\nraise ValueError\n" + GOOD)
    assert "stopped before defining it (ValueError at line 2)" in sentence, sentence
    long = "why " * 50
    sentence = said(shell, GOOD, f"raise ValueError({long!r} + '\\nsecond line')\n" + GOOD)
    assert f"(ValueError: {long.strip()[:120]} at line 1)" in sentence, sentence


def test_an_alias_is_said_to_be_older_when_the_name_now_holds_what_no_cell_defined(shell):
    sentence = said(shell, GOOD, "old = mean", "mean = abs\n1 / 0\n" + GOOD, checked="old")
    assert sentence is not None and "stopped before defining it" in sentence, sentence


def test_a_lambda_is_followed_to_the_older_function_it_calls_past_what_is_no_function(shell):
    shell.run_cell("import numpy as np", store_history=True)
    shell.run_cell(GOOD, store_history=True)
    error = _error_of(shell, BROKEN)
    sentence = said(shell, "fn = lambda row: np.asarray(mean(tuple(row)))", checked="fn")
    assert sentence == (
        f"Cell [{cell(shell, 2)}], the newest that defines `mean`, did not run "
        f"(SyntaxError: {error.msg} at line {error.lineno}), so `mean` is still the function from cell "
        f"[{cell(shell, 3)}]: fix that cell and run it, then run this check again; nothing is judged until then."
    )


def test_a_lambda_is_followed_to_a_function_a_later_cell_defines_only_in_a_block(shell):
    sentence = said(
        shell,
        "import numpy as np",
        GOOD,
        "%precision 3\nif False:\n" + indented(GOOD),
        "fn = lambda row: mean(row)",
        checked="fn",
    )
    assert sentence is not None and sentence.startswith(f"Cell [{cell(shell, 2)}] defines `mean` only inside a block")
    assert "the function checked" in sentence


def test_a_magic_cell_that_only_mentions_the_def_in_a_string_is_not_the_defining_cell(shell):
    notes = "%precision 3\nnotes = '''\ndef mean(row):\n'''\n"
    assert said(shell, GOOD, notes) is None  # the function itself: its own cell is still the newest
    assert (
        said(shell, "import numpy as np", GOOD, notes, "fn = lambda row: np.asarray(mean(row))", checked="fn") is None
    )


def test_an_alias_checked_after_a_cell_that_defines_the_name_at_its_top_level_is_told_so(shell):
    either = "if False:\n" + indented(GOOD) + GOOD  # under a block, then at the top level: the plainer counts
    sentence = said(shell, GOOD, "old = mean", either, checked="old")
    assert sentence is not None and "an alias such as `old = mean`" in sentence and "block" not in sentence


SAME = "def mean(row):\n    return sum(row) / len(row)  # the same text twice\n"


def test_without_the_compilers_map_a_cell_is_found_by_its_ipython_7_name(shell, monkeypatch):
    for source in (SAME, "old = mean", SAME, BROKEN):  # the text alone cannot tell cell 1 from cell 3
        shell.run_cell(source, store_history=True)
    monkeypatch.delattr(shell.compile, "_filename_map")  # IPython 7's compiler keeps none
    sentence = page.off_the_page(shell.ev("old"), "mean")
    assert sentence is not None and f"still the function from cell [{cell(shell, 4)}]" in sentence, sentence


@pytest.fixture
def kernel_names(shell, monkeypatch):
    """Cells compiled as ipykernel compiles them: a file /tmp/ipykernel_…/<hash>.py each, known by the map."""
    compiler = pytest.importorskip("ipykernel.compiler")
    monkeypatch.setattr(shell, "compile", compiler.XCachingCompiler())
    return shell


def test_a_kernels_cell_is_found_through_the_compilers_map_even_when_its_text_is_transformed(kernel_names):
    sentence = said(kernel_names, "%precision 3\n" + GOOD, BROKEN)
    assert sentence is not None and f"still the function from cell [{cell(kernel_names, 2)}]" in sentence, sentence


def test_without_the_compilers_map_a_kernels_cell_is_found_by_its_text(kernel_names, monkeypatch):
    for source in (GOOD, BROKEN):
        kernel_names.run_cell(source, store_history=True)
    monkeypatch.setattr(kernel_names.compile, "_filename_map", {})  # an older ipykernel: no map to read
    sentence = page.off_the_page(kernel_names.ev("mean"), "mean")
    assert sentence is not None and f"still the function from cell [{cell(kernel_names, 2)}]" in sentence, sentence
    kernel_names.run_cell("%precision 3\n" + GOOD.replace("len(row)", "len(row) + 0"), store_history=True)
    kernel_names.run_cell(BROKEN, store_history=True)
    monkeypatch.setattr(kernel_names.compile, "_filename_map", {})
    sentence = page.off_the_page(kernel_names.ev("mean"), "mean")  # its text is not the typed cell's: unknown
    assert sentence is not None and "may be older code" in sentence, sentence
    for source in (GOOD, "old = mean", GOOD + "1 / 0\n"):  # the newest defined it, then raised
        kernel_names.run_cell(source, store_history=True)
    monkeypatch.setattr(kernel_names.compile, "_filename_map", {})
    sentence = page.off_the_page(kernel_names.ev("old"), "mean")
    assert sentence is not None and sentence.startswith(
        f"The function checked is the one cell [{cell(kernel_names, 3)}]"
    )


def test_a_lambda_is_not_sent_to_a_cell_defining_a_name_it_reads_only_as_a_value(shell):
    cells = (GOOD, "offset = 0.0", "def offset(row):\n    return (0\n", "fn = lambda row: mean(row) + offset")
    assert said(shell, *cells, checked="fn") is None  # `offset` is a number now: not a function it calls


def test_an_instance_is_traced_to_its_class_cell(shell):
    norm = "class Norm:\n    def __init__(self):\n        self.eps = 1e-5\n"
    sentence = said(shell, norm, "layer = Norm()", "class Norm:\n    def __init__(self:\n", checked="layer", step=None)
    assert sentence is not None and f"still the class from cell [{cell(shell, 3)}]" in sentence, sentence


def test_a_class_with_no_method_of_its_own_is_still_known_by_its_name(shell):
    shell.run_cell("class Norm(dict):\n    pass\n", store_history=True)
    error = _error_of(shell, "class Norm(dict:\n    pass\n")
    assert page.off_the_page(shell.ev("Norm")) == (
        f"Cell [{cell(shell, 1)}], the newest that defines `Norm`, failed (SyntaxError: {error.msg} at line "
        f"{error.lineno}), so the class checked may be older code: fix that cell and run it, then run this check "
        "again; nothing is judged until then."
    )


def test_a_decorated_function_is_traced_to_its_own_cell_not_its_decorators(shell):
    deco = "import functools\ndef logged(f):\n    @functools.wraps(f)\n    def w(*a):\n        return f(*a)\n    return w\n"
    sentence = said(shell, deco, "@logged\n" + GOOD, BROKEN)
    assert sentence is not None and f"still the function from cell [{cell(shell, 2)}]" in sentence, sentence


def test_an_error_the_shell_reports_without_a_line_or_words_is_named_by_its_kind_alone(shell):
    from types import SimpleNamespace

    said(shell, GOOD, "old = mean", "mean = 1\n" + GOOD)
    newest = cell(shell, 1)  # it ran; say it then reported an error with no words and no traceback
    page._after_cell(SimpleNamespace(error_before_exec=None, error_in_exec=KeyboardInterrupt(), execution_count=newest))
    assert page.off_the_page(shell.ev("old"), "mean") == (
        f"The function checked is the one cell [{newest - 2}] defined, not the `mean` cell [{newest}] defines now "
        "(which then raised KeyboardInterrupt): fix that cell, run it and check `mean` itself; nothing is judged "
        "until then."
    )


def test_only_the_newest_cells_errors_are_kept_and_a_cell_run_again_without_error_clears_its_own(monkeypatch):
    from types import SimpleNamespace

    monkeypatch.setattr(page, "_ERRORS", {})
    monkeypatch.setattr(page, "MAX_ERRORS", 2)
    for number in (1, 2, 3):
        page._after_cell(SimpleNamespace(error_before_exec=ValueError(f"cell {number}"), execution_count=number))
    assert page._ERRORS == {2: ("ValueError: cell 2", None), 3: ("ValueError: cell 3", None)}
    page._after_cell(SimpleNamespace(error_before_exec=None, error_in_exec=None, execution_count=2))
    assert list(page._ERRORS) == [3]


def test_the_hook_that_notes_each_cells_error_is_registered_by_watch_without_the_shell_given(shell):
    callbacks = shell.events.callbacks["post_run_cell"]
    if page._after_cell in callbacks:
        shell.events.unregister("post_run_cell", page._after_cell)
    page.watch()  # what importing the checker does: the running shell is found
    assert callbacks.count(page._after_cell) == 1


def test_the_first_cell_of_a_session_can_be_the_defining_cell():
    assert page._newest(["", GOOD], "mean", None) == (1, "top")  # In[0] is IPython's empty entry


def test_a_class_is_traced_through_its_own_methods_past_a_nested_class(shell):
    norm = "class Norm:\n    class Config:\n        pass\n    def __init__(self):\n        self.eps = 1e-5\n"
    sentence = said(shell, norm, "class Norm:\n    def __init__(self:\n", checked="Norm", step=None)
    assert sentence is not None and f"still the class from cell [{cell(shell, 2)}]" in sentence, sentence


def test_a_lambda_given_for_an_exercise_is_judged_against_the_newest_cell_defining_the_exercises_name(shell):
    shell.run_cell("fn = lambda row: sum(row) / len(row)", store_history=True)
    error = _error_of(shell, BROKEN)
    assert page.off_the_page(shell.ev("fn"), "mean") == (
        f"Cell [{cell(shell, 1)}], the newest that defines `mean`, did not run (SyntaxError: {error.msg} at line "
        f"{error.lineno}), so `mean` is still the function from cell [{cell(shell, 2)}]: fix that cell and run it, "
        "then run this check again; nothing is judged until then."
    )
    sentence = said(
        shell, "fn = lambda row: sum(row) / len(row)", "%precision 3\nif False:\n" + indented(GOOD), checked="fn"
    )
    assert sentence is not None and sentence.startswith(f"Cell [{cell(shell, 1)}] defines `mean` only inside a block")
    notes = "%precision 3\nnotes = '''\ndef mean(row):\n'''\n"  # not a definition
    assert said(shell, GOOD, "fn = lambda row: sum(row) / len(row)", notes, checked="fn") is None


def test_a_named_function_is_judged_on_its_own_cell_not_on_the_cells_of_what_it_calls(shell):
    variance = "def variance(row):\n    m = mean(row)\n    return sum((v - m) ** 2 for v in row) / len(row)\n"
    assert said(shell, GOOD, variance, BROKEN, checked="variance", step="variance") is None
    assert said(shell, checked="variance", step=None) is None
    assert page.off_the_page(_spread, "variance") is None  # from a file, calling `mean` by name


def _spread(row):  # a function no cell defines
    return mean(row)  # noqa: F821 — never called: only read


def test_a_lambda_checked_without_an_exercises_name_is_followed_to_what_it_calls(shell):
    sentence = said(shell, GOOD, BROKEN, "fn = lambda row: mean(row)", checked="fn", step=None)
    assert sentence is not None and f"`mean` is still the function from cell [{cell(shell, 3)}]" in sentence


PARTIAL = "import functools\ndef _m(row):\n    return sum(row) / len(row)\nfn = functools.partial(_m)\n"


def test_a_partial_given_for_an_exercise_is_judged_against_the_newest_cell_defining_the_exercises_name(
    shell, monkeypatch
):
    error = _error_of(shell, BROKEN)
    shell.run_cell(PARTIAL, store_history=True)
    notes = "%precision 3\nnotes = '''\ndef mean(row):\n'''\n"  # not a definition
    shell.run_cell(notes, store_history=True)
    monkeypatch.setattr(page, "_ERRORS", {})  # read from the history alone: the cell's text does not parse
    sentence = page.off_the_page(shell.ev("fn"), "mean")
    assert sentence.startswith(f"Cell [{cell(shell, 3)}], the newest that defines `mean`, failed (SyntaxError: ")
    assert sentence.endswith(
        f" at line {error.lineno}), so the function checked may be older code: fix that cell and run it, then run "
        "this check again; nothing is judged until then."
    )
    assert said(shell, "%precision 3\nif False:\n" + indented(GOOD), PARTIAL, checked="fn") is None  # it ran
