"""Idle servers and idle kernels are freed: the idle culler (a hub-managed service) stops a server
nobody uses, and each server shuts down a kernel left idle, so a class that forgot to log out does
not hold the machine's memory. Time-outs here are seconds instead of the hour a class uses."""

from __future__ import annotations

import asyncio
import time

import pytest

from classroom.sim.client import Student

from hub_support import PASSWORD, class_hub, run_async

pytestmark = pytest.mark.hub

NAME = "idle-student"
LIMIT = 120  # seconds to wait for the culler before failing


@pytest.fixture(scope="module")
def hub():
    with class_hub([NAME], idle_timeout=15, cull_every=5, kernel_idle_timeout=8, kernel_cull_every=3) as running:
        yield running


def test_an_idle_kernel_is_shut_down_and_then_the_idle_server_is_stopped(hub):
    async def leave_it_idle():
        student = Student(hub.url, NAME, PASSWORD)
        await student.sign_in()
        await student.spawn()
        await student.pull(hub.settings.series_repo)
        kernel = await student.open_kernel("02_mean.ipynb")
        await kernel.run("x = 1")
        kernel.socket.close()  # the student closes the tab
        start = time.monotonic()
        kernel_gone = server_gone = None
        while time.monotonic() - start < LIMIT and server_gone is None:
            if kernel_gone is None:
                status, body = await student.request(student.server("api/kernels"))
                if status == 200 and body.strip() == b"[]":
                    kernel_gone = time.monotonic() - start
            _, user = hub.api(f"/users/{NAME}", hub.token)
            if not user["servers"]:
                server_gone = time.monotonic() - start
            await asyncio.sleep(1)
        return kernel_gone, server_gone

    kernel_gone, server_gone = run_async(leave_it_idle())
    assert kernel_gone is not None, "the idle kernel was never shut down"
    assert server_gone is not None, f"the idle server was not stopped within {LIMIT} s"
    assert kernel_gone < server_gone
    log = hub.log_path.read_text()
    assert "idle-culler" in log and f"DELETE /hub/api/users/{NAME}/server" in log
