"""The class CSV's order (classroom/service/store.py, "one line per student per exercise"): lines by student,
then notebook, then step, whatever order the checks came in; a line's mistakes in their keys' alphabetical
order, each with the times it was made, whatever order they were made in.
"""

from __future__ import annotations

import csv
import io
import json
import uuid

import pytest

from classroom.service import results
from classroom.service.store import Store


def verdict(step: str, notebook: str, passed: bool = False, mistake: str | None = "n-1"):
    body = {"notebook": notebook, "step": step, "passed": passed, "mistake": mistake, "id": str(uuid.uuid4())}
    return results.parse(json.dumps(body).encode())


@pytest.fixture
def store(tmp_path):
    found = Store(tmp_path / "class.sqlite")
    yield found
    found.close()


def rows(store) -> list[list[str]]:
    return list(csv.reader(io.StringIO(store.csv())))


def test_lines_go_by_student_then_notebook_then_step(store):
    store.add("bob", verdict("variance", "03"))
    store.add("ann", verdict("variance", "03"))  # ann's later notebook first
    store.add("ann", verdict("mean", "02"))
    store.add("ann", verdict("std", "04"))
    store.add("ann", verdict("mean", "04"))  # the same notebook: by step
    assert [row[:3] for row in rows(store)[1:]] == [
        ["ann", "02", "mean"],
        ["ann", "03", "variance"],
        ["ann", "04", "mean"],
        ["ann", "04", "std"],
        ["bob", "03", "variance"],
    ]


def test_a_lines_mistakes_are_in_alphabetical_order_whatever_order_they_were_made(store):
    for mistake in ("one-pass", "no-eps", None, "n-1", "no-eps"):
        store.add("ann", verdict("variance", "03", mistake=mistake))
    [header, line] = rows(store)
    assert header[:6] == ["student", "notebook", "step", "attempts", "passed", "mistakes"]
    assert line[:6] == ["ann", "03", "variance", "5", "no", "n-1 x1; no-eps x2; one-pass x1; unnamed x1"]


def test_a_line_without_a_mistake_has_an_empty_mistakes_column(store):
    store.add("ann", verdict("variance", "03", passed=True, mistake=None))
    [_, line] = rows(store)
    assert line[:6] == ["ann", "03", "variance", "1", "yes", ""]
    assert len(line) == 8
