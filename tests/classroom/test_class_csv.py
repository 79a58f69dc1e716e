"""The class results' CSV and the page's order (classroom/service/store.py), from their docstrings: one line
per student per exercise with the first and last time in UTC (ISO 8601), and mistakes most common first,
ties in the catalogue keys' alphabetical order.
"""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from types import SimpleNamespace

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from classroom.service import results, store  # noqa: E402


def body(**fields) -> bytes:
    verdict = {"notebook": "03", "step": "variance", "passed": False, "mistake": "n-1", "id": str(uuid.uuid4())}
    verdict.update(fields)
    return json.dumps(verdict).encode()


def test_the_csv_gives_each_students_first_and_last_try_in_utc(tmp_path, monkeypatch):
    clock = iter([1_700_000_000.0, 1_700_000_100.0, 1_700_003_600.5])  # 2023-11-14 22:13:20 UTC, then +100 s, +1 h
    real = store.time
    monkeypatch.setattr(
        store, "time", SimpleNamespace(time=lambda: next(clock), strftime=real.strftime, gmtime=real.gmtime)
    )
    db = store.Store(tmp_path / "class.sqlite")
    try:
        db.add("ann", results.parse(body()))
        db.add("ann", results.parse(body(mistake="no-eps")))
        db.add("ann", results.parse(body(passed=True, mistake=None)))
        assert db.csv().splitlines()[1] == (
            "ann,03,variance,3,yes,n-1 x1; no-eps x1,2023-11-14T22:13:20Z,2023-11-14T23:13:20Z"
        )
    finally:
        db.close()


def test_mistakes_made_by_as_many_students_are_in_alphabetical_order(tmp_path):
    db = store.Store(tmp_path / "class.sqlite")
    try:
        db.add("ann", results.parse(body(mistake="no-eps")))
        db.add("bob", results.parse(body(mistake="n-1")))
        db.add("cat", results.parse(body(mistake="one-pass")))
        db.add("dan", results.parse(body(mistake="one-pass")))
        [exercise] = db.summary(names=True)
        assert list(exercise["mistakes"]) == ["one-pass", "n-1", "no-eps"]
        assert list(exercise["names"]["mistakes"]) == ["one-pass", "n-1", "no-eps"]
    finally:
        db.close()
