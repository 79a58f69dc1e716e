"""The lecture in Voilà as `run.py lecture` serves it, in presenter mode (lecture/jupyter/voila/templates/
presenter/): readable from the back row, every slide on a 1280 × 720 projector with nothing covering
anything, a clicker moves it stage by stage, nothing from a network, and kernels of closed pages are freed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from expected_numbers import WALKTHROUGH
from lecture_fit_support import wait_quiet
from lecture_presenter_support import cull_seconds_for_tests, start_lecture
from patience import Deadline, scaled_ms

from browser_support import ARTIFACTS, chromium, offline_context

ROOT = Path(__file__).resolve().parents[2]


LIVE = "() => window.lecturePresenter && document.querySelector('button')"  # presenter.js runs, widgets drawn


@pytest.fixture(scope="module")
def lecture_server(tmp_path_factory):
    # the test's idle timeout (run.py lecture uses minutes): see cull_seconds_for_tests
    server = start_lecture(tmp_path_factory.mktemp("lecture-voila"), cull_seconds=cull_seconds_for_tests())
    yield server
    left = server.stop()
    assert not left, f"processes left running after Voilà shut down: {left}"


def _kernels(server) -> int:
    from browser_support import child_pids

    count = 0
    for pid in child_pids(server.process.pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        count += b"ipykernel" in command
    return count


def _open_lecture(context, server, width: int, height: int, query: str = ""):
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.goto(server.url("/" + query))
    page.wait_for_function(LIVE, timeout=scaled_ms(180_000))
    return page


# Computed font sizes of every table cell, formula, widget label and line of prose in the lecture.
LECTURE_FONTS = """() => {
    const chosen = '#rendered_cells td, #rendered_cells th, #rendered_cells .layernorm-filled-steps td, '
        + '#rendered_cells .widget-label, #rendered_cells .widget-html-content, #rendered_cells .widget-readout, '
        + '#rendered_cells button, #rendered_cells select, #rendered_cells input, #rendered_cells p, #rendered_cells li, '
        + '#rendered_cells pre';
    return [...document.querySelectorAll(chosen)]
        .filter(element => element.closest('.jp-Cell') && (element.innerText || element.value || '').trim())
        .map(element => [element.tagName + '.' + element.className + ' "' +
                         (element.innerText || element.value).trim().slice(0, 30) + '"',
                         parseFloat(getComputedStyle(element).fontSize)]);
}"""


BACK_ROW_SIZES = [(1280, 720), (1920, 1080)]


@pytest.fixture(scope="module")
def back_row_fonts(lecture_server):
    """The whole lecture (?page) opened once, its fonts measured at each size (resized between: the type
    follows the screen's width, presenter.css), with a screenshot at each; and what it asked outside for."""
    from playwright.sync_api import sync_playwright  # noqa: F401  (missing_browser checked it)

    measured = {}
    (ARTIFACTS / "voila").mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        context = offline_context(browser, (lecture_server.base,))
        page = _open_lecture(context, lecture_server, *BACK_ROW_SIZES[0], "?page")
        for width, height in BACK_ROW_SIZES:
            page.set_viewport_size({"width": width, "height": height})
            page.wait_for_function("([w, h]) => innerWidth === w && innerHeight === h", arg=[width, height])
            wait_quiet(page)
            measured[(width, height)] = page.evaluate(LECTURE_FONTS)
            page.screenshot(path=str(ARTIFACTS / "voila" / f"lecture_page_{width}x{height}.png"), full_page=False)
        context.close()
    return measured, context.outside_requests


@pytest.mark.parametrize("width,height", BACK_ROW_SIZES)
def test_lecture_is_readable_from_the_back_row(back_row_fonts, width, height):
    measured, outside = back_row_fonts
    fonts = measured[(width, height)]
    floor = 24 * width / 1280  # 24 px at 1280 × 720, growing with the screen
    assert len(fonts) > 50, f"found only {len(fonts)} texts to measure"
    small = [f"{name}: {size:.1f}px" for name, size in fonts if size < floor - 0.5]
    assert not small, f"{len(small)} texts below {floor:.0f}px at {width}×{height}:\n" + "\n".join(small[:10])
    assert not outside, f"the lecture asked outside addresses for: {outside}"


NEWEST_STAGE_IN_VIEW = """() => {
    const rows = document.querySelectorAll('.jp-Cell.lecture-current .layernorm-filled-steps tr');
    return rows.length > 0 && rows[rows.length - 1].getBoundingClientRect().bottom <= innerHeight + 1;
}"""


def test_clicker_keys_present_the_lecture_stage_by_stage(lecture_server):
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    (ARTIFACTS / "voila").mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        context = offline_context(browser, (lecture_server.base,))
        page = _open_lecture(context, lecture_server, 1280, 720)
        visible = "() => [...document.querySelectorAll('#rendered_cells .jp-Cell')].filter(c => c.offsetParent).map(c => c.innerText).join(' ')"
        assert "LayerNorm, step by step" in page.evaluate(visible)
        assert "The matrix" not in page.evaluate(visible), "presenter mode shows more than the first slide"
        assert "Opening" not in page.evaluate(visible), "speaker notes are on screen"
        page.keyboard.press("PageDown")
        page.keyboard.press("PageDown")
        page.wait_for_function(f"() => ({visible})().includes('step 1 of {len(WALKTHROUGH)}: input')")
        for position, stage in enumerate(WALKTHROUGH[1:], start=2):
            page.keyboard.press("PageDown")
            page.wait_for_function(f"() => ({visible})().includes('step {position} of {len(WALKTHROUGH)}: {stage}')")
        # The newest stage scrolls into view once the kernel has answered: wait for that state.
        try:
            page.wait_for_function(NEWEST_STAGE_IN_VIEW, timeout=scaled_ms(10_000))
        except PlaywrightTimeout:
            pytest.fail("the newest stage is below the screen", pytrace=False)
        page.screenshot(path=str(ARTIFACTS / "voila" / "presenter_step_9.png"))
        page.keyboard.press("PageUp")
        page.wait_for_function(f"() => ({visible})().includes('step {len(WALKTHROUGH) - 1} of')")
        page.keyboard.press("PageDown")
        page.wait_for_function(
            "() => [...document.querySelectorAll('button')].some(b => b.innerText.trim() === "
            "'Next ▶' && b.disabled && b.offsetParent)"
        )  # the kernel has answered
        page.keyboard.press("PageDown")  # the explorer is at its last stage: on to the next slide
        page.wait_for_function(f"() => ({visible})().includes('γ and β: scale and shift')")
        assert "step 9 of" not in page.evaluate(visible)
        with context.expect_page() as opened:  # N: the notes in the presenter view's window, never here
            page.keyboard.press("n")
        opened.value.wait_for_function("() => document.getElementById('notes').innerText.includes('Ask')")
        assert "Ask" not in page.evaluate(visible), "N put the speaker notes on the projector's window"
        opened.value.close()
        page.locator(".jp-Cell.lecture-current input[type=text]:visible").first.press(
            "ArrowRight"
        )  # stays in the field
        assert "γ and β" in page.evaluate(visible) and "Rounding by hand" not in page.evaluate(visible)
        page.keyboard.press("PageDown")  # the clicker, with the focus still in the field: on to the next slide
        page.wait_for_function(f"() => ({visible})().includes('Rounding by hand')")
        page.keyboard.press("PageUp")
        page.wait_for_function(f"() => ({visible})().includes('γ and β: scale and shift')")
        page.reload()  # F5 comes back to the same slide
        page.wait_for_function(LIVE, timeout=scaled_ms(180_000))
        assert "γ and β: scale and shift" in page.evaluate(visible)
        context.close()
    assert not context.outside_requests, f"the lecture asked outside addresses for: {context.outside_requests}"


def test_reloading_the_lecture_frees_the_kernels_of_closed_pages(lecture_server):
    import time

    with chromium() as browser:
        context = offline_context(browser, (lecture_server.base,))
        pages = [_open_lecture(context, lecture_server, 1280, 720, "?page") for _ in range(3)]
        most = _kernels(lecture_server)  # every open page holds its kernel: none is culled
        for page in pages[1:]:
            page.close()
        page = pages[0]
        page.reload()  # the page's old kernel is now the kernel of a closed page too
        page.wait_for_function(LIVE, timeout=scaled_ms(180_000))
        deadline = Deadline(
            10 * lecture_server.cull_seconds + 20
        )  # culled after CULL_SECONDS idle, looked for every second
        while _kernels(lecture_server) > 1 and not deadline.expired():
            time.sleep(0.5)
        left = _kernels(lecture_server)
        page.locator("button", has_text="Next ▶").first.click()  # the open page kept its kernel: widgets answer
        page.wait_for_function("() => document.body.innerText.includes('step 2 of')", timeout=scaled_ms(20_000))
        context.close()
    assert most >= 3, f"3 open pages had {most} kernels; the test cannot see culling"
    assert left == 1, f"{left} kernels left {deadline} after closing 2 pages and reloading 1"


# Every text-bearing element of the current slide that is drawn: its box, and words to name it by.
SLIDE_BOXES = """() => {
    const chosen = 'h1, h2, h3, p, li, label, input, select, button, td, th, pre, img, .widget-readout, .noUi-handle';
    return [...document.querySelectorAll('.jp-Cell.lecture-current')].flatMap(cell => [...cell.querySelectorAll(chosen)])
        .filter(e => { const r = e.getBoundingClientRect(), s = getComputedStyle(e);
                       return r.width > 1 && r.height > 1 && s.visibility !== 'hidden' && e.offsetParent; })
        .map(e => { const r = e.getBoundingClientRect();
                    return {name: `${e.tagName} "${(e.innerText || e.value || e.alt || '').trim().slice(0, 24)}"`,
                            box: [r.left, r.top, r.right, r.bottom], id: e}; });
}"""
OVERLAPS = (
    """() => {
    const boxes = ("""
    + SLIDE_BOXES
    + """)();
    const found = [];
    for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i], b = boxes[j];
        if (a.id.contains(b.id) || b.id.contains(a.id)) continue;  // a label around its own input
        const w = Math.min(a.box[2], b.box[2]) - Math.max(a.box[0], b.box[0]);
        const h = Math.min(a.box[3], b.box[3]) - Math.max(a.box[1], b.box[1]);
        if (w > 2 && h > 2) found.push(`${a.name} and ${b.name} (${Math.round(w)}×${Math.round(h)} px)`);
    }
    const cells = document.getElementById('rendered_cells');
    return {overlaps: found, scroll: cells.scrollHeight - cells.clientHeight, count: boxes.length,
            explorer: Boolean(document.querySelector('.jp-Cell.lecture-current .layernorm-filled-steps'))};
}"""
)


def test_every_slide_fits_a_720p_projector_and_nothing_covers_anything(lecture_server):
    """At 1280 × 720, presenting, each slide as it first appears fits the screen (no scrolling) and no
    text, field or picture lies on top of another (a label drawn over its box, a legend over a label).
    The step-through may scroll once its later stages are shown: it keeps the newest stage in view (the
    clicker test checks that)."""
    problems, seen = [], []
    with chromium() as browser:
        context = offline_context(browser, (lecture_server.base,))
        page = _open_lecture(context, lecture_server, 1280, 720)
        total = page.evaluate("() => window.lecturePresenter.state.slides.length")
        for index in range(total):
            page.evaluate("(i) => window.lecturePresenter.show(i)", index)
            wait_quiet(page)  # widgets lay themselves out after the resize show() sends: until they are done
            found = page.evaluate(OVERLAPS)
            seen.append(found["count"])
            where = f"slide {index + 1} of {total}"
            if found["scroll"] > 1:
                problems.append(f"{where} is {found['scroll']} px taller than the screen")
                page.screenshot(path=str(ARTIFACTS / "voila" / f"too_tall_slide_{index + 1:02d}.png"))
            problems += [f"{where}: {clash}" for clash in found["overlaps"]]
        context.close()
    assert min(seen) > 0 and total >= 10, f"{total} slides, boxes seen {seen}: the check saw nothing"
    assert not problems, "\n".join(problems)
