"""The checker leaves things as it found them (helpers/checking/results.py): while checking, torch computes on one
thread and is put back to its own count afterwards (``one_torch_thread``); the learner's function is given copies
of the arguments, and only a change it makes counts as mutating its input, not a NaN that was there already
(``run_call``)."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking import exercises, results

torch = pytest.importorskip("torch")


@pytest.fixture
def three_threads():
    before = torch.get_num_threads()
    torch.set_num_threads(3)
    yield
    torch.set_num_threads(before)


def test_torch_runs_on_one_thread_while_checking_and_is_put_back_after(three_threads):
    with results.one_torch_thread():
        assert torch.get_num_threads() == 1
    assert torch.get_num_threads() == 3


def test_torch_is_put_back_even_when_the_check_inside_raises(three_threads):
    with pytest.raises(KeyError), results.one_torch_thread():
        raise KeyError("inside")
    assert torch.get_num_threads() == 3


def test_the_learners_function_runs_on_one_torch_thread_and_the_count_is_put_back(three_threads):
    seen = []

    def mean(row):
        seen.append(torch.get_num_threads())
        return float(np.mean(row))

    assert exercises.check("mean", mean).passed
    assert seen and set(seen) == {1}
    assert torch.get_num_threads() == 3


def test_a_nan_already_in_the_input_is_not_a_change_the_function_made():
    row = np.array([1.0, np.nan, 3.0])
    outcome = results.run_call(lambda r: float(np.nansum(r)), (row,))
    assert (outcome.value, outcome.mutated, outcome.problem) == (4.0, False, None)


def test_a_function_that_changes_its_input_is_noted_and_works_on_a_copy():
    row = np.array([1.0, 2.0, 4.0])

    def centre(r):
        r -= r.mean()
        return r

    outcome = results.run_call(centre, (row,))
    assert outcome.mutated is True
    assert row.tolist() == [1.0, 2.0, 4.0]  # the caller's own array is as it was
    assert outcome.value.tolist() == pytest.approx([-4 / 3, -1 / 3, 5 / 3])
