"""What the browser tests share: finding Chromium, starting a Jupyter server, and cleaning up.

The tests drive Debian's Chromium (``/usr/bin/chromium``) through Python Playwright, by its
executable path, so no browser is ever downloaded. Without Chromium or Playwright they skip with a
one-line reason saying how to install them; with ``REQUIRE_BROWSER=1`` (set by ``.ci/run``) a skip
becomes a failure, so CI can never pass by not testing.
"""

from __future__ import annotations

import contextlib
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
from pathlib import Path

import pytest
from patience import Deadline, scaled_ms, scaled_s

from classroom.hub.proctree import alive, snapshot
from classroom.hub.proctree import descendants as child_pids  # the name the browser tests know it by

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
# What a quiet machine needs at most (tests/patience.py scales them): a page load, whose server may run a
# whole notebook first (Voila); an action or a wait for a state in a page that is already there.
PAGE_LOAD_MS = 180_000
ACTION_MS = 30_000
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


# The run's one shared session (tests/lab_driver.py shared_session), once started: chromium() reuses
# its Playwright, since a second Playwright cannot start in the same thread.
SHARED_SESSIONS: list = []


@contextlib.contextmanager
def chromium():
    """A headless Chromium driven by Playwright; closed (with its processes) on exit."""
    from playwright.sync_api import sync_playwright

    if SHARED_SESSIONS:
        browser = SHARED_SESSIONS[0]._playwright.chromium.launch(
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
        deadline = Deadline(timeout)
        while not deadline.expired():
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
        raise RuntimeError(f"{self.name} did not answer within {deadline}:\n{self.log_tail()}")

    def log_tail(self, lines: int = 30) -> str:
        if not self.log.closed:
            self.log.flush()
        return "\n".join(self.log_path.read_text(encoding="utf-8", errors="replace").splitlines()[-lines:])

    def stop(self, timeout: float = 30.0) -> list[int]:
        """Shut down cleanly; return the pids that had to be killed (empty when the shutdown was clean)."""
        # the processes, not only their ids: an id can be another process's by the time it is killed (proctree)
        started = snapshot(child_pids(self.process.pid) | {self.process.pid})
        if self.process.poll() is None:
            try:
                request = urllib.request.Request(self.url("/api/shutdown"), method="POST")
                urllib.request.urlopen(request, timeout=10).close()
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                self.process.send_signal(signal.SIGTERM)  # voila has no shutdown API: SIGTERM is its clean stop
            try:
                self.process.wait(timeout=scaled_s(timeout))
            except subprocess.TimeoutExpired:
                pass
        deadline = Deadline(10)
        while not deadline.expired() and any(alive(pid, start) for pid, start in started.items()):
            time.sleep(0.1)
        left = sorted(pid for pid, start in started.items() if alive(pid, start))
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


def voila_lecture(folder: Path, home: Path, name: str, options: tuple[str, ...] = ()) -> JupyterServer:
    """Voilà serving ``folder``'s lecture with `run.py lecture`'s own command line and environment (its
    template, its culling unless ``options`` set it), on a free port with a token of its own."""
    from tools.run.present import lecture_command, lecture_env

    require_browser()
    base = ["--no-browser", "--Voila.ip=127.0.0.1", "--port={port}", "--Voila.port_retries=0", "--token={token}"]
    command = lecture_command(sys.executable, [*base, *options])
    saved = dict(os.environ)
    os.environ.update(lecture_env(dict(os.environ)))  # JupyterServer starts it with this environment
    try:
        return JupyterServer(command, folder, home, name, ready_path="/voila/static/voila.js")
    finally:
        os.environ.clear()
        os.environ.update(saved)


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
    # The tests wait for states; these are only how long one may take before it is called lost, scaled to
    # the machine (tests/patience.py). A page that waits for a server: Voila sends its page only once the
    # kernel has run the notebook. An action (a click, a select_option) waits until its element is there,
    # visible and enabled, which on a busy machine can take longer than Playwright's default 30 s too.
    context.set_default_navigation_timeout(scaled_ms(PAGE_LOAD_MS))
    context.set_default_timeout(scaled_ms(ACTION_MS))
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
