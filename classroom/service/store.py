"""The verdicts, kept in a database that survives a restart of the service or the hub.

By default one SQLite file (WAL mode: the summary's reads never wait for the writer), made if
missing and readable by root only. For a larger deployment, any SQLAlchemy URL instead of the
path, e.g. ``postgresql+pg8000://class@db.example.edu/class`` (tests/classroom/test_class_store.py
runs the same tests on both). SQLAlchemy Core, with queries every supported database runs alike:
the CSV's per-student mistake list is put together here, not with a database's own string
aggregate.

A verdict's key is (student, id): a resend of the same id is ignored, and one student's ids can
never collide with, or overwrite, another's.
"""

from __future__ import annotations

import csv
import io
import time
from collections import Counter, defaultdict
from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.dialects import postgresql, sqlite

from classroom.service.results import Result

METADATA = sa.MetaData()
RESULTS = sa.Table(
    "results",
    METADATA,
    sa.Column("student", sa.String(64), primary_key=True),
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("notebook", sa.String(8), nullable=False),
    sa.Column("step", sa.String(64), nullable=False),
    sa.Column("passed", sa.Boolean, nullable=False),
    sa.Column("mistake", sa.String(64)),
    sa.Column("at", sa.Float, nullable=False),
    sa.Index("by_exercise", "notebook", "step", "student"),
)
INSERT = {"sqlite": sqlite.insert, "postgresql": postgresql.insert}  # both can skip a duplicate key


def database_url(where: str | Path) -> str:
    """An SQLAlchemy URL as it is, or a file path as an SQLite URL."""
    where = str(where)
    return where if "://" in where else f"sqlite:///{Path(where).resolve()}"


class Store:
    def __init__(self, where: str | Path):
        url = database_url(where)
        self.path = Path(url.removeprefix("sqlite:///")) if url.startswith("sqlite:///") else None
        if self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        backend = sa.engine.make_url(url).get_backend_name()
        if backend not in INSERT:
            raise ValueError(f"the class results need SQLite or PostgreSQL, not {backend}")
        self.engine = sa.create_engine(url)
        if self.path is not None:
            sa.event.listen(self.engine, "connect", _sqlite_pragmas)
        METADATA.create_all(self.engine)
        if self.path is not None:
            self.path.chmod(0o600)  # student names: readable by the service (root) only

    def add(self, student: str, result: Result) -> bool:
        """Store one verdict; False when this student already sent this id (nothing changes)."""
        row = {
            "student": student,
            "id": result.id,
            "notebook": result.notebook,
            "step": result.step,
            "passed": bool(result.passed),
            "mistake": result.mistake,
            "at": time.time(),
        }
        statement = INSERT[self.engine.dialect.name](RESULTS).values(**row).on_conflict_do_nothing()
        with self.engine.begin() as connection:
            return connection.execute(statement).rowcount == 1

    def count(self) -> int:
        with self.engine.connect() as connection:
            return connection.execute(sa.select(sa.func.count()).select_from(RESULTS)).scalar_one()

    def _rows(self):
        with self.engine.connect() as connection:
            columns = (RESULTS.c.student, RESULTS.c.notebook, RESULTS.c.step, RESULTS.c.passed, RESULTS.c.mistake)
            query = sa.select(*columns, RESULTS.c.at).order_by(RESULTS.c.student, RESULTS.c.at)
            return connection.execute(query).all()

    def summary(self, names: bool = False) -> list[dict]:
        """Per exercise: students who tried, who passed, and how many students made each mistake."""
        tried, passed, attempts = defaultdict(set), defaultdict(set), Counter()
        made: dict = defaultdict(lambda: defaultdict(set))
        for student, notebook, step, ok, mistake, _ in self._rows():
            key = (notebook, step)
            tried[key].add(student)
            attempts[key] += 1
            if ok:
                passed[key].add(student)
            else:
                made[key][mistake or "unnamed"].add(student)
        exercises = []
        for key in sorted(tried):
            mistakes = sorted(made[key].items(), key=lambda item: (-len(item[1]), item[0]))
            exercise = {
                "notebook": key[0],
                "step": key[1],
                "tried": len(tried[key]),
                "passed": len(passed[key]),
                "attempts": attempts[key],
                "mistakes": {mistake: len(students) for mistake, students in mistakes},
            }
            if names:
                exercise["names"] = {
                    "passed": sorted(passed[key]),
                    "mistakes": {mistake: sorted(students) for mistake, students in mistakes},
                }
            exercises.append(exercise)
        return exercises

    def csv(self) -> str:
        """One line per student per exercise: attempts, passed, the mistakes made (key × times)."""
        lines: dict = {}
        for student, notebook, step, ok, mistake, at in self._rows():
            line = lines.setdefault((student, notebook, step), {"n": 0, "ok": False, "made": Counter(), "at": []})
            line["n"] += 1
            line["ok"] |= bool(ok)
            line["at"].append(at)
            if not ok:
                line["made"][mistake or "unnamed"] += 1
        out = io.StringIO()
        writer = csv.writer(out)
        writer.writerow(["student", "notebook", "step", "attempts", "passed", "mistakes", "first", "last"])
        for (student, notebook, step), line in sorted(lines.items()):
            made = "; ".join(f"{m} x{n}" for m, n in sorted(line["made"].items()))
            writer.writerow([student, notebook, step, line["n"], "yes" if line["ok"] else "no", made,
                             _iso(min(line["at"])), _iso(max(line["at"]))])  # fmt: skip
        return out.getvalue()

    def close(self) -> None:
        self.engine.dispose()


def _sqlite_pragmas(connection, _record) -> None:
    cursor = connection.cursor()
    cursor.execute("PRAGMA journal_mode=WAL")  # readers (the summary) never wait for the writer
    cursor.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: a crash of the service loses nothing
    cursor.close()


def _iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))
