"""The lesson series in one place: which notebooks exist, in what order, and their shared chrome.

Every notebook starts with a header cell and a set-up cell and ends with a footer cell, all
generated from this file by ``tools/build/notebook_chrome.py`` (never edit those cells by hand: edit this
file and run ``python tools/build/notebook_chrome.py``). ``tests/notebooks/test_notebook_hygiene.py`` fails when a
notebook's chrome is out of date, or when this list and ``notebooks/`` disagree.
"""

from __future__ import annotations

from dataclasses import dataclass

# The repository's public address, in one place: the Colab and Binder badges (in every notebook and
# in README.md) and the clone in every set-up cell are generated from it. It must be the published,
# public repository (Colab clones it without a login; a private or wrong address makes every set-up
# cell stop with "could not be read"). PLACEHOLDER until the repository is published: change it here,
# then run `python3 tools/build/notebook_chrome.py && python3 run.py execute` (every badge and set-up cell,
# then the stored outputs).
REPOSITORY_URL = "https://github.com/layernorm-step-by-step/layernorm-step-by-step"
# The set-up cell clones from this environment variable when it is set: tests/notebooks/test_colab_setup.py
# points it at a local copy. Learners never need it.
REPOSITORY_VARIABLE = "LAYERNORM_REPOSITORY"
CLONE_FOLDER = "layernorm-step-by-step"  # where Colab's copy goes, inside Colab's working folder

SERIES_TITLE = "LayerNorm, Step by Step"
COLAB_BADGE_IMAGE = "https://colab.research.google.com/assets/colab-badge.svg"
BINDER_BADGE_IMAGE = "https://mybinder.org/badge_logo.svg"

# Packages the notebooks need that Google Colab does not already have (pip names). Colab ships
# numpy, matplotlib, ipywidgets 7.7.1 and its own torch, which the notebooks use as they are, so
# nothing is installed; never list those here (installing them would upgrade Colab's own).
COLAB_MISSING_PACKAGES: tuple[str, ...] = ()


@dataclass(frozen=True)
class Notebook:
    file: str  # file name inside notebooks/
    title: str  # short title, used in headings, the roadmap and the footer
    goal: str  # one line: what the learner does in this notebook

    @property
    def number(self) -> str:
        return self.file[:2]


NOTEBOOKS = (
    Notebook("00_contents.ipynb", "Contents", "See what the series covers and how to use it."),
    Notebook(
        "01_residual_matrix.ipynb",
        "The residual matrix",
        "Meet the 5 × 3 matrix that LayerNorm works on: rows are tokens, columns are features.",
    ),
    Notebook("02_mean.ipynb", "The mean", "Find the centre of each row: its mean."),
    Notebook("03_variance.ipynb", "The variance", "Measure how far each row spreads around its mean."),
    Notebook(
        "04_epsilon_and_std.ipynb",
        "Epsilon and the standard deviation",
        "Add a tiny ε to the variance so that nothing divides by zero, then take the square root.",
    ),
    Notebook(
        "05_normalise.ipynb",
        "Normalising",
        "Divide by the standard deviation, so every row gets mean 0 and variance close to 1.",
    ),
    Notebook("06_gamma_and_beta.ipynb", "Gamma and beta", "Scale and shift each feature with γ and β."),
    Notebook(
        "07_whole_matrix.ipynb",
        "The whole matrix",
        "Normalise all five rows, and catch the mistakes in the lesson's published table.",
    ),
    Notebook(
        "08_pytorch.ipynb",
        "LayerNorm in PyTorch",
        "Write the lesson's PyTorch module and check it against nn.LayerNorm.",
    ),
    Notebook(
        "09_numerics.ipynb",
        "Numerics",
        "See the one-pass variance formula fail in float32 and float16, and what stays right instead.",
    ),
    Notebook(
        "10_norm_family.ipynb",
        "The norm family",
        "Compare LayerNorm with BatchNorm and RMSNorm, see where it sits in a block, and learn γ and β.",
    ),
    Notebook(
        "11_backward_pass.ipynb",
        "The backward pass",
        "Derive LayerNorm's gradient, check it against autograd, and see what its Jacobian ignores.",
    ),
    Notebook(
        "12_speed.ipynb", "Speed", "Time LayerNorm honestly, in cache and from memory, and see which ceiling limits it."
    ),
    Notebook(
        "13_is_this_layernorm.ipynb",
        "Is this LayerNorm?",
        "Fingerprint any LayerNorm, code or printed table: its variance, ε, axis and formula, found by probing.",
    ),
)

CONTENTS = NOTEBOOKS[0]


def notebook(file: str) -> Notebook:
    """The series entry for a notebook file name, e.g. ``"02_mean.ipynb"``."""
    for entry in NOTEBOOKS:
        if entry.file == file:
            return entry
    raise ValueError(f"{file} is not in the series; add it to NOTEBOOKS in tools/build/series.py.")


def _owner_and_name() -> str:
    return REPOSITORY_URL.removeprefix("https://github.com/").strip("/")


def colab_url(file: str) -> str:
    """The address that opens ``notebooks/<file>`` from the repository in Google Colab."""
    return f"https://colab.research.google.com/github/{_owner_and_name()}/blob/main/notebooks/{file}"


def colab_badge(file: str) -> str:
    return f"[![Open In Colab]({COLAB_BADGE_IMAGE})]({colab_url(file)})"


def binder_url(file: str = "00_contents.ipynb") -> str:
    """The address that opens the repository on Binder, in JupyterLab, at ``notebooks/<file>``."""
    return f"https://mybinder.org/v2/gh/{_owner_and_name()}/HEAD?urlpath=lab/tree/notebooks/{file}"


def _label(entry: Notebook) -> str:
    return entry.title if entry is CONTENTS else f"{entry.number} {entry.title}"


def roadmap_line(file: str) -> str:
    """'You are here': every step of the series, each a link, the current one in bold."""
    steps = []
    for entry in NOTEBOOKS:
        if entry.file == file:
            steps.append(f"**{_label(entry)}**")
        else:
            steps.append(f"[{_label(entry)}]({entry.file})")
    return "**You are here:** " + " → ".join(steps)


def header_markdown(file: str) -> str:
    """The first cell of a notebook: title, goal, roadmap and the Open-in-Colab badge."""
    entry = notebook(file)
    title = f"{SERIES_TITLE}: {entry.title}" if entry is CONTENTS else f"{entry.number} · {entry.title}"
    badge = colab_badge(file)
    return "\n".join(
        [
            f"# {title}",
            "",
            f"**Goal:** {entry.goal}",
            "",
            roadmap_line(file),
            "",
            badge,
        ]
    )


SETUP_TITLE = "Set-up: run this cell first; it makes `import helpers` work here, on Binder and in Colab"
FETCH_TIMEOUT_VARIABLE = "LAYERNORM_FETCH_TIMEOUT"  # seconds; tests shorten it (default 120)
# Notebook metadata of the set-up cell: folded in JupyterLab and Notebook 7 (source_hidden) and shown
# as its title only in Colab (cellView "form" with the #@title line), so a learner's eye skips it.
SETUP_CELL_METADATA = {"cellView": "form", "jupyter": {"source_hidden": True}}


def setup_source() -> str:
    """The second cell of every notebook: make ``import helpers`` work, locally, on Binder and in Colab.

    In Google Colab (where the notebook arrives alone) it clones the repository's helpers and data once,
    into the working folder, and installs only what Colab lacks (today: nothing); elsewhere it adds
    the repository folder to ``sys.path`` when ``helpers`` is not installed. Outside Colab it prints
    nothing. When the fetch fails, the cell stops with one plain sentence (no traceback) saying what
    happened and what to do: git never asks for a login (GIT_TERMINAL_PROMPT=0), a hung fetch stops
    after a time limit, and a copy without helpers or data (an earlier fetch cut short) is fetched again.
    """
    install = ""
    if COLAB_MISSING_PACKAGES:
        packages = ", ".join(repr(name) for name in COLAB_MISSING_PACKAGES)
        install = f'    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", {packages}], check=True)\n'
    return (
        f"#@title {SETUP_TITLE}\n"
        "import importlib.util, os, re, shutil, subprocess, sys  # noqa: E401 (one line: a short cell)\n"
        "from pathlib import Path\n"
        "\n"
        "\n"
        "class SetupProblem(Exception):\n"
        "    def _render_traceback_(self):  # shown as one plain sentence, without a traceback\n"
        '        return [f"Set-up stopped: {self}"]\n'
        "\n"
        "\n"
        "def fetch_lesson(repository, folder):\n"
        '    if (folder / "helpers" / "__init__.py").is_file() and (folder / "data").is_dir():\n'
        "        return  # fetched already\n"
        "    shutil.rmtree(folder, ignore_errors=True)  # an incomplete copy is fetched again\n"
        f'    limit = float(os.environ.get("{FETCH_TIMEOUT_VARIABLE}", "120"))\n'
        '    command = ["git", "clone", "--quiet", "--depth", "1", repository, str(folder)]\n'
        "    try:\n"
        "        done = subprocess.run(command, capture_output=True, text=True, timeout=limit,\n"
        '                              env={**os.environ, "GIT_TERMINAL_PROMPT": "0"})  # never ask for a login\n'
        "    except subprocess.TimeoutExpired:\n"
        "        shutil.rmtree(folder, ignore_errors=True)\n"
        '        raise SetupProblem(f"fetching {repository} took longer than {limit:g} s; check the internet "\n'
        '                           "connection and run this cell again.") from None\n'
        "    if done.returncode == 0:\n"
        "        return\n"
        "    shutil.rmtree(folder, ignore_errors=True)\n"
        '    if re.search(r"resolve host|unable to access|failed to connect|unreachable", done.stderr, re.I):\n'
        '        raise SetupProblem(f"could not reach {repository}: this runtime has no internet connection; "\n'
        '                           "check the connection and run this cell again.")\n'
        '    raise SetupProblem(f"{repository} could not be read: it does not exist or is not public "\n'
        '                       "(no GitHub login is needed); ask your teacher for the notebook\'s right link.")\n'
        "\n"
        "\n"
        'if "google.colab" in sys.modules:  # in Colab: fetch the lesson\'s helpers and data, once\n'
        f'    repository = os.environ.get("{REPOSITORY_VARIABLE}", "{REPOSITORY_URL}")\n'
        f'    fetch_lesson(repository, Path("{CLONE_FOLDER}").resolve())\n'
        f"{install}"
        f'    sys.path.insert(0, str(Path("{CLONE_FOLDER}").resolve()))\n'
        'elif importlib.util.find_spec("helpers") is None:  # run from notebooks/ without installing\n'
        "    sys.path.insert(0, str(Path.cwd().parent))\n"
        "\n"
        "import helpers"
    )


def footer_markdown(file: str) -> str:
    """The last cell of a notebook: ← previous · contents · next →."""
    position = [entry.file for entry in NOTEBOOKS].index(notebook(file).file)
    links = []
    if position > 0:
        previous = NOTEBOOKS[position - 1]
        links.append(f"[← {_label(previous)}]({previous.file})")
    if position > 1:  # (from notebook 01 the previous link already leads to the contents)
        links.append(f"[Contents]({CONTENTS.file})")
    if position + 1 < len(NOTEBOOKS):
        following = NOTEBOOKS[position + 1]
        links.append(f"[{_label(following)} →]({following.file})")
    return "---\n\n" + " · ".join(links)


def contents_table() -> str:
    """The table of notebooks in 00_contents.ipynb: number, title (a link) and goal."""
    lines = ["| | Notebook | What you do |", "|---|---|---|"]
    for entry in NOTEBOOKS[1:]:
        lines.append(f"| {entry.number} | [{entry.title}]({entry.file}) | {entry.goal} |")
    return "\n".join(lines)


def readme_table() -> str:
    """The series in README.md: one line per notebook with its Open-in-Colab badge, and the Binder badge."""
    lines = [
        f"[![Launch on Binder]({BINDER_BADGE_IMAGE})]({binder_url()}) opens the whole series in JupyterLab "
        "in your browser, nothing to install; each notebook's badge below opens it in Google Colab.",
        "",
        "| | Notebook | What you do | |",
        "|---|---|---|---|",
    ]
    for entry in NOTEBOOKS:
        lines.append(
            f"| {entry.number} | [{entry.title}](notebooks/{entry.file}) | {entry.goal} | {colab_badge(entry.file)} |"
        )
    return "\n".join(lines)
