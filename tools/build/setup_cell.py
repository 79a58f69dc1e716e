"""The set-up cell of every notebook ("Set-up: run this cell first"), written as an ordinary module.

The cell makes ``import helpers`` work, locally, on Binder and in Google Colab. In Colab (where the
notebook arrives alone) it clones the repository's helpers and data once, into the working folder;
elsewhere it adds the repository folder to ``sys.path`` when ``helpers`` is not installed. Outside
Colab it prints nothing. When the fetch fails, the cell stops with one plain sentence (no traceback)
saying what happened and what to do: git never asks for a login (GIT_TERMINAL_PROMPT=0), a hung fetch
stops after a time limit, and a copy without helpers or data (an earlier fetch cut short) is fetched again.
It installs nothing: Colab has everything the notebooks use (numpy, matplotlib, ipywidgets, torch), and
installing any of those would upgrade Colab's own. A package Colab lacks would be installed in
``set_up`` after ``fetch_lesson``, with ``subprocess.run([sys.executable, "-m", "pip", "install", ...])``.

:func:`cell_source` makes the cell from this file's text between the two "the cell" marker lines:
- a ``#@title`` line comes first (Colab then shows the folded cell as its title);
- the ``def set_up():`` line is dropped and the lines after it are un-indented, so the body of
  ``set_up`` is the cell's top level (here it is a function, so that importing this file runs nothing);
- each name in :data:`VALUES` is written as its value in double quotes, e.g. ``CLONE_FOLDER`` as
  ``"layernorm-step-by-step"``.
``tools/build/notebook_chrome.py`` writes the cell into every notebook; ``tests/notebooks/test_colab_setup.py``
tests the functions here directly, and the cell as stored in the notebooks in a simulated Colab.
The cell's code is laid out for reading in a notebook, like every notebook cell: ruff lints it, but does
not reformat it (``fmt: off``), nor sort its one-line import (``isort: off``).
"""

from tools.build.series import REPOSITORY_URL  # the badges' address too: it lives in series.py

# The cell's last line imports helpers for the notebook; nothing here uses the name.
# ruff: noqa: F401
# isort: off
# fmt: off
# ---- the cell starts here ----
import importlib.util, os, re, shutil, subprocess, sys  # noqa: E401 (one line: a short cell)
from pathlib import Path


class SetupProblem(Exception):
    def _render_traceback_(self):  # shown as one plain sentence, without a traceback
        return [f"Set-up stopped: {self}"]


def fetch_lesson(repository, folder):
    if (folder / "helpers" / "__init__.py").is_file() and (folder / "data").is_dir():
        return  # fetched already
    shutil.rmtree(folder, ignore_errors=True)  # an incomplete copy is fetched again
    limit = float(os.environ.get(FETCH_TIMEOUT_VARIABLE, "120"))
    command = ["git", "clone", "--quiet", "--depth", "1", repository, str(folder)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=limit,
                              env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})  # never ask for a login
    except subprocess.TimeoutExpired:
        shutil.rmtree(folder, ignore_errors=True)
        raise SetupProblem(f"fetching {repository} took longer than {limit:g} s; check the internet "
                           "connection and run this cell again.") from None
    if done.returncode == 0:
        return
    shutil.rmtree(folder, ignore_errors=True)
    if re.search(r"resolve host|unable to access|failed to connect|unreachable", done.stderr, re.I):
        raise SetupProblem(f"could not reach {repository}: this runtime has no internet connection; "
                           "check the connection and run this cell again.")
    raise SetupProblem(f"{repository} could not be read: it does not exist or is not public "
                       "(no GitHub login is needed); ask your teacher for the notebook's right link.")


def set_up():  # (this line is not in the cell: what follows is its top level)
    if "google.colab" in sys.modules:  # in Colab: fetch the lesson's helpers and data, once
        repository = os.environ.get(REPOSITORY_VARIABLE, REPOSITORY_URL)
        fetch_lesson(repository, Path(CLONE_FOLDER).resolve())
        sys.path.insert(0, str(Path(CLONE_FOLDER).resolve()))
    elif importlib.util.find_spec("helpers") is None:  # run from notebooks/ without installing
        sys.path.insert(0, str(Path.cwd().parent))

    import helpers
# ---- the cell ends here ----
# fmt: on
# isort: on

TITLE = "Set-up: run this cell first; it makes `import helpers` work here, on Binder and in Colab"
# The cell clones from this environment variable when it is set: tests/notebooks/test_colab_setup.py
# points it at a local copy. Learners never need it.
REPOSITORY_VARIABLE = "LAYERNORM_REPOSITORY"
CLONE_FOLDER = "layernorm-step-by-step"  # where Colab's copy goes, inside Colab's working folder
FETCH_TIMEOUT_VARIABLE = "LAYERNORM_FETCH_TIMEOUT"  # seconds; tests shorten it (default 120)
# The names the cell shows as their values.
VALUES = {
    "REPOSITORY_URL": REPOSITORY_URL,
    "REPOSITORY_VARIABLE": REPOSITORY_VARIABLE,
    "CLONE_FOLDER": CLONE_FOLDER,
    "FETCH_TIMEOUT_VARIABLE": FETCH_TIMEOUT_VARIABLE,
}
# The cell's notebook metadata: folded in JupyterLab and Notebook 7 (source_hidden) and shown as its
# title only in Colab (cellView "form" with the #@title line), so a learner's eye skips it.
METADATA = {"cellView": "form", "jupyter": {"source_hidden": True}}

_START, _END = "# ---- the cell starts here ----\n", "# ---- the cell ends here ----\n"
_TOP_LEVEL = "def set_up():"


def _cell_code(module_text: str) -> str:
    """The code between the markers, with set_up's body at the top level (what the cell runs)."""
    code = module_text.split(_START, 1)[1].split(_END, 1)[0]
    before, body = code.split("\n" + _TOP_LEVEL, 1)
    body_lines = body.split("\n")[1:]  # the rest of the def line goes too
    stray = [line for line in body_lines if line and not line.startswith("    ")]
    if stray:
        raise ValueError(f"after `{_TOP_LEVEL}` every line must be in its body; these are not: {stray}")
    return before + "\n" + "\n".join(line[4:] for line in body_lines)


def cell_source(module_text: str | None = None) -> str:
    """The set-up cell's text, made from this file (or from ``module_text``, a version of it)."""
    if module_text is None:
        module_text = Path(__file__).read_text(encoding="utf-8")
    code = _cell_code(module_text)
    for name, value in VALUES.items():
        if '"' in value or "\\" in value:
            raise ValueError(f"{name} cannot be written in double quotes: {value!r}")
        code, count = re.subn(rf"\b{name}\b", f'"{value}"', code)
        if not count:
            raise ValueError(f"the cell's code never uses {name}")
    return f"#@title {TITLE}\n" + code.rstrip("\n")
