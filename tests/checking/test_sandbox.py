"""helpers.checking.sandbox: the one place that runs foreign code with a time limit, read from its spec.

A function that returns, raises, loops forever (stopped at the limit, its thread gone), loops forever
catching BaseException (left running, and said so), or prints (its words reach the caller's output);
and the "Your turn" checker and the forensics' Caller both run the learner's code through it.
"""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from patience import scaled_s

from helpers.checking import results, sandbox
from helpers.checking.exercises import check
from helpers.forensics.call import Caller, CallProblem

LIMIT = 0.2
# A function that swallows the sandbox's stop never ends, however long the sandbox waits: the tests of that
# case wait this long for it, not the sandbox's own STOP_WAIT (each wait spins a core for its whole length).
SHORT_STOP_WAIT = 0.05


def _threads(name: str) -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == name]


def _endless(*_args):
    while True:
        pass


@pytest.mark.parametrize("limit", [LIMIT, None], ids=["in a thread", "no limit"])
def test_a_function_that_returns_hands_back_its_value(limit):
    done = sandbox.run(lambda a, b: a + b, 2, 3, time_limit=limit)
    assert done == sandbox.Run(value=5)


@pytest.mark.parametrize("limit", [LIMIT, None], ids=["in a thread", "no limit"])
@pytest.mark.parametrize("error", [ZeroDivisionError("division by zero"), SystemExit(2), KeyboardInterrupt()])
def test_a_function_that_raises_anything_hands_back_the_exception_and_never_raises(limit, error):
    def raises():
        raise error

    done = sandbox.run(raises, time_limit=limit)
    assert done.error is error and not done.timed_out and done.value is None


def test_an_exception_is_described_by_its_type_and_message():
    assert sandbox.describe(ZeroDivisionError("division by zero")) == "ZeroDivisionError: division by zero"
    long = ValueError("first line " + "x" * 200 + "\nsecond line")
    assert sandbox.describe(long) == f"ValueError: {long}"
    short = sandbox.describe(long, first_line=True)
    assert short.startswith("ValueError: first line x") and short.endswith("...") and "second" not in short
    assert len(short) == len("ValueError: ") + 160
    assert sandbox.describe(RuntimeError(), first_line=True) == "RuntimeError (with no message)"
    assert sandbox.describe(ValueError("  \n")) == "ValueError (with no message)"  # never a colon and nothing


def test_running_out_of_memory_is_said_in_words_when_python_gives_none():
    said = sandbox.describe(MemoryError())
    assert said == "MemoryError: it asked for more memory than this process may use"
    assert sandbox.describe(MemoryError("cannot allocate 8 GiB")) == "MemoryError: cannot allocate 8 GiB"


def test_a_function_that_runs_out_of_memory_gets_one_sentence_and_no_check_mark():
    from helpers.checking.exercises import check

    def greedy(row):
        raise MemoryError

    result = check("mean", greedy)
    assert not result.passed
    assert "Your function raised MemoryError: it asked for more memory than this process may use" in str(result)


def test_an_endless_loop_is_stopped_at_the_limit_and_its_thread_is_gone():
    started = time.perf_counter()
    done = sandbox.run(_endless, time_limit=LIMIT, name="test_sandbox endless")
    took = time.perf_counter() - started
    assert done == sandbox.Run(timed_out=True, left_running=False)
    assert LIMIT <= took < LIMIT + scaled_s(sandbox.STOP_WAIT)  # no later than the stop wait allows
    assert not _threads("test_sandbox endless")


def test_an_endless_loop_that_catches_base_exception_is_reported_as_left_running(monkeypatch):
    release = threading.Event()  # ends the loop after the test (the sandbox itself cannot), or after 10 s
    threading.Timer(10, release.set).start()  # a sandbox that does not stop waiting fails instead of hanging

    def forgiving():
        while not release.is_set():
            try:
                while not release.is_set():
                    pass
            except BaseException:  # noqa: BLE001, S110 — swallows the sandbox's Stopped too
                pass

    monkeypatch.setattr(sandbox, "STOP_WAIT", SHORT_STOP_WAIT)
    try:
        done = sandbox.run(forgiving, time_limit=LIMIT, name="test_sandbox forgiving")
        assert done == sandbox.Run(timed_out=True, left_running=True)
        assert _threads("test_sandbox forgiving"), "it says left running: the thread must still be there"
    finally:
        release.set()
        for thread in _threads("test_sandbox forgiving"):
            thread.join(5)


@pytest.mark.parametrize("limit", [LIMIT, None], ids=["in a thread", "no limit"])
def test_what_a_function_prints_reaches_the_callers_output(limit, capsys):
    def talks():
        print("debugging: 42")
        return 42

    assert sandbox.run(talks, time_limit=limit).value == 42
    assert capsys.readouterr().out == "debugging: 42\n"


# --- the checker and the forensics both go through it -----------------------------------------------


def test_the_checker_and_the_forensics_call_the_learners_code_only_through_the_sandbox(monkeypatch):
    called = []

    def learner(x):
        called.append(x)
        return x

    monkeypatch.setattr(sandbox, "run", lambda fn, *args, time_limit, name="": sandbox.Run(timed_out=True))
    verdict = check("mean", learner)
    assert verdict.mistake == "timeout" and "so the check stopped it" in verdict.diagnosis
    with pytest.raises(CallProblem, match="did not finish within 1 s on a 2 × 3 float64 matrix"):
        Caller(learner, 1.0)(np.ones((2, 3)))
    assert called == []  # neither called it outside the sandbox


def test_a_loop_the_sandbox_cannot_stop_is_named_by_the_checker_and_by_caller(monkeypatch):
    release = threading.Event()
    threading.Timer(10, release.set).start()  # a caller that waits for it fails instead of hanging

    def forgiving(x):
        while not release.is_set():
            try:
                while not release.is_set():
                    pass
            except BaseException:  # noqa: BLE001, S110
                pass

    monkeypatch.setattr(results, "TIME_LIMIT", LIMIT)
    monkeypatch.setattr(sandbox, "STOP_WAIT", SHORT_STOP_WAIT)
    try:
        verdict = check("mean", forgiving)
        assert verdict.mistake == "timeout" and "still running in the background" in verdict.diagnosis, verdict
        with pytest.raises(CallProblem, match="did not finish within 0.2 s"):
            Caller(forgiving, LIMIT)(np.ones((2, 3)))
    finally:
        release.set()
        for name in ("helpers.checking.exercises check", "helpers.forensics.fingerprints call"):
            for thread in _threads(name):
                thread.join(5)


def test_a_callers_time_limit_is_shared_by_its_calls():
    calls = []

    def slow_once(x):
        calls.append(1)
        if len(calls) == 1:
            _endless()
        return x

    call = Caller(slow_once, LIMIT)
    with pytest.raises(CallProblem, match="did not finish"):
        call(np.ones((2, 3)))
    with pytest.raises(CallProblem, match="did not finish within 0.2 s on a 2 × 3 float64 matrix"):
        call(np.ones((2, 3)))  # the limit is used up: it is not called again
    assert calls == [1]
    assert not _threads("helpers.forensics.fingerprints call")


def test_a_first_line_of_160_characters_is_kept_whole_and_one_of_161_is_cut_to_160():
    exactly = "y" * 160
    assert sandbox.describe(ValueError(exactly + "\nmore"), first_line=True) == f"ValueError: {exactly}"
    assert sandbox.describe(ValueError(exactly + "z"), first_line=True) == f"ValueError: {'y' * 157}..."


def test_stopping_a_thread_that_has_ended_or_never_started_says_it_has_ended():
    ended = threading.Thread(target=lambda: None, name="test_sandbox ended")
    ended.start()
    ended.join()
    assert sandbox.stop_thread(ended) is True
    assert sandbox.stop_thread(threading.Thread(target=lambda: None)) is True  # never started: nothing runs
