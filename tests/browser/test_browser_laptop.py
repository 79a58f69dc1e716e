"""Every output fits a laptop: JupyterLab at 1024×768 with its file browser open (issue 10 §4).

Notebooks 01, 03, 05, 06, 07 and 13 (the matrix editor, the explorer, the row editor, the answer box, the wide check
tables and the fingerprints) are run in JupyterLab in headless Chromium at 1024×768 with the left sidebar open, as a
student on a small laptop sees them. An output fails when anything in it reaches past its cell's
right edge without a box that scrolls sideways, or when a fixed-width box cuts its own text off
(a clipped "▶ row 5"). Screenshots go to tests/_artifacts/laptop/.
"""

from __future__ import annotations

import pytest

from browser_support import ARTIFACTS
from lab_driver import CELL_TIMEOUT_MS, CLOSE, FINISHED, OPEN_NOTEBOOK, RUN_ALL, WIDGETS_DRAWN, shared_session

pytestmark = pytest.mark.browser

LAPTOP = {"width": 1024, "height": 768}
NOTEBOOKS = [
    "notebooks/01_residual_matrix.ipynb",
    "notebooks/03_variance.ipynb",
    "notebooks/05_normalise.ipynb",
    "notebooks/06_gamma_and_beta.ipynb",
    "notebooks/07_whole_matrix.ipynb",
    "notebooks/13_is_this_layernorm.ipynb",
]

# For every output: things that reach past its right edge with no sideways-scrolling box between,
# and boxes that hide part of their own text. Returns one line per problem.
OVERFLOWS = """() => {
    const problems = [];
    const scrolls = node => ['auto', 'scroll'].includes(getComputedStyle(node).overflowX);
    const panel = window.testPanel;
    panel.content.widgets.forEach((cell, i) => {
        if (cell.model.type !== 'code') return;
        cell.outputArea.node.querySelectorAll('.jp-OutputArea-output').forEach(output => {
            const edge = output.getBoundingClientRect().right + 1;
            for (const node of output.querySelectorAll('*')) {
                const box = node.getBoundingClientRect();
                if (!box.width || !box.height) continue;
                let inside = false;
                for (let up = node.parentElement; up && up !== output; up = up.parentElement)
                    if (scrolls(up)) { inside = true; break; }
                if (!inside && box.right > edge) {
                    problems.push(`cell ${i}: <${node.tagName.toLowerCase()} class="${node.className}"> ends at `
                        + `${Math.round(box.right)} px, past the output's edge at ${Math.round(edge)} px: `
                        + JSON.stringify(node.textContent.trim().slice(0, 60)));
                    break;
                }
                const style = getComputedStyle(node);
                const clips = style.overflowX === 'hidden' || style.textOverflow === 'ellipsis';
                if (clips && node.children.length === 0 && node.scrollWidth > node.clientWidth + 1
                        && node.textContent.trim()) {
                    problems.push(`cell ${i}: ${JSON.stringify(node.textContent.trim().slice(0, 60))} is cut off `
                        + `(${node.scrollWidth} px of text in a ${node.clientWidth} px box)`);
                    break;
                }
            }
        });
    });
    return problems;
}"""

OPEN_SIDEBAR = """async () => {
    const app = window.jupyterapp;
    await app.commands.execute('filebrowser:activate');  // the file browser, as JupyterLab opens by default
    if (app.shell.leftCollapsed) await app.commands.execute('application:toggle-left-area');
}"""


@pytest.fixture(scope="module")
def laptop_page():
    session = shared_session()
    page = session.context.new_page()
    page.set_viewport_size(LAPTOP)
    # A workspace of its own: JupyterLab moves a second window on the default workspace to a new one
    # (a navigation that would destroy the page's context under the next evaluate).
    page.goto(session.lab.url("/lab/workspaces/laptop"))
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=60_000)
    page.evaluate("async () => { await window.jupyterapp.started; await window.jupyterapp.restored; }")
    page.evaluate(OPEN_SIDEBAR)
    yield page
    page.close()


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_every_output_fits_or_scrolls_at_1024_with_the_sidebar_open(laptop_page, path):
    page = laptop_page
    page.evaluate(OPEN_NOTEBOOK, path)
    try:
        page.evaluate(OPEN_SIDEBAR)
        page.evaluate(RUN_ALL)
        page.wait_for_function(FINISHED, timeout=CELL_TIMEOUT_MS, polling=200)
        page.wait_for_function(WIDGETS_DRAWN, timeout=20_000, polling=200)
        page.wait_for_timeout(300)  # the last layout after the widgets drew
        sidebar = page.evaluate("() => window.jupyterapp.shell.leftCollapsed")
        assert not sidebar, "the file browser should be open, as on a laptop by default"
        problems = page.evaluate(OVERFLOWS)
        shot = ARTIFACTS / "laptop" / f"{path.split('/')[-1][:-6]}.png"
        shot.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(shot))
    finally:
        page.evaluate(CLOSE)
    assert not problems, f"{path} at 1024×768 with the file browser open:\n" + "\n".join(problems)
