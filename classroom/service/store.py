"""The verdicts, kept in one SQLite file (WAL mode) that survives a restart of the service or the hub.

Standard-library sqlite3 rather than SQLAlchemy: one small table, one writer (this process), and
the store and its tests then run in any Python, not only the hub's. A class of 120 posting ten
checks each is about 1,200 rows an hour; SQLite in WAL mode writes one in well under a millisecond.
(A deployment with several hub replicas would need a shared database; that is a larger change.)

A verdict's key is (student, id): a resend of the same id is ignored, and one student's ids can
never collide with, or overwrite, another's.
"""

from __future__ import annotations

import csv
import io
import sqlite3
import time
from pathlib import Path

from classroom.service.results import Result

SCHEMA = """
CREATE TABLE IF NOT EXISTS results (
    student  TEXT NOT NULL,
    id       TEXT NOT NULL,
    notebook TEXT NOT NULL,
    step     TEXT NOT NULL,
    passed   INTEGER NOT NULL,
    mistake  TEXT,
    at       REAL NOT NULL,
    PRIMARY KEY (student, id)
) WITHOUT ROWID;  -- the key is the table: no second copy of it
CREATE INDEX IF NOT EXISTS by_exercise ON results (notebook, step, student);
"""


class Store:
    def __init__(self, path: str | Path):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = sqlite3.connect(self.path, isolation_level=None)  # autocommit: one row, one transaction
        self.db.execute("PRAGMA journal_mode=WAL")  # readers (the summary) never wait for the writer
        self.db.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a crash of the service loses nothing
        self.db.executescript(SCHEMA)
        self.path.chmod(0o600)  # student names: readable by the service (root) only

    def add(self, student: str, result: Result) -> bool:
        """Store one verdict; False when this student already sent this id (nothing changes)."""
        cursor = self.db.execute(
            "INSERT OR IGNORE INTO results VALUES (?, ?, ?, ?, ?, ?, ?)",
            (student, result.id, result.notebook, result.step, int(result.passed), result.mistake, time.time()),
        )
        return cursor.rowcount == 1

    def count(self) -> int:
        return self.db.execute("SELECT count(*) FROM results").fetchone()[0]

    def summary(self, names: bool = False) -> list[dict]:
        """Per exercise: students who tried, who passed, and how many students made each mistake."""
        exercises = {}
        for notebook, step, tried, passed, attempts in self.db.execute(
            "SELECT notebook, step, count(DISTINCT student), count(DISTINCT CASE WHEN passed THEN student END),"
            " count(*) FROM results GROUP BY notebook, step ORDER BY notebook, step"
        ):
            exercises[notebook, step] = {
                "notebook": notebook,
                "step": step,
                "tried": tried,
                "passed": passed,
                "attempts": attempts,
                "mistakes": {},
            }
        for notebook, step, mistake, students in self.db.execute(
            "SELECT notebook, step, coalesce(mistake, 'unnamed'), count(DISTINCT student) FROM results"
            " WHERE NOT passed GROUP BY 1, 2, 3 ORDER BY 4 DESC, 3"
        ):
            exercises[notebook, step]["mistakes"][mistake] = students
        if names:
            for exercise in exercises.values():
                exercise["names"] = {"passed": [], "mistakes": {}}
            for notebook, step, student, passed, mistake in self.db.execute(
                "SELECT DISTINCT notebook, step, student, passed, coalesce(mistake, 'unnamed') FROM results"
                " ORDER BY student"
            ):
                listed = exercises[notebook, step]["names"]
                if passed and student not in listed["passed"]:
                    listed["passed"].append(student)
                elif not passed:
                    listed["mistakes"].setdefault(mistake, []).append(student)
        return list(exercises.values())

    def csv(self) -> str:
        """One line per student per exercise: attempts, passed, the mistakes made (key × times)."""
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["student", "notebook", "step", "attempts", "passed", "mistakes", "first", "last"])
        rows = self.db.execute(
            "SELECT student, notebook, step, count(*), max(passed), min(at), max(at),"
            " (SELECT group_concat(m || ' x' || n, '; ') FROM (SELECT coalesce(mistake, 'unnamed') AS m, count(*) AS n"
            "   FROM results AS inner_r WHERE inner_r.student = r.student AND inner_r.notebook = r.notebook"
            "   AND inner_r.step = r.step AND NOT inner_r.passed GROUP BY m ORDER BY m))"
            " FROM results AS r GROUP BY student, notebook, step ORDER BY student, notebook, step"
        )
        for student, notebook, step, attempts, passed, first, last, made in rows:
            writer.writerow([student, notebook, step, attempts, "yes" if passed else "no", made or "",
                             _iso(first), _iso(last)])  # fmt: skip
        return out.getvalue()

    def close(self) -> None:
        self.db.close()


def _iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))
