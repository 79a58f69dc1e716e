"""The lecturer's live page in a real browser, on a real hub, at a projector's 1280×720.

The instructor logs in through the hub's form, opens /services/class/ (the hub's OAuth sends the
browser through and back), and watches: a student's check posted with their own token shows on
the page within 2 seconds; the type is at least 24 px; no student name is on the page until the
lecturer presses "Show names"; and nothing is fetched from anywhere but the hub. The screenshot
goes to tests/_artifacts/class-live-page.png.
"""

from __future__ import annotations

import asyncio
import json
import time
import urllib.error
import urllib.request
import uuid

import pytest
from patience import patience, scaled_ms

from classroom.sim.client import Student

from browser_support import ARTIFACTS, chromium, offline_context, require_browser
from hub_support import PASSWORD, class_hub, names, run_async

# its own hub and Chromium, sharing nothing: run.py test runs it with the class hubs, beside the browser tests
pytestmark = [pytest.mark.hub, pytest.mark.browser, pytest.mark.beside]

STUDENTS = names("clp-", 3)
INSTRUCTOR = "clp-teach"
PROJECTOR = {"width": 1280, "height": 720}


def tokens(hub) -> dict[str, str]:
    """Each student's own token, got as a browser would (before Playwright's event loop starts)."""

    async def log_in(name):
        student = Student(hub.url, name, PASSWORD, patience())
        await student.sign_in()
        return name, student.token

    async def everyone():
        return dict(await asyncio.gather(*(log_in(name) for name in STUDENTS)))

    return run_async(everyone())


def post(hub, token: str, step: str, passed: bool, mistake: str | None, notebook: str) -> int:
    body = {"notebook": notebook, "step": step, "passed": passed, "mistake": mistake, "id": str(uuid.uuid4())}
    request = urllib.request.Request(
        f"{hub.url}/services/class/api/results", json.dumps(body).encode(), method="POST",
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status
    except urllib.error.HTTPError as error:
        print(f"\n{error.code}: {error.read()[:300]!r}\n" + hub.log_path.read_text()[-3000:])
        return error.code


def test_the_live_page_on_a_projector():
    require_browser()
    from playwright.sync_api import TimeoutError as PlaywrightTimeout  # only once the browser is known to be there

    with class_hub(STUDENTS, [INSTRUCTOR]) as hub:
        token = tokens(hub)
        assert post(hub, token[STUDENTS[0]], "variance", False, "n-1", "03") == 201
        assert post(hub, token[STUDENTS[1]], "variance", True, None, "03") == 201
        with chromium() as browser:
            context = offline_context(browser, (hub.url,))
            page = context.new_page()
            page.set_viewport_size(PROJECTOR)
            page.goto(f"{hub.url}/hub/login")
            page.fill("#username_input", INSTRUCTOR)
            page.fill("#password_input", PASSWORD)
            page.click("#login_submit")
            page.wait_for_url("**/hub/**")
            page.goto(f"{hub.url}/services/class/")
            try:
                page.wait_for_selector("section h2", timeout=scaled_ms(15000))
            except PlaywrightTimeout:
                ARTIFACTS.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(ARTIFACTS / "class-live-page-failed.png"))
                raise AssertionError(
                    f"no exercise on the page at {page.url}: {page.inner_text('body')[:300]!r}"
                ) from None
            assert page.url.startswith(f"{hub.url}/services/class/")
            text = page.inner_text("body")
            assert "03 · variance" in text and "1 of 2 passed (50%)" in text and "dividing by n − 1" in text
            assert not [name for name in STUDENTS if name in text], "a student's name is on the projector"

            start = time.monotonic()
            assert post(hub, token[STUDENTS[2]], "variance", False, "mean-not-subtracted", "03") == 201
            page.wait_for_function("document.body.innerText.includes('1 of 3 passed')", timeout=scaled_ms(2000))
            shown = time.monotonic() - start
            print(f"\nlive page: a post shows within {shown:.2f} s")

            smallest = page.evaluate(
                "Math.min(...[...document.querySelectorAll('body *')].filter(e => e.offsetParent !== null"
                " && e.innerText && e.innerText.trim()).map(e => parseFloat(getComputedStyle(e).fontSize)))"
            )
            assert smallest >= 24, smallest
            overflow = page.evaluate("document.documentElement.scrollWidth > innerWidth")
            assert not overflow, "the page is wider than the projector"
            ARTIFACTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACTS / "class-live-page.png"))

            page.click("#names")
            page.wait_for_function(f"document.body.innerText.includes('{STUDENTS[0]}')", timeout=scaled_ms(3000))
            page.screenshot(path=str(ARTIFACTS / "class-live-page-names.png"))
            page.click("#names")
            page.wait_for_function(f"!document.body.innerText.includes('{STUDENTS[0]}')", timeout=scaled_ms(3000))
            csv = page.evaluate(
                "fetch('api/results.csv', {headers: {'X-XSRFToken': document.querySelector('meta[name=xsrf]').content}})"
                ".then(r => r.text())"
            )
            assert (
                csv.startswith("student,notebook,step,attempts,passed,mistakes") and f"{STUDENTS[0]},03,variance" in csv
            )
            assert context.outside_requests == []
            context.close()
