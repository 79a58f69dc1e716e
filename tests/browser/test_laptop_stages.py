"""Every stage of every widget fits a student's laptop, or says that it scrolls (issue 20, part 1).

JupyterLab in headless Chromium with the file browser open, as a student on a laptop opens the series. Each
notebook is run once; then every step-through is walked stage by stage with Next, and every fold ("show the
later steps", "show every step", "show all") is opened, and every stage is looked at in a window of 1024×768
and, the same page resized, of 1366×768:

- nothing in an output reaches past its right edge outside a box that scrolls sideways, and no fixed-width
  box cuts its own text off (tests/laptop_support.py's OVERFLOWS);
- a box that does scroll (its table wider than the box) has the visible line above it that says so
  (``layernorm-scroll-hint``), so a result out of sight is never silent ("✗ impossible:" with the rest cut);
- the column a wide table concludes in ("verdict", "= PyTorch?") is in sight as drawn (issue 33);
- the step-through's equations never scroll: they break between their parts, so every result shows
  ("= 0.44", "(1.1729, -1.2707," were cut).

Screenshots of each notebook at each size, every stage open, go to tests/_artifacts/laptop-stages/, and of the
whole window as run at 1024×768 to tests/_artifacts/laptop/; each test prints, per size, the boxes that scroll
and how far.
"""

from __future__ import annotations

import json

import pytest
from patience import scaled_ms

from browser_support import ARTIFACTS
from lab_driver import (
    CELL_TIMEOUT_MS,
    FINISHED,
    RUN_ALL,
    WIDGETS_DRAWN,
    close_notebook,
    open_notebook,
    open_sidebar,
    shared_session,
    wait_until_started,
    within,
)
from laptop_support import KEY_COLUMN_NAMES, KEY_COLUMNS_HIDDEN, OVERFLOWS

pytestmark = pytest.mark.browser

SIZES = {"1024": {"width": 1024, "height": 768}, "1366": {"width": 1366, "height": 768}}
NOTEBOOKS = [
    "notebooks/00_contents.ipynb",
    "notebooks/01_residual_matrix.ipynb",
    "notebooks/02_mean.ipynb",
    "notebooks/03_variance.ipynb",
    "notebooks/04_epsilon_and_std.ipynb",
    "notebooks/05_normalise.ipynb",
    "notebooks/06_gamma_and_beta.ipynb",
    "notebooks/07_whole_matrix.ipynb",
    "notebooks/08_pytorch.ipynb",
    "notebooks/09_numerics.ipynb",
    "notebooks/10_norm_family.ipynb",
    "notebooks/11_backward_pass.ipynb",
    "notebooks/12_speed.ipynb",
    "notebooks/13_is_this_layernorm.ipynb",
]

# Boxes that scroll: how much of each is out of sight, whether the line above says so, and whether it is one of
# the step-through's equations (which must never scroll).
KEY_COLUMNS = ["= PyTorch?"]  # a table's verdict column: in sight at 1024 px, however wide the table (issue 33)
SCROLLERS = """() => {
    const KEY_COLUMNS = KEY_COLUMNS_JSON;
    const found = [];
    window.testPanel.content.widgets.forEach((cell, i) => {
        if (cell.model.type !== 'code') return;
        cell.outputArea.node.querySelectorAll('.layernorm-scroll').forEach(box => {
            if (!box.getBoundingClientRect().width) return;  // folded away
            const hidden = box.scrollWidth - box.clientWidth;
            const before = box.previousElementSibling;
            const hint = before && before.classList.contains('layernorm-scroll-hint')
                && before.getBoundingClientRect().height > 0 ? before.textContent : '';
            // the column that matters (notebook 13's "= PyTorch?") must be in sight without scrolling
            const right = box.getBoundingClientRect().right;
            const key = [...box.querySelectorAll('th')].find(th => KEY_COLUMNS.includes(th.textContent.trim()));
            const keyHidden = key ? Math.max(0, Math.round(key.getBoundingClientRect().right - right)) : 0;
            if (hidden <= 1 && !hint) return;
            found.push({cell: i, hidden, width: box.scrollWidth, box: box.clientWidth, hint, keyHidden,
                        equations: !!box.closest('.layernorm-filled-steps'),
                        text: box.textContent.trim().slice(0, 50)});
        });
    });
    return found;
}""".replace("KEY_COLUMNS_JSON", json.dumps(KEY_COLUMNS))

# Buttons that open a fold or reveal the next stage, in the order a learner meets them.
FOLDS = ["show the later steps", "show every step", "show all"]


def _walk(page):
    """Yield once per stage: first as run, then after each Next of every step-through, then with every fold open."""
    yield "as run"
    panel = page.locator(".jp-NotebookPanel:visible")
    nexts = panel.locator("button", has_text="Next ▶")
    for k in range(nexts.count()):
        button = nexts.nth(k)
        stage = 1
        while button.is_enabled():
            before = button.locator("xpath=../..").text_content()
            button.click()
            page.wait_for_function(
                "([node, before]) => node.textContent !== before",
                arg=[button.locator("xpath=../..").element_handle(), before],
                timeout=scaled_ms(20_000),
                polling=50,
            )
            stage += 1
            yield f"step-through {k + 1}, stage {stage}"
    for words in FOLDS:
        # Handles, not a locator by text: an open toggle's label changes ("hide the later steps").
        toggles = panel.locator("button", has_text=words).element_handles()
        for k, toggle in enumerate(toggles):
            if not toggle.is_visible():  # a fold with nothing folded: its line is hidden
                continue
            toggle.scroll_into_view_if_needed()
            node = toggle.evaluate_handle("(button) => button.parentElement.parentElement.parentElement")
            before = node.evaluate("(node) => node.textContent")
            toggle.click()
            page.wait_for_function(
                "([node, before]) => node.textContent !== before",
                arg=[node, before],
                timeout=scaled_ms(20_000),
                polling=50,
            )
            yield f"“{words}” {k + 1} open"


def _shoot(page, name: str) -> None:
    """Screenshots of every widget's output, and of every table that says it scrolls, as they are now."""
    folder = ARTIFACTS / "laptop-stages"
    folder.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
    panel = ".jp-NotebookPanel:visible .jp-OutputArea-output"
    outputs = page.locator(f"{panel}:has(.jupyter-widgets), {panel}:has(.layernorm-scroll-hint)")
    for k in range(min(outputs.count(), 10)):
        outputs.nth(k).screenshot(path=str(folder / f"{safe}-{k + 1}.png"))


@pytest.fixture(scope="module")
def laptop():
    session = shared_session()
    page = session.context.new_page()
    page.set_viewport_size(SIZES["1024"])
    # A workspace of its own: JupyterLab moves a second window on the default workspace to a new one
    # (a navigation that would destroy the page's context under the next evaluate).
    page.goto(session.lab.url("/lab/workspaces/laptop"), timeout=scaled_ms(180_000))
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=scaled_ms(60_000))
    wait_until_started(page)
    open_sidebar(page)
    yield page
    page.close()


def _resize(page, size: str) -> None:
    """The window at ``size``, laid out again: JupyterLab lays out on the resize event's next frames."""
    width = SIZES[size]["width"]
    page.set_viewport_size(SIZES[size])
    page.wait_for_function("width => window.innerWidth === width", arg=width, timeout=scaled_ms(20_000))
    within(
        page,
        "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(done))))",
        what=f"three frames drawn at {size}",
        ms=10_000,
    )


def _look(page, stage: str, size: str, problems: list, figures: dict, spare: set) -> None:
    """What a learner sees at this stage at this size: overflows, and boxes that scroll unannounced."""
    problems += [f"{size}×768, {stage}: {line}" for line in page.evaluate(OVERFLOWS)]
    problems += [f"{size}×768, {stage}: {line}" for line in page.evaluate(KEY_COLUMNS_HIDDEN, KEY_COLUMN_NAMES)]
    for box in page.evaluate(SCROLLERS):
        if box["hidden"] <= 1:  # a hint above a table that fits: harmless, counted for the report
            spare.add(f"cell {box['cell']} ({box['width']} px in {box['box']})")
            continue
        figures[size].append(f"{stage}: cell {box['cell']}: {box['hidden']} px of {box['width']} hidden")
        where = f"{size}×768, {stage}: cell {box['cell']}: {box['text']!r} ({box['hidden']} px of {box['width']} cut)"
        if box["keyHidden"]:
            problems.append(f"{where}: its verdict column is {box['keyHidden']} px out of sight")
        if box["equations"]:
            problems.append(f"{where}: the step-through's equations scroll instead of breaking")
        elif not box["hint"]:
            problems.append(f"{where}: scrolls with nothing above it saying so")


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_every_stage_shows_its_results_or_says_it_scrolls(laptop, path):
    page = laptop
    name = path.split("/")[-1][:-6]
    problems, figures, spare = [], {size: [] for size in SIZES}, set()
    _resize(page, "1024")
    open_notebook(page, path)
    try:
        open_sidebar(page)
        page.evaluate(RUN_ALL)
        page.wait_for_function(FINISHED, timeout=scaled_ms(CELL_TIMEOUT_MS), polling=200)
        page.wait_for_function(WIDGETS_DRAWN, timeout=scaled_ms(20_000), polling=200)
        assert not page.evaluate("() => window.jupyterapp.shell.leftCollapsed"), "the file browser should be open"
        stages = 0
        for stage in _walk(page):
            stages += 1
            for size in SIZES:
                _resize(page, size)
                _look(page, stage, size, problems, figures, spare)
                if stage == "as run" and size == "1024":
                    shot = ARTIFACTS / "laptop" / f"{name}.png"
                    shot.parent.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(shot))
                if stage.startswith("step-through") or stage.startswith("“"):
                    _shoot(page, f"{name}-{size}-{stage}")
        for size in SIZES:
            _resize(page, size)
            _shoot(page, f"{name}-{size}-end")
    finally:
        close_notebook(page)
    for size in SIZES:
        print(f"{name} at {size}×768, {stages} stages: " + ("; ".join(figures[size]) or "nothing scrolls"))
    if spare:
        print(f"  hint above a table that fits: {', '.join(sorted(spare))}")
    assert not problems, f"{path} with the file browser open:\n" + "\n".join(problems)


# The text drawn on screen: text nodes whose element is more than 1 px each way (a "visually hidden" copy for a
# screen reader is 1 × 1 px and clipped).
DRAWN_TEXT = """node => {
    const words = [];
    const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
    while (walker.nextNode()) {
        const box = walker.currentNode.parentElement.getBoundingClientRect();
        if (box.width > 1 && box.height > 1) words.push(walker.currentNode.textContent);
    }
    return words.join(' ');
}"""


def _type(page, root, label: str, text: str) -> None:
    """Type ``text`` into the Text field labelled ``label`` and press Enter, as a learner does."""
    box = root.locator(".widget-text", has=page.locator("label", has_text=label)).locator("input").first
    box.fill(text)
    box.press("Enter")


@pytest.mark.parametrize("size", list(SIZES))
def test_the_row_editor_on_a_laptop_says_a_problem_once_and_the_eps_it_uses(laptop, size):
    """Notebook 04's row editor, typed into: a decimal comma is one sentence on screen (not two numbers, not said
    twice), and ε = 0 reads the same beside the slider as in the exact-ε field (not 1.0e-12)."""
    page = laptop
    _resize(page, size)
    open_notebook(page, "notebooks/04_epsilon_and_std.ipynb")
    try:
        open_sidebar(page)
        page.evaluate(RUN_ALL)
        page.wait_for_function(FINISHED, timeout=scaled_ms(CELL_TIMEOUT_MS), polling=200)
        page.wait_for_function(WIDGETS_DRAWN, timeout=scaled_ms(20_000), polling=200)
        editor = page.locator(".jp-NotebookPanel:visible .jp-OutputArea-output:has(.widget-slider)").first
        editor.scroll_into_view_if_needed()
        _type(page, editor, "row x:", "0,586, 0.779, 0.648")
        sentence = "'0,586' is written with a decimal comma"
        status = "The numbers shown are the last good ones"
        # The message beside the field and the status line are separate widgets, drawn one after the other: wait
        # for both before reading what is drawn.
        page.wait_for_function(
            "([node, words]) => words.every(w => node.innerText.includes(w))",
            arg=[editor.element_handle(), [sentence, status]],
            timeout=scaled_ms(20_000),
        )
        drawn = editor.evaluate(DRAWN_TEXT)  # what is drawn: the screen reader's copy in the status line is not
        assert drawn.count(sentence) == 1, drawn
        assert status in drawn
        _shoot(page, f"04_epsilon_and_std-{size}-decimal-comma")
        _type(page, editor, "exact ε:", "0")
        page.wait_for_function(
            "node => node.innerText.includes('ε = 0: off the scale')",
            arg=editor.element_handle(),
            timeout=scaled_ms(20_000),
        )
        assert editor.locator(".widget-readout:visible").count() == 0  # no "1.0e-12" beside ε = 0
        _shoot(page, f"04_epsilon_and_std-{size}-eps-0")
    finally:
        close_notebook(page)
