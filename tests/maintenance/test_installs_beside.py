"""`run.py test` installs the Colab-like and the class hub's environments beside .venv's
(tools/run/ahead.py): at the same time as the block, every one ended when the block ends, and a failure
said in one sentence and left for the place that needs the install to report."""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tools.run import ahead  # noqa: E402


def test_the_installs_run_while_the_block_runs_and_are_ended_with_it():
    started, finished = threading.Event(), []

    def colab() -> None:
        started.set()
        time.sleep(0.2)
        finished.append("colab")

    with ahead.installs_beside(colab, None):
        assert started.wait(10), "the install did not start beside the block"
        assert finished == []  # still running: the block did not wait for it to begin
    assert finished == ["colab"]  # ended before the block's end returned


def test_a_failed_install_is_said_once_and_does_not_stop_the_run(monkeypatch):
    said: list[str] = []
    monkeypatch.setattr(ahead, "say", said.append)

    def hub() -> None:
        raise RuntimeError("pip exit code 1; log in /opt/layernorm-hub/pip-install.log")

    ran = []
    with ahead.installs_beside(hub, lambda: ran.append(1)):
        pass
    assert ran == [1]
    assert len(said) == 1 and "hub: pip exit code 1" in said[0] and "tried again where it is needed" in said[0]


def test_the_hub_environment_is_left_alone_without_root(monkeypatch):
    monkeypatch.setattr(ahead.os, "geteuid", lambda: 1000)
    import classroom.hub.install as install

    monkeypatch.setattr(install, "ensure_python_env", lambda *a, **k: (_ for _ in ()).throw(AssertionError("ran")))
    ahead.hub_env()  # no install attempted


def test_everything_installs_venv_with_the_other_two_beside_it(monkeypatch):
    """`python3 -m tools.run.ahead` (CI runs it beside apt-get): .venv in the caller's thread, the Colab-like and
    the hub's environments in threads of their own, all three ended when it returns."""
    import tools.run.tests as tests_module

    seen: dict[str, threading.Thread] = {}

    def note(name: str):
        return lambda *args, **kwargs: seen.setdefault(name, threading.current_thread())

    monkeypatch.setattr(ahead, "ensure_env", note("venv"))
    monkeypatch.setattr(tests_module, "colab_env", note("colab"))
    monkeypatch.setattr(ahead, "hub_env", note("hub"))
    assert ahead.everything() == 0
    assert set(seen) == {"venv", "colab", "hub"}
    assert seen["venv"] is threading.current_thread() and len(set(map(id, seen.values()))) == 3, seen
    assert not any(thread.is_alive() for thread in seen.values() if thread is not threading.current_thread())


def test_everything_fails_when_venv_cannot_be_made(monkeypatch):
    import tools.run.tests as tests_module
    from tools.run.env import Failure

    def broken() -> None:
        raise Failure("error: pip could not install the packages in requirements.txt", code=3)

    monkeypatch.setattr(ahead, "ensure_env", broken)
    monkeypatch.setattr(tests_module, "colab_env", lambda: None)
    monkeypatch.setattr(ahead, "hub_env", lambda: None)
    try:
        ahead.everything()
    except Failure as failure:
        assert failure.code == 3
    else:
        raise AssertionError("a failed .venv install must not pass")
