"""Google Colab, simulated here: every notebook's set-up cell fetches the lesson and imports helpers.

In Colab a notebook opened from its badge arrives alone, without this repository. Its set-up cell
(generated from tools/build/setup_cell.py, an ordinary module) then clones the repository's helpers and
data and imports them; outside Colab it does nothing visible. The module's functions are tested here
directly, and then the cell as stored in the notebooks, for every notebook:

- a local git remote is made from a copy of the working tree (committed in a temporary folder, so
  this works before anything is committed), and the set-up cell's clone address is pointed at it
  through LAYERNORM_REPOSITORY (and the fetch's time limit through LAYERNORM_FETCH_TIMEOUT), the
  only things the cell lets the environment change;
- a fresh kernel gets a fake ``google.colab`` module and cannot see this machine's ``helpers`` (Colab
  has none), runs the set-up cell as stored in the notebook, then the notebook's first cells.

The badges and the README's series table must come from the one repository address (see also
tools/build/notebook_chrome.py --check). This file needs no nbformat, so ``run.py test`` runs it again in
the Colab-like environment (Python 3.13, ipywidgets 7.7.1, numpy 2.1).
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import time
import types
from pathlib import Path

import pytest
from patience import scaled_s

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK_PATHS = sorted((ROOT / "notebooks").glob("*.ipynb"))
FIRST_CELLS = 3  # code cells run after the set-up cell
# What Colab already has: the set-up cell must never install (and so never upgrade) any of these.
COLAB_HAS = {
    "torch",
    "numpy",
    "ipywidgets",
    "matplotlib",
    "ipython",
    "ipykernel",
    "pandas",
    "scipy",
    "jupyter-client",
    "notebook",
    "traitlets",
}


def _series():
    return importlib.import_module("tools.build.series")


def _setup_cell():
    return importlib.import_module("tools.build.setup_cell")


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text(encoding="utf-8"))["cells"]


def _source(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def _tagged(path: Path, tag: str) -> dict:
    found = [cell for cell in _cells(path) if tag in cell.get("metadata", {}).get("tags", [])]
    assert len(found) == 1, f"{path.name}: {len(found)} cells tagged {tag!r}"
    return found[0]


# ---------------------------------------------------------------------------------------------
# The badges and the set-up cell, as written


def test_every_badge_opens_its_own_notebook_from_the_one_address():
    series = _series()
    owner_and_name = series.REPOSITORY_URL.removeprefix("https://github.com/").strip("/")
    assert re.fullmatch(r"[\w.-]+/[\w.-]+", owner_and_name), f"REPOSITORY_URL is not a GitHub address: {owner_and_name}"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in NOTEBOOK_PATHS:
        url = series.colab_url(path.name)
        assert url == f"https://colab.research.google.com/github/{owner_and_name}/blob/main/notebooks/{path.name}"
        badge = f"[![Open In Colab]({series.COLAB_BADGE_IMAGE})]({url})"
        assert badge in _source(_tagged(path, "chrome-header")), f"{path.name}: its header has no badge to {url}"
        assert url in readme, f"README.md has no Open-in-Colab badge for {path.name}"
    addresses = set(re.findall(r"https://colab\.research\.google\.com/github/[^)\s]+", readme))
    stale = sorted(a for a in addresses if a.rsplit("/", 1)[-1] not in {p.name for p in NOTEBOOK_PATHS})
    assert not stale, f"README.md has badges for notebooks that do not exist: {stale}"
    assert f"https://mybinder.org/v2/gh/{owner_and_name}/HEAD" in readme, "README.md has no Binder badge"


def test_readme_series_table_is_generated_and_up_to_date():
    pytest.importorskip("nbformat")
    chrome = importlib.import_module("tools.build.notebook_chrome")
    assert chrome.readme_is_up_to_date(), (
        "README.md's series table differs from tools/build/series.py; run `python tools/build/notebook_chrome.py`"
    )


def test_setup_cell_is_folded_and_installs_nothing_colab_has():
    setup_cell = _setup_cell()
    source = setup_cell.cell_source()
    assert len(source.splitlines()) <= 45, "keep the set-up cell short"
    assert source.startswith("#@title "), "Colab shows a cell as its title line only when it starts with #@title"
    for path in NOTEBOOK_PATHS:
        metadata = _tagged(path, "chrome-setup").get("metadata", {})
        assert metadata.get("jupyter", {}).get("source_hidden") is True and metadata.get("cellView") == "form", (
            f"{path.name}: the set-up cell is not folded (JupyterLab: jupyter.source_hidden; Colab: cellView form); "
            "run tools/build/notebook_chrome.py"
        )
    assert _series().REPOSITORY_URL in source and setup_cell.REPOSITORY_VARIABLE in source
    installs = re.findall(r"pip[\"', ]+install(.*)", source)
    assert all(not re.search(rf"\b{name}\b", line) for line in installs for name in COLAB_HAS), installs
    for path in NOTEBOOK_PATHS:
        assert _source(_tagged(path, "chrome-setup")) == source, f"{path.name}: run tools/build/notebook_chrome.py"


# ---------------------------------------------------------------------------------------------
# The set-up cell's module, tested directly (in this process, with a fake git where git must fail)

FAKE_GIT = """#!/bin/sh
echo "GIT_TERMINAL_PROMPT=$GIT_TERMINAL_PROMPT" >> "{log}"
{action}
"""
# The fetch's time limit in the failure cases where git answers (a fake git that fails at once, a real git
# asked for a missing repository): never reached, however busy the machine, since the test waits for git's
# answer, not for the limit. (2 s, scaled by the load when the module was imported, was reached by a fake git
# that could not start in time beside the other parts of a run.) Only the hanging case waits a limit out.
FETCH_LIMIT = max(60, round(scaled_s(60)))
HANG_LIMIT = 0.2  # a git that never ends is past any limit: the hanging case waits out a short one


def fetch_limit(case: str) -> float:
    """The fetch's time limit for a failure case: long enough for a fake git that answers to answer."""
    return HANG_LIMIT if case == "hangs" else FETCH_LIMIT


FAILURES = {
    # case: (what the fake git does, words the sentence must contain)
    "private": (
        "echo \"fatal: could not read Username for 'https://github.com': terminal prompts disabled\" >&2; exit 128",
        ("does not exist or is not public", "no GitHub login is needed"),
    ),
    "offline": (
        "echo \"fatal: unable to access 'https://github.com/a/b/': Could not resolve host: github.com\" >&2; exit 128",
        ("no internet connection", "run this cell again"),
    ),
    "hangs": (
        "exec sleep 600",
        (f"took longer than {HANG_LIMIT:g} s", "run this cell again"),
    ),  # exec: killed at the limit
}


def _fake_git(folder: Path, action: str, monkeypatch) -> Path:
    """Put a ``git`` that does ``action`` (and logs GIT_TERMINAL_PROMPT) first on PATH; return its log."""
    folder.mkdir()
    log = folder / "git.log"
    (folder / "git").write_text(FAKE_GIT.format(log=log, action=action), encoding="utf-8")
    (folder / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    return log


def test_cell_is_the_modules_code_with_its_values_written_in():
    setup_cell = _setup_cell()
    source = setup_cell.cell_source()
    compile(source, "set-up cell", "exec")
    assert not re.search(r"^\s", source.splitlines()[-1]), "the cell must end at its top level (import helpers)"
    assert "def set_up" not in source, "set_up's body is the cell's top level"
    for name, value in setup_cell.VALUES.items():
        assert name not in source and f'"{value}"' in source, name
    module_text = Path(setup_cell.__file__).read_text(encoding="utf-8")
    planted = module_text.replace("return  # fetched already", "return  # fetched before")
    assert "return  # fetched before" in setup_cell.cell_source(planted), "the cell is not made from the module"
    outside = module_text.replace("\n    import helpers\n", "\nimport helpers\n")
    with pytest.raises(ValueError, match="every line must be in its body"):
        setup_cell.cell_source(outside)


@pytest.mark.parametrize("case", sorted(FAILURES))
def test_fetch_lesson_failure_is_one_sentence(case, tmp_path, monkeypatch):
    setup_cell = _setup_cell()
    action, expected = FAILURES[case]
    log = _fake_git(tmp_path / "bin", action, monkeypatch)
    monkeypatch.setenv(setup_cell.FETCH_TIMEOUT_VARIABLE, f"{fetch_limit(case):g}")
    clone = tmp_path / "content" / setup_cell.CLONE_FOLDER
    with pytest.raises(setup_cell.SetupProblem) as caught:
        setup_cell.fetch_lesson("https://github.com/nobody/not-there", clone)
    (sentence,) = caught.value._render_traceback_()
    assert sentence.startswith("Set-up stopped: ") and "https://github.com/nobody/not-there" in sentence, sentence
    assert sentence.endswith(".") and ". " not in sentence and "\n" not in sentence, sentence
    for words in expected:
        assert words in sentence, f"{case}: {words!r} not in {sentence!r}"
    assert log.read_text().split() == ["GIT_TERMINAL_PROMPT=0"], "git may prompt for a login"
    assert not clone.exists(), "a failed fetch left a folder behind"


def test_fetch_lesson_does_not_fetch_a_complete_copy_again(tmp_path, monkeypatch):
    setup_cell = _setup_cell()
    log = _fake_git(tmp_path / "bin", "exit 1", monkeypatch)
    clone = tmp_path / setup_cell.CLONE_FOLDER
    (clone / "helpers").mkdir(parents=True)
    (clone / "helpers" / "__init__.py").write_text("", encoding="utf-8")
    (clone / "data").mkdir()
    setup_cell.fetch_lesson("https://github.com/nobody/not-there", clone)
    assert not log.exists(), "a complete copy was fetched again"
    assert (clone / "helpers" / "__init__.py").is_file()


@pytest.mark.parametrize("leftover", ["empty folder", "no data"])
def test_fetch_lesson_fetches_an_incomplete_copy_again(leftover, local_remote, tmp_path):
    setup_cell = _setup_cell()
    clone = tmp_path / setup_cell.CLONE_FOLDER
    clone.mkdir()
    if leftover == "no data":
        shutil.copytree(ROOT / "helpers", clone / "helpers", ignore=shutil.ignore_patterns("__pycache__"))
    setup_cell.fetch_lesson(local_remote, clone)
    assert (clone / "helpers" / "__init__.py").is_file() and (clone / "data" / "residual_matrix.csv").is_file()


@pytest.fixture
def set_up_here(tmp_path, monkeypatch, capfd):
    """Run set_up() from tmp_path/notebooks; give back what it printed and sys.path as it left it."""
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    monkeypatch.chdir(notebooks)
    monkeypatch.setattr(sys, "path", list(sys.path))  # set_up may add to it: put it back afterwards
    importlib.import_module("helpers")  # imported already, so set_up's `import helpers` takes no copy's

    def run():
        before = list(sys.path)
        _setup_cell().set_up()
        printed = capfd.readouterr()
        return printed.out + printed.err, [entry for entry in sys.path if entry not in before]

    return run


def test_set_up_outside_colab_shows_nothing_and_changes_nothing_when_helpers_is_installed(set_up_here, monkeypatch):
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    assert importlib.util.find_spec("helpers") is not None
    printed, added = set_up_here()
    assert printed == "" and added == [], (printed, added)
    assert not list(Path.cwd().iterdir()), "outside Colab nothing may be fetched"


def test_set_up_outside_colab_finds_helpers_beside_notebooks(set_up_here, monkeypatch):
    monkeypatch.delitem(sys.modules, "google.colab", raising=False)
    find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "helpers" else find_spec(name, *a)
    )
    printed, added = set_up_here()
    assert printed == "" and added == [str(Path.cwd().parent)], (printed, added)
    assert not list(Path.cwd().iterdir()), "outside Colab nothing may be fetched"


def test_set_up_in_colab_fetches_into_the_working_folder_and_puts_it_first(set_up_here, monkeypatch, local_remote):
    setup_cell = _setup_cell()
    monkeypatch.setitem(sys.modules, "google.colab", types.ModuleType("google.colab"))
    monkeypatch.setenv(setup_cell.REPOSITORY_VARIABLE, local_remote)
    printed, added = set_up_here()
    clone = Path.cwd() / setup_cell.CLONE_FOLDER
    assert printed == "" and added == [str(clone)], (printed, added)
    spec = importlib.machinery.PathFinder.find_spec("helpers", sys.path)
    assert Path(spec.origin) == clone / "helpers" / "__init__.py", "a fresh Python would import another helpers"
    assert (clone / "helpers" / "__init__.py").is_file() and (clone / "data" / "residual_matrix.csv").is_file()


# ---------------------------------------------------------------------------------------------
# Running the set-up cell in a fresh kernel


class Kernel:
    """A fresh IPython kernel of this Python, in ``folder``, with ``env`` added to its environment."""

    def __init__(self, folder: Path, env: dict[str, str], spec_dir: Path):
        pytest.importorskip("jupyter_client")
        from jupyter_client import KernelManager
        from jupyter_client.kernelspec import KernelSpecManager

        kernels = spec_dir / "kernels" / "this-python"
        kernels.mkdir(parents=True, exist_ok=True)
        (kernels / "kernel.json").write_text(
            json.dumps(
                {
                    "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                    "display_name": "this Python",
                    "language": "python",
                }
            ),
            encoding="utf-8",
        )
        specs = KernelSpecManager(kernel_dirs=[str(spec_dir / "kernels")])
        self.manager = KernelManager(kernel_name="this-python", kernel_spec_manager=specs)
        full_env = {**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1", "MPLBACKEND": "agg", **env}
        full_env.pop("PYTHONPATH", None)
        self.manager.start_kernel(cwd=str(folder), env=full_env, extra_arguments=["--IPKernelApp.log_level=ERROR"])
        self.client = self.manager.client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=scaled_s(60))

    def run(self, code: str, timeout: float | None = None) -> list[dict]:
        """Run ``code``; return its outputs as notebook outputs (stream, display_data, execute_result, error).
        ``timeout``: 120 s on a quiet machine, scaled by the machine's patience, unless given."""
        timeout = scaled_s(120) if timeout is None else timeout
        outputs = []

        def keep(message):
            kind, content = message["header"]["msg_type"], message["content"]
            if kind == "stream":
                outputs.append({"output_type": "stream", "name": content["name"], "text": content["text"]})
            elif kind in ("display_data", "execute_result", "error"):
                outputs.append({"output_type": kind, **content})

        # stop_on_error=False: a cell that fails (as the failure cases' set-up does) must not make the kernel abort
        # the next request. ipykernel 7 aborts what reaches it before its own "stop aborting" message, so under
        # load the next test's `os.environ[...] = ...` was dropped unrun and its set-up read the address before it.
        reply = self.client.execute_interactive(
            code, output_hook=keep, timeout=timeout, store_history=True, stop_on_error=False
        )
        assert reply["content"]["status"] != "aborted", f"the kernel did not run {code[:80]!r} (aborted)"
        return outputs

    def stop(self):
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=False)


def _problems(outputs: list[dict]) -> list[str]:
    found = []
    for output in outputs:
        if output["output_type"] == "error":
            found.append(f"{output['ename']}: {output['evalue']}")
        elif output["output_type"] == "stream" and output["name"] == "stderr":
            found.append(f"stderr: {output['text'][:300]}")
    return found


# Run first in the simulated Colab kernel: this machine has helpers installed (editable) or on the
# path; Colab has not.
HIDE_INSTALLED_HELPERS = """
import importlib.util, os, sys
sys.meta_path[:] = [finder for finder in sys.meta_path if "__editable__" not in getattr(finder, "__module__", "")
                    and "__editable__" not in type(finder).__name__]
sys.path[:] = [entry for entry in sys.path if not os.path.isdir(os.path.join(entry or ".", "helpers"))]
importlib.invalidate_caches()
assert importlib.util.find_spec("helpers") is None, "helpers is still importable: the simulation is not like Colab"
"""
# and then what Colab's runtime imports at start.
PRETEND_TO_BE_COLAB = (
    HIDE_INSTALLED_HELPERS
    + """
import types
sys.modules["google.colab"] = types.ModuleType("google.colab")
"""
)

WHERE_HELPERS_CAME_FROM = "import helpers, json, os; print(json.dumps({'file': helpers.__file__, 'cwd': os.getcwd()}))"


def _copy_tracked_files(destination: Path) -> None:
    """The working tree as git would commit it: tracked and new files, not ignored ones."""
    listed = (
        subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT,
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .split("\0")
    )
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            target = destination / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)


@pytest.fixture(scope="module")
def local_remote(tmp_path_factory) -> str:
    """A bare git repository holding the working tree as it is now, to clone like the public one."""
    if shutil.which("git") is None:
        pytest.skip("needs git")
    start = time.monotonic()
    base = tmp_path_factory.mktemp("colab-remote")
    snapshot, remote = base / "snapshot", base / "layernorm-step-by-step.git"
    _copy_tracked_files(snapshot)
    git = [
        "git",
        "-c",
        "user.name=test",
        "-c",
        "user.email=test@example.invalid",
        "-c",
        "init.defaultBranch=main",
        "-c",
        "commit.gpgsign=false",
    ]
    for command in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "the working tree, for the Colab test"]):
        subprocess.run(git + command, cwd=snapshot, check=True, capture_output=True)
    subprocess.run(git + ["clone", "-q", "--bare", str(snapshot), str(remote)], check=True, capture_output=True)
    print(f"local remote made in {time.monotonic() - start:.1f} s")
    return remote.as_uri()


# `run.py test` sets this in the tests' environment when the Colab-like pass will follow them (tools/run/tests.py).
COLAB_PASS_FOLLOWS = "LAYERNORM_COLAB_PASS_FOLLOWS"
USES_TORCH = re.compile(r"\btorch\b|helpers\.reference")


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOK_PATHS, ids=[path.name for path in NOTEBOOK_PATHS])
def test_setup_cell_in_simulated_colab_fetches_the_lesson_then_the_notebook_runs(path, local_remote, tmp_path):
    cells = [cell for cell in _cells(path) if cell["cell_type"] == "code"]
    first_use_torch = any(USES_TORCH.search(_source(cell)) for cell in cells[1 : 1 + FIRST_CELLS])
    if os.environ.get(COLAB_PASS_FOLLOWS) == "1" and not first_use_torch:
        # The Colab-like pass (Colab's versions) runs this notebook whole; only a notebook whose first cells use
        # torch, which that environment lacks, is run here too.
        pytest.skip("run by the Colab-like pass that follows, with Colab's versions")
    content = tmp_path / "content"  # Colab's working folder
    content.mkdir()
    setup = _source(_tagged(path, "chrome-setup"))
    assert _source(cells[0]) == setup, f"{path.name}: the set-up cell must be the first code cell"
    kernel = Kernel(content, {_setup_cell().REPOSITORY_VARIABLE: local_remote}, tmp_path)
    try:
        assert not _problems(kernel.run(PRETEND_TO_BE_COLAB))
        outputs = kernel.run(setup)
        assert not _problems(outputs), f"{path.name}: the set-up cell failed in Colab:\n" + "\n".join(
            _problems(outputs)
        )
        assert not outputs, f"{path.name}: the set-up cell showed something in Colab: {outputs}"
        where = json.loads(kernel.run(WHERE_HELPERS_CAME_FROM)[0]["text"])
        clone = Path(where["cwd"]) / "layernorm-step-by-step"
        assert Path(where["file"]).resolve() == (clone / "helpers" / "__init__.py").resolve(), where
        assert (clone / "data" / "residual_matrix.csv").is_file(), "the clone has no data/"
        for cell in cells[1 : 1 + FIRST_CELLS]:
            source = _source(cell)
            if USES_TORCH.search(source) and importlib.util.find_spec("torch") is None:
                break  # Colab has torch; this environment may not (the Colab-like one has none)
            problems = _problems(kernel.run(source))
            assert not problems, f"{path.name}: a first cell failed after the set-up:\n{source}\n" + "\n".join(problems)
        again = kernel.run(setup)  # running it twice (Run all, again) clones nothing and still works
        assert not again, again
    finally:
        kernel.stop()


@pytest.mark.slow
def test_setup_cell_outside_colab_shows_nothing_and_finds_helpers(tmp_path):
    """From a copy of notebooks/ beside the repository's helpers, with helpers not installed."""
    notebooks = tmp_path / "lesson" / "notebooks"
    notebooks.mkdir(parents=True)
    shutil.copytree(ROOT / "helpers", tmp_path / "lesson" / "helpers", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "data", tmp_path / "lesson" / "data")
    setup = _setup_cell().cell_source()
    kernel = Kernel(notebooks, {}, tmp_path)
    try:
        assert not _problems(kernel.run(HIDE_INSTALLED_HELPERS))
        outputs = kernel.run(setup)
        assert outputs == [], f"outside Colab the set-up cell must show nothing; it showed {outputs}"
        where = json.loads(kernel.run(WHERE_HELPERS_CAME_FROM)[0]["text"])
        assert Path(where["file"]).resolve() == (tmp_path / "lesson" / "helpers" / "__init__.py").resolve()
        assert not (notebooks / "layernorm-step-by-step").exists(), "outside Colab nothing may be cloned"
    finally:
        kernel.stop()


# ---------------------------------------------------------------------------------------------
# When the fetch fails in Colab: one plain sentence each, never a login prompt or a traceback


@pytest.fixture(scope="module")
def colab_kernel(tmp_path_factory):
    """One simulated Colab kernel for every failure case (each case changes PATH and the address)."""
    folder = tmp_path_factory.mktemp("colab-failures")
    (folder / "content").mkdir()
    kernel = Kernel(folder / "content", {_setup_cell().FETCH_TIMEOUT_VARIABLE: str(FETCH_LIMIT)}, folder)
    assert not _problems(kernel.run(PRETEND_TO_BE_COLAB))
    yield kernel, folder
    kernel.stop()


def _one_sentence(outputs: list[dict]) -> str:
    """The set-up's failure as shown: exactly one error output, its 'traceback' one line, nothing else."""
    assert len(outputs) == 1 and outputs[0]["output_type"] == "error", outputs
    lines = outputs[0]["traceback"]
    assert len(lines) == 1, f"a failed set-up shows a traceback of {len(lines)} lines: {lines}"
    sentence = lines[0]
    assert sentence.startswith("Set-up stopped: ") and sentence.endswith("."), sentence
    assert sentence.count(". ") == 0 and "Traceback" not in sentence and "\n" not in sentence, sentence
    return sentence


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(FAILURES))
def test_failed_fetch_says_what_happened_in_one_sentence(case, colab_kernel):
    kernel, folder = colab_kernel
    action, expected = FAILURES[case]
    fake_bin, log = folder / case, folder / f"{case}.log"
    fake_bin.mkdir()
    (fake_bin / "git").write_text(FAKE_GIT.format(log=log, action=action), encoding="utf-8")
    (fake_bin / "git").chmod(0o755)
    address, variable = "https://github.com/nobody/not-there", _setup_cell().FETCH_TIMEOUT_VARIABLE
    kernel.run(
        f"import os; saved_path = os.environ['PATH']; os.environ['PATH'] = {str(fake_bin)!r} + ':' + saved_path; "
        f"os.environ['LAYERNORM_REPOSITORY'] = {address!r}; os.environ[{variable!r}] = '{fetch_limit(case):g}'"
    )
    try:
        sentence = _one_sentence(kernel.run(_setup_cell().cell_source(), timeout=scaled_s(60)))
    finally:
        kernel.run(f"os.environ['PATH'] = saved_path; os.environ[{variable!r}] = '{FETCH_LIMIT}'")
    for words in expected:
        assert words in sentence, f"{case}: {words!r} not in {sentence!r}"
    assert log.read_text().split() == ["GIT_TERMINAL_PROMPT=0"], "git may prompt for a login"
    assert not (folder / "content" / "layernorm-step-by-step").exists(), "a failed fetch left a folder behind"


@pytest.mark.slow
def test_missing_repository_with_real_git_says_so_in_one_sentence(colab_kernel, tmp_path):
    if shutil.which("git") is None:
        pytest.skip("needs git")
    kernel, folder = colab_kernel
    kernel.run(f"os.environ['LAYERNORM_REPOSITORY'] = {(tmp_path / 'no-such-repository').as_uri()!r}")
    sentence = _one_sentence(kernel.run(_setup_cell().cell_source(), timeout=scaled_s(60)))
    assert "does not exist or is not public" in sentence, sentence


@pytest.mark.slow
@pytest.mark.parametrize("leftover", ["empty folder", "no data"])
def test_incomplete_folder_is_fetched_again(leftover, colab_kernel, local_remote):
    kernel, folder = colab_kernel
    clone = folder / "content" / "layernorm-step-by-step"
    clone.mkdir()
    if leftover == "no data":
        shutil.copytree(ROOT / "helpers", clone / "helpers", ignore=shutil.ignore_patterns("__pycache__"))
    kernel.run(f"os.environ['LAYERNORM_REPOSITORY'] = {local_remote!r}")
    # a real clone, not a failure case: the quiet machine's 60 s, scaled (the fixture's short limit is for failures)
    limit = round(scaled_s(60))
    kernel.run(f"os.environ[{_setup_cell().FETCH_TIMEOUT_VARIABLE!r}] = '{limit}'")
    try:
        outputs = kernel.run(_setup_cell().cell_source(), timeout=2 * limit)
        assert not outputs, outputs
        assert (clone / "helpers" / "__init__.py").is_file() and (clone / "data" / "residual_matrix.csv").is_file()
    finally:
        kernel.run(f"os.environ[{_setup_cell().FETCH_TIMEOUT_VARIABLE!r}] = '{FETCH_LIMIT}'")
        shutil.rmtree(clone, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Binder: its own configuration, PyTorch's CPU wheel, otherwise requirements.txt


def _requirement_lines(path: Path) -> list[str]:
    lines = [line.split("#", 1)[0].strip() for line in path.read_text(encoding="utf-8").splitlines()]
    return [line for line in lines if line]


def test_binder_installs_requirements_txt_with_pytorchs_cpu_wheel():
    specifiers = pytest.importorskip("packaging.specifiers")
    from packaging.requirements import Requirement

    binder = _requirement_lines(ROOT / "binder" / "requirements.txt")
    assert "-r ../requirements.txt" in binder, "binder/requirements.txt must install everything requirements.txt lists"
    assert "--extra-index-url https://download.pytorch.org/whl/cpu" in binder, "Binder needs PyTorch's CPU-only index"
    pins = [Requirement(line) for line in binder if not line.startswith("-")]
    assert [pin.name for pin in pins] == ["torch"], f"binder/requirements.txt should pin only torch: {pins}"
    (binder_torch,) = pins
    (version,) = [spec.version for spec in binder_torch.specifier if spec.operator == "=="]
    assert version.endswith("+cpu"), f"Binder must take the CPU-only wheel, not {version}"
    main = [Requirement(line) for line in _requirement_lines(ROOT / "requirements.txt") if not line.startswith("-")]
    (main_torch,) = [req for req in main if req.name == "torch"]
    assert main_torch.specifier.contains(version), (
        f"Binder's torch {version} does not satisfy requirements.txt's {main_torch.specifier}: pip would fail on Binder"
    )
    assert isinstance(main_torch.specifier, specifiers.SpecifierSet)
    runtime = (ROOT / "binder" / "runtime.txt").read_text(encoding="utf-8").strip()
    assert re.fullmatch(r"python-3\.(1[0-9])", runtime), f"binder/runtime.txt names no Python 3.10+: {runtime!r}"
