"""Which accounts the hub counts as its students (classroom/hub/accounts.py), what it says when a system command
fails, whose processes are whose, and the simulated class's names (classroom/sim/classhub.py): the parts that
read the system without changing it. Making and removing accounts needs root and runs in the hub tests
(test_hub_class.py, test_hub_security.py, through classroom/sim/classhub.py's class_hub)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from types import SimpleNamespace

import pytest

from classroom.hub import accounts
from classroom.hub.accounts import AccountError
from classroom.sim.classhub import names

CLASS_GID = 4321


@pytest.fixture
def machine(monkeypatch):
    """A stand-in account table: {name: (uid, primary gid)}, and the class group when ``group`` is set."""
    table: dict[str, tuple[int, int]] = {}
    state = SimpleNamespace(table=table, group=True)

    def getpwnam(name):
        if name not in table:
            raise KeyError(name)
        uid, gid = table[name]
        return SimpleNamespace(pw_uid=uid, pw_gid=gid, pw_dir=f"/home/{name}")

    def getgrnam(name):
        if name != accounts.CLASS_GROUP or not state.group:
            raise KeyError(name)
        return SimpleNamespace(gr_gid=CLASS_GID)

    monkeypatch.setattr(accounts, "pwd", SimpleNamespace(getpwnam=getpwnam))
    monkeypatch.setattr(accounts, "grp", SimpleNamespace(getgrnam=getgrnam))
    return state


def test_a_student_is_an_account_in_the_class_group_from_uid_1000(machine):
    machine.table.update(
        {
            "ana": (1000, CLASS_GID),  # the first uid of an ordinary account
            "ben": (1001, CLASS_GID),
            "svc": (999, CLASS_GID),  # a system account, even in the class group
            "staff": (1002, 100),  # an ordinary account of another group
        }
    )
    assert [name for name in machine.table if accounts.is_student_account(name)] == ["ana", "ben"]
    assert not accounts.is_student_account("nobody-here")


def test_without_the_class_group_nobody_is_a_student(machine):
    machine.table["ana"] = (1000, CLASS_GID)
    machine.group = False
    assert not accounts.is_student_account("ana")


@pytest.fixture
def signals(monkeypatch):
    """Every signal end_leftovers would send, recorded and not sent; each uid runs the processes 100 + uid, 200 + uid."""
    sent: list[tuple[int, int]] = []
    monkeypatch.setattr(accounts, "os", SimpleNamespace(kill=lambda pid, sig: sent.append((pid, sig))))
    monkeypatch.setattr(accounts, "processes_of", lambda uid: [100 + uid, 200 + uid])
    return sent


def test_leftovers_of_an_account_that_is_not_a_student_are_never_touched(machine, signals):
    machine.table["root"] = (0, 0)
    assert accounts.end_leftovers("root") == 0
    assert accounts.end_leftovers("nobody-here") == 0
    assert signals == []


def test_every_leftover_process_of_a_student_is_killed_and_counted(machine, signals):
    machine.table["ana"] = (1000, CLASS_GID)
    assert accounts.end_leftovers("ana") == 2
    assert signals == [(1100, signal.SIGKILL), (1200, signal.SIGKILL)]


def test_a_leftover_that_ended_meanwhile_still_counts_and_the_rest_are_killed(machine, monkeypatch):
    machine.table["ana"] = (1000, CLASS_GID)
    sent = []

    def kill(pid, sig):
        if pid == 1100:
            raise ProcessLookupError(pid)
        sent.append(pid)

    monkeypatch.setattr(accounts, "os", SimpleNamespace(kill=kill))
    monkeypatch.setattr(accounts, "processes_of", lambda uid: [100 + uid, 200 + uid])
    assert accounts.end_leftovers("ana") == 2 and sent == [1200]


def test_the_real_system_accounts_are_not_students():
    for name in ("root", "daemon", "no-such-account-here"):
        assert not accounts.is_student_account(name)


def test_a_failed_system_command_is_one_sentence_with_the_command_and_its_last_line():
    script = "import sys; print('on stdout'); sys.stderr.write('first\\nsecond\\nuseradd: user exists\\n'); sys.exit(9)"
    with pytest.raises(AccountError) as caught:
        accounts._run([sys.executable, "-c", script])
    assert str(caught.value) == f"`{sys.executable} -c {script}` failed: useradd: user exists"


def test_a_failure_said_only_on_stdout_or_not_at_all_is_still_one_sentence():
    with pytest.raises(AccountError) as caught:
        accounts._run([sys.executable, "-c", "print('a'); print('the reason'); raise SystemExit(1)"])
    assert str(caught.value).endswith("` failed: the reason")
    with pytest.raises(AccountError) as caught:
        accounts._run(["false"])
    assert str(caught.value) == "`false` failed: no reason given"
    assert accounts._run(["true"]) is None


def test_the_processes_of_a_user_are_every_process_running_as_that_uid():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        mine = accounts.processes_of(os.getuid())
        assert os.getpid() in mine and child.pid in mine
        assert all(isinstance(pid, int) for pid in mine) and len(mine) == len(set(mine))
        assert accounts.processes_of(4_242_424) == []  # nobody runs as this uid
    finally:
        child.kill()
        child.wait()


def test_a_process_that_ends_while_being_listed_is_left_out(monkeypatch, tmp_path):
    class Entry:
        def __init__(self, name, uid=None):
            self.name, self.uid = name, uid

        def stat(self):
            if self.uid is None:
                raise FileNotFoundError(self.name)
            return SimpleNamespace(st_uid=self.uid)

    listing = [Entry("12", 1000), Entry("13"), Entry("self", 1000), Entry("14", 0), Entry("15", 1000)]
    monkeypatch.setattr(accounts, "Path", lambda path: SimpleNamespace(iterdir=lambda: iter(listing)))
    assert accounts.processes_of(1000) == [12, 15]


def test_a_simulated_class_is_numbered_from_one_with_three_digits():
    assert names("sim", 3) == ["sim001", "sim002", "sim003"]
    assert names("grd-", 1) == ["grd-001"]
    assert names("s", 0) == []
    assert names("s", 1000)[-2:] == ["s999", "s1000"]


def test_a_log_with_bytes_that_are_not_utf8_still_gives_its_last_lines(tmp_path):
    from classroom.sim.classhub import last_lines

    log = tmp_path / "hub.log"
    log.write_bytes(b"started\n\xff\xfe odd bytes\nstopped\n")
    assert last_lines(log) == "started | \ufffd\ufffd odd bytes | stopped"
