"""Every notebook in a real JupyterLab, in headless Chromium, used the way a learner uses it.

One JupyterLab server for the whole module, on 127.0.0.1 (a free port, a token), serving a
temporary copy of notebooks/ and lecture/ (so autosave cannot touch the repository), with news and
update checks off. For each notebook the test runs all cells and fails on any error or stderr
output and on any widget that did not render (a widget showing only its text form has not).
Then it acts as a learner in the row editor and the step-through explorer and checks that the
numbers on the page change to the right values, computed here in plain Python, not by helpers;
and it presents the lecture in Voilà, pressing Next through every stage.

Screenshots go to tests/_artifacts/ (git ignores it). Without Chromium the tests skip with a
one-line reason; REQUIRE_BROWSER=1 (CI) makes that a failure. Every server is shut down through
its own clean path and the test fails if any process it started is left behind.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from browser_support import (
    ARTIFACTS,
    VIEWPORT,
    WALKTHROUGH,
    X,
    JupyterServer,
    by_hand,
    chromium,
    copy_for_serving,
    exact_steps,
    four,
    jupyter_lab,
    offline_context,
    require_browser,
    stage_result,
)

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "notebooks").glob("*.ipynb"))
LECTURES = sorted(path.relative_to(ROOT).as_posix() for path in (ROOT / "lecture").glob("*.ipynb"))
LECTURE = "lecture/layernorm_lecture.ipynb"

CELL_TIMEOUT_MS = 120_000
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
TALLEST_SCREENSHOT = 16_000


# ---------------------------------------------------------------------------------------------
# Fixtures: one JupyterLab, one browser, one page


@pytest.fixture(scope="module")
def served_folder(tmp_path_factory):
    require_browser()
    home = tmp_path_factory.mktemp("browser")
    return home, copy_for_serving(home / "root")


@pytest.fixture(scope="module")
def lab(served_folder):
    home, folder = served_folder
    server = jupyter_lab(folder, home)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def browser():
    require_browser()
    with chromium() as running:
        yield running


@pytest.fixture(scope="module")
def lab_page(lab, browser):
    context = offline_context(browser, (lab.base,))
    page = context.new_page()
    page.goto(lab.url("/lab"))
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=60_000)
    page.evaluate("async () => { await window.jupyterapp.started; await window.jupyterapp.restored; }")
    page.evaluate("""async () => {  // more room for the notebook: no file browser
        const app = window.jupyterapp;
        if (!app.shell.leftCollapsed) await app.commands.execute('application:toggle-left-area');
        for (const widget of [...app.shell.widgets('main')]) widget.close();  // the Launcher
    }""")
    yield page
    context.close()


# ---------------------------------------------------------------------------------------------
# Driving JupyterLab through its own commands (window.jupyterapp, exposed by the server's settings)

OPEN_NOTEBOOK = """async (path) => {
    const app = window.jupyterapp;
    const panel = await app.commands.execute('docmanager:open', {path, factory: 'Notebook'});
    await panel.context.ready;
    await panel.sessionContext.ready;
    app.shell.activateById(panel.id);
    window.testPanel = panel;
    return panel.id;
}"""

# The stored outputs go first, so that everything checked afterwards was made in this browser.
RUN_ALL = """async () => {
    const app = window.jupyterapp;
    await app.commands.execute('notebook:clear-all-cell-outputs');
    await app.commands.execute('notebook:run-all-cells');
}"""

# Finished when the kernel is idle and no cell is waiting ([*]); every code cell should then have a
# number (a cell without one was never run, e.g. after an error: the report below says so).
FINISHED = """() => {
    const panel = window.testPanel;
    const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
    if (!kernel || kernel.status !== 'idle') return false;
    const cells = panel.content.widgets.filter(cell => cell.model.type === 'code');
    return cells.every(cell => !cell.promptNode.textContent.includes('*'))
        && (cells.every(cell => cell.model.executionCount !== null)
            || cells.some(cell => cell.model.outputs.toJSON().some(o => o.output_type === 'error')));
}"""

WIDGETS_DRAWN = """() => {
    const panel = window.testPanel;
    return panel.content.widgets.every(cell => {
        if (cell.model.type !== 'code') return true;
        return cell.model.outputs.toJSON().every((output, j) => {
            if (!output.data || !output.data['%s']) return true;
            const child = cell.outputArea.widgets[j];
            return child && child.node.querySelector('.jupyter-widgets') !== null;
        });
    });
}""" % WIDGET_VIEW

REPORT = """() => {
    const panel = window.testPanel;
    const problems = [];
    let widgets = 0, cells = 0;
    panel.content.widgets.forEach((cell, i) => {
        if (cell.model.type !== 'code') return;
        cells += 1;
        if (cell.model.executionCount === null) problems.push(`cell ${i}: never ran`);
        cell.model.outputs.toJSON().forEach((output, j) => {
            if (output.output_type === 'error') problems.push(`cell ${i}: ${output.ename}: ${output.evalue}`);
            if (output.output_type === 'stream' && output.name === 'stderr')
                problems.push(`cell ${i}: stderr: ${String(output.text).slice(0, 200)}`);
            if (!output.data || !output.data['%s']) return;
            widgets += 1;
            const child = cell.outputArea.widgets[j];
            const view = child && child.node.querySelector('.jupyter-widgets');
            const text = child ? child.node.textContent : '';
            if (!view) problems.push(`cell ${i}: widget not rendered, shows: ${text.slice(0, 120)}`);
            else if (view.getBoundingClientRect().height < 10) problems.push(`cell ${i}: widget rendered empty`);
            else if (/Error displaying widget|model not found/i.test(text)) problems.push(`cell ${i}: ${text.slice(0, 120)}`);
        });
    });
    const errorNodes = panel.node.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]').length;
    if (errorNodes) problems.push(`${errorNodes} error or stderr output(s) on the page`);
    return {problems, widgets, cells};
}""" % WIDGET_VIEW

CLOSE = """async () => {
    const panel = window.testPanel;
    await panel.sessionContext.shutdown();
    panel.context.model.dirty = false;  // the copy's outputs changed; nothing to keep
    panel.dispose();
    window.testPanel = null;
}"""

MARK_OUTPUT = """([source, name]) => {
    // Tag the output of the first code cell whose source contains ``source``, for locators.
    const cell = window.testPanel.content.widgets.find(
        c => c.model.type === 'code' && c.model.sharedModel.getSource().includes(source));
    if (!cell) return false;
    cell.outputArea.node.setAttribute('data-test', name);
    return true;
}"""


def open_and_run(page, path: str) -> dict:
    page.evaluate(OPEN_NOTEBOOK, path)
    page.evaluate(RUN_ALL)
    page.wait_for_function(FINISHED, timeout=CELL_TIMEOUT_MS, polling=100)
    try:
        page.wait_for_function(WIDGETS_DRAWN, timeout=20_000, polling=100)
    except Exception:  # noqa: BLE001 - the report below says which widget did not render
        pass
    return page.evaluate(REPORT)


def close_notebook(page) -> None:
    page.evaluate(CLOSE)


def save_screenshot(page, name: str) -> Path:
    """A screenshot of the whole document: the window is made as tall as the tallest thing that scrolls."""
    path = ARTIFACTS / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("() => Math.max(...[...document.querySelectorAll('*')].map(node => node.scrollHeight))")
    page.set_viewport_size({"width": VIEWPORT["width"], "height": min(height + 120, TALLEST_SCREENSHOT)})
    page.evaluate("""() => new Promise(done => requestAnimationFrame(() => {
        document.querySelectorAll('*').forEach(node => { if (node.scrollTop) node.scrollTop = 0; });
        requestAnimationFrame(done);
    }))""")
    page.screenshot(path=str(path))
    page.set_viewport_size(VIEWPORT)
    return path


# ---------------------------------------------------------------------------------------------
# 1. Every notebook runs in JupyterLab, with every widget drawn


@pytest.mark.parametrize("path", NOTEBOOKS + LECTURES)
def test_notebook_runs_in_jupyterlab_with_every_widget_drawn(lab_page, path):
    try:
        report = open_and_run(lab_page, path)
        save_screenshot(lab_page, f"jupyterlab/{Path(path).stem}")
    finally:
        close_notebook(lab_page)
    assert report["cells"] > 0, f"{path}: no code cells found on the page"
    if "widgets." in (ROOT / path).read_text(encoding="utf-8"):
        assert report["widgets"] > 0, f"{path} makes widgets, but none appeared on the page"
    assert not report["problems"], f"{path} in JupyterLab:\n" + "\n".join(report["problems"])
    assert not lab_page.context.outside_requests, (
        f"JupyterLab asked for outside addresses: {sorted(set(lab_page.context.outside_requests))}")


# ---------------------------------------------------------------------------------------------
# 2. A learner in the row editor and the step-through explorer

READ_STEPS_TABLE = """(root) => Object.fromEntries([...root.querySelectorAll('.layernorm-steps tr')]
    .filter(tr => tr.querySelector('th') && tr.querySelectorAll('td').length)
    .map(tr => [tr.querySelector('th').textContent.replace('≠ exact', '').trim(),
                [...tr.querySelectorAll('td')].slice(1).map(td => td.textContent.trim()).filter(Boolean)]))"""

TABLE_SHOWS = """([root, expected]) => {
    const rows = (%s)(root);
    return Object.entries(expected).every(([label, cells]) =>
        JSON.stringify(rows[label]) === JSON.stringify(cells));
}""" % READ_STEPS_TABLE


def wait_for_table(page, root, expected: dict) -> None:
    """Wait until the row editor's table shows ``expected`` ({stage label: [cells]}), or fail saying what it shows."""
    try:
        page.wait_for_function(TABLE_SHOWS, arg=[root.element_handle(), expected], timeout=15_000, polling=50)
    except Exception:  # noqa: BLE001 - report what is on the page instead of a timeout
        shown = page.evaluate(READ_STEPS_TABLE, root.element_handle())
        pytest.fail(f"the page shows {shown}, expected {expected}")


def text_box(root, label: str):
    """The <input> of the ipywidgets Text whose label reads ``label``."""
    return root.locator(".widget-text", has=root.page.locator("label", has_text=re.compile(f"^{re.escape(label)}$"))
                        ).locator("input")


def expected_numbers(row, eps=1e-5) -> dict:
    steps = exact_steps(row, eps)
    return {"mean": [four(steps["mean"])], "variance": [four(steps["variance"])], "std": [four(steps["std"])],
            "normalised": [four(v) for v in steps["normalised"]]}


def move_eps_slider(page, editor, steps: int) -> float:
    """Press → on the row editor's ε slider ``steps`` times, each time waiting for the exact-ε box to
    follow; return the ε the box then shows."""
    eps_box = text_box(editor, "exact ε:")
    handle = editor.locator(".widget-slider .noUi-handle").first
    for _ in range(steps):
        before = eps_box.input_value()
        handle.focus()
        handle.press("ArrowRight")
        page.wait_for_function("([box, before]) => box.value !== before", arg=[eps_box.element_handle(), before],
                               timeout=10_000, polling=20)
    return float(eps_box.input_value())


def test_row_editor_as_a_learner(lab_page):
    page = lab_page
    report = open_and_run(page, "notebooks/02_mean.ipynb")
    try:
        assert not report["problems"], report["problems"]
        assert page.evaluate(MARK_OUTPUT, ["widgets.row_editor(x[0]", "row-editor"]), "no row editor in 02_mean"
        editor = page.locator('[data-test="row-editor"]')
        row = list(X[0])
        wait_for_table(page, editor, expected_numbers(row))

        # Type a new first value into its box and press Enter.
        text_box(editor, "x1").fill("2.5")
        text_box(editor, "x1").press("Enter")
        row[0] = 2.5
        wait_for_table(page, editor, expected_numbers(row))
        assert text_box(editor, "row x:").input_value() == "2.5, -0.299, 0.503"

        # Move the ε slider with the keyboard, as a learner can: 20 steps of 0.1 on its log scale.
        assert float(text_box(editor, "exact ε:").input_value()) == 1e-5
        eps = move_eps_slider(page, editor, steps=20)
        assert 0.9e-3 <= eps <= 1.1e-3, f"20 steps right from 1e-5 should give ε ≈ 1e-3, got {eps}"
        wait_for_table(page, editor, expected_numbers(row, eps))
        save_screenshot(page, "learner/row_editor_after_edits")

        # A value that is not a number: a message in plain words, and the last good numbers stay.
        good = page.evaluate(READ_STEPS_TABLE, editor.element_handle())
        text_box(editor, "x2").fill("abc")
        text_box(editor, "x2").press("Enter")
        message = editor.locator("text=⚠")
        message.first.wait_for(timeout=10_000)
        words = message.first.text_content()
        assert "Value 2" in words and "'abc' is not a number" in words, words
        assert "Traceback" not in editor.text_content() and "Error" not in words
        assert page.evaluate(READ_STEPS_TABLE, editor.element_handle()) == good
        save_screenshot(page, "learner/row_editor_bad_value")
    finally:
        close_notebook(page)


def explorer_line(explorer, label: str):
    """The text of the explorer's line for stage ``label``, or None when it is not shown."""
    return explorer.evaluate("""(root, label) => {
        const row = [...root.querySelectorAll('tr')].find(tr => tr.querySelector('th')
            && tr.querySelector('th').textContent.trim() === label);
        return row ? row.textContent : null;
    }""", label)


def walk_through_every_stage(page, explorer, row, places=3) -> None:
    """Press Next through every stage; after each, check the position and that stage's numbers."""
    hand = by_hand(row, places)
    first = explorer_line(explorer, "input")
    assert first is not None and first.endswith("(" + ", ".join(str(v) for v in hand["input"]) + ")"), first
    next_button = explorer.locator("button", has_text="Next ▶")
    for position, stage in enumerate(WALKTHROUGH[1:], start=2):
        next_button.click()
        page.wait_for_function("""([root, text]) => root.textContent.includes(text)""",
                               arg=[explorer.element_handle(), f"step {position} of {len(WALKTHROUGH)}: {stage}"],
                               timeout=10_000, polling=50)
        line = explorer_line(explorer, stage)
        assert line is not None, f"after {position - 1} presses of Next, the {stage} line is not shown"
        assert line.endswith(stage_result(stage, hand)), f"{stage}: {line!r} should end {stage_result(stage, hand)!r}"
        hidden = WALKTHROUGH[position:]
        assert all(explorer_line(explorer, later) is None for later in hidden), f"stages after {stage} are shown"
    assert next_button.is_disabled(), "Next should be disabled at the last stage"


def test_step_explorer_as_a_learner(lab_page):
    page = lab_page
    report = open_and_run(page, "notebooks/03_variance.ipynb")
    try:
        assert not report["problems"], report["problems"]
        assert page.evaluate(MARK_OUTPUT, ["widgets.step_explorer(x, row=0, decimals=3)", "explorer"])
        explorer = page.locator('[data-test="explorer"]')
        walk_through_every_stage(page, explorer, X[0])
        save_screenshot(page, "learner/step_explorer_row_1_all_stages")

        # Pick row 5: the same stage (output) now shows row 5's numbers, drifted by rounding.
        explorer.locator("select").select_option(label="row 5")
        expected = stage_result("output", by_hand(X[4]))
        page.wait_for_function("""([root, text]) => root.textContent.includes(text)""",
                               arg=[explorer.element_handle(), expected], timeout=10_000, polling=50)
        assert explorer_line(explorer, "output").endswith(expected)
        explorer.locator("button", has_text="◀ Previous").click()
        page.wait_for_function("""([root, text]) => root.textContent.includes(text)""",
                               arg=[explorer.element_handle(), "step 8 of 9: normalised"], timeout=10_000)
        assert explorer_line(explorer, "output") is None
    finally:
        close_notebook(page)


def test_jupyterlab_shuts_down_cleanly(lab, lab_page):
    lab_page.context.close()
    left = lab.stop()
    assert not left, f"processes left running after JupyterLab shut down: {left}\n{lab.log_tail()}"


# ---------------------------------------------------------------------------------------------
# 3. The lecture, presented in Voilà


@pytest.fixture(scope="module")
def voila(served_folder):
    home, folder = served_folder
    command = [sys.executable, "-m", "voila", LECTURE, "--no-browser", "--Voila.ip=127.0.0.1", "--port={port}",
               "--Voila.port_retries=0", "--token={token}"]
    server = JupyterServer(command, folder, home, "voila", ready_path="/voila/static/voila.js")
    yield server
    server.stop()


def test_lecture_in_voila_steps_through_every_stage(voila, browser):
    context = offline_context(browser, (voila.base,))
    page = context.new_page()
    try:
        page.goto(voila.url("/"))
        page.wait_for_selector("button:has-text('Next ▶')", timeout=120_000)
        page.wait_for_load_state("networkidle")
        assert page.locator("text=There was an error when executing cell").count() == 0
        assert page.locator('[data-mime-type="application/vnd.jupyter.stderr"]').count() == 0
        shown = page.locator("body").inner_text()
        assert "step_explorer(" not in shown and "import helpers" not in shown, "code is visible in the lecture"
        save_screenshot(page, "voila/lecture_start")

        explorer = page.locator(".jupyter-widgets.widget-vbox", has=page.locator("button", has_text="Next ▶")).first
        walk_through_every_stage(page, explorer, X[0])
        save_screenshot(page, "voila/lecture_after_next")

        # The ε slide: Keras' 1e-3 on row 5, by keyboard on the slider.
        eps_editor = page.locator(".jupyter-widgets.widget-vbox", has=page.locator("text=exact ε:")).last
        eps = move_eps_slider(page, eps_editor, steps=20)
        assert 0.9e-3 <= eps <= 1.1e-3, eps
        wait_for_table(page, eps_editor, expected_numbers(X[4], eps))
    finally:
        context.close()
    assert not context.outside_requests or all("fontawesome" in url for url in context.outside_requests), (
        f"the lecture asked for outside addresses: {sorted(set(context.outside_requests))}")


def test_voila_shuts_down_cleanly(voila):
    left = voila.stop()
    assert not left, f"processes left running after Voilà shut down: {left}\n{voila.log_tail()}"
