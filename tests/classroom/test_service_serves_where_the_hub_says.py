"""The class service's server (classroom/service/__main__.py's ``serve``): it listens where JupyterHub's
environment says (JUPYTERHUB_SERVICE_URL, else http://127.0.0.1:8002), answers under
JUPYTERHUB_SERVICE_PREFIX (else /services/class/), trusts the proxy's X-Forwarded headers, reads a body of up
to 1 MiB (so that results.py can refuse one over 4 KiB with a sentence), signs its OAuth cookie with a fresh
in-memory key, and on SIGTERM stops and closes its database. The HTTP server and the store are stood in for:
nothing listens.
"""

from __future__ import annotations

import asyncio
import signal

import fake_hub
import pytest
from tornado.httputil import HTTPHeaders, HTTPServerRequest, RequestStartLine

fake_hub.install()  # the service's app imports JupyterHub's auth: its stand-in where JupyterHub is not installed
from classroom.service import __main__ as command  # noqa: E402


class Server:
    made: list = []
    handlers: dict = {}  # signal number: what the service asked the event loop to run on it

    def __init__(self, app, **options):
        self.app, self.options, self.listening, self.stopped = app, options, None, False
        Server.made.append(self)

    def listen(self, port, address):
        self.listening = (port, address)
        # the hub stops its service, once the service waits: what it set up for SIGTERM runs
        asyncio.get_running_loop().call_soon(lambda: Server.handlers[signal.SIGTERM]())

    def stop(self):
        self.stopped = True


class Store:
    def __init__(self, where):
        self.where, self.closed, self.path = where, False, where

    def close(self):
        self.closed = True


@pytest.fixture
def served(monkeypatch):
    Server.made, Server.handlers = [], {}
    monkeypatch.setattr(command, "HTTPServer", Server)
    probe = asyncio.new_event_loop()
    loop_class = type(probe)
    probe.close()
    monkeypatch.setattr(
        loop_class, "add_signal_handler", lambda loop, signum, callback: Server.handlers.update({signum: callback})
    )
    stores = []
    monkeypatch.setattr(command, "Store", lambda where: stores.append(Store(where)) or stores[-1])
    for name in ("JUPYTERHUB_SERVICE_URL", "JUPYTERHUB_SERVICE_PREFIX"):
        monkeypatch.delenv(name, raising=False)

    def run(db="/srv/class.sqlite"):
        asyncio.run(asyncio.wait_for(command.serve(db), timeout=2))
        return Server.made[-1], stores[-1]

    return run


def handler(app, path: str) -> str:
    request = HTTPServerRequest(start_line=RequestStartLine("GET", path, "HTTP/1.1"), headers=HTTPHeaders(Host="h"))
    return app.find_handler(request).handler_class.__name__


def test_by_default_it_listens_on_loopback_port_8002_under_services_class(served):
    server, store = served()
    assert server.listening == (8002, "127.0.0.1")
    assert handler(server.app, "/services/class/api/summary") == "SummaryAPI"
    assert store.where == "/srv/class.sqlite"


def test_it_listens_and_answers_where_the_hub_says(served, monkeypatch):
    monkeypatch.setenv("JUPYTERHUB_SERVICE_URL", "http://10.0.0.5:9123")
    monkeypatch.setenv("JUPYTERHUB_SERVICE_PREFIX", "/services/results/")
    server, _ = served()
    assert server.listening == (9123, "10.0.0.5")
    assert handler(server.app, "/services/results/api/summary") == "SummaryAPI"
    assert handler(server.app, "/services/class/api/summary") == "ErrorHandler"


def test_it_trusts_the_proxys_headers_and_reads_bodies_of_up_to_one_mebibyte(served):
    server, _ = served()
    assert server.options == {"xheaders": True, "max_body_size": 1024 * 1024}


def test_each_start_signs_its_cookies_with_a_fresh_32_byte_key(served):
    first, _ = served()
    second, _ = served()
    keys = [first.app.settings["cookie_secret"], second.app.settings["cookie_secret"]]
    assert all(isinstance(key, bytes) and len(key) == 32 for key in keys)
    assert keys[0] != keys[1]


def test_sigterm_and_sigint_stop_the_server_and_close_the_database(served):
    server, store = served()
    assert server.stopped and store.closed
    assert set(Server.handlers) == {signal.SIGTERM, signal.SIGINT}
    assert Server.handlers[signal.SIGTERM] == Server.handlers[signal.SIGINT]
