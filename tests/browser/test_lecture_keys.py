"""The live lecture's keys (lecture/jupyter/voila/templates/presenter/): the clicker only navigates, a value
typed but not committed is committed where the room sees it, B / "." black the screen, and S / N open the
presenter view in a window of its own (notes, timer, next slide) that drives the lecture; the notes are
never drawn on the projector's window."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from expected_numbers import X, exact_steps, four
from lecture_presenter_support import NOTES_DRAWN, VISIBLE, field, go_to, open_lecture, start_lecture
from patience import scaled_ms

from browser_support import ARTIFACTS, chromium, offline_context

LECTURE = Path(__file__).resolve().parents[2] / "lecture" / "layernorm_lecture.ipynb"
# its own Voilà and Chromium, sharing nothing: run.py test runs it beside the other browser tests
pytestmark = pytest.mark.beside

EPS_SLIDE = "ε matters"
STEP_THROUGH = "One row, step by step"
STATUS = "() => document.getElementById('lecture-status').innerText"
HASH = "() => location.hash"


@pytest.fixture(scope="module")
def lecture(tmp_path_factory):
    server = start_lecture(tmp_path_factory.mktemp("lecture-keys"), cull_seconds=120, cull_interval=30)
    yield server
    assert not server.stop(), "processes left running after Voilà shut down"


@pytest.fixture(scope="module")
def page(lecture):
    """One page for the module's tests (each page load runs the lecture in a new kernel: slow on a small
    machine); each test goes to the slides it needs and leaves no value typed and uncommitted."""
    (ARTIFACTS / "voila").mkdir(parents=True, exist_ok=True)
    with chromium() as browser:
        context = offline_context(browser, (lecture.base,))
        yield open_lecture(context, lecture)
        context.close()
    assert not context.outside_requests, f"the lecture asked outside addresses for: {context.outside_requests}"


def _planned_minutes() -> list[str]:
    """Each slide's minutes in the plan, as its speaker notes state them ("(N min)"), from the notebook."""
    notebook = nbformat.read(LECTURE, as_version=4)
    minutes = []
    for cell in notebook.cells:
        if cell.cell_type == "markdown" and cell.source.lstrip().startswith("#"):
            minutes.append(None)
        found = re.search(r"\((\d+) min\)", cell.source)
        if "notes" in cell.metadata.get("tags", []) and found and minutes[-1] is None:
            minutes[-1] = found.group(1)
    return minutes


def _moved_from(page, number: int) -> None:
    page.wait_for_function(f"() => location.hash !== '#slide-{number}'")


@pytest.mark.parametrize(
    "key", ["PageDown", "PageUp", "ArrowRight", "ArrowLeft", "ArrowUp", "ArrowDown", "Home", "End"]
)
def test_a_clicker_key_on_the_focused_eps_slider_navigates_and_leaves_it(page, key):
    number = go_to(page, EPS_SLIDE)
    handle = page.locator(".jp-Cell.lecture-current [role=slider]").first.element_handle()
    readout = page.locator(".jp-Cell.lecture-current .widget-readout").first.element_handle()
    before = handle.get_attribute("aria-valuenow"), readout.inner_text()
    handle.focus()
    page.keyboard.press(key)
    _moved_from(page, number)
    # noUiSlider moves its handle as it handles the key, before any kernel: a moved value shows at once.
    assert (handle.get_attribute("aria-valuenow"), readout.inner_text()) == before, f"{key} moved the ε slider"
    assert not page.evaluate("() => document.activeElement.closest('[role=slider]')"), (
        "the hidden slider keeps the focus"
    )


def test_the_clicker_leaves_drop_downs_number_boxes_and_text_fields_as_they_are(page):
    go_to(page, STEP_THROUGH)
    picker = page.locator(".jp-Cell.lecture-current select").first.element_handle()
    before = picker.input_value()
    picker.focus()
    page.keyboard.press("ArrowDown")  # a closed drop-down would pick the next row
    page.wait_for_function(f"() => ({VISIBLE})().includes('step 2 of')")
    assert picker.input_value() == before, "↓ picked another row in the step-through's drop-down"
    page.keyboard.press("PageUp")  # back to the first stage, for the tests after this one
    page.wait_for_function(f"() => ({VISIBLE})().includes('step 1 of')")

    number = go_to(page, "Rounding by hand")
    places = page.locator(".jp-Cell.lecture-current input[type=number]:visible").first.element_handle()
    before = places.input_value()
    places.focus()
    page.keyboard.press("ArrowUp")  # a number box would count up
    _moved_from(page, number)
    assert places.input_value() == before, "↑ changed the number of places"

    number = go_to(page, EPS_SLIDE)
    eps = field(page, "exact ε")
    eps.focus()
    for key in ("ArrowLeft", "ArrowRight", "Home", "End"):  # the caret's keys, while the lecturer types
        page.keyboard.press(key)
    assert page.evaluate(HASH) == f"#slide-{number}", "a caret key in a text field changed the slide"
    assert page.evaluate("() => document.activeElement.tagName") == "INPUT", "a caret key left the field"
    page.keyboard.press("PageDown")  # nothing typed: the clicker goes straight on
    _moved_from(page, number)

    go_to(page, EPS_SLIDE)
    page.keyboard.press("p")  # the whole page, scrolling: the keys still leave the slider alone
    page.wait_for_function("() => !document.body.classList.contains('lecture-presenting')")
    handle = page.locator(".jp-Cell.lecture-current [role=slider]").first.element_handle()
    before = handle.get_attribute("aria-valuenow")
    for key in ("ArrowRight", "PageDown", "End"):
        handle.focus()
        page.keyboard.press(key)
        assert handle.get_attribute("aria-valuenow") == before, f"{key} moved the ε slider on the whole page"
    page.keyboard.press("p")
    page.wait_for_function("() => document.body.classList.contains('lecture-presenting')")


def test_a_value_typed_without_enter_is_committed_on_the_slide_before_it_leaves(page):
    row5 = X[4]
    shown, wanted = four(exact_steps(row5)["std"]), four(exact_steps(row5, eps=1e-3)["std"])
    assert shown != wanted  # the test can see the change
    number = go_to(page, EPS_SLIDE)
    assert shown in page.evaluate(VISIBLE)
    field(page, "exact ε").fill("0.001")  # typed, no Enter
    page.keyboard.press("PageDown")
    page.wait_for_function(f"() => ({STATUS})().includes('applied')")
    assert page.evaluate(HASH) == f"#slide-{number}", "the slide left with the typed value not yet shown"
    page.wait_for_function(f"() => ({VISIBLE})().includes('{wanted}')")  # the room sees the numbers for it
    assert "exact ε = 0.001 applied" in page.evaluate(STATUS)
    page.screenshot(path=str(ARTIFACTS / "voila" / "keys_typed_value_applied.png"))
    page.keyboard.press("PageDown")  # the next click moves on
    _moved_from(page, number)
    assert "applied" not in page.evaluate(STATUS)
    go_to(page, EPS_SLIDE)
    assert field(page, "exact ε").input_value() == "0.001" and wanted in page.evaluate(VISIBLE)


BLACK = """() => { const cover = document.getElementById('lecture-black');
    return Boolean(cover) && document.elementFromPoint(innerWidth / 2, innerHeight / 2) === cover; }"""


def test_b_and_full_stop_black_the_screen_until_pressed_again_or_a_navigation_key(page):
    number = go_to(page, EPS_SLIDE)
    page.keyboard.press("b")
    page.wait_for_function(BLACK)
    page.screenshot(path=str(ARTIFACTS / "voila" / "keys_black_screen.png"))
    page.keyboard.press("b")
    page.wait_for_function(f"() => !({BLACK})()")
    page.keyboard.press(".")
    page.wait_for_function(BLACK)
    page.keyboard.press("PageDown")  # restores the screen where it was; the next click moves on
    page.wait_for_function(f"() => !({BLACK})()")
    assert page.evaluate(HASH) == f"#slide-{number}"
    eps = field(page, "exact ε")
    eps.focus()
    kept = eps.input_value()
    page.keyboard.type("0.5")  # a full stop typed into a field is the field's
    assert not page.evaluate(BLACK) and eps.input_value().endswith("0.5")
    eps.fill(kept)  # as it was: nothing left typed and uncommitted
    assert "B black" in page.evaluate(STATUS) and "S presenter view" in page.evaluate(STATUS)


def test_s_opens_the_presenter_view_which_follows_and_drives_the_lecture(page):
    context = page.context
    go_to(page, "LayerNorm, step by step")
    page.keyboard.press("Escape")  # out of any field
    with context.expect_page() as opened:
        page.keyboard.press("s")
    view = opened.value
    view.set_viewport_size({"width": 1000, "height": 720})
    view.wait_for_function("() => window.presenterWindow && window.presenterWindow.state")
    text = view.locator("body").inner_text()
    first, walkthrough = _planned_minutes()[0], _planned_minutes()[2]
    assert "slide 1 of" in text and f"({first} min)" in text, text[:300]
    assert f"of {first} min planned" in text and "next slide: The matrix" in text, text[:300]
    assert page.evaluate(NOTES_DRAWN) == 0, "the notes are on the projector's window"

    popups = []
    page.on("popup", lambda popup: popups.append(popup))
    page.keyboard.press("n")  # N brings the same view forward; the notes stay off the projector
    assert page.evaluate(NOTES_DRAWN) == 0, "N put the notes on the projector's window"

    view.keyboard.press("PageDown")  # keys pressed in the view drive the lecture
    page.wait_for_function("() => location.hash === '#slide-2'")
    view.wait_for_function("() => document.getElementById('slide').innerText.startsWith('slide 2 of')")
    view.keyboard.press("PageDown")
    view.wait_for_function("() => document.getElementById('stage').innerText.startsWith('step 1 of')")
    assert "next click: this slide's next stage" in view.locator("#next").inner_text()
    view.keyboard.press("PageDown")
    page.wait_for_function(f"() => ({VISIBLE})().includes('step 2 of')")
    view.wait_for_function("() => document.getElementById('stage').innerText.includes(': mean')")
    view.wait_for_function("() => (document.querySelector('#notes li.current') || {}).innerText?.startsWith('mean')")
    assert f"({walkthrough} min)" in view.locator("#notes").inner_text()
    view.wait_for_function("() => document.getElementById('elapsed').innerText !== '0:00'")  # the timer runs
    view.keyboard.press("b")
    page.wait_for_function(BLACK)
    view.wait_for_function("() => document.getElementById('black').classList.contains('on')")
    view.keyboard.press("b")
    page.wait_for_function(f"() => !({BLACK})()")
    assert page.evaluate(NOTES_DRAWN) == 0
    page.screenshot(path=str(ARTIFACTS / "voila" / "presenter_main_window.png"))
    view.screenshot(path=str(ARTIFACTS / "voila" / "presenter_view_window.png"))

    page.reload(wait_until="commit")  # F5 on the projector: the view finds it again, and still drives it
    page.wait_for_function(
        "() => window.lecturePresenter && document.body.dataset.lectureRestored === 'done'", timeout=scaled_ms(180_000)
    )
    view.keyboard.press("PageDown")
    page.wait_for_function(f"() => ({VISIBLE})().includes('step 3 of')")
    view.wait_for_function("() => document.getElementById('stage').innerText.includes('step 3 of')")
    assert not popups, "N opened a second presenter view"
