"""How the checker calls the learner's function (helpers/checking/results.py, run_call, through
helpers.checking.sandbox.run), from their docstrings: in a daemon thread named for who calls it, so that an endless
loop cannot hang the kernel (nor keep Python from exiting); each outcome one whole sentence; numpy's 0 / 0 a NaN
the verdict names, not a warning in the cell; an error's sentence at most 400 characters. The sandbox itself is
replaced where a time-out is needed, so nothing here waits."""

from __future__ import annotations

import threading
import warnings

import numpy as np
import pytest

from helpers.checking import results, sandbox


def _where_it_ran():
    thread = threading.current_thread()
    return thread.name, thread.daemon, thread is threading.main_thread()


def test_a_function_runs_in_a_daemon_thread_named_for_its_caller():
    assert sandbox.run(_where_it_ran, time_limit=5).value == ("helpers.checking.sandbox run", True, False)
    assert results.run_call(lambda: _where_it_ran(), ()).value == ("helpers.checking.exercises check", True, False)


def test_a_stub_is_told_in_one_whole_sentence_what_to_do():
    def stub(row):
        raise NotImplementedError

    outcome = results.run_call(stub, (np.ones(3),))
    assert (outcome.key, outcome.problem) == (
        "not-written",
        "Not written yet: replace `raise NotImplementedError` with your code, run that cell, then run this one again.",
    )


def test_a_loop_left_running_is_told_in_one_whole_sentence(monkeypatch):
    monkeypatch.setattr(results.sandbox, "run", lambda *a, **k: sandbox.Run(timed_out=True, left_running=True))
    outcome = results.run_call(len, ((),))
    assert outcome.key == "timeout" and outcome.problem == (
        f"Your function did not finish within {results.TIME_LIMIT:g} seconds: look for a loop that never ends "
        "(a `while` whose condition never becomes false). It is still running in the background: restart the "
        "kernel once you have fixed it."
    )


def test_an_errors_sentence_is_cut_to_400_characters():
    def loud(row):
        raise ValueError("x" * 1000)

    outcome = results.run_call(loud, (np.ones(3),))
    assert outcome.key == "exception" and len(outcome.problem) == 400
    assert outcome.problem.startswith("Your function raised ValueError: xxx") and isinstance(outcome.value, ValueError)


def test_zero_divided_by_zero_in_numpy_is_a_nan_and_no_warning():
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcome = results.run_call(lambda row: (row - row) / (row - row), (np.ones(3),))
    assert np.all(np.isnan(outcome.value)) and outcome.problem is None
    assert [str(w.message) for w in caught] == []


@pytest.mark.parametrize(
    "mistake, recorded", [("not-written", False), ("off-the-page", False), ("n-1", True), (None, True)]
)
def test_a_verdict_is_recorded_with_its_step_mark_and_mistake_unless_it_is_not_an_attempt(
    monkeypatch, mistake, recorded
):
    from helpers.checking import class_record

    sent = []
    monkeypatch.setattr(class_record, "record", lambda notebook, step, passed, mistake=None: sent.append((notebook, step, passed, mistake)))  # fmt: skip
    class_record.record_result(results.CheckResult("variance", mistake is None, "words", mistake))
    assert sent == ([(None, "variance", mistake is None, mistake)] if recorded else [])
