"""One simulated student, speaking to the hub as a browser and JupyterLab would.

It logs in through the hub's login form (the first login sets the password), asks the hub's REST
API for a token of its own, starts its server, clicks the nbgitpuller link, opens a notebook from
its own copy of the series, runs cells in a real kernel over the kernel's websocket, and stops.
Nothing here is privileged: it holds only its own password, cookies and token.

Needs tornado (JupyterLab's web server, so it is in every environment of the project).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from http.cookies import SimpleCookie
from urllib.parse import quote, urlencode

from tornado.httpclient import AsyncHTTPClient, HTTPClientError, HTTPRequest
from tornado.websocket import websocket_connect

from classroom.hub.link import pull_query
from classroom.hub.mirror import FOLDER

TIMEOUT = 180.0  # seconds a step may take on a quiet machine; a Student's patience multiplies it
MAX_RECONNECTS = 3
PULL_TRIES = 3  # how often the nbgitpuller link is clicked when the server refuses it (see Student.pull)
RESTARTED = ("restarting", "autorestarting")  # the statuses the server sends when it restarts a kernel


class StudentError(RuntimeError):
    """A step a simulated student could not complete, naming the step."""


class Student:
    def __init__(self, hub_url: str, name: str, password: str, patience: float = 1.0):
        self.hub = hub_url.rstrip("/")
        # How long any step may take before it counts as failed: TIMEOUT on a quiet machine, times
        # ``patience`` (the tests pass their machine's load factor; a busy machine is not a broken hub).
        self.timeout = TIMEOUT * patience
        self.name = name
        self.password = password
        self.cookies: dict[str, str] = {}
        self.token = ""
        # Its own client, bound to the event loop it is first used in (a test may run several loops).
        self.http = AsyncHTTPClient(force_instance=True, max_clients=50)
        self.timings: dict[str, float] = {}
        self.kernel_ids: list[str] = []  # every kernel it started, to find them in the hub's log
        self.retried: list[str] = []  # requests refused once and asked again, as a student clicks again

    # --- HTTP -------------------------------------------------------------------
    def _remember(self, response) -> None:
        for header in response.headers.get_list("Set-Cookie"):
            for key, morsel in SimpleCookie(header).items():
                self.cookies[key] = morsel.value

    async def request(
        self,
        path: str,
        method: str = "GET",
        body=None,
        *,
        auth: str = "token",
        headers=None,
        form: dict | None = None,
        timeout: float | None = None,
    ):
        """(status, body bytes); never raises for an HTTP error status, nor for a time-out (599, b"")."""
        timeout = self.timeout if timeout is None else timeout
        all_headers = dict(headers or {})
        if auth == "token" and self.token:
            all_headers["Authorization"] = f"token {self.token}"
        if auth == "cookie" and self.cookies:
            all_headers["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
            if "_xsrf" in self.cookies:
                all_headers["X-XSRFToken"] = self.cookies["_xsrf"]
        if form is not None:
            body = urlencode(form)
            all_headers["Content-Type"] = "application/x-www-form-urlencoded"
        elif body is not None and not isinstance(body, (bytes, str)):
            body = json.dumps(body)
            all_headers["Content-Type"] = "application/json"
        if body is None and method in ("POST", "PUT", "PATCH"):
            body = ""
        request = HTTPRequest(
            f"{self.hub}{path}",
            method=method,
            body=body,
            headers=all_headers,
            follow_redirects=False,
            request_timeout=timeout,
            connect_timeout=timeout,
        )
        try:
            response = await self.http.fetch(request, raise_error=False)
        except HTTPClientError as error:  # a time-out or a dropped connection (tornado's 599): no response
            if error.response is None:
                return error.code, b""
            response = error.response
        self._remember(response)
        return response.code, response.body or b""

    async def json(self, path: str, method: str = "GET", body=None, expect=(200,), **kw):
        status, data = await self.request(path, method, body, **kw)
        if status not in expect:
            raise StudentError(f"{self.name}: {method} {path} answered {status}: {data[:200]!r}")
        return json.loads(data) if data else None

    # --- the hub ------------------------------------------------------------------------
    async def login(self) -> int:
        """Log in through the form; returns the status (302 when the hub let us in)."""
        await self.request("/hub/login", auth="cookie")  # sets the _xsrf cookie
        status, _ = await self.request(
            "/hub/login?next=",
            "POST",
            auth="cookie",
            form={"username": self.name, "password": self.password, "_xsrf": self.cookies.get("_xsrf", "")},
        )
        return status

    async def sign_in(self) -> None:
        """Log in through the form and get the student's own token: what every visit starts with."""
        status = await self.login()
        if status != 302:
            raise StudentError(f"{self.name}: the login form answered {status}, not a redirect into the hub")
        await self.get_token()

    async def get_token(self) -> None:
        """The student's own API token, asked for with the login cookie (as the hub's token page does)."""
        answer = await self.json(
            f"/hub/api/users/{self.name}/tokens",
            "POST",
            {"note": "class simulation", "expires_in": 3600},
            expect=(200, 201),
            auth="cookie",
        )
        self.token = answer["token"]

    async def spawn(self, timeout: float | None = None) -> float:
        """Start the server and wait on the hub's progress stream, as the spawn page does; returns seconds."""
        timeout = self.timeout if timeout is None else timeout
        start = time.monotonic()
        status, data = await self.request(f"/hub/api/users/{self.name}/server", "POST", {})
        if status not in (201, 202, 400):  # 400: already running
            raise StudentError(f"{self.name}: starting the server answered {status}: {data[:200]!r}")
        events = []

        def received(chunk: bytes) -> None:
            events.append(chunk.decode("utf-8", "replace"))

        request = HTTPRequest(
            f"{self.hub}/hub/api/users/{self.name}/server/progress",
            headers={"Authorization": f"token {self.token}", "Accept": "text/event-stream"},
            streaming_callback=received,
            request_timeout=timeout,
            connect_timeout=timeout,
        )
        try:
            response = await self.http.fetch(request, raise_error=False)
        except HTTPClientError as error:  # a time-out or a dropped connection (tornado's 599): one sentence
            took = time.monotonic() - start
            stream = "".join(events)
            raise StudentError(
                f"{self.name}: the server did not start ({error} after {took:.1f} s): {stream[-300:]!r}"
            ) from error
        stream = "".join(events)
        if '"ready": true' not in stream:
            raise StudentError(f"{self.name}: the server did not start (status {response.code}): {stream[-300:]!r}")
        return time.monotonic() - start

    async def stop_server(self) -> None:
        await self.request(f"/hub/api/users/{self.name}/server", "DELETE")

    async def logout(self) -> None:
        await self.request("/hub/logout", auth="cookie")
        self.cookies.clear()

    # --- the student's own server --------------------------------------------------------
    def server(self, path: str) -> str:
        return f"/user/{self.name}/{path.lstrip('/')}"

    async def pull(self, repo: str) -> str:
        """Click the nbgitpuller link: clone or update ~/layernorm-step-by-step; returns its event log.

        A server that has just become ready has once refused its own student's token ("Not allowing user" in
        its log, 404; 1 student of 20, two hubs running side by side; cause not found). A student clicks the
        link again: so does this, up to PULL_TRIES times, and each refusal is kept in ``self.retried``."""
        for attempt in range(1, PULL_TRIES + 1):
            status, data = await self.request(self.server(f"git-pull/api?{pull_query(repo)}"))
            if status not in (403, 404) or attempt == PULL_TRIES:
                break
            self.retried.append(f"nbgitpuller's link refused with {status} (try {attempt} of {PULL_TRIES})")
            await asyncio.sleep(2)
        text = data.decode("utf-8", "replace")
        if status != 200 or '"phase": "finished"' not in text and "'phase': 'finished'" not in text:
            raise StudentError(f"{self.name}: nbgitpuller did not finish (status {status}): {text[-400:]}")
        return text

    async def notebook(self, name: str) -> dict:
        path = quote(f"{FOLDER}/notebooks/{name}")
        answer = await self.json(self.server(f"api/contents/{path}?content=1"))
        return answer["content"]

    async def save(self, name: str, content: dict) -> None:
        path = quote(f"{FOLDER}/notebooks/{name}")
        await self.json(
            self.server(f"api/contents/{path}"),
            "PUT",
            {"type": "notebook", "format": "json", "content": content},
            expect=(200, 201),
        )

    async def open_kernel(self, notebook: str) -> Kernel:
        session = await self.json(
            self.server("api/sessions"),
            "POST",
            {
                "path": f"{FOLDER}/notebooks/{notebook}",
                "type": "notebook",
                "name": notebook,
                "kernel": {"name": "python3"},
            },
            expect=(200, 201),
        )
        kernel = Kernel(self, session["kernel"]["id"], session["id"])
        self.kernel_ids.append(kernel.id)
        await kernel.connect()
        await kernel.ready()
        return kernel


class Kernel:
    """A kernel of the student's server, driven over its websocket as JupyterLab drives it."""

    def __init__(self, student: Student, kernel_id: str, session_id: str):
        self.student = student
        self.id = kernel_id
        self.session_id = session_id
        self.session = uuid.uuid4().hex
        self.socket = None
        self.reconnects: list[str] = []  # why each dropped websocket was dropped
        self.restarted = False  # set when the server says it restarted the kernel

    async def connect(self) -> None:
        # session_id: the server keeps this session's messages while it is disconnected and replays
        # them when it reconnects, as it does for JupyterLab.
        path = f"api/kernels/{self.id}/channels?session_id={self.session}"
        url = self.student.hub.replace("http", "ws", 1) + self.student.server(path)
        request = HTTPRequest(
            url,
            headers={"Authorization": f"token {self.student.token}"},
            connect_timeout=self.student.timeout,
            request_timeout=self.student.timeout,
        )
        self.socket = await websocket_connect(request)

    async def _send(self, msg_type: str, content: dict) -> str:
        msg_id = uuid.uuid4().hex
        header = {
            "msg_id": msg_id,
            "msg_type": msg_type,
            "session": self.session,
            "username": self.student.name,
            "version": "5.3",
            "date": "",
        }
        message = {"header": header, "parent_header": {}, "metadata": {}, "channel": "shell", "content": content}
        await self.socket.write_message(json.dumps(message))
        return msg_id

    async def _read(self, left: float):
        """The next message as a dict, None when the wait ran out; reconnects a dropped socket."""
        try:
            raw = await asyncio.wait_for(self.socket.read_message(), max(left, 0.01))
        except asyncio.TimeoutError:
            return None
        if raw is None:  # dropped: reconnect and read on, as JupyterLab does
            why = f"code {self.socket.close_code}, {self.socket.close_reason!r}"
            self.reconnects.append(why)
            if len(self.reconnects) > MAX_RECONNECTS:
                raise StudentError(f"{self.student.name}: the kernel's websocket kept closing ({why})")
            await asyncio.sleep(1)
            await self.connect()
            return {}
        message = json.loads(raw)
        state = message.get("content", {}).get("execution_state") if message.get("msg_type") == "status" else None
        if state in RESTARTED and not message.get("parent_header"):
            # The server's own word that the kernel was restarted. If it died as it started, it came
            # back on new sockets, which the server connects to only for a new websocket: JupyterLab
            # reconnects here, and so do we.
            why = f"the server said the kernel was {state}"
            self.reconnects.append(why)
            if len(self.reconnects) > MAX_RECONNECTS:
                raise StudentError(f"{self.student.name}: the kernel kept restarting ({why})")
            self.restarted = True
            self.socket.close()
            await self.connect()
            return {}
        if state == "dead" and not message.get("parent_header"):
            raise StudentError(f"{self.student.name}: the server said the kernel died and could not be restarted")
        return message

    async def ready(self, timeout: float | None = None, every: float = 2.0) -> None:
        """Wait until the kernel answers a kernel_info_request on shell *and* its IOPub reaches us.

        JupyterLab does the same before it runs a cell: a kernel still starting (twenty of them at
        once on two cores) may not yet have our IOPub subscription, and a cell's output and its
        "idle" published before then are dropped without a word (ZeroMQ's slow joiner). The request
        is repeated until both a reply and an IOPub status for it have arrived. A restart on the way
        (see _read) starts the wait for the new kernel afresh.
        """
        timeout = self.student.timeout if timeout is None else timeout
        deadline = time.monotonic() + timeout
        asked: set[str] = set()
        replied = published = False
        while not (replied and published):
            if time.monotonic() >= deadline:
                raise StudentError(
                    f"{self.student.name}: the kernel did not answer kernel_info within {timeout:.0f} s "
                    f"(shell reply {'seen' if replied else 'never seen'}, "
                    f"IOPub {'seen' if published else 'never seen'})"
                )
            asked.add(await self._send("kernel_info_request", {}))
            until = min(deadline, time.monotonic() + every)
            while not (replied and published) and time.monotonic() < until:
                message = await self._read(until - time.monotonic())
                if self.restarted:  # a new kernel: what the old one answered no longer counts
                    self.restarted = replied = published = False
                    asked.clear()
                    break
                if not message or message.get("parent_header", {}).get("msg_id") not in asked:
                    continue
                replied |= message["msg_type"] == "kernel_info_reply"
                published |= message.get("channel") == "iopub"

    async def run(self, code: str, timeout: float | None = None) -> dict:
        """Execute ``code``; returns {"text": all text output, "error": ename or None}."""
        timeout = self.student.timeout if timeout is None else timeout
        msg_id = await self._send(
            "execute_request",
            {
                "code": code,
                "silent": False,
                "store_history": True,
                "user_expressions": {},
                "allow_stdin": False,
                "stop_on_error": True,
            },
        )
        texts, error, seen = [], None, []
        self.restarted = False
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            reply = await self._read(left) if left > 0 else None
            if self.restarted:
                raise StudentError(
                    f"{self.student.name}: the kernel restarted while a cell ran, and its work was lost "
                    f"(first line {code.splitlines()[0][:60]!r})"
                )
            if reply is None:
                what = ", ".join(seen) if seen else "nothing"
                raise StudentError(
                    f"{self.student.name}: a cell ran longer than {timeout:.0f} s (received for it: {what}; "
                    f"first line {code.splitlines()[0][:60]!r})"
                )
            if reply.get("parent_header", {}).get("msg_id") != msg_id:
                continue
            kind, content = reply["msg_type"], reply["content"]
            seen.append(kind if kind != "status" else f"status {content['execution_state']}")
            if kind == "stream":
                texts.append(content["text"])
            elif kind in ("execute_result", "display_data"):
                texts.append(content["data"].get("text/plain", ""))
            elif kind == "error":
                error = content["ename"]
                texts.append(f"{content['ename']}: {content['evalue']}")
            elif kind == "status" and content["execution_state"] == "idle":
                return {"text": "\n".join(texts), "error": error}

    async def close(self) -> None:
        if self.socket is not None:
            self.socket.close()
        await self.student.request(self.student.server(f"api/sessions/{self.session_id}"), "DELETE")
