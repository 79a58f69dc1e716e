"""What the browser tests share: finding Chromium, starting a Jupyter server, and cleaning up.

The tests drive Debian's Chromium (``/usr/bin/chromium``) through Python Playwright, by its
executable path, so no browser is ever downloaded. Without Chromium or Playwright they skip with a
one-line reason saying how to install them; with ``REQUIRE_BROWSER=1`` (set by ``.ci/run``) a skip
becomes a failure, so CI can never pass by not testing.
"""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = ROOT / "tests" / "_artifacts"  # screenshots; git ignores this folder

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
VIEWPORT = {"width": 1280, "height": 900}
INSTALL_HINT = "install it with `apt-get install chromium` (Debian/Ubuntu) and `pip install -r requirements.txt`"


def chromium_path() -> str | None:
    for candidate in (
        os.environ.get("CHROMIUM"),
        shutil.which("chromium"),
        "/usr/bin/chromium",
        shutil.which("chromium-browser"),
    ):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def missing_browser() -> str | None:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return f"needs the Python package playwright: {INSTALL_HINT}"
    if chromium_path() is None:
        return f"needs headless Chromium: {INSTALL_HINT}"
    return None


def skip_or_fail(reason: str) -> None:
    """Skip with ``reason``; fail instead when REQUIRE_BROWSER=1 (CI must never skip these)."""
    if os.environ.get("REQUIRE_BROWSER") == "1":
        pytest.fail(f"REQUIRE_BROWSER=1 but the browser tests cannot run: {reason}", pytrace=False)
    pytest.skip(reason)


def require_browser() -> None:
    reason = missing_browser()
    if reason:
        skip_or_fail(reason)


@contextlib.contextmanager
def chromium():
    """A headless Chromium driven by Playwright; closed (with its processes) on exit."""
    from playwright.sync_api import sync_playwright

    if _SESSION:  # the shared session's Playwright runs in this thread, and a second one cannot start here
        browser = _SESSION[0]._playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()
        return
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium_path(), headless=True, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def child_pids(pid: int) -> set[int]:
    """Every live process below ``pid`` (read from /proc, so Linux only; elsewhere an empty set)."""
    parents: dict[int, list[int]] = {}
    for entry in Path("/proc").glob("[0-9]*"):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if fields[0] != "Z":  # a zombie has exited already
            parents.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


class JupyterServer:
    """A Jupyter server (``jupyter lab`` or ``voila``) of our own on 127.0.0.1, a free port and a token.

    Its config, data, settings and workspace folders are temporary, so it neither reads nor
    writes the user's; ``stop()`` shuts it down through its API, waits for it and every process it
    started (kernels) to exit, and returns the pids that were still alive and had to be killed.
    """

    def __init__(self, command: list[str], folder: Path, home: Path, name: str, ready_path: str = "/api/status"):
        """``command`` may use ``{port}`` and ``{token}``; ``ready_path`` answers 200 once it serves."""
        self.port = free_port()
        self.token = secrets.token_hex(16)
        self.name, self.folder, self.ready_path = name, folder, ready_path
        self.base = f"http://127.0.0.1:{self.port}"
        self.log_path = home / f"{name}.log"
        env = dict(os.environ)
        env.update(
            JUPYTER_CONFIG_DIR=str(home / "config"),
            JUPYTER_DATA_DIR=str(home / "data"),
            JUPYTER_RUNTIME_DIR=str(home / "runtime"),
            JUPYTERLAB_SETTINGS_DIR=str(home / "lab-settings"),
            JUPYTERLAB_WORKSPACES_DIR=str(home / "lab-workspaces"),
            IPYTHONDIR=str(home / "ipython"),
            PYDEVD_DISABLE_FILE_VALIDATION="1",
            PYTHONHASHSEED="0",
        )
        self.log = open(self.log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed in stop()
        command = [part.replace("{port}", str(self.port)).replace("{token}", self.token) for part in command]
        self.process = subprocess.Popen(
            command,
            cwd=folder,
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        self._wait_until_ready()

    def url(self, path: str) -> str:
        separator = "&" if "?" in path else "?"
        return f"{self.base}{path}{separator}token={self.token}"

    def _wait_until_ready(self, timeout: float = 90.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"{self.name} exited at start (code {self.process.returncode}):\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url(self.ready_path), timeout=5) as response:
                    if response.status == 200:
                        return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"{self.name} did not answer within {timeout:.0f} s:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        if not self.log.closed:
            self.log.flush()
        return "\n".join(self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])

    def stop(self, timeout: float = 30.0) -> list[int]:
        """Shut down cleanly; return the pids that had to be killed (empty when the shutdown was clean)."""
        started = child_pids(self.process.pid) | {self.process.pid}
        if self.process.poll() is None:
            try:
                request = urllib.request.Request(self.url("/api/shutdown"), method="POST")
                urllib.request.urlopen(request, timeout=10).close()
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                self.process.send_signal(signal.SIGTERM)  # voila has no shutdown API: SIGTERM is its clean stop
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                pass
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(alive(pid) for pid in started):
            time.sleep(0.1)
        left = sorted(pid for pid in started if alive(pid))
        for pid in left:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=10)
        self.log.close()
        return left


def jupyter_lab(folder: Path, home: Path) -> JupyterServer:
    """JupyterLab serving ``folder``: no browser, no news, no update checks, windowing off, app exposed."""
    settings = home / "lab-settings"
    for plugin, values in {
        "@jupyterlab/apputils-extension/notification": '{"fetchNews": "false", "checkForUpdates": false}',
        # Every cell in the DOM, so the tests see every output (JupyterLab otherwise virtualises).
        "@jupyterlab/notebook-extension/tracker": '{"windowingMode": "none"}',
    }.items():
        path = settings / (plugin + ".jupyterlab-settings")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(values, encoding="utf-8")
    command = [
        sys.executable,
        "-m",
        "jupyter",
        "lab",
        "--no-browser",
        "--ServerApp.ip=127.0.0.1",
        "--ServerApp.port={port}",
        "--ServerApp.port_retries=0",
        "--IdentityProvider.token={token}",
        f"--ServerApp.root_dir={folder}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.expose_app_in_browser=True",
        "--allow-root",
    ]
    return JupyterServer(command, folder, home, "jupyterlab")


def copy_for_serving(destination: Path, folders=("notebooks", "lecture", "data")) -> Path:
    """A temporary copy of the repository's notebooks, so autosave can never touch the real ones."""
    for name in folders:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(
                source, destination / name, ignore=shutil.ignore_patterns(".ipynb_checkpoints", "__pycache__", "_build")
            )
    return destination


def offline_context(browser, allowed: tuple[str, ...], record_images: bool = False):
    """A browser context that may only load addresses starting with one of ``allowed``: anything else
    is blocked and recorded in ``context.outside_requests`` (pictures only with ``record_images``:
    notebooks show the Open-in-Colab badge from its site, which is content, not the app calling out)."""
    context = browser.new_context(viewport=VIEWPORT)
    context.outside_requests = []

    def route(request_route):
        url = request_route.request.url
        if url.startswith(allowed + ("data:", "blob:", "about:")):
            request_route.continue_()
        else:
            if record_images or request_route.request.resource_type != "image":
                context.outside_requests.append(url)
            request_route.abort()

    context.route("**/*", route)
    return context


# --------------------------------------------------------------------------------------------
# Driving JupyterLab through its own commands (window.jupyterapp, exposed by the server's settings)

CELL_TIMEOUT_MS = 120_000
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


# --------------------------------------------------------------------------------------------
# One JupyterLab, one browser and one page for every browser test module of a pytest run


class SharedSession:
    """Chromium, a JupyterLab serving a temporary copy of the notebooks, and one JupyterLab page.

    Made once per pytest run by :func:`shared_session` (tests/test_browser.py and
    tests/test_accessibility.py both use it, so their notebooks are run once), closed when pytest
    ends. ``runs`` keeps each notebook's Run All result (see :func:`run_notebook_once`).
    """

    def __init__(self, home: Path):
        from playwright.sync_api import sync_playwright

        self.home = home
        self.folder = copy_for_serving(home / "root")
        self.runs: dict[str, dict] = {}
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


_SESSION: list[SharedSession] = []


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
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell", timeout=60_000)
    page.evaluate("async () => { await window.jupyterapp.started; await window.jupyterapp.restored; }")
    page.evaluate("""async () => {  // more room for the notebook: no file browser
        const app = window.jupyterapp;
        if (!app.shell.leftCollapsed) await app.commands.execute('application:toggle-left-area');
        for (const widget of [...app.shell.widgets('main')]) widget.close();  // the Launcher
    }""")


def run_notebook_once(page, path: str) -> dict:
    """Open ``path``, Run All, and keep what the tests check: the widget ``report``, the ``axe`` scan of
    the series' own content (None when axe-core cannot be had) and a screenshot; then close it. A
    second call for the same path returns the kept result, so two test files share one run."""
    session = _SESSION[0] if _SESSION else None
    if session is not None and path in session.runs:
        return session.runs[path]
    from accessibility_support import axe_scan

    try:
        report = open_and_run(page, path)
        scan = axe_scan(page, NOTEBOOK_CONTENT)
        save_screenshot(page, f"jupyterlab/{Path(path).stem}")
    finally:
        close_notebook(page)
    result = {"report": report, "axe": scan}
    if session is not None:
        session.runs[path] = result
    return result


# The series' own content in JupyterLab: cell outputs and rendered markdown, not JupyterLab's chrome.
NOTEBOOK_CONTENT = ".jp-NotebookPanel .jp-OutputArea-output, .jp-NotebookPanel .jp-MarkdownOutput"


# --------------------------------------------------------------------------------------------
# Expected numbers, in plain Python (never through helpers)

X = [
    [1.133, -0.299, 0.503],
    [-0.176, 0.911, 0.143],
    [0.766, 0.781, -0.518],
    [1.601, -0.669, 0.368],
    [0.663, 0.779, 0.648],
]


def exact_steps(row, eps=1e-5):
    """LayerNorm of one row, exactly (float64), γ = 1 and β = 0."""
    n = len(row)
    mean = sum(row) / n
    variance = sum((v - mean) ** 2 for v in row) / n
    std = math.sqrt(variance + eps)
    return {"mean": mean, "variance": variance, "std": std, "normalised": [(v - mean) / std for v in row]}


def four(value: float) -> str:
    """A number as the widgets show it: 4 places, never -0.0000."""
    text = f"{value:.4f}"
    return "0.0000" if float(text) == 0 else text


def by_hand(row, places=3, eps=1e-5):
    """Row ``row`` worked on paper: every stage rounded half up to ``places`` before the next one."""
    unit = Decimal(1).scaleb(-places)

    def keep(value: Decimal) -> Decimal:
        return value.quantize(unit, rounding=ROUND_HALF_UP)

    x = [Decimal(repr(v)) for v in row]
    mean = keep(sum(x) / len(x))
    differences = [keep(v - mean) for v in x]
    squares = [keep(d * d) for d in differences]
    variance = keep(sum(squares) / len(x))
    std = keep((variance + Decimal(repr(eps))).sqrt())
    normalised = [keep(d / std) for d in differences]
    return {
        "input": x,
        "mean": mean,
        "differences": differences,
        "squares": squares,
        "variance": variance,
        "variance + ε": variance + Decimal(repr(eps)),
        "std": std,
        "normalised": normalised,
        "output": normalised,
    }


WALKTHROUGH = ["input", "mean", "differences", "squares", "variance", "variance + ε", "std", "normalised", "output"]


def stage_result(stage: str, hand: dict) -> str:
    """How the explorer ends the line of ``stage``: ``= 0.446`` or ``= (0.687, -0.745, 0.057)``."""
    value = hand[stage]
    if stage == "variance + ε":
        return f"= {value:.6f}"
    if isinstance(value, list):
        return "= (" + ", ".join(str(v) for v in value) + ")"
    return f"= {value}"
