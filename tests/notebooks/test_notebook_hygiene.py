"""Committed notebooks must be clean: valid, executed in order, nothing machine-specific stored.

What a learner opens (on GitHub, in Colab or in JupyterLab) is the stored notebook, so every
notebook in notebooks/ must have been executed top to bottom from a fresh kernel, keep no errors
or warnings, leak nothing from the machine that ran it, carry no stray metadata, store widgets in
a form GitHub's viewer can show, and have up-to-date generated chrome (tools/build/notebook_chrome.py).
"""

from __future__ import annotations

import getpass
import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS_DIR = ROOT / "notebooks"
NOTEBOOK_PATHS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))

ALLOWED_NOTEBOOK_METADATA = {"kernelspec", "language_info", "widgets"}
ALLOWED_CELL_METADATA = {
    "tags",
    "editable",
    "slideshow",
    "jupyter",
    "cellView",
}  # cellView: Colab folds the set-up cell

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"

# Paths that only exist on the machine that executed the notebook.
MACHINE_PATH = re.compile(r"/home/|/root/|/tmp/|/work/|/Users/|/content/|[A-Za-z]:\\\\?Users", re.IGNORECASE)
MEMORY_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")

# NBVAL_IGNORE_OUTPUT hides a cell's output from nbval, so every use must say why, on the marker's
# own line ("# NBVAL_IGNORE_OUTPUT: versions differ"), and they must stay rare.
IGNORE_MARKER = "NBVAL_IGNORE_OUTPUT"
IGNORE_WITH_REASON = re.compile(r"#\s*NBVAL_IGNORE_OUTPUT\s*[:—–-]\s*\w+")
MAX_IGNORED_CELLS = 3


def _load_tool(name: str):
    return importlib.import_module(f"tools.build.{name}")


def _read(path: Path):
    return nbformat.read(path, as_version=4)


def _code_cells(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def _output_texts(cell):
    """Every piece of text a code cell's outputs hold (streams, text/*, JSON as text)."""
    for output in cell.get("outputs", []):
        if output.output_type == "stream":
            yield output.get("text", "")
        elif output.output_type == "error":
            yield "\n".join(output.get("traceback", []))
        for mime, data in output.get("data", {}).items():
            if mime.startswith("image/") and mime != "image/svg+xml":
                continue  # base64 pictures
            yield data if isinstance(data, str) else str(data)


def _user_names() -> set[str]:
    """The name of whoever runs the tests, when it could only be a user name (not 'root', a word)."""
    try:
        name = getpass.getuser()
    except Exception:  # noqa: BLE001 (getpass raises several kinds) no user name available: nothing to look for
        return set()
    return {name} if len(name) >= 3 and name not in {"root", "user", "runner", "jovyan"} else set()


def _ids(paths):
    return [path.name for path in paths]


needs_notebooks = pytest.mark.skipif(not NOTEBOOK_PATHS, reason="notebooks/ has no notebooks yet")


@needs_notebooks
@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=_ids(NOTEBOOK_PATHS))
class TestEachNotebook:
    def test_is_valid_nbformat(self, path):
        nb = _read(path)
        nbformat.validate(nb)
        assert nb.nbformat == 4, f"{path.name}: nbformat {nb.nbformat}, expected 4"

    def test_every_code_cell_was_executed_in_order(self, path):
        counts = [cell.execution_count for cell in _code_cells(_read(path))]
        missing = [position for position, count in enumerate(counts, start=1) if count is None]
        assert not missing, (
            f"{path.name}: code cells {missing} (counting code cells from 1) were never "
            "executed; execute the notebook from a fresh kernel"
        )
        assert counts == list(range(1, len(counts) + 1)), (
            f"{path.name}: execution counts are {counts}, expected 1..{len(counts)} in order; execute the "
            "notebook top to bottom from a fresh kernel"
        )

    def test_no_errors_or_warnings_stored(self, path):
        problems = []
        for index, cell in enumerate(_read(path).cells):
            for output in cell.get("outputs", []):
                if output.output_type == "error":
                    problems.append(f"cell {index}: {output.ename}: {output.evalue}")
                elif output.output_type == "stream" and output.name == "stderr":
                    problems.append(f"cell {index}: stderr: {output.text.strip()[:120]}")
        assert not problems, f"{path.name} stores errors or warnings:\n" + "\n".join(problems)

    def test_outputs_hold_nothing_machine_specific(self, path):
        user_names = _user_names()
        problems = []
        for index, cell in enumerate(_read(path).cells):
            for text in _output_texts(cell):
                for pattern, what in ((MACHINE_PATH, "a machine path"), (MEMORY_ADDRESS, "a memory address")):
                    match = pattern.search(text)
                    if match:
                        start = max(0, match.start() - 40)
                        problems.append(f"cell {index}: {what}: …{text[start : match.end() + 40]!r}…")
                for name in user_names:
                    if re.search(rf"\b{re.escape(name)}\b", text):
                        problems.append(f"cell {index}: the user name {name!r}")
        assert not problems, f"{path.name} outputs hold machine-specific text:\n" + "\n".join(problems)

    def test_no_leftover_metadata(self, path):
        nb = _read(path)
        problems = [f"notebook metadata {key!r}" for key in sorted(set(nb.metadata) - ALLOWED_NOTEBOOK_METADATA)]
        for index, cell in enumerate(nb.cells):
            extra = sorted(set(cell.get("metadata", {})) - ALLOWED_CELL_METADATA)
            problems += [f"cell {index} metadata {key!r}" for key in extra]
        assert not problems, f"{path.name} has leftover metadata (strip it): " + ", ".join(problems)

    def test_widget_state_is_complete_or_absent(self, path):
        nb = _read(path)
        referenced = set()
        for cell in nb.cells:
            for output in cell.get("outputs", []):
                view = output.get("data", {}).get(WIDGET_VIEW)
                if view is not None:
                    referenced.add(view.get("model_id"))
        widgets = nb.metadata.get("widgets")
        if widgets is None:
            assert not referenced, (
                f"{path.name}: {len(referenced)} widget output(s) but no metadata.widgets; GitHub's viewer "
                f"shows an error. Store the widget state, or strip the {WIDGET_VIEW} output data"
            )
            return
        state = widgets.get(WIDGET_STATE, {}).get("state")
        assert isinstance(state, dict), (
            f"{path.name}: metadata.widgets has no {WIDGET_STATE!r} with a "
            "'state' key; GitHub's viewer shows \"'state' key is missing\""
        )
        missing = sorted(referenced - set(state))
        assert not missing, f"{path.name}: widget outputs refer to models missing from the stored state: {missing}"

    def test_nbval_ignore_output_is_rare_and_explained(self, path):
        for index, cell in enumerate(_read(path).cells):
            source = cell.source
            tagged = "nbval-ignore-output" in cell.get("metadata", {}).get("tags", [])
            if (IGNORE_MARKER in source or tagged) and not IGNORE_WITH_REASON.search(source):
                pytest.fail(
                    f"{path.name}, cell {index}: ignores its output without saying why; write "
                    f"'# {IGNORE_MARKER}: <reason>' in the cell"
                )

    def test_chrome_is_up_to_date(self, path):
        chrome = _load_tool("notebook_chrome")
        assert chrome.stale_notebooks([path]) == [], (
            f"{path.name}: the header, set-up or footer cell differs from tools/build/series.py or setup_cell.py; run "
            "`python tools/build/notebook_chrome.py` (then execute the notebook again if the set-up cell changed)"
        )


@needs_notebooks
def test_outputs_are_ignored_in_few_cells():
    ignored = []
    for path in NOTEBOOK_PATHS:
        for index, cell in enumerate(_read(path).cells):
            if IGNORE_MARKER in cell.source or "nbval-ignore-output" in cell.get("metadata", {}).get("tags", []):
                ignored.append(f"{path.name} cell {index}")
    assert len(ignored) <= MAX_IGNORED_CELLS, (
        f"{len(ignored)} cells hide their output from nbval (at most {MAX_IGNORED_CELLS}): " + ", ".join(ignored)
    )


def test_series_list_and_notebooks_folder_agree():
    series = _load_tool("series")
    listed = [entry.file for entry in series.NOTEBOOKS]
    on_disk = [path.name for path in NOTEBOOK_PATHS]
    assert len(set(listed)) == len(listed), f"tools/build/series.py lists a notebook twice: {listed}"
    assert listed == sorted(listed), "tools/build/series.py must list the notebooks in their numbered order"
    missing = [name for name in listed if name not in on_disk]
    unlisted = [name for name in on_disk if name not in listed]
    assert not missing, f"listed in tools/build/series.py but not in notebooks/: {missing}"
    assert not unlisted, f"in notebooks/ but not listed in tools/build/series.py: {unlisted}"
