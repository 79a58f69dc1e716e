"""Idle servers and idle kernels are freed: the idle culler (a hub-managed service) stops a server
nobody uses, and each server shuts down a kernel left idle, so a class that forgot to log out does
not hold the machine's memory. Time-outs here are seconds instead of the hour a class uses.

The test waits for states, not times. A culler that has had its chance and did not cull is a failure:
the kernel's server answered, over two of its culling intervals, that the kernel was idle by every rule
it culls by; or the hub's culler made two passes after the server had been idle for its time-out. A
deadline (tests/patience.py, from the configured intervals) that runs out before the culler had its
chance is inconclusive: the test runs once more and says so.
"""

from __future__ import annotations

import asyncio
import json
import time
from datetime import datetime, timezone

import pytest
from patience import Deadline

from classroom.sim.client import Student

from hub_support import (
    PASSWORD,
    Inconclusive,
    class_hub,
    culler_passes,
    log_offset,
    log_since,
    retry_once_if_inconclusive,
    run_async,
)

pytestmark = pytest.mark.hub

NAME = "idle-student"


@pytest.fixture(scope="module")
def hub():
    with class_hub([NAME], idle_timeout=15, cull_every=5, kernel_idle_timeout=8, kernel_cull_every=3) as running:
        yield running


def _idle_seconds(stamp: str) -> float:
    """Seconds since an ISO time stamp the hub or a server gave (UTC)."""
    then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    return (datetime.now(timezone.utc) - then).total_seconds()


async def _wait_for_kernel_culled(student, settings, start: float) -> float:
    """Seconds from ``start`` until the student's server has shut its idle kernel down."""
    interval = settings.kernel_cull_every
    deadline = Deadline(settings.kernel_idle_timeout + 3 * interval + 30)
    cullable_since = None  # our clock, when the server first said the kernel met every rule it culls by
    seen = "no answer from the student's server"
    while not deadline.expired():
        status, body = await student.request(student.server("api/kernels"), timeout=deadline.limit)
        if status == 200:
            running = json.loads(body)
            if not running:
                return time.monotonic() - start
            kernel = running[0]
            seen = (
                f"{kernel['execution_state']}, {kernel['connections']} connection(s), "
                f"idle {_idle_seconds(kernel['last_activity']):.0f} s"
            )
            cullable = (
                kernel["execution_state"] == "idle"
                and kernel["connections"] == 0
                and _idle_seconds(kernel["last_activity"]) > settings.kernel_idle_timeout
            )
            if not cullable:
                cullable_since = None
            elif cullable_since is None:
                cullable_since = time.monotonic()
            elif time.monotonic() - cullable_since > 2 * interval + 1:
                pytest.fail(
                    f"the idle kernel was never shut down: its server answered for {2 * interval + 1} s, two of "
                    f"its culling intervals ({interval} s), that it was cullable ({seen})",
                    pytrace=False,
                )
        await asyncio.sleep(0.5)
    raise Inconclusive(
        f"the kernel was still there after {deadline}, but its server's culler never had two intervals in which "
        f"the kernel was cullable (last seen: {seen})"
    )


async def _wait_for_server_culled(student, hub, start: float) -> float:
    """Seconds from ``start`` until the hub's idle culler has stopped the student's idle server."""
    settings = hub.settings
    deadline = Deadline(settings.idle_timeout + 3 * settings.cull_every + 30)
    idle_from = None  # the log's end when the server was first seen idle for longer than idle_timeout
    while not deadline.expired():
        _, user = hub.api(f"/users/{NAME}", hub.token)
        server = user["servers"].get("")
        if server is None:
            return time.monotonic() - start
        stopping = server.get("pending") == "stop"
        if idle_from is None and server.get("last_activity"):
            if _idle_seconds(server["last_activity"]) > settings.idle_timeout:
                idle_from = log_offset(hub.log_path)
        if idle_from is not None and not stopping:
            since = log_since(hub.log_path, idle_from)
            asked_to_stop = f"DELETE /hub/api/users/{NAME}/server" in since
            if culler_passes(since) >= 2 and not asked_to_stop:
                pytest.fail(
                    f"the idle server was not stopped: the culler made two passes after it had been idle for "
                    f"over {settings.idle_timeout} s",
                    pytrace=False,
                )
        await asyncio.sleep(0.5)
    passes = culler_passes(log_since(hub.log_path, idle_from)) if idle_from is not None else 0
    raise Inconclusive(
        f"the server was still running after {deadline}, and the culler made {passes} pass(es) after the server "
        f"had been idle for {settings.idle_timeout} s"
        + ("" if idle_from is not None else " (the hub never reported it idle that long)")
    )


def _leave_it_idle(hub) -> tuple[float, float]:
    async def attempt():
        student = Student(hub.url, NAME, PASSWORD)
        await student.sign_in()
        await student.spawn()
        await student.pull(hub.settings.series_repo)
        kernel = await student.open_kernel("02_mean.ipynb")
        await kernel.run("x = 1")
        kernel.socket.close()  # the student closes the tab
        start = time.monotonic()
        try:
            kernel_gone = await _wait_for_kernel_culled(student, hub.settings, start)
            server_gone = await _wait_for_server_culled(student, hub, start)
        except Inconclusive:
            await student.stop_server()  # a fresh start for the second try, once the server has stopped
            stopped = Deadline(60)
            while hub.api(f"/users/{NAME}", hub.token)[1]["servers"] and not stopped.expired():
                await asyncio.sleep(0.5)
            raise
        return kernel_gone, server_gone

    return run_async(attempt())


def test_an_idle_kernel_is_shut_down_and_then_the_idle_server_is_stopped(hub):
    kernel_gone, server_gone = retry_once_if_inconclusive(_leave_it_idle, hub)
    assert kernel_gone < server_gone
    log = hub.log_path.read_text()
    assert "idle-culler" in log and f"DELETE /hub/api/users/{NAME}/server" in log
    assert culler_passes(log) >= 1, "the culler's passes cannot be told in the hub's log: the test would be blind"
