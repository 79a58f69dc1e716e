"""run.py test: pytest on tests/ and (nbval) every notebook, ruff, then the Colab-like pass; and
run.py execute, which re-runs notebooks and saves their outputs. Standard library only."""

from __future__ import annotations

import contextlib
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

from tools.run import fast_order
from tools.run.ahead import environments
from tools.run.busy import busy_loops, take_busy
from tools.run.env import NOTEBOOKS, ROOT, TESTS, VENV, Failure, ensure_env, has_files, say
from tools.run.env import run as run_unpinned
from tools.run.slowest import print_slowest, report_option


def run(cmd: list[str], stdout=None) -> int:
    """A test or execute step, with torch's CPU kernels pinned as tools.run.env.pinned_kernels says."""
    return run_unpinned(cmd, stdout, pinned=True)


SANITIZE_CFG = TESTS / "nbval_sanitize.cfg"
EXECUTE_TOOL = ROOT / "tools" / "build" / "execute_notebooks.py"
NBVAL_FIX = ROOT / "tools" / "pytest_plugins" / "nbval_store_history.py"
NBVAL_FIX_PLUGIN = "tools.pytest_plugins.nbval_store_history"
# Timeout for one notebook cell under `run.py test`; a later
# `--nbval-cell-timeout N` on the command line overrides it.
TEST_CELL_TIMEOUT = 300

# The second, Colab-like environment the widget tests also run in (see run_colab_like_tests).
COLAB_PYTHON = "python3.13"
COLAB_VENV = ROOT / ".venv-colab"
COLAB_REQUIREMENTS = ROOT / "requirements-colab.txt"
COLAB_PASS_FOLLOWS = "LAYERNORM_COLAB_PASS_FOLLOWS"  # read by tests/notebooks/test_colab_setup.py
COLAB_LIKE_TESTS = [
    "tests/widgets/test_widgets.py",
    "tests/display/test_plots.py",
    "tests/checking/test_answer_check.py",
    "tests/core/test_data.py",
    "tests/display/test_display.py",
    "tests/widgets/test_questions.py",
    "tests/widgets/test_widget_slides.py",
    # every notebook's set-up cell in a simulated Colab, with Colab's versions
    "tests/notebooks/test_colab_setup.py",
]


def _names_a_path(arg: str) -> bool:
    if arg.startswith("-"):
        return False
    return (ROOT / arg.split("::", 1)[0]).exists()


# `run.py test --fast`: every test under tests/ but those marked browser (Chromium, JupyterLab, Voila, npm),
# hub (a real JupyterHub, as root), slow (seconds each: kernels, subprocess sweeps) or draws (figures rendered
# to measure what they show, a third of a second or more each: the plots' own tests, which `--changed` runs
# when helpers/plots changes); chosen by marker (pyproject.toml), so a new quick test is in the daily loop
# without being listed anywhere.
FAST_LEAVES_OUT_MARKERS = ("browser", "hub", "slow", "draws")
FAST_MARKERS = " and ".join(f"not {marker}" for marker in FAST_LEAVES_OUT_MARKERS)
# `run.py test --changed`: the touched packages' tests as `--fast` runs them, and the drawing ones too.
CHANGED_MARKERS = " and ".join(f"not {marker}" for marker in FAST_LEAVES_OUT_MARKERS if marker != "draws")

# On a machine with two cores or more, a full run is three parts at once: the browser tests (JupyterLab,
# Voila, Chromium), one after the other as they always ran, then the Colab-like pass, with their output live;
# beside them the class hubs (real JupyterHubs, students as Unix users); and everything else (unit, property
# and slow tests, nbval on every notebook). The last two parts' output follows. Each part keeps its own
# order and fixtures, and no two browser servers that share the session overlap. LAYERNORM_TEST_WORKERS=1
# runs everything in one process, one step after another. Three parts, not two, on two cores: the browser
# tests and the hubs wait (for a kernel, a culler, a student's server) and left a fifth of the machine idle.
# Browser tests marked `beside` start their own server and browser and share nothing with the others, so
# they run with the rest (test_lecture_fit's walk, the clicker keys) or, when they start a hub too, with
# the hubs (the live class page); and the other way, a test marked `browser_half` runs in the browser part.
# The parts take about as long as each other (measured: 800, 660 and 715 s before the last moves).
SERVER_MARKERS = "(browser and not beside) or browser_half"
HUB_MARKERS = f"hub and not ({SERVER_MARKERS})"
REST_MARKERS = f"not ({SERVER_MARKERS}) and not hub"  # the third: exactly what the other two do not run
# (name, marker expression, JUnit report): the first is shown live
PARTS = (
    ("the browser tests", SERVER_MARKERS, "browser.xml"),
    ("the class hubs", HUB_MARKERS, "hubs.xml"),
    ("the rest: unit, property and slow tests, nbval on every notebook, browser tests marked beside", REST_MARKERS,
     "rest.xml"),
)  # fmt: skip


def runs_in_parts(extra: list[str]) -> bool:
    if os.environ.get("LAYERNORM_TEST_WORKERS", "") == "1" or (os.cpu_count() or 1) < 2:
        return False
    return not any(arg in ("-m", "-k", "-x", "--exitfirst", "--pdb") or arg.startswith("-m") for arg in extra)


def run_parts(base: list[str], targets: list[str], extra: list[str], reports: Path) -> tuple[int, int]:
    """(the tests' exit code, the Colab-like pass's): the browser tests live, the other parts and the Colab-like
    pass each into a log shown after them (notebooks/ with the last); each part's JUnit report (its tests'
    times) into ``reports``."""
    commands = []
    for index, (_, markers, report) in enumerate(PARTS):
        where = targets if index == len(PARTS) - 1 else ["tests"]
        commands.append([*base, *where, "-m", markers, *report_option(extra, reports / report), *extra])
    say("Running the browser tests and, side by side, the class hubs and the rest (their output follows).")
    codes: dict[int, int] = {}
    with contextlib.ExitStack() as stack:
        logs = {i: stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8")) for i in range(1, len(PARTS))}
        colab_log = stack.enter_context(tempfile.TemporaryFile("w+", encoding="utf-8"))

        def part(index: int) -> None:
            codes[index] = run(commands[index], stdout=logs.get(index))

        def colab() -> None:
            codes[len(PARTS)] = run_colab_like_tests(stdout=colab_log)

        # The Colab-like pass (about 40 s) starts when the first part ends, whichever it is (the hubs, in CI),
        # so that it is never on the run's longest path. (It once ran after every part instead, when 3 of its
        # fetch-failure tests failed beside them: each gave git 2 s to answer; tests/notebooks/test_colab_setup.py
        # now waits for git's answer.)
        after_first([lambda i=i: part(i) for i in range(len(PARTS))], colab, name="run.py test")
        for index, log in [(len(PARTS), colab_log), *logs.items()]:
            log.seek(0)
            if index < len(PARTS):
                say(f"\n== {PARTS[index][0]} ==")
            sys.stdout.write(log.read())
            sys.stdout.flush()
    return combined_code([codes.get(index, 1) for index in range(len(PARTS))]), codes.get(len(PARTS), 1)


def after_first(tasks: list, follow, name: str = "task") -> None:
    """Run ``tasks`` side by side, the first in this thread; start ``follow`` as soon as any of them ends; return
    when all have ended. A task that raises still lets ``follow`` start."""
    first_ended = threading.Event()

    def task(work) -> None:
        try:
            work()
        finally:
            first_ended.set()

    def then() -> None:
        first_ended.wait()
        follow()

    threads = [threading.Thread(target=then, name=f"{name}: after the first", daemon=True)]
    threads += [
        threading.Thread(target=task, args=(work,), name=f"{name}: {i}", daemon=True)
        for i, work in enumerate(tasks[1:], 1)
    ]
    for thread in threads:
        thread.start()
    try:
        task(tasks[0])
    finally:
        for thread in threads:
            thread.join()


def combined_code(codes: list[int]) -> int:
    """The run's exit code from its parts' (1 for a part that never gave one): the first failure; 5 (nothing
    collected) only when no part collected anything, since a part with no tests is no failure while another
    ran tests."""
    ran = [code for code in codes if code != 5]
    return next((code for code in ran if code), 0) if ran else 5


# `--fast` runs on two workers (pytest-xdist; a module's tests stay on one, so its fixtures start once) where
# there are two cores, and with Hypothesis's "fast" profile (tests/conftest.py): fewer examples for the
# property tests that do not set their own number. `run.py test` keeps the full count.
HYPOTHESIS_PROFILE_VARIABLE = "LAYERNORM_HYPOTHESIS_PROFILE"


# What the fast loop leaves out of each pytest process: nbval's plugin (it imports nbformat, jsonschema and
# a grammar built at import: about 2.5 s of start-up in the controller and in each worker, for no notebook
# run), and the modules of tests/browser/, each of whose tests tests/conftest.py marks browser (importing
# them cost each worker about 3 s of collection, for tests it then left out).
# And pytest's log capture: it adds its handler to every logger that does not propagate (torch has 42) three
# times per test, about 0.8 s of CPU per fast run; no test reads the captured logs (no caplog), and a failing
# test's warnings still reach its captured stderr through Python's last-resort handler.
FAST_LEAVES_OUT = ["-p", "no:nbval", "-p", "no:logging", "--ignore=tests/browser"]


def modules_left_out(markers: tuple[str, ...] = FAST_LEAVES_OUT_MARKERS) -> list[str]:
    """``--ignore`` options for the test modules whose module-wide ``pytestmark`` holds one of ``markers``:
    the fast loop would deselect each of their tests, but only after importing them (the graded class's
    imports nbconvert, the hub's JupyterHub's helpers), in each worker. Read from the source, importing
    nothing; a mark is only ever added to a test, never taken away, so this leaves out no fast test."""
    import ast

    options = []
    for path in sorted(TESTS.rglob("test_*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (OSError, SyntaxError, UnicodeDecodeError):
            continue  # pytest collects it and reports what is wrong
        for node in tree.body:
            if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "pytestmark" for t in node.targets):
                named = {n.attr for n in ast.walk(node.value) if isinstance(n, ast.Attribute)}
                if named & set(markers):
                    options.append(f"--ignore={path.relative_to(ROOT)}")
    return options


def keep_bytecode() -> None:
    """Let the fast loop's processes keep their compiled bytecode, outside the sources (.venv/pycache).

    Where PYTHONDONTWRITEBYTECODE is set (as on the shared machine), every run compiled helpers/ and
    rewrote every test module's asserts again: about 7 of a worker's 11 s of collection, twice per run."""
    if os.environ.pop("PYTHONDONTWRITEBYTECODE", None) is not None:
        os.environ.setdefault("PYTHONPYCACHEPREFIX", str(VENV / "pycache"))


def fast_workers(python: Path, extra: list[str]) -> list[str]:
    if (os.cpu_count() or 1) < 2 or os.environ.get("LAYERNORM_TEST_WORKERS", "") == "1":
        return []
    if any(arg in ("--pdb", "--trace") or arg.startswith(("-n", "--numprocesses")) for arg in extra):
        return []  # a debugger needs one process; a chosen number of workers is the caller's
    # pytest-xdist is in requirements.txt; looked for as a file, since asking the venv's Python costs half a second
    venv = python.parent.parent
    has_xdist = bool(
        [*venv.glob("lib/python3*/site-packages/xdist/__init__.py"), *venv.glob("Lib/site-packages/xdist")]
    )
    # modules in the order given (tools/run/fast_order.py: the longest first), not by their number of tests
    return ["-n", "2", "--dist", "loadfile", "--no-loadscope-reorder"] if has_xdist else []


# pytest deletes a run's temporary folders (about 3,500 files: the Colab set-up tests' clones) when a later
# run ends, in the controller's exit. On this machine's disk (ext4 mounted with online discard) each unlink
# took about 2 ms: some 6 s after the last test of every fast run. In memory (tmpfs) it takes a blink.
RAM_FOLDER = Path("/dev/shm")


def ram_basetemp(extra: list[str], folder: Path = RAM_FOLDER, need: int = 1 << 30) -> list[str]:
    """``--basetemp`` in a memory-backed folder where there is one with room (``need`` bytes free), so that
    the fast loop's temporary files never touch the disk; none where the caller chose a basetemp or there
    is no such folder (macOS, Windows: pytest's default then)."""
    if any(arg.startswith("--basetemp") for arg in extra) or not hasattr(os, "getuid"):
        return []
    try:
        if not (folder.is_dir() and os.access(folder, os.W_OK) and shutil.disk_usage(folder).free >= need):
            return []
    except OSError:
        return []
    owner = os.getuid()
    mine = folder / f"layernorm-fast-{owner}"  # a folder of one's own, in a folder every user can write to
    try:
        mine.mkdir(mode=0o700, exist_ok=True)
        if mine.is_symlink() or mine.stat().st_uid != owner:
            return []  # someone else's: pytest's default folder instead
    except OSError:
        return []
    checkout = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]  # two checkouts never share one
    return ["--basetemp", str(mine / checkout)]


# Two workers on two cores, each with numpy's and torch's own pool of a thread per core, ran four threads on
# two cores. Measured, interleaved (3,118 tests): 26.4 / 28.1 s against 28.6 / 30.8 s wall, 47 / 50 s against
# 52 / 56 s of CPU (a third pair was lost to the machine: 39.4 against 32.6, with 68 s of CPU).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS")


def one_thread_each(environ=os.environ) -> None:
    """One thread of numerical work per worker, unless the caller set how many (in ``environ``, the fast loop's
    own environment, which its pytest processes inherit)."""
    for name in THREAD_VARIABLES:
        environ.setdefault(name, "1")


def cmd_test_fast(extra: list[str], reports: Path) -> int:
    python = ensure_env()
    os.environ.setdefault(HYPOTHESIS_PROFILE_VARIABLE, "fast")
    keep_bytecode()
    cmd = [str(python), "-m", "pytest", "tests", "-m", FAST_MARKERS, "-q", "-p", "no:cacheprovider", *FAST_LEAVES_OUT]
    if not any(_names_a_path(arg) for arg in extra):
        cmd += modules_left_out()
    whole = not any(_names_a_path(arg) or arg.startswith(("-k", "-m")) for arg in extra)  # every fast test
    os.environ[fast_order.ENVIRONMENT] = str(fast_order.DURATIONS)
    report = report_option(extra, reports / "fast.xml")
    workers = fast_workers(python, extra)
    if workers:
        one_thread_each()
    code = run([*cmd, *workers, *ram_basetemp(extra), *report, *extra])
    if whole and report:
        fast_order.remember(reports / "fast.xml")  # the next run's order
    lint = run([str(python), "-m", "ruff", "check", "."])
    say(
        "Fast tests only: notebooks (nbval), browser, hub and slow tests and the Colab-like pass were not run; "
        "`python3 run.py test` runs everything."
    )
    return code or lint


# Each pytest run's JUnit report (every test's time), kept after the run for a closer look than the ten
# slowest it prints: per module, per half (browser.xml, rest.xml; fast.xml for --fast).
TEST_TIMES = TESTS / "_artifacts" / "test-times"


def cmd_test(extra: list[str]) -> int:
    """`run.py test [--fast | --changed] [--busy N] [PYTEST-OPTIONS]`; ends by naming the ten slowest tests."""
    busy, extra = take_busy(extra)
    reports = TEST_TIMES
    shutil.rmtree(reports, ignore_errors=True)  # this run's reports only
    reports.mkdir(parents=True, exist_ok=True)
    with busy_loops(busy):
        try:
            if "--fast" in extra:
                return cmd_test_fast([arg for arg in extra if arg != "--fast"], reports)
            if "--changed" in extra:
                from tools.run.changed import cmd_test_changed

                return cmd_test_changed([arg for arg in extra if arg != "--changed"])
            return cmd_test_all(extra, reports)
        finally:
            print_slowest(sorted(reports.glob("*.xml")), say)
            if any(reports.glob("*.xml")):
                say(f"Every test's time (JUnit): {reports.relative_to(ROOT)}/")


def cmd_test_all(extra: list[str], reports: Path) -> int:
    whole_run = not any(_names_a_path(arg) for arg in extra)
    python = environments() if whole_run else ensure_env()
    targets: list[str] = []
    # `run.py test tests/test_maths.py` runs just that; otherwise everything.
    if whole_run:
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
    colab_code = None
    if whole_run and find_colab_python() is not None:
        # The Colab-like pass follows and runs the Colab set-up tests with Colab's versions: the first run of
        # tests/notebooks/test_colab_setup.py keeps only what that pass cannot do (it has no torch).
        os.environ[COLAB_PASS_FOLLOWS] = "1"
    if "tests" in targets and runs_in_parts(extra):
        code, colab_code = run_parts(cmd, targets, extra, reports)
    else:
        code = run([*cmd[:3], *targets, *cmd[3:], *report_option(extra, reports / "all.xml"), *extra])
    if code == 5:
        print(
            "error: no tests were collected, so nothing was checked (a run that tests nothing does not pass)",
            file=sys.stderr,
        )
    if any(_names_a_path(arg) for arg in extra):  # chosen test files: the Colab-like pass is for full runs
        say("Colab-like pass not run: you chose which tests to run.")
        return code
    lint = run([str(python), "-m", "ruff", "check", "."]) or run([str(python), "-m", "ruff", "format", "--check", "."])
    if colab_code is None:
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


def colab_env() -> None:
    """The Colab-like environment, installed if it is not (no python3.13: nothing; the pass says so)."""
    base = find_colab_python()
    if base is not None:
        ensure_env(COLAB_VENV, COLAB_REQUIREMENTS, base)


def run_colab_like_tests(stdout=None) -> int:
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
    print(
        f"== Colab-like environment ({COLAB_PYTHON}, {COLAB_REQUIREMENTS.name}) ==",
        file=stdout or sys.stdout,
        flush=True,
    )
    python = ensure_env(COLAB_VENV, COLAB_REQUIREMENTS, base)
    os.environ.pop(COLAB_PASS_FOLLOWS, None)  # this is that pass
    return run([str(python), "-m", "pytest", *COLAB_LIKE_TESTS, "-p", "no:cacheprovider", "-q"], stdout=stdout)


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
