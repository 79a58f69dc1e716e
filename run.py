#!/usr/bin/env python3
"""One entry point for "LayerNorm, Step by Step".

Students:     python3 run.py lab      (opens the notebooks in JupyterLab)
Everyone:     python3 run.py test     (checks the helpers and every notebook)
Lecturers:    python3 run.py lecture  (presents the lecture with Voila: live widgets, no code)
              python3 run.py slides   (exports the lecture as offline slides)

This file uses only the Python standard library, so it works with a fresh
Python 3.10 or newer. The first command you run creates a private environment
in .venv/ and installs everything into it; nothing is installed anywhere else.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

MIN_PYTHON = (3, 10)

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
REQUIREMENTS = ROOT / "requirements.txt"
PYPROJECT = ROOT / "pyproject.toml"
STAMP = VENV / ".installed-requirements.sha256"
PIP_LOG = VENV / "pip-install.log"
NOTEBOOKS = ROOT / "notebooks"
TESTS = ROOT / "tests"
BENCHMARKS = ROOT / "benchmarks"
SANITIZE_CFG = TESTS / "nbval_sanitize.cfg"
EXECUTE_TOOL = ROOT / "tools" / "execute_notebooks.py"
LECTURE = ROOT / "lecture" / "layernorm_lecture.ipynb"
SLIDES_TOOL = ROOT / "tools" / "lecture_slides.py"

# The second, Colab-like environment the widget tests also run in (see run_colab_like_tests).
COLAB_PYTHON = "python3.13"
COLAB_VENV = ROOT / ".venv-colab"
COLAB_REQUIREMENTS = ROOT / "requirements-colab.txt"
COLAB_LIKE_TESTS = [
    "tests/test_widgets.py",
    "tests/test_plots.py",
    "tests/test_answer_check.py",
    "tests/test_data.py",
    "tests/test_display.py",
    # every notebook's set-up cell in a simulated Colab, with Colab's versions
    "tests/test_colab_setup.py",
]
NBVAL_FIX = ROOT / "tools" / "nbval_store_history.py"
NBVAL_FIX_PLUGIN = "tools.nbval_store_history"

# Timeout for one notebook cell under `run.py test`; a later
# `--nbval-cell-timeout N` on the command line overrides it.
TEST_CELL_TIMEOUT = 300


class Failure(Exception):
    """An expected failure: print the message, exit non-zero, no traceback."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.code = code


def say(message: str) -> None:
    print(message, flush=True)


# --------------------------------------------------------------------------
# The environment in .venv/
# --------------------------------------------------------------------------


def venv_python(venv: Path = VENV) -> Path:
    if os.name == "nt":
        return venv / "Scripts" / "python.exe"
    return venv / "bin" / "python"


def requirements_hash(requirements: Path = REQUIREMENTS) -> str:
    digest = hashlib.sha256()
    for path in (requirements, PYPROJECT):
        if not path.is_file():
            raise Failure(f"error: {path.name} is missing from {ROOT}")
        digest.update(path.name.encode() + b"\0")
        # Normalise line endings so a Windows checkout hashes the same.
        digest.update(path.read_bytes().replace(b"\r\n", b"\n"))
        digest.update(b"\0")
    return digest.hexdigest()


def create_venv(venv: Path = VENV, base_python: str = sys.executable) -> None:
    say(f"Creating virtual environment in {venv.name} …")
    cmd = [base_python, "-m", "venv", str(venv)]
    if venv.exists():
        # The folder is there but has no working Python (e.g. the Python it
        # was made with is gone): start it again from scratch.
        cmd.insert(3, "--clear")
    result = subprocess.run(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if result.returncode != 0 or not venv_python(venv).exists():
        tail = "\n".join(result.stdout.strip().splitlines()[-10:])
        if tail:
            print(tail, file=sys.stderr)
        hint = ""
        if "ensurepip" in result.stdout:
            hint = " (on Debian/Ubuntu: `sudo apt install python3-venv`)"
        raise Failure(f"error: could not create the virtual environment in {venv.name}{hint}")


def pip_install(args: list[str], what: str, venv: Path = VENV) -> None:
    cmd = [str(venv_python(venv)), "-m", "pip", "install", "--disable-pip-version-check", "--no-input", *args]
    log_path = venv / PIP_LOG.name
    with open(log_path, "a", encoding="utf-8", errors="replace") as log:
        log.write(f"\n$ {' '.join(cmd)}\n")
        log.flush()
        code = subprocess.run(cmd, cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL).returncode
    if code != 0:
        lines = log_path.read_text(encoding="utf-8", errors="replace").splitlines()
        # pip's own ERROR lines say what went wrong; without them, show the end.
        errors = [line for line in lines if line.startswith("ERROR")]
        print("\n".join(errors[-10:] or lines[-15:]), file=sys.stderr)
        rel = log_path.relative_to(ROOT)
        raise Failure(f"error: installing {what} failed (pip exit code {code}); full log in {rel}")


def ensure_env(venv: Path = VENV, requirements: Path = REQUIREMENTS, base_python: str = sys.executable) -> Path:
    """Make sure ``venv`` exists and holds what ``requirements`` asks for, plus helpers itself."""
    if not venv_python(venv).exists():
        create_venv(venv, base_python)
    wanted = requirements_hash(requirements)
    stamp = venv / STAMP.name
    try:
        installed = stamp.read_text(encoding="utf-8").strip()
    except OSError:
        installed = ""
    if installed != wanted:
        say(f"Installing packages into {venv.name} (first time takes a few minutes) …")
        start = time.monotonic()
        stamp.unlink(missing_ok=True)  # an interrupted install must retry
        (venv / PIP_LOG.name).write_text("", encoding="utf-8")
        pip_install(["-r", str(requirements)], f"the packages in {requirements.name}", venv)
        pip_install(["-e", ".", "--no-deps"], "the helpers package (pip install -e .)", venv)
        stamp.write_text(wanted + "\n", encoding="utf-8")
        say(f"Packages installed in {time.monotonic() - start:.0f} s.")
    return venv_python(venv)


def child_env() -> dict[str, str]:
    env = dict(os.environ)
    # Quieten a debugger notice that every Python 3.11+ kernel prints at start.
    env.setdefault("PYDEVD_DISABLE_FILE_VALIDATION", "1")
    # Notebook kernels must draw with Jupyter's inline backend; a MPLBACKEND set in the shell
    # (Agg, say) would make every stored figure go missing under nbval.
    env.pop("MPLBACKEND", None)
    return env


def run(cmd: list[str]) -> int:
    """Run a command in the project folder and return its exit code."""
    try:
        return subprocess.run(cmd, cwd=ROOT, env=child_env()).returncode
    except KeyboardInterrupt:
        return 130


def has_files(folder: Path, patterns: tuple[str, ...]) -> bool:
    if not folder.is_dir():
        return False
    for pattern in patterns:
        for path in folder.rglob(pattern):
            rel = path.relative_to(folder).parts
            if not any(part.startswith(".") for part in rel):
                return True
    return False


def natural_key(path: Path) -> list:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", path.name)]


# --------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------


def cmd_lab(extra: list[str]) -> int:
    python = ensure_env()
    cmd = [str(python), "-m", "jupyter", "lab"]
    if NOTEBOOKS.is_dir():
        cmd.append(str(NOTEBOOKS.relative_to(ROOT)))
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in extra:
        # Jupyter refuses to start as root unless told; containers and CI run as root.
        cmd.append("--allow-root")
    cmd += extra
    say("Starting JupyterLab (stop it with Ctrl-C) …")
    if os.name == "posix":
        # Replace this process, so Ctrl-C and signals go straight to Jupyter.
        os.chdir(ROOT)
        os.execve(str(python), cmd, child_env())
    return run(cmd)


def _names_a_path(arg: str) -> bool:
    if arg.startswith("-"):
        return False
    return (ROOT / arg.split("::", 1)[0]).exists()


# `run.py test --fast`: unit and property tests only (no notebooks, browser, npm, kernels or benchmarks).
FAST_TESTS = (
    "answer_check",
    "backward",
    "cli",
    "data",
    "display",
    "errata_count",
    "exercises",
    "forensics",
    "layernorm",
    "norm_family",
    "numerics",
    "plots",
    "properties",
    "published_check",
    "reference",
    "widgets",
)


def cmd_test_fast(extra: list[str]) -> int:
    python = ensure_env()
    files = [f"tests/test_{name}.py" for name in FAST_TESTS if (TESTS / f"test_{name}.py").is_file()]
    cmd = [str(python), "-m", "pytest", *files, "-m", "not browser", "-q", "-p", "no:cacheprovider", *extra]
    code = run(cmd)
    lint = run([str(python), "-m", "ruff", "check", "."])
    say(
        "Fast tests only: notebooks (nbval), browser tests and the Colab-like pass were not run; "
        "`python3 run.py test` runs everything."
    )
    return code or lint


def cmd_test(extra: list[str]) -> int:
    if "--fast" in extra:
        return cmd_test_fast([arg for arg in extra if arg != "--fast"])
    python = ensure_env()
    targets: list[str] = []
    # `run.py test tests/test_maths.py` runs just that; otherwise everything.
    if not any(_names_a_path(arg) for arg in extra):
        if has_files(TESTS, ("test_*.py", "*_test.py")):
            targets.append("tests")
        if has_files(NOTEBOOKS, ("*.ipynb",)):
            targets.append("notebooks")
        if not targets:
            raise Failure(
                "error: no tests were collected: tests/ has no test_*.py files and notebooks/ has no notebooks", code=5
            )
    cmd = [
        str(python),
        "-m",
        "pytest",
        *targets,
        "--nbval",
        "--nbval-current-env",
        "--nbval-cell-timeout",
        str(TEST_CELL_TIMEOUT),
        "-p",
        "no:cacheprovider",
    ]
    if NBVAL_FIX.is_file():
        # Lets `fig;` hide a cell's result under nbval as it does in Jupyter.
        cmd += ["-p", NBVAL_FIX_PLUGIN]
    if SANITIZE_CFG.is_file():
        cmd += ["--nbval-sanitize-with", str(SANITIZE_CFG.relative_to(ROOT))]
    cmd += extra
    code = run(cmd)
    if code == 5:
        print(
            "error: no tests were collected, so nothing was checked (a run that tests nothing does not pass)",
            file=sys.stderr,
        )
    if any(_names_a_path(arg) for arg in extra):  # chosen test files: the Colab-like pass is for full runs
        say("Colab-like pass not run: you chose which tests to run.")
        return code
    lint = run([str(python), "-m", "ruff", "check", "."]) or run([str(python), "-m", "ruff", "format", "--check", "."])
    colab_code = run_colab_like_tests()
    return code or lint or colab_code


def find_colab_python() -> str | None:
    """A working python3.13: on PATH, or one that pyenv installed (its shim may not be active)."""
    candidates = [shutil.which(COLAB_PYTHON)]
    candidates += sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/3.13*/bin/{COLAB_PYTHON}")))
    for candidate in filter(None, candidates):
        works = (
            subprocess.run(
                [candidate, "-c", "import venv, ensurepip"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
            ).returncode
            == 0
        )
        if works:
            return candidate
    return None


def run_colab_like_tests() -> int:
    """Run the widget tests again in a small environment like Google Colab's.

    Colab ships ipywidgets 7.7.1, numpy 2.1 and Python 3.13, and notebooks that upgrade
    ipywidgets break there; so the widgets must work unchanged on both 7.7 and 8. This needs a
    ``python3.13`` on PATH; without one the pass is skipped with a note (and fails when
    REQUIRE_COLAB_ENV=1, as in CI).
    """
    base = find_colab_python()
    if base is None:
        message = f"Colab-like widget tests skipped: no {COLAB_PYTHON} on PATH (install Python 3.13 to run them)"
        if os.environ.get("REQUIRE_COLAB_ENV") == "1":
            print(f"error: {message}", file=sys.stderr)
            return 1
        say(message)
        return 0
    say(f"== Colab-like environment ({COLAB_PYTHON}, {COLAB_REQUIREMENTS.name}) ==")
    python = ensure_env(COLAB_VENV, COLAB_REQUIREMENTS, base)
    return run([str(python), "-m", "pytest", *COLAB_LIKE_TESTS, "-p", "no:cacheprovider", "-q"])


def cmd_execute(notebooks: list[str], timeout: int) -> int:
    python = ensure_env()
    if not EXECUTE_TOOL.is_file():
        raise Failure(f"error: {EXECUTE_TOOL.relative_to(ROOT)} is missing")
    paths = []
    for name in notebooks:
        path = Path(name)
        if not path.exists() and (ROOT / name).exists():
            path = ROOT / name
        if not path.is_file():
            raise Failure(f"error: no such notebook: {name}")
        paths.append(str(path.resolve()))
    return run([str(python), str(EXECUTE_TOOL), "--timeout", str(timeout), *paths])


# The lecture's Voila template (lecture/jupyter/voila/templates/presenter/): large type for a room,
# presenter mode for a clicker, nothing loaded from a network.
LECTURE_TEMPLATE_ROOT = ROOT / "lecture" / "jupyter"
# Every page load starts a kernel: free those of closed pages after 2 idle minutes (a page that
# stays open keeps its kernel, as Jupyter never culls a kernel with a connection).
LECTURE_KERNEL_CULLING = ("--MappingKernelManager.cull_idle_timeout=120", "--MappingKernelManager.cull_interval=30")


def lecture_command(python: Path | str, extra: list[str]) -> list[str]:
    """The voila command line `run.py lecture` runs (tests run the same one); ``extra`` may set the
    culling options itself (traitlets takes each option once)."""
    culling = [
        option
        for option in LECTURE_KERNEL_CULLING
        if not any(arg.startswith(option.split("=")[0] + "=") for arg in extra)
    ]
    return [str(python), "-m", "voila", str(LECTURE.relative_to(ROOT)), "--template=presenter", *culling, *extra]


def lecture_env(env: dict[str, str]) -> dict[str, str]:
    """``env`` with the lecture's template folder first on JUPYTER_PATH, where Voila finds templates."""
    paths = [str(LECTURE_TEMPLATE_ROOT), *filter(None, env.get("JUPYTER_PATH", "").split(os.pathsep))]
    return {**env, "JUPYTER_PATH": os.pathsep.join(paths)}


def cmd_lecture(extra: list[str]) -> int:
    python = ensure_env()
    cmd = lecture_command(python, extra)
    say(
        "Starting the lecture in Voila (stop it with Ctrl-C). Keys: PageDown / PageUp (or a clicker) "
        "step through, N speaker notes, P whole page …"
    )
    if os.name == "posix":
        # Replace this process, so Ctrl-C and signals go straight to Voila.
        os.chdir(ROOT)
        os.execve(str(python), cmd, lecture_env(child_env()))
    try:
        return subprocess.run(cmd, cwd=ROOT, env=lecture_env(child_env())).returncode
    except KeyboardInterrupt:
        return 130


def cmd_slides(extra: list[str]) -> int:
    python = ensure_env()
    return run([str(python), str(SLIDES_TOOL), *extra])


def cmd_bench(extra: list[str]) -> int:
    if not BENCHMARKS.is_dir():
        say("No benchmarks/ folder: nothing to run.")
        return 0
    scripts = sorted(BENCHMARKS.glob("*.py"), key=natural_key)
    if not scripts:
        say("benchmarks/ has no .py scripts: nothing to run.")
        return 0
    python = ensure_env()
    failed = []
    for script in scripts:
        rel = script.relative_to(ROOT).as_posix()
        say(f"== {rel}")
        start = time.monotonic()
        code = run([str(python), str(script), *extra])
        if code == 130:
            return 130
        say(f"== {rel}: {'ok' if code == 0 else f'FAILED (exit code {code})'}, {time.monotonic() - start:.1f} s")
        if code != 0:
            failed.append(rel)
    if failed:
        print(f"error: {len(failed)} of {len(scripts)} benchmark(s) failed: " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


# --------------------------------------------------------------------------
# Command line
# --------------------------------------------------------------------------

DESCRIPTION = """\
Run "LayerNorm, Step by Step".

The first command you run creates a private Python environment in .venv/
and installs everything the notebooks need into it (this takes a few
minutes, once). Later commands reuse it, and only reinstall when
requirements.txt or pyproject.toml change. Nothing is installed outside
this folder; delete .venv/ to start again from scratch."""

EPILOG = """\
examples:
  python3 run.py lab                 open the notebooks in JupyterLab
  python3 run.py lab --no-browser    same, but print the link instead of opening a browser
  python3 run.py test                check the helpers and every notebook
  python3 run.py test -k variance    run only the tests whose name contains "variance"
  python3 run.py lecture             present the lecture in the browser (Voila: live widgets, no code)
  python3 run.py lecture --no-browser  same, but print the link instead of opening a browser
  python3 run.py slides              export the lecture as offline slides into build/slides/
  python3 run.py execute notebooks/03_mean.ipynb
                                     (maintainers) re-run one notebook and save its outputs"""

PASSTHROUGH = {
    "lab": (
        "open the notebooks in JupyterLab (start here)",
        "Open the notebooks/ folder in JupyterLab, running in .venv.\n\n"
        "Anything after `lab` is passed to `jupyter lab`, e.g.\n"
        "  python3 run.py lab --no-browser\n"
        "  python3 run.py lab --port 8890",
    ),
    "test": (
        "check the helpers and every notebook",
        "Run the tests in tests/ and every notebook in notebooks/ (with nbval:\n"
        "each notebook is run from a fresh kernel and its outputs are compared\n"
        "with the saved ones).\n\n"
        "Anything after `test` is passed to pytest, e.g.\n"
        "  python3 run.py test -k variance      only tests matching 'variance'\n"
        "  python3 run.py test tests/test_x.py  only that file\n"
        "  python3 run.py test -x               stop at the first failure\n"
        "  python3 run.py test --fast           unit and property tests and lint only (< 1 min)\n"
        "  python3 run.py test -- --help        pytest's own help",
    ),
    "lecture": (
        "present the lecture with Voila: live widgets, no code on screen",
        "Serve lecture/layernorm_lecture.ipynb with Voila (from .venv) and open it in\n"
        "the browser: the whole lesson on the lesson's matrix, built around the\n"
        "step-through explorer, with working widgets and no code on screen.\n"
        "Presenter mode: PageDown / PageUp (a clicker's keys) or the arrows step\n"
        "through stage by stage; N shows the speaker notes; P the whole page.\n\n"
        "Anything after `lecture` is passed to `voila`, e.g.\n"
        "  python3 run.py lecture --no-browser\n"
        "  python3 run.py lecture --port 8867",
    ),
    "slides": (
        "export the lecture as offline slides (reveal.js) into build/slides/",
        "Export the lecture as reveal.js slides that open from disk, offline: one\n"
        "slide per stage of the walkthrough, each widget shown as its result (no\n"
        "controls), speaker notes (press S), code hidden. The first run fetches\n"
        "reveal.js with npm (pinned versions, checked) into build/npm/, so it needs\n"
        "network access once; later runs need none.\n\n"
        "  python3 run.py slides\n"
        "  python3 run.py slides --output /tmp/handout",
    ),
    "bench": (
        "run the benchmark scripts in benchmarks/",
        "Run every benchmarks/*.py script, in order, with the .venv Python.\n"
        "Anything after `bench` is passed to each script.",
    ),
}


def build_parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser = argparse.ArgumentParser(
        prog="run.py", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    subs = {}
    for name, passed_to in (("lab", "JUPYTER-LAB-OPTIONS"), ("test", "PYTEST-OPTIONS")):
        summary, text = PASSTHROUGH[name]
        subs[name] = sub.add_parser(
            name,
            help=summary,
            description=text,
            usage=f"run.py {name} [{passed_to} ...]",
            formatter_class=argparse.RawDescriptionHelpFormatter,
        )
    ex = sub.add_parser(
        "execute",
        help="(maintainers) re-run the notebooks and save their outputs",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Re-run notebooks in place, in order, each from a fresh kernel,\n"
        "and save them with their new outputs. Use this after changing\n"
        "helpers/ or a notebook, so that `run.py test` compares against\n"
        "up-to-date outputs. Review the diff before committing.",
    )
    ex.add_argument(
        "notebooks", nargs="*", metavar="NOTEBOOK", help="notebooks to re-run (default: every notebooks/*.ipynb)"
    )
    ex.add_argument(
        "--timeout",
        type=int,
        default=120,
        metavar="SECONDS",
        help="give up on a cell after this many seconds (default: 120)",
    )
    subs["execute"] = ex
    for name, usage in (
        ("lecture", "run.py lecture [VOILA-OPTIONS ...]"),
        ("slides", "run.py slides [--output DIR]"),
        ("bench", "run.py bench [SCRIPT-ARGS ...]"),
    ):
        summary, text = PASSTHROUGH[name]
        subs[name] = sub.add_parser(
            name, help=summary, description=text, usage=usage, formatter_class=argparse.RawDescriptionHelpFormatter
        )
    return parser, subs


def main(argv: list[str]) -> int:
    if sys.version_info < MIN_PYTHON:
        raise Failure(
            "error: this project needs Python %d.%d or newer (this is %s)" % (*MIN_PYTHON, sys.version.split()[0])
        )
    parser, subs = build_parser()
    if argv and argv[0] in PASSTHROUGH:
        # Everything after the command belongs to jupyter / pytest / the scripts.
        command, extra = argv[0], argv[1:]
        if extra[:1] in (["-h"], ["--help"]):
            subs[command].print_help()
            return 0
        if extra[:1] == ["--"]:
            extra = extra[1:]
        return {"lab": cmd_lab, "test": cmd_test, "lecture": cmd_lecture, "slides": cmd_slides, "bench": cmd_bench}[
            command
        ](extra)
    args = parser.parse_args(argv)
    if args.command == "execute":
        if args.timeout <= 0:
            parser.error("--timeout must be a positive number of seconds")
        return cmd_execute(args.notebooks, args.timeout)
    parser.print_help()
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Failure as failure:
        print(failure, file=sys.stderr)
        sys.exit(failure.code)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
