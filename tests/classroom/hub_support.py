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
from patience import patience

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
    with classhub.class_hub(list(students), list(instructors), patience=patience(), **options) as hub:
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
    student = Student(hub.url, name, PASSWORD, patience())
    await student.sign_in()
    await student.spawn()
    try:
        await student.pull(hub.settings.series_repo)
        yield student
    finally:
        await student.stop_server()


class Inconclusive(Exception):
    """A wait ran out while what it waited on never had its chance to act (a starved culler, say): not
    a product failure. ``retry_once_if_inconclusive`` runs such a test again once and says so."""


def retry_once_if_inconclusive(attempt, *args):
    """``attempt(*args)``; once more when it is inconclusive, saying so; failing (not skipping, which a
    run with REQUIRE_HUB=1 must never do) with both reasons when it is inconclusive twice."""
    try:
        return attempt(*args)
    except Inconclusive as first:
        print(f"inconclusive, so tried once more: {first}", file=sys.stderr)
        try:
            return attempt(*args)
        except Inconclusive as second:
            pytest.fail(f"inconclusive twice (not a product failure): {first}; then: {second}", pytrace=False)


def log_offset(path: Path) -> int:
    """Where the log ends now: what is written after this is new."""
    return path.stat().st_size


def log_since(path: Path, offset: int) -> str:
    with path.open("rb") as log:
        log.seek(offset)
        return log.read().decode("utf-8", "replace")


def culler_passes(text: str) -> int:
    """How many passes the hub's idle culler made in this piece of the hub's log: each pass begins with
    the culler asking the hub for its users (jupyterhub_idle_culler's GET /hub/api/users)."""
    return sum("GET /hub/api/users" in line and "idle-culler@" in line for line in text.splitlines())
