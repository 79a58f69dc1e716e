"""A student's line in the class CSV (classroom/service/store.py): the attempts, "passed" yes when any attempt
passed (a pass is not taken back by a later try that fails), and each mistake with the times it was made."""

from __future__ import annotations

import json
import uuid
from itertools import count
from types import SimpleNamespace

import pytest

from classroom.service import results, store


def body(**fields) -> bytes:
    verdict = {"notebook": "02", "step": "mean", "passed": False, "mistake": "n-1", "id": str(uuid.uuid4())}
    verdict.update(fields)
    return json.dumps(verdict).encode()


@pytest.fixture
def db(tmp_path, monkeypatch):
    clock = count(1_700_000_000)  # one second between verdicts, in the order they are added
    real = store.time
    monkeypatch.setattr(
        store, "time", SimpleNamespace(time=lambda: float(next(clock)), strftime=real.strftime, gmtime=real.gmtime)
    )
    found = store.Store(tmp_path / "class.sqlite")
    yield found
    found.close()


def line(db, student):
    return next(row.split(",")[:6] for row in db.csv().splitlines()[1:] if row.startswith(student + ","))


def test_a_pass_then_a_failed_try_still_reads_passed(db):
    db.add("ann", results.parse(body(passed=True, mistake=None)))
    db.add("ann", results.parse(body(mistake="no-eps")))
    assert line(db, "ann") == ["ann", "02", "mean", "2", "yes", "no-eps x1"]


def test_only_failed_tries_read_not_passed(db):
    db.add("bob", results.parse(body()))
    db.add("bob", results.parse(body(mistake=None)))
    assert line(db, "bob") == ["bob", "02", "mean", "2", "no", "n-1 x1; unnamed x1"]


def test_each_mistake_counts_its_own_times_not_the_attempts(db):
    for mistake in ("n-1", "n-1", "no-eps", None):
        db.add("cat", results.parse(body(passed=mistake is None, mistake=mistake)))
    assert line(db, "cat") == ["cat", "02", "mean", "4", "yes", "n-1 x2; no-eps x1"]
