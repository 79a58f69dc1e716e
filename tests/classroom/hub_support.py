"""The class hub in a test (classroom/sim/classhub.py), skipped without root unless REQUIRE_HUB=1
(as in CI), where a skip would hide that nothing was tested, so it fails instead."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import sys
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from classroom.sim import classhub  # noqa: E402
from classroom.sim.classhub import PASSWORD, names  # noqa: E402, F401
from classroom.sim.client import Student  # noqa: E402


def require_root() -> None:
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        return
    message = "the class hub tests need root (students are Unix users)"
    if os.environ.get("REQUIRE_HUB") == "1":
        pytest.fail(message + "; REQUIRE_HUB=1 asks for them")
    pytest.skip(message)


@contextmanager
def class_hub(students, instructors=(), **options):
    require_root()
    with classhub.class_hub(list(students), list(instructors), **options) as hub:
        yield hub


def run_async(coroutine):
    """``asyncio.run(coroutine)`` in a thread of its own, which has no event loop yet.

    A browser test's Playwright (its sync API) keeps an event loop running in the main thread for the
    rest of the session, and there ``asyncio.run`` refuses to start; which tests ran first must not decide
    whether the class tests can run.
    """
    with concurrent.futures.ThreadPoolExecutor(max_workers=1, thread_name_prefix="hub-test") as pool:
        return pool.submit(asyncio.run, coroutine).result()


@asynccontextmanager
async def on_own_server(hub, name: str):
    """A student signed in, with their server started and the series pulled; their server stopped after."""
    student = Student(hub.url, name, PASSWORD)
    await student.sign_in()
    await student.spawn()
    try:
        await student.pull(hub.settings.series_repo)
        yield student
    finally:
        await student.stop_server()
