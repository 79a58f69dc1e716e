"""The summary counts students, not checks (classroom/service/store.py: "Per exercise: students who tried, who
passed, and how many students made each mistake"): a student who passes twice is one student who passed, and
the names it lists (for "Show names") are each student once, in alphabetical order, whatever order the checks
came in.
"""

from __future__ import annotations

import json
import uuid

import pytest

from classroom.service import results
from classroom.service.store import Store


def verdict(passed: bool, mistake: str | None = None, step: str = "variance", notebook: str = "03"):
    body = {"notebook": notebook, "step": step, "passed": passed, "mistake": mistake, "id": str(uuid.uuid4())}
    return results.parse(json.dumps(body).encode())


@pytest.fixture
def store(tmp_path):
    found = Store(tmp_path / "class.sqlite")
    yield found
    found.close()


def test_a_student_who_passes_twice_is_one_student_who_passed(store):
    store.add("ann", verdict(True))
    store.add("ann", verdict(True))
    store.add("bob", verdict(False, "n-1"))
    [exercise] = store.summary()
    assert (exercise["tried"], exercise["passed"], exercise["attempts"]) == (2, 1, 3)
    assert exercise["mistakes"] == {"n-1": 1}


def test_a_mistake_made_twice_by_one_student_counts_one_student(store):
    store.add("cat", verdict(False, "no-eps"))
    store.add("cat", verdict(False, "no-eps"))
    store.add("cat", verdict(False))
    [exercise] = store.summary(names=True)
    assert exercise["mistakes"] == {"no-eps": 1, "unnamed": 1}
    assert exercise["names"]["mistakes"] == {"no-eps": ["cat"], "unnamed": ["cat"]}
    assert (exercise["tried"], exercise["passed"], exercise["attempts"]) == (1, 0, 3)


def test_the_names_are_each_student_once_in_alphabetical_order(store):
    arrivals = ["eve", "dan", "cat", "bob", "ann"]  # the reverse of the alphabet
    for name in arrivals:
        store.add(name, verdict(True))
        store.add(name, verdict(True))
        store.add(name, verdict(False, "n-1"))
    [exercise] = store.summary(names=True)
    assert exercise["names"]["passed"] == ["ann", "bob", "cat", "dan", "eve"]
    assert exercise["names"]["mistakes"] == {"n-1": ["ann", "bob", "cat", "dan", "eve"]}
    assert (exercise["tried"], exercise["passed"], exercise["mistakes"]) == (5, 5, {"n-1": 5})


def test_a_student_is_counted_in_each_exercise_they_tried_and_only_there(store):
    store.add("ann", verdict(True, step="mean", notebook="02"))
    store.add("ann", verdict(False, "n-1"))
    store.add("bob", verdict(False, "n-1"))
    mean, variance = store.summary(names=True)
    assert (mean["notebook"], mean["step"], mean["tried"], mean["passed"], mean["mistakes"]) == ("02", "mean", 1, 1, {})
    assert mean["names"] == {"passed": ["ann"], "mistakes": {}}
    assert (variance["tried"], variance["passed"], variance["mistakes"]) == (2, 0, {"n-1": 2})
    assert variance["names"] == {"passed": [], "mistakes": {"n-1": ["ann", "bob"]}}


def test_the_count_is_every_check_stored(store):
    assert store.count() == 0 and store.summary() == []
    for name in ("ann", "ann", "bob"):
        store.add(name, verdict(False, "n-1"))
    assert store.count() == 3
