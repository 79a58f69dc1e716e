"""The class service's store, the same tests on its two databases: an SQLite file (the default) and
PostgreSQL (any SQLAlchemy URL, for a larger deployment), a throwaway cluster started for the test
from Debian's PostgreSQL server, on 127.0.0.1, removed afterwards."""

from __future__ import annotations

import glob
import json
import os
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from classroom.service import results  # noqa: E402
from classroom.service.store import Store, database_url  # noqa: E402


def body(**fields) -> bytes:
    verdict = {"notebook": "03", "step": "variance", "passed": False, "mistake": "n-1", "id": str(uuid.uuid4())}
    verdict.update(fields)
    return json.dumps({k: v for k, v in verdict.items() if v is not None or k != "mistake"}).encode()


def postgres_binaries() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    return Path(found[-1]).parent if found else None


@pytest.fixture(scope="module")
def postgres_url():
    binaries = postgres_binaries()
    if binaries is None or os.geteuid() != 0 or shutil.which("runuser") is None:
        reason = "needs Debian's PostgreSQL server (apt-get install postgresql) and root to run it as postgres"
        if os.environ.get("REQUIRE_HUB") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    folder = Path(tempfile.mkdtemp(prefix="layernorm-pg-"))
    shutil.chown(folder, "postgres", "postgres")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    as_postgres = ["runuser", "-u", "postgres", "--"]
    data = folder / "data"
    subprocess.run([*as_postgres, binaries / "initdb", "-D", data, "-A", "trust", "-U", "class"], check=True,
                   capture_output=True)  # fmt: skip
    options = f"-k {folder} -p {port} -c listen_addresses=127.0.0.1"
    subprocess.run([*as_postgres, binaries / "pg_ctl", "-D", data, "-o", options, "-w", "-l", folder / "log", "start"],
                   check=True, capture_output=True)  # fmt: skip
    try:
        yield f"postgresql+pg8000://class@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run([*as_postgres, binaries / "pg_ctl", "-D", data, "-m", "fast", "-w", "stop"], capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)


# A real PostgreSQL server starts (initdb, pg_ctl) in seconds: its cases are slow, run by `run.py test`.
@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def where(request, tmp_path):
    """Where the store keeps its rows: a file path, or a URL of an empty PostgreSQL database."""
    if request.param == "sqlite":
        return tmp_path / "results.sqlite"
    url = request.getfixturevalue("postgres_url")
    store = Store(url)
    with store.engine.begin() as connection:  # each test starts from an empty table
        connection.exec_driver_sql("DELETE FROM results")
    store.close()
    return url


def test_the_store_counts_students_not_clicks_and_ignores_a_resend(where):
    store = Store(where)
    first = results.parse(body())
    assert store.add("ann", first) and not store.add("ann", first)  # the same id again: nothing new
    assert store.add("bob", first)  # another student's id space
    store.add("ann", results.parse(body(mistake="n-1")))
    store.add("ann", results.parse(body(passed=True, mistake=None)))
    store.add("cat", results.parse(body(mistake=None)))
    [exercise] = store.summary()
    assert exercise == {"notebook": "03", "step": "variance", "tried": 3, "passed": 1, "attempts": 5,
                        "mistakes": {"n-1": 2, "unnamed": 1}}  # fmt: skip
    assert "names" not in exercise
    [named] = store.summary(names=True)
    assert named["names"] == {"passed": ["ann"], "mistakes": {"n-1": ["ann", "bob"], "unnamed": ["cat"]}}
    lines = store.csv().splitlines()
    assert lines[0] == "student,notebook,step,attempts,passed,mistakes,first,last"
    assert lines[1].startswith("ann,03,variance,3,yes,n-1 x2,") and lines[2].startswith("bob,03,variance,1,no,n-1 x1,")
    assert lines[3].startswith("cat,03,variance,1,no,unnamed x1,") and len(lines) == 4
    store.close()
    again = Store(where)
    assert again.count() == 5  # a restart keeps everything
    again.close()


def test_exercises_and_mistakes_are_ordered_for_the_page(where):
    store = Store(where)
    for student, step, mistake in [("a", "variance", "n-1"), ("b", "variance", "no-eps"), ("c", "variance", "no-eps"),
                                   ("a", "mean", None)]:  # fmt: skip
        store.add(student, results.parse(body(step=step, mistake=mistake, notebook="02" if step == "mean" else "03")))
    exercises = store.summary()
    assert [(e["notebook"], e["step"]) for e in exercises] == [("02", "mean"), ("03", "variance")]
    assert list(exercises[1]["mistakes"].items()) == [("no-eps", 2), ("n-1", 1)]  # most common first
    store.close()


def test_the_sqlite_file_is_for_root_only_and_a_path_becomes_a_url(tmp_path):
    store = Store(tmp_path / "r.sqlite")
    store.close()
    assert stat.S_IMODE((tmp_path / "r.sqlite").stat().st_mode) == 0o600
    assert database_url(tmp_path / "r.sqlite") == f"sqlite:///{tmp_path / 'r.sqlite'}"
    assert database_url("postgresql+pg8000://u@h/db") == "postgresql+pg8000://u@h/db"
    with pytest.raises(ValueError, match="SQLite or PostgreSQL"):
        Store("mysql+pymysql://u@127.0.0.1:1/db")
