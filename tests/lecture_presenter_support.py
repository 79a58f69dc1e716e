"""What the live lecture's key and presenter-view tests share: the lecture served as `run.py lecture` serves
it (with a short kernel culling time), a page of it once the widgets are live, and what the room sees."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from patience import scaled_ms, scaled_s

from browser_support import JupyterServer, child_pids, voila_lecture

ROOT = Path(__file__).resolve().parents[1]
# presenter.js has started and presenter_keep.js has put back what a reload kept (or had nothing to do).
READY = "() => window.lecturePresenter && document.body.dataset.lectureRestored === 'done'"
# The text of the cells drawn on the screen (presenting: the current slide's).
VISIBLE = (
    "() => [...document.querySelectorAll('#rendered_cells .jp-Cell')].filter(c => c.offsetParent)"
    ".map(c => c.innerText).join(' ')"
)
# Speaker notes drawn on the projector's window: there must never be any.
NOTES_DRAWN = "() => [...document.querySelectorAll('.jp-Cell')].filter(c => c.querySelector('.celltag_notes') && c.offsetParent).length"


def run_py():
    spec = importlib.util.spec_from_file_location("run_py", ROOT / "run.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def cull_seconds_for_tests() -> int:
    """The idle time after which a test's lecture server culls a kernel: 10 s on a quiet machine, times the
    machine's patience when the server starts. Not less: between Voilà running a page's notebook and the
    page's widgets connecting, the page's kernel is idle and unconnected. On a busy machine that gap took
    over 3 s (a 3 s cull left the page dead) and, at load 14 on two cores, long enough for 10 s too."""
    return round(scaled_s(10))


def start_lecture(home: Path, cull_seconds: int, cull_interval: int = 1) -> JupyterServer:
    """Voilà with the lecture's command line (run.py lecture), culling idle kernels after ``cull_seconds``."""
    culling = (
        f"--MappingKernelManager.cull_idle_timeout={cull_seconds}",
        f"--MappingKernelManager.cull_interval={cull_interval}",
    )
    server = voila_lecture(ROOT, home, "voila-lecture", culling)
    server.cull_seconds = cull_seconds
    return server


def open_lecture(context, server, width: int = 1280, height: int = 720, where: str = ""):
    """A new page of the lecture; ``where`` is added to the address (e.g. "#slide-3")."""
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.goto(server.url("/") + where, wait_until="commit")  # Voilà streams the page as the kernel runs it
    page.wait_for_function(READY, timeout=scaled_ms(180_000))
    return page


def slide_number(page, title: str) -> int:
    """The number (1-based) of the slide whose heading starts with ``title``: slides may be added."""
    number = page.evaluate(
        """(title) => 1 + window.lecturePresenter.state.slides.findIndex(cells =>
               (cells[0].querySelector('h1, h2') || {textContent: ''}).textContent.trim().startsWith(title))""",
        title,
    )
    assert number > 0, f"no slide titled {title!r}"
    return number


def go_to(page, title: str) -> int:
    """Show the slide titled ``title``; its number."""
    number = slide_number(page, title)
    page.evaluate("(i) => window.lecturePresenter.show(i)", number - 1)
    page.wait_for_function(f"() => location.hash === '#slide-{number}'")
    return number


def field(page, label: str):
    """The text box of the current slide's widget labelled ``label``."""
    return page.locator(".jp-Cell.lecture-current .widget-inline-hbox", has_text=label).locator("input").first


def kernels(server) -> list[int]:
    """The pids of the kernels the server has started and that are running."""
    found = []
    for pid in child_pids(server.process.pid):
        try:
            command = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if b"ipykernel" in command:
            found.append(pid)
    return found


def rss_mib(pids) -> float:
    """Resident memory of these processes together, in MiB (from /proc, so Linux only)."""
    total = 0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024
