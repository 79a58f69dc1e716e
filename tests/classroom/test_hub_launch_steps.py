"""Starting the class hub (classroom/hub/launch.py) without a hub: the ports it takes or moves, the hub's
command line and environment, nbgrader's set-up command, the REST call, and the wait for a starting hub,
with a stand-in Python (a script that writes down how it was run) and a small local HTTP server in place of
JupyterHub. Each problem is the one sentence the module's docstring promises. The real hub starts in the
hub tests (root)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from classroom.hub import launch
from classroom.hub.launch import Hub, HubError
from classroom.hub.settings import SETTINGS_VARIABLE, HubSettings

REPOSITORY = Path(__file__).resolve().parents[2]


def listening() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


# --- root and ports ------------------------------------------------------------------------------------------


def test_not_root_is_one_sentence_naming_sudo_and_the_lab(monkeypatch):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    with pytest.raises(HubError) as caught:
        launch.require_root()
    assert str(caught.value) == (
        "the class hub runs each student's server as that student's own Unix user, which only root can do: "
        "run it as root (sudo python3 run.py hub); for yourself alone, `python3 run.py lab` needs no hub"
    )
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    assert launch.require_root() is None


def test_a_port_is_free_unless_something_listens_on_it_on_any_address():
    with listening() as taken:
        port = taken.getsockname()[1]
        assert launch.port_free(port, "127.0.0.1") is False
        assert launch.port_free(port) is False  # every address, the default, includes 127.0.0.1
    assert launch.port_free(port, "127.0.0.1") is True and launch.port_free(port) is True


def test_a_port_a_stopped_hub_just_closed_is_free_again():
    with socket.socket() as server:  # as tornado's and node's servers listen: with SO_REUSEADDR
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        accepted, _ = server.accept()
        accepted.close()  # the server side closes first: its end of the connection waits (TIME_WAIT) on the port
        client.close()
    assert launch.port_free(port, "127.0.0.1") is True


def test_an_address_this_machine_does_not_have_is_an_error_not_a_busy_port():
    with pytest.raises(OSError):
        launch.port_free(launch.free_port(), "192.0.2.1")  # TEST-NET-1: no machine's own address


def test_a_free_port_is_one_the_system_hands_out_and_a_server_can_bind_on_loopback():
    low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    port = launch.free_port()
    assert low <= port <= high  # the system's choice: its ephemeral range, not a fixed number
    with socket.socket() as server:
        server.bind(("127.0.0.1", port))


@pytest.mark.parametrize("port", [-1, 0, 65536])
def test_a_port_outside_1_to_65535_is_refused_in_one_sentence(port):
    with pytest.raises(HubError) as caught:
        launch.check_ports(HubSettings(ip="127.0.0.1", port=port))
    assert str(caught.value) == f"--port {port} is not a port number (1 to 65535)"


@pytest.mark.parametrize("port", [1, 65535])
def test_the_first_and_last_port_numbers_are_port_numbers(port):
    if not launch.port_free(port, "127.0.0.1"):
        pytest.skip(f"port {port} is in use here")
    settings = HubSettings(ip="127.0.0.1", port=port, hub_port=launch.free_port(), proxy_api_port=launch.free_port())
    settings.class_service_port = launch.free_port()
    launch.check_ports(settings)  # no error
    assert settings.port == port


def test_the_public_port_in_use_is_refused_with_what_to_do():
    with listening() as taken:
        port = taken.getsockname()[1]
        with pytest.raises(HubError) as caught:
            launch.check_ports(HubSettings(ip="127.0.0.1", port=port))
    assert str(caught.value) == (
        f"port {port} is already in use by another program (perhaps a hub started earlier): "
        "stop it, or choose another port with --port"
    )


@pytest.mark.parametrize("name", ["hub_port", "proxy_api_port", "class_service_port"])
def test_each_busy_internal_port_is_moved_and_the_free_ones_are_kept(name):
    free = {key: launch.free_port() for key in ("hub_port", "proxy_api_port", "class_service_port")}
    with listening() as taken:
        busy = taken.getsockname()[1]
        settings = HubSettings(ip="127.0.0.1", port=launch.free_port(), **{**free, name: busy})
        launch.check_ports(settings)
    moved = getattr(settings, name)
    assert moved != busy and launch.port_free(moved, "127.0.0.1")
    assert {key: getattr(settings, key) for key in free if key != name} == {k: v for k, v in free.items() if k != name}


def test_internal_ports_are_checked_on_loopback_whatever_the_public_address(monkeypatch):
    asked = []
    monkeypatch.setattr(launch, "port_free", lambda port, ip="": asked.append((port, ip)) or True)
    settings = HubSettings(ip="10.1.2.3", port=8000, hub_port=8081, proxy_api_port=8001, class_service_port=8002)
    launch.check_ports(settings)
    assert asked == [(8000, "10.1.2.3"), (8081, "127.0.0.1"), (8001, "127.0.0.1"), (8002, "127.0.0.1")]


# --- the hub's command line, and nbgrader's --------------------------------------------------------------------

RECORDER = """#!{python}
import json, os, sys
sys.stdout.write("to stdout\\n")
sys.stderr.write("to stderr\\n")
record = {{"argv": sys.argv[1:], "cwd": os.getcwd(), "settings": os.environ.get({variable!r}),
           "marker": os.environ.get("LAYERNORM_TEST_MARKER"), "stdin": sys.stdin.read()}}
with open({out!r}, "w") as out:
    json.dump(record, out)
{tail}
"""


def stand_in_python(home: Path, out: Path, tail: str = "") -> Path:
    """``home``/venv/bin/python: a script that writes down its arguments, folder, environment and input."""
    python = home / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text(
        RECORDER.format(python=sys.executable, variable=SETTINGS_VARIABLE, out=str(out), tail=tail), encoding="utf-8"
    )
    python.chmod(0o755)
    return python


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


def settings_in(tmp_path: Path) -> HubSettings:
    settings = HubSettings(state=str(tmp_path / "state"), home=str(tmp_path / "home"), ip="127.0.0.1")
    settings.port, settings.hub_port = launch.free_port(), launch.free_port()
    settings.proxy_api_port, settings.class_service_port = launch.free_port(), launch.free_port()
    settings.private.mkdir(parents=True)
    return settings


def test_the_hub_is_started_with_its_config_in_the_private_folder_with_the_settings_file(tmp_path, typed_stdin):
    settings = settings_in(tmp_path)
    out = tmp_path / "ran.json"
    python = stand_in_python(Path(settings.home), out)
    log_path = tmp_path / "hub.log"
    with open(log_path, "w", encoding="utf-8") as log:
        hub = launch.start(settings, log=log, env={"PATH": os.environ["PATH"], "LAYERNORM_TEST_MARKER": "given"})
        assert hub.process.wait(timeout=30) == 0
    ran = json.loads(out.read_text())
    assert ran == {
        "argv": ["-m", "jupyterhub", "-f", str(REPOSITORY / "classroom" / "jupyterhub_config.py")],
        "cwd": str(settings.private),
        "settings": str(settings.private / "settings.json"),
        "marker": "given",
        "stdin": "",
    }
    assert hub.settings is settings and Path(hub.process.args[0]) == python
    assert json.loads((settings.private / "settings.json").read_text())["port"] == settings.port
    assert sorted(log_path.read_text().splitlines()) == ["to stderr", "to stdout"]  # both streams in the log


def test_without_an_environment_given_the_hub_gets_this_processes_own(tmp_path, monkeypatch):
    settings = settings_in(tmp_path)
    out = tmp_path / "ran.json"
    stand_in_python(Path(settings.home), out)
    monkeypatch.setenv("LAYERNORM_TEST_MARKER", "inherited")
    hub = launch.start(settings, log=subprocess.DEVNULL)
    assert hub.process.wait(timeout=30) == 0
    ran = json.loads(out.read_text())
    assert ran["marker"] == "inherited" and ran["settings"] == str(settings.private / "settings.json")


def test_nbgraders_course_is_set_up_with_the_hubs_python_from_the_repository(tmp_path, monkeypatch, typed_stdin):
    monkeypatch.chdir(tmp_path)  # started from elsewhere: the module is still found in the repository
    settings = settings_in(tmp_path)
    out = tmp_path / "ran.json"
    stand_in_python(Path(settings.home), out)
    assert launch.set_up_grading(settings) is None
    ran = json.loads(out.read_text())
    assert ran["argv"] == ["-m", "classroom.grading.hubsetup", str(settings.grading), str(settings.roster_path)]
    assert ran["cwd"] == str(REPOSITORY) and ran["stdin"] == ""


@pytest.mark.parametrize(
    "tail, said",
    [
        ("sys.stderr.write('Traceback\\nValueError: no course\\n'); sys.exit(1)", "ValueError: no course"),
        ("sys.stdout.write('more on stdout\\n'); sys.exit(2)", "to stderr"),  # stderr first, if it said anything
    ],
)
def test_a_course_that_cannot_be_set_up_says_where_and_the_last_line_said(tmp_path, tail, said):
    settings = settings_in(tmp_path)
    stand_in_python(Path(settings.home), tmp_path / "ran.json", tail)
    with pytest.raises(HubError) as caught:
        launch.set_up_grading(settings)
    assert str(caught.value) == f"the graded course could not be set up in {settings.grading}: {said}"


def test_a_course_set_up_that_fails_without_a_word_says_so(tmp_path):
    settings = settings_in(tmp_path)
    python = Path(settings.home) / "venv" / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\nexit 4\n", encoding="utf-8")
    python.chmod(0o755)
    with pytest.raises(HubError) as caught:
        launch.set_up_grading(settings)
    assert str(caught.value) == f"the graded course could not be set up in {settings.grading}: ?"
    python.write_text("#!/bin/sh\necho 'said on stdout'\nexit 4\n", encoding="utf-8")
    with pytest.raises(HubError) as caught:
        launch.set_up_grading(settings)
    assert str(caught.value) == f"the graded course could not be set up in {settings.grading}: said on stdout"


# --- the hub's answers -------------------------------------------------------------------------------------------


class StandIn(BaseHTTPRequestHandler):
    """Answers from ``server.answers`` {path: [(status, content type, body), ...]} (the last one for ever after),
    recording each request as (method, path, authorization, body)."""

    def _answer(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length).decode() if length else None
        self.server.seen.append((self.command, self.path, self.headers.get("Authorization"), body))
        queue = self.server.answers.get(self.path, [(404, "text/html", "<p>not found</p>")])
        status, kind, text = queue.pop(0) if len(queue) > 1 else queue[0]
        self.send_response(status)
        if kind is not None:  # None: an answer without a Content-Type
            self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(text.encode())))
        self.end_headers()
        self.wfile.write(text.encode())

    do_GET = do_POST = do_DELETE = do_PATCH = _answer

    def log_message(self, *args):
        pass


@pytest.fixture
def stand_in():
    server = ThreadingHTTPServer(("127.0.0.1", 0), StandIn)
    server.answers, server.seen = {}, []
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


class Running:
    """A hub process that runs (or has stopped with ``code``)."""

    def __init__(self, code=None):
        self.returncode = code

    def poll(self):
        return self.returncode


def hub_at(server, class_service=True, process=None) -> Hub:
    settings = HubSettings(ip="127.0.0.1", port=server.server_address[1], class_service=class_service)
    return Hub(settings, process or Running())


def test_the_hubs_address_is_loopback_when_it_listens_on_every_address():
    assert Hub(HubSettings(ip="", port=8123), Running()).url == "http://127.0.0.1:8123"
    assert Hub(HubSettings(ip="10.0.0.5", port=80), Running()).url == "http://10.0.0.5:80"


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_rest_call_sends_the_token_and_a_json_body_and_returns_the_status_and_the_answer(stand_in):
    stand_in.answers = {
        "/hub/api/users": [(200, "application/json", '[{"name": "ana"}]')],
        "/hub/api/users/ana/server": [(204, "application/json", "")],
        "/hub/api/groups": [(403, "application/json", '{"status": 403}')],
    }
    hub = hub_at(stand_in)
    assert hub.api("/users", "T0") == (200, [{"name": "ana"}])
    assert hub.api("/users/ana/server", "T1", "POST", {"a": [1]}) == (204, None)
    assert hub.api("/groups", "T2", "DELETE") == (403, None)  # an error status is returned, not raised
    assert stand_in.seen == [
        ("GET", "/hub/api/users", "token T0", None),
        ("POST", "/hub/api/users/ana/server", "token T1", '{"a": [1]}'),
        ("DELETE", "/hub/api/groups", "token T2", None),
    ]


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_hub_that_answers_is_ready_once_its_class_service_answers_through_the_proxy(stand_in):
    stand_in.answers = {
        "/hub/api/": [(503, None, "starting"), (200, "application/json", '{"version": "5"}')],
        "/services/class/api/summary": [
            (404, None, "no route yet"),
            (200, None, "a page without a type"),
            (401, "text/html", "<p>the proxy's page</p>"),
            (401, "application/json; charset=UTF-8", '{"error": "login"}'),
        ],
    }
    hub_at(stand_in).wait_ready(timeout=30)
    assert [path for _, path, _, _ in stand_in.seen] == ["/hub/api/"] * 2 + ["/services/class/api/summary"] * 4
    assert all(authorization is None for _, _, authorization, _ in stand_in.seen)  # no token needed to see it


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_without_the_class_service_the_hub_answering_is_enough(stand_in):
    stand_in.answers = {"/hub/api/": [(200, "application/json", "{}")]}
    hub_at(stand_in, class_service=False).wait_ready(timeout=30)
    assert [path for _, path, _, _ in stand_in.seen] == ["/hub/api/"]


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_class_service_not_reached_in_time_is_named(stand_in):
    stand_in.answers = {
        "/hub/api/": [(200, "application/json", "{}")],
        "/services/class/api/summary": [(401, "text/html", "<p>the proxy's page</p>")],
    }
    with pytest.raises(HubError) as caught:
        hub_at(stand_in).wait_ready(timeout=1)
    assert str(caught.value) == "the class service was not reachable through the proxy in time"


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_hub_that_does_not_answer_in_time_is_named():
    hub = Hub(HubSettings(ip="127.0.0.1", port=launch.free_port()), Running())  # nothing listens there
    with pytest.raises(HubError) as caught:
        hub.wait_ready(timeout=0.5)
    assert str(caught.value) == "the hub did not answer in time"


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_hub_that_stopped_while_starting_gives_its_exit_code(stand_in):
    stand_in.answers = {"/hub/api/": [(200, "application/json", "{}")]}
    with pytest.raises(HubError) as caught:
        hub_at(stand_in, process=Running(code=3)).wait_ready(timeout=30)
    assert str(caught.value) == "the hub stopped while starting (exit code 3); see its log"
    assert stand_in.seen == []


class StopsAfter:
    """A hub process that runs for ``polls`` looks, then has stopped with exit code 1."""

    def __init__(self, polls: int):
        self.left, self.returncode = polls, None

    def poll(self):
        if self.left == 0:
            self.returncode = 1
        self.left -= 1
        return self.returncode


@pytest.mark.slow  # half a second or more: a stand-in server, or a time limit run out
def test_a_hub_that_stops_while_its_service_is_awaited_is_named_too(stand_in):
    stand_in.answers = {"/hub/api/": [(200, "application/json", "{}")]}
    with pytest.raises(HubError) as caught:
        hub_at(stand_in, process=StopsAfter(1)).wait_ready(timeout=30)
    assert str(caught.value) == "the hub stopped while starting (exit code 1); see its log"
    assert [path for _, path, _, _ in stand_in.seen] == ["/hub/api/"]


def test_without_a_log_the_hubs_output_and_errors_go_where_this_processes_go(tmp_path, capfd):
    settings = settings_in(tmp_path)
    stand_in_python(Path(settings.home), tmp_path / "ran.json")
    hub = launch.start(settings)
    assert hub.process.wait(timeout=30) == 0
    said = capfd.readouterr()
    assert (said.out, said.err) == ("to stdout\n", "to stderr\n")
