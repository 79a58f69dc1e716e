"""What a lecturer gets wrong starting the hub gets one clear sentence, and nothing is half-done:
the class list's names, not being root, a port in use, npm missing, an account that is not a
student's. Also the link to hand out, and the hub's pins against the series' own. No hub runs here.
"""

from __future__ import annotations

import os
import re
import socket
import sys
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from classroom.hub import accounts, install, launch, link, roster  # noqa: E402
from classroom.hub.settings import HubSettings  # noqa: E402
from tools.run import hub as run_hub  # noqa: E402
from tools.run.env import Failure  # noqa: E402


def test_a_class_list_with_comments_and_instructors():
    parsed = roster.parse("# my class\nlecturer instructor\n\nalice   # the first\nbob\nta-1 instructor\n")
    assert parsed.students == ("alice", "bob")
    assert parsed.instructors == ("lecturer", "ta-1")
    assert parsed.everyone == ("lecturer", "ta-1", "alice", "bob")


@pytest.mark.parametrize(
    "text, words",
    [
        ("alice\nAlice\n", ["line 2", "capital letters", "'alice'"]),
        ("alice\nAlice Smith\n", ["line 2", "not a name", "one name per line"]),
        ("alice\nbob\nalice\n", ["line 3", "listed twice", "line 1"]),
        ("root\n", ["line 1", "reserved"]),
        ("1alice\n", ["line 1", "cannot be a user name", "starting with a letter"]),
        ("a" * 32 + "\n", ["line 1", "at most 31"]),
        ("élodie\n", ["line 1", "cannot be a user name"]),
        ("alice teacher\n", ["line 1", "not a name"]),
        ("# nobody yet\n\n", ["lists nobody"]),
    ],
)
def test_each_problem_in_the_class_list_is_one_sentence_naming_its_line(text, words):
    with pytest.raises(roster.RosterError) as caught:
        roster.parse(text, "students.txt")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("students.txt")
    for word in words:
        assert word in message, message


def test_names_the_system_can_use():
    for good in ("alice", "s1234567", "jan-de-vries", "a_b", "x" * 31):
        assert roster.name_problem(good) is None
    for bad in ("", "-a", "a b", "a/b", "a.b", "x" * 32, "Alice", "hub"):
        assert roster.name_problem(bad)


def test_a_missing_class_list_says_where_it_is_expected(tmp_path):
    with pytest.raises(roster.RosterError, match="does not exist"):
        roster.read(tmp_path / "students.txt")


def test_not_root_is_explained(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(Failure) as caught:
        run_hub.cmd_hub(["--no-browser"])
    assert "own Unix user" in str(caught.value) and "sudo" in str(caught.value)


def test_a_port_in_use_is_explained():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        settings = HubSettings(ip="127.0.0.1", port=port)
        with pytest.raises(launch.HubError) as caught:
            launch.check_ports(settings)
    assert f"port {port} is already in use" in str(caught.value) and "--port" in str(caught.value)
    with pytest.raises(launch.HubError, match="not a port number"):
        launch.check_ports(HubSettings(port=70000))


def test_busy_internal_ports_are_moved_not_refused():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        settings = HubSettings(ip="127.0.0.1", port=launch.free_port(), hub_port=busy)
        launch.check_ports(settings)
    assert settings.hub_port != busy


def test_npm_missing_is_explained(tmp_path, monkeypatch):
    monkeypatch.setattr(install.shutil, "which", lambda name: None)
    with pytest.raises(install.InstallError) as caught:
        install.ensure_proxy(tmp_path, say=lambda message: None)
    assert "npm" in str(caught.value) and "apt-get install npm" in str(caught.value)


def test_no_python_every_user_can_run_is_explained(monkeypatch):
    monkeypatch.setattr(install, "SYSTEM_PYTHONS", ("/nonexistent/python3",))
    with pytest.raises(install.InstallError, match="every user can run"):
        install.system_python()


def test_a_python_under_a_closed_folder_is_not_readable_by_all(tmp_path):
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    (closed / "python3").write_text("")
    (closed / "python3").chmod(0o755)
    assert not install.readable_by_all(closed / "python3")
    assert install.readable_by_all(Path("/usr/bin/env"))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="creates Unix accounts: needs root")
def test_an_existing_system_account_is_never_made_a_student():
    with pytest.raises(accounts.AccountError, match="not a student of this class"):
        accounts.ensure_student("nobody")
    assert not accounts.is_student_account("root")
    accounts.remove_student("nobody")  # refused silently: not ours
    import pwd

    assert pwd.getpwnam("nobody")


def test_the_link_to_hand_out_opens_the_contents_from_the_series():
    url = link.hub_link("https://hub.example.edu/", "https://git.example.edu/course/layernorm.git")
    parsed = urlparse(url)
    assert parsed.netloc == "hub.example.edu" and parsed.path == "/hub/user-redirect/git-pull"
    query = {key: values[0] for key, values in parse_qs(parsed.query).items()}
    assert query["repo"] == "https://git.example.edu/course/layernorm.git"
    assert query["branch"] == "main" and query["targetpath"] == "layernorm-step-by-step"
    assert query["urlpath"] == "lab/tree/layernorm-step-by-step/notebooks/00_contents.ipynb"
    assert (ROOT / "notebooks" / "00_contents.ipynb").is_file()


def test_hub_link_refuses_what_is_not_an_address_or_a_notebook(capsys):
    with pytest.raises(Failure, match="not a web address"):
        run_hub.cmd_hub_link(["hub.example.edu"])
    with pytest.raises(Failure, match="has no notebooks/99"):
        run_hub.cmd_hub_link(["https://hub.example.edu", "--notebook", "notebooks/99_missing.ipynb"])
    assert run_hub.cmd_hub_link(["https://hub.example.edu", "--notebook", "notebooks/02_mean.ipynb"]) == 0
    assert "02_mean.ipynb" in capsys.readouterr().out


def requirement_lines(path: Path) -> dict[str, str]:
    found = {}
    for line in path.read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        match = re.match(r"([A-Za-z0-9_.-]+)\s*(.*)", line)
        if match:
            found[match.group(1).lower()] = match.group(2).replace(" ", "")
    return found


def test_the_students_kernels_get_the_series_own_package_bounds():
    hub = requirement_lines(ROOT / "classroom" / "requirements-hub.txt")
    series = requirement_lines(ROOT / "requirements.txt")
    for package in ("jupyterlab", "ipykernel", "numpy", "matplotlib", "ipywidgets", "torch"):
        assert hub[package] == series[package], package
    for pinned in ("jupyterhub", "jupyterhub-firstuseauthenticator", "jupyterhub-idle-culler", "nbgitpuller"):
        assert hub[pinned].startswith("=="), f"{pinned} must be pinned for a course"


def test_the_proxy_is_pinned_and_every_package_is_hash_checked():
    import json

    package = json.loads((ROOT / "classroom" / "proxy" / "package.json").read_text())
    lock = json.loads((ROOT / "classroom" / "proxy" / "package-lock.json").read_text())
    assert re.fullmatch(r"\d+\.\d+\.\d+", package["dependencies"]["configurable-http-proxy"])
    packages = {name: entry for name, entry in lock["packages"].items() if name}
    assert packages, "the lock file lists no packages"
    for name, entry in packages.items():
        assert entry.get("integrity", "").startswith("sha512-"), f"{name} has no sha512 in the lock file"
    chp = packages["node_modules/configurable-http-proxy"]
    assert chp["version"] == package["dependencies"]["configurable-http-proxy"]


def test_a_hub_that_must_be_killed_leaves_nothing_running(tmp_path):
    """A hub that does not stop in time is killed; its proxy and services would run on, orphaned, so
    Hub.stop ends what was below it. Here a stand-in hub ignores SIGTERM and has one child."""
    import subprocess
    import sys

    from classroom.hub.launch import Hub
    from classroom.hub.proctree import alive, descendants

    script = (
        "import signal, subprocess, time\n"
        "subprocess.Popen(['sleep', '300'])\n"
        "signal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "print('ready', flush=True)\n"
        "time.sleep(300)\n"
    )
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert process.stdout.readline().strip() == "ready"
    child = descendants(process.pid)
    assert len(child) == 1
    left = Hub(settings=None, process=process).stop(timeout=0.2)  # it ignores SIGTERM: any grace runs out
    assert left == sorted(child) and not any(alive(pid) for pid in child)
    assert process.poll() is not None
