"""Running work in a forked copy (``helpers.forensics.isolate.run_isolated``), from its docstring.

The child runs ``work(progress)`` and sends back one result; the parent waits until the deadline, kills
the child and reaps it. What came back is one of: a value, a time-out naming the last call under way, or
a crash said in one sentence. What the work does (prints, state, exit) stays in the copy.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest
from patience import scaled_s, time_limit_s

import helpers.forensics.isolate as isolate

pytestmark = pytest.mark.skipif(not isolate.AVAILABLE, reason="needs fork")


def _children() -> set[int]:
    """This process's children, zombies included (read from /proc, so nothing is reaped by looking)."""
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == os.getpid():
                found.add(int(entry))
    return found


@pytest.fixture
def no_copy_left():
    """The copy is killed and reaped: no child of this process is left behind by the test."""
    if not os.path.isdir("/proc/self"):
        pytest.skip("no /proc")
    before = _children()
    yield
    assert _children() <= before


def test_the_value_work_returns_comes_back_and_the_copy_is_reaped(no_copy_left):
    outcome = isolate.run_isolated(lambda progress: {"answer": [1, 2.5, "three"]}, scaled_s(10))
    assert outcome.value == {"answer": [1, 2.5, "three"]}
    assert (outcome.timed_out, outcome.crashed, outcome.last) == (False, None, None)


def test_a_result_larger_than_one_read_comes_back_whole():
    big = bytes(range(256)) * 3000  # 768 000 bytes: many pipe reads of 64 KiB
    outcome = isolate.run_isolated(lambda progress: big, scaled_s(10))
    assert outcome.value == big


def test_the_last_call_announced_is_named_and_earlier_ones_are_not():
    def work(progress):
        progress("first call")
        progress("second call")
        return 7

    outcome = isolate.run_isolated(work, scaled_s(10))
    assert (outcome.value, outcome.last) == (7, "second call")


def test_at_the_deadline_the_copy_is_stopped_and_the_call_under_way_named(no_copy_left):
    def work(progress):
        progress("a 7 × 4 float64 matrix")
        time.sleep(60)  # one C call

    limit = time_limit_s(0.2)  # the copy must start and announce its call within it
    start = time.monotonic()
    outcome = isolate.run_isolated(work, limit)
    assert time.monotonic() - start < limit + scaled_s(2)
    assert outcome.timed_out is True
    assert (outcome.value, outcome.crashed, outcome.last) == (None, None, "a 7 × 4 float64 matrix")


def test_work_that_announces_nothing_and_runs_out_of_time_names_no_call():
    outcome = isolate.run_isolated(lambda progress: time.sleep(60), 0.2)
    assert outcome.timed_out is True and outcome.last is None


def test_an_exception_in_work_is_one_sentence_with_its_type():
    def work(progress):
        progress("the ε ladder")
        raise ValueError("the ladder broke")

    outcome = isolate.run_isolated(work, scaled_s(10))
    assert outcome.crashed == "fingerprint itself failed: ValueError: the ladder broke"
    assert (outcome.value, outcome.timed_out, outcome.last) == (None, False, "the ε ladder")


def test_even_a_system_exit_in_work_is_said_not_raised():
    outcome = isolate.run_isolated(lambda progress: sys.exit(5), scaled_s(10))
    assert outcome.crashed == "fingerprint itself failed: SystemExit: 5"


def test_a_result_that_cannot_be_sent_back_is_said_so_with_the_reason_it_could_not():
    import pickle

    unpicklable = lambda: 1  # noqa: E731 (a local function: pickle refuses it)
    try:
        pickle.dumps(unpicklable)
    except Exception as problem:  # noqa: BLE001
        reason = type(problem).__name__
    outcome = isolate.run_isolated(lambda progress: unpicklable, scaled_s(10))
    assert outcome.crashed == f"fingerprint itself failed: its result could not be sent back ({reason})"


@pytest.mark.parametrize(
    "end, how", [(lambda: os._exit(3), "exit code 3"), (lambda: os.kill(os.getpid(), signal.SIGKILL), "signal 9")]
)
def test_a_copy_that_ends_without_a_result_says_how_it_ended(end, how, no_copy_left):
    def work(progress):
        progress("the one-pass probe")
        end()

    outcome = isolate.run_isolated(work, scaled_s(10))
    assert outcome.crashed == f"the process it was probed in ended abruptly ({how})"
    assert (outcome.value, outcome.timed_out, outcome.last) == (None, False, "the one-pass probe")


def test_prints_and_state_stay_in_the_copy(capfd):
    seen = []

    def work(progress):
        seen.append("probed")
        print("a learner's print")
        print("and a warning", file=sys.stderr)
        return len(seen)

    outcome = isolate.run_isolated(work, scaled_s(10))
    assert outcome.value == 1 and seen == []
    out, err = capfd.readouterr()
    assert "a learner's print" not in out and "and a warning" not in err


def test_work_that_writes_to_the_streams_directly_runs_and_its_text_stays_in_the_copy(capfd):
    def work(progress):
        sys.stdout.write("written by hand\n")
        sys.stderr.flush()
        return "finished"

    assert isolate.run_isolated(work, scaled_s(10)).value == "finished"
    out, err = capfd.readouterr()
    assert "written by hand" not in out


def test_the_copy_never_runs_the_parents_clean_up(tmp_path):
    """``os._exit``: Jupyter's sockets and atexit handlers are the parent's alone."""
    marker = tmp_path / "ran"

    def work(progress):
        import atexit

        atexit.register(marker.write_text, "the copy ran an atexit handler")
        return "done"

    assert isolate.run_isolated(work, scaled_s(10)).value == "done"
    assert not marker.exists()


def test_torch_in_the_copy_uses_one_thread_and_the_parents_is_untouched():
    torch = pytest.importorskip("torch")
    before = torch.get_num_threads()
    outcome = isolate.run_isolated(lambda progress: torch.get_num_threads(), scaled_s(30))
    assert outcome.value == 1
    assert torch.get_num_threads() == before


def test_the_pipe_is_closed_on_every_path():
    def open_fds():
        return set(os.listdir("/proc/self/fd"))

    if not os.path.isdir("/proc/self/fd"):
        pytest.skip("no /proc")
    before = open_fds()
    isolate.run_isolated(lambda progress: 1, scaled_s(10))
    isolate.run_isolated(lambda progress: time.sleep(60), 0.2)
    isolate.run_isolated(lambda progress: os._exit(0), scaled_s(10))
    assert open_fds() <= before
