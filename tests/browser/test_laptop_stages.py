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

from pathlib import Path

import pytest
from patience import scaled_ms

from lab_driver import (
    CELL_TIMEOUT_MS,
    FINISHED,
    RUN_ALL,
    WIDGETS_DRAWN,
    close_notebook,
    open_notebook,
    open_sidebar,
    shared_session,
)
from laptop_support import SIZES, resize, shoot
from notebook_runs import run_notebook_once

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "notebooks").glob("*.ipynb"))


@pytest.fixture(scope="module")
def laptop():
    return shared_session().laptop_page()


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_every_stage_shows_its_results_or_says_it_scrolls(path):
    run = run_notebook_once(path)  # walked once per run, whichever browser test asks first (tests/notebook_runs.py)
    assert run["sidebar_open"], "the file browser should be open"
    walked = run["laptop"]
    assert "error" not in walked, f"{path}: the walk through its stages broke: {walked['error']}"
    for size in SIZES:
        figures = walked["figures"][size]
        print(f"{path} at {size}×768, {walked['stages']} stages: " + ("; ".join(figures) or "nothing scrolls"))
    if walked["spare"]:
        print(f"  hint above a table that fits: {', '.join(walked['spare'])}")
    assert not walked["problems"], f"{path} with the file browser open:\n" + "\n".join(walked["problems"])


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
    resize(page, size)
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
        shoot(page, f"04_epsilon_and_std-{size}-decimal-comma")
        _type(page, editor, "exact ε:", "0")
        page.wait_for_function(
            "node => node.innerText.includes('ε = 0: off the scale')",
            arg=editor.element_handle(),
            timeout=scaled_ms(20_000),
        )
        assert editor.locator(".widget-readout:visible").count() == 0  # no "1.0e-12" beside ε = 0
        shoot(page, f"04_epsilon_and_std-{size}-eps-0")
    finally:
        close_notebook(page)
