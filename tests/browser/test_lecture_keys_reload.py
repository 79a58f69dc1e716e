"""The live lecture over a reload (F5) and over a day's tabs: a reload keeps the slide, the step-through's
stage and the values typed into widgets, with the numbers for them; the first slide's time, and the
kernels and memory after a TA's second tab and two reloads (idle kernels are culled, so none pile up)."""

from __future__ import annotations

import json
import time

import pytest
from expected_numbers import X, exact_steps, four
from lecture_fit_support import wait_quiet
from lecture_presenter_support import (
    READY,
    VISIBLE,
    cull_seconds_for_tests,
    field,
    go_to,
    kernels,
    open_lecture,
    rss_mib,
    start_lecture,
)
from patience import Deadline, scaled_ms

from browser_support import ARTIFACTS, chromium, offline_context

TOGGLE_ON = "() => document.querySelector('.jp-Cell.lecture-current button.widget-toggle-button.mod-active') !== null"


@pytest.fixture(scope="module")
def lecture(tmp_path_factory):
    # the test's idle timeout (run.py lecture uses 2 minutes): see cull_seconds_for_tests
    server = start_lecture(tmp_path_factory.mktemp("lecture-reload"), cull_seconds=cull_seconds_for_tests())
    yield server
    assert not server.stop(), "processes left running after Voilà shut down"


def _reload(page) -> None:
    page.reload(wait_until="commit")  # Voilà streams the page as the kernel runs it
    page.wait_for_function(READY, timeout=scaled_ms(180_000))


def _shows(page, text: str) -> None:
    page.wait_for_function(f"(text) => ({VISIBLE})().includes(text)", arg=text)


# fit.js fits a slide a moment after it changes (it may hide the slide's instruction line): fit it now, then
# read it, so that both readings are of the same fitted slide, whenever fit.js would have run.
FITTED_VISIBLE = f"() => {{ window.lectureFit.fit(); return ({VISIBLE})(); }}"


def test_a_reload_keeps_the_slide_the_stage_and_the_typed_values(lecture):
    row5 = X[4]
    default_std, wanted_std = four(exact_steps(row5)["std"]), four(exact_steps(row5, eps=1e-3)["std"])
    with chromium() as browser:
        context = offline_context(browser, (lecture.base,))
        page = open_lecture(context, lecture)
        go_to(page, "One row, step by step")
        page.locator(".jp-Cell.lecture-current select").first.select_option(index=4)  # row 5
        _shows(page, f"{row5[0]:.3f}")
        for stage in (2, 3, 4):
            page.keyboard.press("PageDown")
            _shows(page, f"step {stage} of")
        eps_slide = go_to(page, "ε matters")
        field(page, "exact ε").fill("0.001")
        page.keyboard.press("Enter")
        _shows(page, wanted_std)
        page.locator(".jp-Cell.lecture-current button.widget-toggle-button").first.click()  # show every step
        page.wait_for_function(TOGGLE_ON)
        wait_quiet(page)  # the unfolded steps and the slide's sentences are drawn after the toggle turns on
        before = page.evaluate(FITTED_VISIBLE)

        _reload(page)
        wait_quiet(page)
        assert page.evaluate("() => location.hash") == f"#slide-{eps_slide}"
        assert field(page, "exact ε").input_value() == "0.001"
        assert page.locator(".jp-Cell.lecture-current .widget-readout").first.inner_text() == "1.0e-3"
        shown = page.evaluate(FITTED_VISIBLE)
        assert wanted_std in shown and default_std not in shown, "the numbers are not those for the kept ε"
        assert page.evaluate(TOGGLE_ON), "'show every step' was switched off by the reload"
        assert shown == before, "the slide does not read as it did before the reload"
        page.screenshot(path=str(ARTIFACTS / "voila" / "reload_kept_eps.png"))
        go_to(page, "One row, step by step")
        assert page.locator(".jp-Cell.lecture-current select").first.evaluate("s => s.selectedIndex") == 4
        shown = page.evaluate(VISIBLE)
        assert "step 4 of" in shown and f"{row5[0]:.3f}" in shown, "the step-through lost its row or stage"
        context.close()
    assert not context.outside_requests, f"the lecture asked outside addresses for: {context.outside_requests}"


def test_a_second_tab_and_two_reloads_leave_no_kernels_behind(lecture):
    """Measures (and writes to tests/_artifacts/voila/lecture_kernels.json) the first slide's time and the
    kernels and memory; checks that once idle kernels are culled, only the open tabs' kernels are left."""
    samples = []

    def sample(what):
        running = kernels(lecture)
        samples.append(
            {
                "what": what,
                "kernels": len(running),
                "server_MiB": round(rss_mib([lecture.process.pid]), 1),
                "kernels_MiB": round(rss_mib(running), 1),
            }
        )

    with chromium() as browser:
        context = offline_context(browser, (lecture.base,))
        lecturer = open_lecture(context, lecture)
        first_slide_ms = [lecturer.evaluate("() => window.lecturePresenter.state.firstShownMs")]
        open_lecture(context, lecture)  # the TA's second tab
        settled = Deadline(10 * lecture.cull_seconds + 30)  # an earlier test's closed pages: their kernels go first
        while len(kernels(lecture)) > 2 and not settled.expired():
            time.sleep(0.5)
        sample("a lecturer's tab and a TA's tab")
        for _ in range(2):  # each reload leaves the page's old kernel to a page nobody has open
            _reload(lecturer)
            first_slide_ms.append(lecturer.evaluate("() => window.lecturePresenter.state.firstShownMs"))
        sample("after two reloads")
        deadline = Deadline(10 * lecture.cull_seconds + 30)  # culled after CULL_SECONDS idle, looked for every second
        while len(kernels(lecture)) > 2 and not deadline.expired():
            time.sleep(0.5)
        sample(f"idle kernels culled ({lecture.cull_seconds} s here)")
        go_to(lecturer, "One row, step by step")
        lecturer.keyboard.press("PageDown")  # the open tab kept its kernel: the step-through answers
        lecturer.wait_for_function(f"() => ({VISIBLE})().includes('step 2 of')", timeout=scaled_ms(30_000))
        context.close()
    report = {"first_slide_ms": [round(ms) for ms in first_slide_ms], "samples": samples}
    (ARTIFACTS / "voila").mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "voila" / "lecture_kernels.json").write_text(json.dumps(report, indent=1), encoding="utf-8")
    print(json.dumps(report))
    assert samples[0]["kernels"] == 2, f"two open tabs, {samples[0]['kernels']} kernels"
    assert samples[-1]["kernels"] == 2, (
        f"{samples[-1]['kernels']} kernels left for two open tabs after {deadline}: {report}"
    )
    assert all(ms > 0 for ms in first_slide_ms)
