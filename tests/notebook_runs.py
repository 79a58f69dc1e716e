"""Each notebook run once in the browser tests' JupyterLab, and everything that run showed kept for the tests.

Opening a notebook, Run All and its kernel cost most of a browser test's time. So each notebook is run once per
pytest run, on the shared session's laptop page (1024 × 768, the file browser open: lab_driver's
``SharedSession.laptop_page``), and what was seen is kept in ``session.runs``:

- ``report``: every cell ran, every widget drew, nothing on stderr (tests/browser/test_browser.py);
- ``axe``: axe-core's scan of the series' own content as run (tests/browser/test_accessibility.py);
- ``laptop``: every stage of every step-through and fold looked at in a window of 1024 and 1366 px
  (laptop_support.walk_and_look; tests/browser/test_laptop_stages.py), for the notebooks of notebooks/;
  if the walk itself broke, ``laptop`` says how, and the report and the scan are kept all the same.

Screenshots: the whole notebook as run (tests/_artifacts/jupyterlab/), and the walk's (laptop_support).
"""

from __future__ import annotations

from pathlib import Path

from patience import scaled_ms

from accessibility_support import axe_scan
from lab_driver import (
    CELL_TIMEOUT_MS,
    FINISHED,
    REPORT,
    RUN_ALL,
    WIDGETS_DRAWN,
    close_notebook,
    open_notebook,
    open_sidebar,
    save_screenshot,
    shared_session,
)
from laptop_support import resize, walk_and_look

# The series' own content in JupyterLab: cell outputs and rendered markdown, not JupyterLab's chrome.
NOTEBOOK_CONTENT = ".jp-NotebookPanel .jp-OutputArea-output, .jp-NotebookPanel .jp-MarkdownOutput"


def run_notebook_once(path: str) -> dict:
    """What the one Run All of ``path`` showed (see the module's docstring): run on the first call of a pytest
    run, kept for the others. A run that did not finish raises, and is tried again by the next caller."""
    session = shared_session()
    if path in session.runs:
        return session.runs[path]
    page = session.laptop_page()
    resize(page, "1024")
    open_notebook(page, path)
    try:
        open_sidebar(page)
        page.evaluate(RUN_ALL)
        page.wait_for_function(FINISHED, timeout=scaled_ms(CELL_TIMEOUT_MS), polling=100)
        try:
            page.wait_for_function(WIDGETS_DRAWN, timeout=scaled_ms(20_000), polling=100)
            drawn = True
        except Exception:  # noqa: BLE001 - the report says which widget did not draw
            drawn = False
        result = {"report": page.evaluate(REPORT), "axe": axe_scan(page, NOTEBOOK_CONTENT), "laptop": None}
        result["sidebar_open"] = not page.evaluate("() => window.jupyterapp.shell.leftCollapsed")
        save_screenshot(page, f"jupyterlab/{Path(path).stem}")
        if path.startswith("notebooks/"):
            try:
                result["laptop"] = walk_and_look(page, Path(path).stem) if drawn else {"error": "widgets not drawn"}
            except Exception as error:  # noqa: BLE001 - kept for the laptop test; the run's other findings stand
                result["laptop"] = {"error": f"{type(error).__name__}: {str(error).splitlines()[0][:300]}"}
    finally:
        close_notebook(page)
    session.runs[path] = result
    return result
