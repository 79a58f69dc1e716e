"""The class results' SQLite file (classroom/service/store.py): "made if missing and readable by root only";
a path, relative or not, becomes the URL of that one absolute file, so the service finds the same file
whatever folder it is started from; a URL is taken as it is; and the database survives a restart.
"""

from __future__ import annotations

import json
import stat
import uuid

from classroom.service import results
from classroom.service.store import Store, database_url


def verdict():
    body = {"notebook": "02", "step": "mean", "passed": True, "mistake": None, "id": str(uuid.uuid4())}
    return results.parse(json.dumps(body).encode())


def test_a_relative_path_is_the_absolute_file_under_the_folder_it_was_given_in(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert database_url("private/class.sqlite") == f"sqlite:///{tmp_path}/private/class.sqlite"
    assert database_url("./class.sqlite") == f"sqlite:///{tmp_path}/class.sqlite"


def test_a_url_is_taken_as_it_is():
    for url in ("sqlite:////srv/hub/class.sqlite", "postgresql+pg8000://class:pw@db.example.edu:5433/class"):
        assert database_url(url) == url


def test_the_store_knows_its_file_and_only_for_sqlite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    store = Store("results/class.sqlite")
    try:
        assert store.path == tmp_path / "results" / "class.sqlite" and store.path.is_file()
    finally:
        store.close()


def test_a_file_opened_again_is_made_roots_alone_again_and_keeps_its_results(tmp_path):
    where = tmp_path / "class.sqlite"
    store = Store(where)
    store.add("ann", verdict())
    store.close()
    where.chmod(0o644)  # opened up by hand, or restored from a backup
    again = Store(where)
    try:
        assert stat.S_IMODE(where.stat().st_mode) == 0o600
        assert again.count() == 1
    finally:
        again.close()


def test_the_file_keeps_its_journal_beside_it_so_a_reader_never_waits(tmp_path):
    store = Store(tmp_path / "class.sqlite")
    try:
        with store.engine.connect() as connection:
            assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert connection.exec_driver_sql("PRAGMA synchronous").scalar() == 1  # NORMAL
    finally:
        store.close()
