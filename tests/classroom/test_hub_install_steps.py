"""The hub's own installation (classroom/hub/install.py) without installing anything: stand-in Pythons, pip and
npm (scripts that write down how they were run) show the commands it runs in order, the stamps that make a
second start install nothing, the log each install writes, and each failure as the one sentence its docstring
promises, the last good state kept. The real install runs in the hub tests (root)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import sys
import tempfile
from pathlib import Path

import pytest

from classroom.hub import install
from classroom.hub.install import InstallError

PYTHON = sys.executable  # the stand-ins' own interpreter (a test replaces install's sys.executable)

# A stand-in for a program: writes its arguments, folder and input to RECORD (one JSON line per run), then
# acts as the test's ACT says for the first matching argument pattern (an exit code, text, files to make).
STAND_IN = r"""#!{python}
import json, os, sys
args = sys.argv[1:]
with open({record!r}, "a") as out:
    out.write(json.dumps({{"program": {name!r}, "args": args, "cwd": os.getcwd(), "stdin": sys.stdin.read()}}) + "\n")
for pattern, action in {acts!r}:
    if all(part in args for part in pattern):
        for made in action.get("make", []):
            path = made.replace("<last>", args[-1]).replace("<cwd>", os.getcwd())
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write(action.get("contents", ""))
            os.chmod(path, 0o755)
        sys.stdout.write(action.get("say", ""))
        sys.stderr.write(action.get("err", ""))
        sys.exit(action.get("exit", 0))
"""


def stand_in(path: Path, record: Path, acts: list, name: str | None = None) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        STAND_IN.format(python=PYTHON, record=str(record), name=name or path.name, acts=acts), encoding="utf-8"
    )
    path.chmod(0o755)
    return path


def runs(record: Path) -> list[dict]:
    return [json.loads(line) for line in record.read_text().splitlines()] if record.exists() else []


@pytest.fixture
def open_folder():
    """A folder every user can enter (pytest's own are mode 700), removed afterwards."""
    folder = Path(tempfile.mkdtemp(prefix="layernorm-install-test-", dir="/tmp"))
    folder.chmod(0o755)
    mask = os.umask(0o022)
    yield folder
    os.umask(mask)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def typed_stdin():
    """This process's standard input holds a line, as if typed at the lecturer's terminal."""
    read, write = os.pipe()
    os.write(write, b"typed at the terminal\n")
    os.close(write)
    saved = os.dup(0)
    os.dup2(read, 0)
    os.close(read)
    yield
    os.dup2(saved, 0)
    os.close(saved)


def digest_of(*paths: Path) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.name.encode() + b"\0" + path.read_bytes().replace(b"\r\n", b"\n") + b"\0")
    return h.hexdigest()


# --- the pins' digest, who can run a file, which Python --------------------------------------------------------


def test_the_digest_of_pins_ignores_line_endings_but_not_names_content_or_order(tmp_path):
    unix, windows, other = tmp_path / "a" / "pins.txt", tmp_path / "b" / "pins.txt", tmp_path / "c" / "other.txt"
    for path, text in (
        (unix, b"torch==2\nnumpy\n"),
        (windows, b"torch==2\r\nnumpy\r\n"),
        (other, b"torch==2\nnumpy\n"),
    ):
        path.parent.mkdir()
        path.write_bytes(text)
    expected = hashlib.sha256(b"pins.txt\0torch==2\nnumpy\n\0").hexdigest()
    assert install._digest([unix]) == install._digest([windows]) == expected
    assert install._digest([other]) != expected
    assert install._digest([unix, other]) == digest_of(unix, other) != install._digest([other, unix])


def test_a_file_is_readable_by_all_only_if_it_and_every_folder_above_it_are_open(open_folder):
    program = open_folder / "inner" / "python3"
    program.parent.mkdir(mode=0o755)
    program.write_text("")
    program.chmod(0o755)
    assert install.readable_by_all(program)
    program.chmod(0o754)  # others may read it but not run it
    assert not install.readable_by_all(program)
    program.chmod(0o755)
    (open_folder / "inner").chmod(0o750)  # others cannot enter the folder
    assert not install.readable_by_all(program)
    (open_folder / "inner").chmod(0o755)
    link = open_folder / "link"
    link.symlink_to(program)  # a link counts as where it points
    assert install.readable_by_all(link)


def test_the_first_system_python_310_every_user_can_run_is_chosen(open_folder, monkeypatch):
    record = open_folder / "record.jsonl"
    hidden = open_folder / "closed" / "python3"
    stand_in(hidden, record, [[["-c"], {"say": "True\n"}]])
    (open_folder / "closed").chmod(0o700)
    old = stand_in(open_folder / "old" / "python3", record, [[["-c"], {"say": "False\n"}]])
    broken = stand_in(open_folder / "broken" / "python3", record, [[["-c"], {"say": "True\n", "exit": 1}]])
    good = stand_in(open_folder / "good" / "python3", record, [[["-c"], {"say": "True\n"}]])
    later = stand_in(open_folder / "later" / "python3", record, [[["-c"], {"say": "True\n"}]])
    candidates = (str(open_folder / "missing"), str(hidden), str(old), str(broken), str(good), str(later))
    monkeypatch.setattr(install, "SYSTEM_PYTHONS", candidates)
    assert install.system_python() == str(good)
    probe = ["-c", "import sys, venv; print(sys.version_info >= (3, 10))"]
    assert [(run["program"], run["args"]) for run in runs(record)] == [
        ("python3", probe)
    ] * 3  # old, broken, good: the closed one is never run, nor any after the good one


def test_without_such_a_python_it_says_which_it_looked_for_and_how_to_get_one(monkeypatch, tmp_path):
    monkeypatch.setattr(install, "SYSTEM_PYTHONS", ("/nowhere/python3", str(tmp_path / "python3")))
    with pytest.raises(InstallError) as caught:
        install.system_python()
    assert str(caught.value) == (
        f"no Python 3.10+ that every user can run was found (looked for /nowhere/python3, {tmp_path / 'python3'}): "
        "install Debian's python3 (apt-get install python3) and run this again"
    )


def test_the_hubs_python_is_in_its_venv():
    assert install.venv_python(Path("/opt/hub")) == Path("/opt/hub/venv/bin/python")


# --- one logged command ------------------------------------------------------------------------------------------


def test_a_logged_command_appends_its_line_and_output_runs_where_asked_and_reads_nothing(tmp_path, typed_stdin):
    record = tmp_path / "record.jsonl"
    program = stand_in(tmp_path / "bin" / "tool", record, [[[], {"say": "done it\n"}]])
    log = tmp_path / "install.log"
    log.write_text("before\n", encoding="utf-8")
    assert install._logged([str(program), "a b", "c"], log, 30, "the tool", cwd=tmp_path / "bin") is True
    assert log.read_text(encoding="utf-8") == f"before\n\n$ {program} a b c\ndone it\n"
    assert runs(record) == [{"program": "tool", "args": ["a b", "c"], "cwd": str(tmp_path / "bin"), "stdin": ""}]


def test_a_failed_command_that_is_not_required_is_only_false(tmp_path, capsys):
    program = stand_in(tmp_path / "tool", tmp_path / "record.jsonl", [[[], {"say": "ERROR: nope\n", "exit": 5}]])
    assert install._logged([str(program)], tmp_path / "log", 30, "the tool", required=False) is False
    assert capsys.readouterr().err == ""


def test_a_failed_required_command_says_what_failed_with_its_code_and_log_and_shows_its_errors(tmp_path, capsys):
    said = "".join(f"line {i}\n" for i in range(20)) + "ERROR: first\nmore\nERROR: second\n"
    program = stand_in(tmp_path / "tool", tmp_path / "record.jsonl", [[[], {"say": said, "exit": 5}]])
    log = tmp_path / "log"
    with pytest.raises(InstallError) as caught:
        install._logged([str(program)], log, 30, "installing the tool")
    assert str(caught.value) == f"installing the tool failed (exit code 5); full log in {log}"
    assert capsys.readouterr().err == "ERROR: first\nERROR: second\n"


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_a_command_that_takes_too_long_is_stopped_and_said(tmp_path):
    log = tmp_path / "log"
    with pytest.raises(InstallError) as caught:
        install._logged([sys.executable, "-c", "import time; time.sleep(30)"], log, 0.3, "the slow step")
    assert str(caught.value) == f"the slow step took longer than 0.3 s; log in {log}"


def test_a_logs_tail_is_its_last_error_lines_or_else_its_last_lines(tmp_path):
    log = tmp_path / "log"
    lines = [f"line {i}" for i in range(30)]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    assert install._log_tail(log) == "\n".join(lines[-12:])
    assert install._log_tail(log, lines=2) == "line 28\nline 29"
    errors = [f"ERROR: e{i}" for i in range(14)] + ["npm ERR! old npm", "npm error new npm", "  ERROR: indented"]
    log.write_text("\n".join(["start", *errors, "end"]) + "\n", encoding="utf-8")
    assert install._log_tail(log) == "\n".join(errors[4:16])  # pip's and both npms' error lines, the last 12


# --- the environment ------------------------------------------------------------------------------------------------


def set_up_pythons(
    open_folder: Path,
    monkeypatch,
    venv_works=True,
    pip_inside=True,
    install_exit=0,
    half_made=True,
    torch_exit=0,
    uninstall_exit=0,
    bare_venv_exit=0,
):
    """A system Python that makes a venv whose python records every pip command; pins with torch."""
    record = open_folder / "record.jsonl"
    venv_python = {
        "make": ["<last>/bin/python"],
        "contents": STAND_IN.format(
            python=PYTHON,
            record=str(record),
            name="venv python",
            acts=[
                [["-c", "import pip"], {"exit": 0 if pip_inside else 1}],
                [["-r"], {"exit": install_exit, "say": "ERROR: no such package\n" if install_exit else ""}],
                [["torch==2.13.0+cpu"], {"exit": torch_exit}],
                [["uninstall"], {"exit": uninstall_exit, "say": "ERROR: cannot uninstall\n" if uninstall_exit else ""}],
            ],
        ),
    }
    acts = [
        [["-c"], {"say": "True\n"}],
        [["--without-pip"], venv_python if not bare_venv_exit else {"exit": bare_venv_exit, "say": "ERROR: no venv\n"}],
        [["venv"], venv_python if venv_works else {"exit": 1, "make": ["<last>/half-made"] if half_made else []}],
    ]
    base = stand_in(open_folder / "usr" / "bin" / "python3", record, acts, name="system python")
    monkeypatch.setattr(install, "SYSTEM_PYTHONS", (str(base),))
    outside = stand_in(open_folder / "outside" / "python", record, [], name="outside python")
    monkeypatch.setattr(install.sys, "executable", str(outside))
    pins = open_folder / "requirements-hub.txt"
    pins.write_text("torch==2.13.0\njupyterhub==5.0\n", encoding="utf-8")
    monkeypatch.setattr(install, "REQUIREMENTS", pins)
    monkeypatch.setattr(install.cpu_torch.sys, "platform", "linux")
    return record, base, pins


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_the_environment_is_made_from_the_system_python_with_torchs_cpu_build_first(open_folder, monkeypatch):
    record, base, pins = set_up_pythons(open_folder, monkeypatch)
    home = open_folder / "hub"
    said = []
    python = install.ensure_python_env(home, said.append)
    venv = home / "venv"
    assert python == venv / "bin" / "python"
    pip = [str(python), "-m", "pip"]
    assert [[run["program"], *run["args"]] for run in runs(record)] == [
        ["system python", "-c", "import sys, venv; print(sys.version_info >= (3, 10))"],
        ["system python", "-m", "venv", str(venv)],
        ["venv python", "-c", "import pip"],
        ["venv python", *pip[1:], "install", "--disable-pip-version-check", "--no-input", "torch==2.13.0+cpu"],
        ["venv python", *pip[1:], "install", "--disable-pip-version-check", "--no-input", "-r", str(pins)],
        ["venv python", *pip[1:], "uninstall", "--yes", "rfc3987-syntax"],
    ]
    assert said == [
        f"Creating the hub's Python environment in {venv} (from {base}) …",
        "Installing the hub's packages (JupyterHub, JupyterLab, torch CPU, …); the first time takes a few minutes …",
    ]
    assert (venv / ".installed-requirements.sha256").read_text() == digest_of(pins) + "\n"
    assert stat.S_IMODE(home.stat().st_mode) == 0o755
    log = (home / "pip-install.log").read_text()
    assert log.count("\n$ ") == 3 and f"$ {python} -m pip install --disable-pip-version-check --no-input -r" in log


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_a_second_start_installs_nothing_until_the_pins_change(open_folder, monkeypatch):
    record, _, pins = set_up_pythons(open_folder, monkeypatch)
    home = open_folder / "hub"
    install.ensure_python_env(home, lambda message: None)
    before = len(runs(record))
    said = []
    assert install.ensure_python_env(home, said.append) == home / "venv" / "bin" / "python"
    assert len(runs(record)) == before and said == []
    pins.write_text("torch==2.13.0\njupyterhub==5.1\n", encoding="utf-8")
    install.ensure_python_env(home, said.append)
    again = [run["args"] for run in runs(record)[before:]]
    assert ["-m", "venv", str(home / "venv")] not in again  # the venv is kept; only its packages are redone
    assert again[-2][-2:] == ["-r", str(pins)]
    assert said == [
        "Installing the hub's packages (JupyterHub, JupyterLab, torch CPU, …); the first time takes a few minutes …"
    ]
    assert (home / "venv" / ".installed-requirements.sha256").read_text() == digest_of(pins) + "\n"


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_without_ensurepip_the_venv_is_made_without_pip_and_pip_runs_from_outside(open_folder, monkeypatch):
    record, base, pins = set_up_pythons(open_folder, monkeypatch, venv_works=False, pip_inside=False)
    home = open_folder / "hub"
    python = install.ensure_python_env(home, lambda message: None)
    venv = home / "venv"
    assert not (venv / "half-made").exists()  # the failed venv was removed before the second try
    commands = [[run["program"], *run["args"]] for run in runs(record)]
    assert commands[1:3] == [
        ["system python", "-m", "venv", str(venv)],
        ["system python", "-m", "venv", "--without-pip", str(venv)],
    ]
    outside = ["outside python", "-m", "pip", "--python", str(python)]
    assert commands[4:] == [
        [*outside, "install", "--disable-pip-version-check", "--no-input", "torch==2.13.0+cpu"],
        [*outside, "install", "--disable-pip-version-check", "--no-input", "-r", str(pins)],
        [*outside, "uninstall", "--yes", "rfc3987-syntax"],
    ]


def test_a_failed_install_is_one_sentence_and_leaves_no_stamp(open_folder, monkeypatch, capsys):
    set_up_pythons(open_folder, monkeypatch, install_exit=1)
    home = open_folder / "hub"
    with pytest.raises(InstallError) as caught:
        install.ensure_python_env(home, lambda message: None)
    log = home / "pip-install.log"
    assert str(caught.value) == f"installing the hub's packages failed (exit code 1); full log in {log}"
    assert not (home / "venv" / ".installed-requirements.sha256").exists()
    assert capsys.readouterr().err == "ERROR: no such package\n"


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_a_stale_stamp_is_removed_before_a_reinstall_that_fails(open_folder, monkeypatch):
    """Else pins changed back after a failed install would be taken as installed, in a half-changed venv."""
    _, _, pins = set_up_pythons(open_folder, monkeypatch)
    home = open_folder / "hub"
    install.ensure_python_env(home, lambda message: None)
    fails = [[["-c", "import pip"], {}], [["-r"], {"exit": 1}]]
    stand_in(home / "venv" / "bin" / "python", open_folder / "record.jsonl", fails)  # its pip now fails
    pins.write_text("torch==2.13.0\nno-such-package==1\n", encoding="utf-8")
    with pytest.raises(InstallError):
        install.ensure_python_env(home, lambda message: None)
    assert not (home / "venv" / ".installed-requirements.sha256").exists()


def test_a_home_inside_a_closed_folder_is_refused_before_anything_is_installed(open_folder, monkeypatch):
    record, _, _ = set_up_pythons(open_folder, monkeypatch)
    closed = open_folder / "closed"
    closed.mkdir(mode=0o700)
    with pytest.raises(InstallError) as caught:
        install.ensure_python_env(closed / "hub", lambda message: None)
    assert str(caught.value) == (
        f"{closed / 'hub'} is inside a folder other users cannot enter: choose another LAYERNORM_HUB_HOME"
    )
    assert runs(record) == []


# --- the proxy ------------------------------------------------------------------------------------------------------


def set_up_npm(open_folder: Path, monkeypatch, npm_exit=0, node=True):
    record = open_folder / "record.jsonl"
    bin_dir = open_folder / "bin"
    made = {"make": ["<cwd>/node_modules/.bin/configurable-http-proxy"], "exit": npm_exit}
    if npm_exit:
        made = {"exit": npm_exit, "say": "npm error code E404\n"}
    stand_in(bin_dir / "npm", record, [[["ci"], made]])
    if node:
        stand_in(bin_dir / "node", record, [])
    monkeypatch.setenv("PATH", str(bin_dir))
    return record


def test_the_proxy_is_installed_with_npm_ci_from_the_committed_lock_file_once(open_folder, monkeypatch):
    record = set_up_npm(open_folder, monkeypatch)
    home = open_folder / "hub"
    said = []
    command = install.ensure_proxy(home, said.append)
    target = home / "proxy"
    assert command == target / "node_modules" / ".bin" / "configurable-http-proxy" and command.exists()
    assert runs(record) == [
        {
            "program": "npm",
            "args": ["ci", "--no-audit", "--no-fund", "--loglevel=error"],
            "cwd": str(target),
            "stdin": "",
        }
    ]
    assert said == ["Installing configurable-http-proxy with npm (pinned, checked) …"]
    for committed in install.PROXY_FILES:
        assert (target / committed.name).read_bytes() == committed.read_bytes()
    assert (target / ".installed-lock.sha256").read_text() == digest_of(*install.PROXY_FILES) + "\n"
    assert (home / "npm-install.log").read_text().startswith(f"\n$ {open_folder / 'bin' / 'npm'} ci --no-audit")
    said.clear()
    assert install.ensure_proxy(home, said.append) == command
    assert len(runs(record)) == 1 and said == []


def test_a_proxy_whose_lock_changed_or_whose_command_is_gone_is_installed_again(open_folder, monkeypatch):
    record = set_up_npm(open_folder, monkeypatch)
    home = open_folder / "hub"
    command = install.ensure_proxy(home, lambda message: None)
    (home / "proxy" / ".installed-lock.sha256").write_text("an older lock\n")
    install.ensure_proxy(home, lambda message: None)
    command.unlink()
    install.ensure_proxy(home, lambda message: None)
    assert len(runs(record)) == 3 and command.exists()


def test_a_failed_npm_install_is_one_sentence_and_leaves_no_stamp(open_folder, monkeypatch, capsys):
    set_up_npm(open_folder, monkeypatch, npm_exit=1)
    home = open_folder / "hub"
    with pytest.raises(InstallError) as caught:
        install.ensure_proxy(home, lambda message: None)
    log = home / "npm-install.log"
    assert str(caught.value) == f"installing configurable-http-proxy with npm failed (exit code 1); full log in {log}"
    assert not (home / "proxy" / ".installed-lock.sha256").exists()
    assert capsys.readouterr().err == "npm error code E404\n"


def test_npm_without_node_is_explained_and_nothing_is_copied(open_folder, monkeypatch):
    set_up_npm(open_folder, monkeypatch, node=False)
    with pytest.raises(InstallError) as caught:
        install.ensure_proxy(open_folder / "hub", lambda message: None)
    assert str(caught.value) == (
        "the hub's proxy (configurable-http-proxy) is installed with npm, and npm or node is missing: "
        "install Node.js and npm (Debian/Ubuntu: apt-get install npm) and run this again"
    )
    assert not (open_folder / "hub" / "proxy").exists()


def test_torchs_cpu_build_is_asked_for_as_configured_then_of_pytorchs_index_with_pypi_for_the_rest(tmp_path):
    pins = tmp_path / "requirements.txt"
    pins.write_text("torch == 2.13.0  # pinned\n", encoding="utf-8")
    assert install.cpu_torch.attempts(pins, platform="linux") == [
        ["torch==2.13.0+cpu"],
        [
            "--index-url",
            "https://download.pytorch.org/whl/cpu",
            "--extra-index-url",
            "https://pypi.org/simple",
            "torch==2.13.0+cpu",
        ],
    ]


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_what_is_installed_can_be_read_by_every_student_whatever_the_umask_it_was_started_with(
    open_folder, monkeypatch
):
    set_up_pythons(open_folder, monkeypatch)
    home = open_folder / "opt" / "layernorm-hub"  # its parent folder does not exist yet
    os.umask(0o077)  # a root shell's strict umask: nothing would be readable by others
    python = install.ensure_python_env(home, lambda message: None)
    for folder in (open_folder / "opt", home, home / "venv", python.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755, folder
    for made in (home / "pip-install.log", home / "venv" / ".installed-requirements.sha256"):
        assert stat.S_IMODE(made.stat().st_mode) == 0o644, made


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_each_install_starts_its_own_log(open_folder, monkeypatch):
    _, _, pins = set_up_pythons(open_folder, monkeypatch)
    home = open_folder / "hub"
    install.ensure_python_env(home, lambda message: None)
    pins.write_text("torch==2.13.0\njupyterhub==5.1\n", encoding="utf-8")
    install.ensure_python_env(home, lambda message: None)
    log = (home / "pip-install.log").read_text(encoding="utf-8")
    assert log.startswith("\n$ ") and log.count("\n$ ") == 3  # the second install's three commands only


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_a_venv_that_could_not_be_made_at_all_is_made_without_pip(open_folder, monkeypatch):
    record, _, _ = set_up_pythons(open_folder, monkeypatch, venv_works=False, pip_inside=False, half_made=False)
    home = open_folder / "hub"
    assert install.ensure_python_env(home, lambda message: None) == home / "venv" / "bin" / "python"
    assert ["-m", "venv", "--without-pip", str(home / "venv")] in [run["args"] for run in runs(record)]


def test_a_commands_errors_go_to_its_log_too(tmp_path):
    program = stand_in(tmp_path / "tool", tmp_path / "record.jsonl", [[[], {"say": "out\n", "err": "ERROR: err\n"}]])
    log = tmp_path / "log"
    assert install._logged([str(program)], log, 30, "the tool", required=False) is True
    first, command, *said = log.read_text(encoding="utf-8").split("\n")
    assert (first, command, sorted(said)) == ("", f"$ {program}", ["", "ERROR: err", "out"])


def test_a_logs_tail_survives_bytes_that_are_not_utf8(tmp_path):
    log = tmp_path / "log"
    log.write_bytes(b"Collecting torch\nERROR: bad byte \xff here\n")
    assert install._log_tail(log) == "ERROR: bad byte \ufffd here"


def test_the_proxy_can_be_run_by_every_student_whatever_the_umask_it_was_started_with(open_folder, monkeypatch):
    set_up_npm(open_folder, monkeypatch)
    home = open_folder / "hub"
    os.umask(0o077)
    command = install.ensure_proxy(home, lambda message: None)
    for folder in (home, home / "proxy", home / "proxy" / "node_modules", command.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o755, folder
    for made in (home / "npm-install.log", home / "proxy" / ".installed-lock.sha256", home / "proxy" / "package.json"):
        assert stat.S_IMODE(made.stat().st_mode) == 0o644, made


@pytest.mark.slow  # a fifth of a second or more: a real install step's process, or a stand-in server
def test_without_torchs_cpu_build_the_lecturer_is_told_and_the_install_goes_on(open_folder, monkeypatch):
    record, _, pins = set_up_pythons(open_folder, monkeypatch, torch_exit=1)
    home = open_folder / "hub"
    said = []
    install.ensure_python_env(home, said.append)
    tried = [run["args"][-1] for run in runs(record) if "install" in run["args"]]
    assert tried == ["torch==2.13.0+cpu", "torch==2.13.0+cpu", str(pins)]  # as configured, from the index, the pins
    assert said[-1] == install.cpu_torch.FELL_BACK
    assert (home / "venv" / ".installed-requirements.sha256").read_text() == digest_of(pins) + "\n"


def test_a_failed_removal_of_the_slow_package_is_one_sentence_and_leaves_no_stamp(open_folder, monkeypatch):
    set_up_pythons(open_folder, monkeypatch, uninstall_exit=1)
    home = open_folder / "hub"
    with pytest.raises(InstallError) as caught:
        install.ensure_python_env(home, lambda message: None)
    log = home / "pip-install.log"
    assert str(caught.value) == f"removing an unused slow package failed (exit code 1); full log in {log}"
    assert not (home / "venv" / ".installed-requirements.sha256").exists()


def test_a_venv_that_cannot_be_made_even_without_pip_is_one_sentence(open_folder, monkeypatch):
    set_up_pythons(open_folder, monkeypatch, venv_works=False, bare_venv_exit=2)
    home = open_folder / "hub"
    with pytest.raises(InstallError) as caught:
        install.ensure_python_env(home, lambda message: None)
    assert str(caught.value) == f"creating the venv failed (exit code 2); full log in {home / 'pip-install.log'}"
