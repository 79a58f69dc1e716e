"""``python -m classroom.service`` (classroom/service/__main__.py): the results' database from --db, or else
from LAYERNORM_CLASS_DB (so that a URL's password stays off the command line every user can read); neither
is one sentence naming both. The service is not started here: ``serve`` is stood in for.
"""

from __future__ import annotations

import fake_hub
import pytest

fake_hub.install()  # the service's app imports JupyterHub's auth: its stand-in where JupyterHub is not installed
from classroom.service import __main__ as command  # noqa: E402


@pytest.fixture
def served(monkeypatch) -> list:
    found: list = []

    async def serve(db):
        found.append(db)

    monkeypatch.setattr(command, "serve", serve)
    monkeypatch.delenv(command.DB_VARIABLE, raising=False)
    return found


def test_the_database_given_with_db_is_served(served, monkeypatch):
    monkeypatch.setattr("sys.argv", ["python -m classroom.service", "--db", "/srv/class.sqlite"])
    command.main()
    assert served == ["/srv/class.sqlite"]


def test_without_db_the_variable_names_the_database(served, monkeypatch):
    url = "postgresql+pg8000://class:secret@db.example.edu/class"
    monkeypatch.setenv("LAYERNORM_CLASS_DB", url)
    monkeypatch.setattr("sys.argv", ["python -m classroom.service"])
    command.main()
    assert served == [url]


def test_db_wins_over_the_variable(served, monkeypatch):
    monkeypatch.setenv("LAYERNORM_CLASS_DB", "/srv/from-the-variable.sqlite")
    monkeypatch.setattr("sys.argv", ["python -m classroom.service", "--db", "/srv/given.sqlite"])
    command.main()
    assert served == ["/srv/given.sqlite"]


@pytest.mark.parametrize("variable", [None, ""])
def test_with_neither_it_says_to_give_one_and_serves_nothing(served, monkeypatch, capsys, variable):
    if variable is not None:
        monkeypatch.setenv("LAYERNORM_CLASS_DB", variable)
    monkeypatch.setattr("sys.argv", ["python -m classroom.service"])
    with pytest.raises(SystemExit) as stopped:
        command.main()
    assert stopped.value.code == 2
    assert capsys.readouterr().err.endswith("error: give --db or set LAYERNORM_CLASS_DB\n")
    assert served == []
