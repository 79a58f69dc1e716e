"""lesson.summary measures only the students who got through (ok); a student whose visit failed after their
server started has a ``started`` usage too, and it is left out of cpu_seconds_server_start as from the rest."""

from __future__ import annotations

from classroom.sim import lesson
from classroom.sim.lesson import Result
from classroom.sim.processes import Usage


def test_a_failed_students_server_start_is_not_measured():
    done = [Result(f"s{n}", ok=True, started=Usage(1, 1.0, 1.0, float(n))) for n in (1, 2, 3)]
    failed = Result("f1", error="f1: nbgitpuller did not finish", started=Usage(1, 1.0, 1.0, 100.0))
    found = lesson.summary([*done, failed], 1.0)
    assert found["cpu_seconds_server_start"] == {"median": 2.0, "p95": 3.0, "max": 3.0}
    assert found["failures"] == 1


def test_only_failed_students_give_no_server_start_figures():
    failed = Result("f1", error="gone", started=Usage(1, 1.0, 1.0, 5.0))
    assert lesson.summary([failed], 1.0)["cpu_seconds_server_start"] == {}
