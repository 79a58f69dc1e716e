"""Driving JupyterLab in the browser tests: open a notebook, Run All, read what its outputs show,
screenshots; and the one JupyterLab, browser and page every browser test module of a run shares.

JupyterLab is driven through its own commands (window.jupyterapp, exposed by the server's settings).
"""

from __future__ import annotations

import contextlib
import json
import shutil
from pathlib import Path

from patience import scaled_ms

from browser_support import (
    ARTIFACTS,
    CHROMIUM_ARGS,
    SHARED_SESSIONS,
    VIEWPORT,
    chromium_path,
    copy_for_serving,
    jupyter_lab,
    offline_context,
    require_browser,
)

CELL_TIMEOUT_MS = 120_000
LAPTOP = {"width": 1024, "height": 768}
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
TALLEST_SCREENSHOT = 16_000

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
# Run All is started, not awaited: its promise settles only when every cell has run, and a reply lost on the
# way would leave it waiting for ever (Playwright's evaluate has no time-out; seen once under load). The
# state FINISHED below is waited for instead, with a deadline.
RUN_ALL = """async () => {
    const app = window.jupyterapp;
    await app.commands.execute('notebook:clear-all-cell-outputs');
    app.commands.execute('notebook:run-all-cells');
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

WIDGETS_DRAWN = (
    """() => {
    const panel = window.testPanel;
    return panel.content.widgets.every(cell => {
        if (cell.model.type !== 'code') return true;
        return cell.model.outputs.toJSON().every((output, j) => {
            if (!output.data || !output.data['%s']) return true;
            const child = cell.outputArea.widgets[j];
            return child && child.node.querySelector('.jupyter-widgets') !== null;
        });
    });
}"""
    % WIDGET_VIEW
)

REPORT = (
    """() => {
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
            // a part of the widget whose view failed (ipywidgets draws an error icon in its place)
            if (child && child.node.querySelector('.jupyter-widgets-error-widget'))
                problems.push(`cell ${i}: a part of the widget failed to draw (error icon)`);
        });
    });
    const errorNodes = panel.node.querySelectorAll('[data-mime-type="application/vnd.jupyter.stderr"]').length;
    if (errorNodes) problems.push(`${errorNodes} error or stderr output(s) on the page`);
    return {problems, widgets, cells};
}"""
    % WIDGET_VIEW
)

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


def within(page, script: str, arg=None, *, what: str, ms: int):
    """``page.evaluate(script, arg)`` for an async ``script``, failing with "``what`` took longer than …" after
    ``ms`` milliseconds (on a quiet machine; scaled) instead of waiting for ever: Playwright's evaluate has
    no time-out of its own."""
    wrapped = f"""async ([arg, ms]) => {{
        const work = ({script})(arg);
        const late = new Promise((_, fail) => setTimeout(
            () => fail(new Error({json.dumps(what)} + ' took longer than ' + ms + ' ms')), ms));
        return await Promise.race([work, late]);
    }}"""
    return page.evaluate(wrapped, [arg, scaled_ms(ms)])


STARTED = "async () => { await window.jupyterapp.started; await window.jupyterapp.restored; }"


OPEN_SIDEBAR = """async () => {
    const app = window.jupyterapp;
    await app.commands.execute('filebrowser:activate');  // the file browser, as JupyterLab opens by default
    if (app.shell.leftCollapsed) await app.commands.execute('application:toggle-left-area');
}"""


def wait_until_started(page) -> None:
    """JupyterLab started and its workspace restored."""
    within(page, STARTED, what="JupyterLab's start and its workspace's restore", ms=60_000)


def open_sidebar(page) -> None:
    """The file browser open on the left, as JupyterLab opens on a laptop by default."""
    within(page, OPEN_SIDEBAR, what="opening the file browser", ms=30_000)


def open_notebook(page, path: str) -> str:
    """Open ``path`` in JupyterLab and wait until its kernel is ready; the panel's id."""
    return within(page, OPEN_NOTEBOOK, path, what=f"opening {path} and starting its kernel", ms=120_000)


def open_and_run(page, path: str) -> dict:
    open_notebook(page, path)
    page.evaluate(RUN_ALL)
    page.wait_for_function(FINISHED, timeout=scaled_ms(CELL_TIMEOUT_MS), polling=100)
    try:
        page.wait_for_function(WIDGETS_DRAWN, timeout=scaled_ms(20_000), polling=100)
    except Exception:  # noqa: BLE001 - the report below says which widget did not render
        pass
    return page.evaluate(REPORT)


def close_notebook(page) -> None:
    within(page, CLOSE, what="closing the notebook and shutting its kernel down", ms=60_000)


def save_screenshot(page, name: str) -> Path:
    """A screenshot of the whole document: the window is made as tall as the tallest thing that scrolls."""
    path = ARTIFACTS / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    height = page.evaluate("() => Math.max(...[...document.querySelectorAll('*')].map(node => node.scrollHeight))")
    page.set_viewport_size({"width": VIEWPORT["width"], "height": min(height + 120, TALLEST_SCREENSHOT)})
    within(
        page,
        """() => new Promise(done => requestAnimationFrame(() => {
        document.querySelectorAll('*').forEach(node => { if (node.scrollTop) node.scrollTop = 0; });
        requestAnimationFrame(done);
    }))""",
        what="two frames drawn for the screenshot",
        ms=10_000,
    )
    page.screenshot(path=str(path))
    page.set_viewport_size(VIEWPORT)
    return path


# --------------------------------------------------------------------------------------------
# One JupyterLab, one browser and one page for every browser test module of a pytest run


class SharedSession:
    """Chromium, a JupyterLab serving a temporary copy of the notebooks, and one JupyterLab page.

    Made once per pytest run by :func:`shared_session` (every module of tests/browser/ but those marked
    ``beside``), closed when pytest ends. ``runs`` keeps what each notebook's one Run All showed
    (tests/notebook_runs.py); :meth:`laptop_page` is a second page, as a student's laptop shows JupyterLab.
    """

    def __init__(self, home: Path):
        from playwright.sync_api import sync_playwright

        self.home = home
        self.folder = copy_for_serving(home / "root")
        self.runs: dict[str, dict] = {}
        self._laptop = None
        self._playwright = sync_playwright().start()
        try:
            self.browser = self._playwright.chromium.launch(
                executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
            )
            self.lab = jupyter_lab(self.folder, home)
            self.context = offline_context(self.browser, (self.lab.base,))
            self.page = self.context.new_page()
            open_lab(self.page, self.lab)
        except BaseException:
            self.close()
            raise

    def laptop_page(self):
        """A page of its own at 1024 × 768 with the file browser open, as JupyterLab opens on a laptop; made on
        first use. A workspace of its own: JupyterLab moves a second window on the default workspace to a new
        one (a navigation that would destroy the page's context under the next evaluate)."""
        if self._laptop is None or self._laptop.is_closed():
            page = self.context.new_page()
            page.set_viewport_size(LAPTOP)
            page.goto(self.lab.url("/lab/workspaces/laptop"), timeout=scaled_ms(180_000))
            page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=scaled_ms(60_000))
            wait_until_started(page)
            open_sidebar(page)
            self._laptop = page
        return self._laptop

    def alive(self) -> bool:
        lab = getattr(self, "lab", None)
        return lab is not None and lab.process.poll() is None and not self.page.is_closed()

    def close(self) -> None:
        for step in (
            lambda: self.context.close(),
            lambda: self.lab.stop(),
            lambda: self.browser.close(),
            lambda: self._playwright.stop(),
        ):
            with contextlib.suppress(Exception):
                step()


_SESSION = SHARED_SESSIONS  # list[SharedSession]: none, or the one started


def shared_session() -> SharedSession:
    """The run's shared browser session, started on first use (again if a test shut it down)."""
    require_browser()
    if not _SESSION or not _SESSION[0].alive():
        import tempfile

        if _SESSION:
            _SESSION.pop().close()
        home = Path(tempfile.mkdtemp(prefix="browser-tests-"))
        _SESSION.append(SharedSession(home))
        import atexit

        atexit.register(close_shared_session)
    return _SESSION[0]


def close_shared_session() -> None:
    while _SESSION:
        session = _SESSION.pop()
        session.close()
        shutil.rmtree(session.home, ignore_errors=True)


def open_lab(page, lab) -> None:
    page.goto(lab.url("/lab"))
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=scaled_ms(60_000))
    wait_until_started(page)
    within(
        page,
        """async () => {  // more room for the notebook: no file browser
        const app = window.jupyterapp;
        if (!app.shell.leftCollapsed) await app.commands.execute('application:toggle-left-area');
        for (const widget of [...app.shell.widgets('main')]) widget.close();  // the Launcher
    }""",
        what="closing the file browser and the Launcher",
        ms=30_000,
    )
