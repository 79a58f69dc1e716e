"""What several test files share: the lesson's numbers written out, and references computed without helpers.

Expected values never come from the code under test: the lesson's matrices are typed in here from the
lesson (and ../shared/GUIDE.md), and the references are plain numpy, exact fractions or torch in
float64. Test files import these names (``from conftest import LESSON_X, numpy_stages``); keep this the
only conftest.py on the test path so that the import is unambiguous.
"""

from __future__ import annotations

import gc
import math
import os
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings

# nbformat imports jsonschema, whose format checks build ~35 Lark parsers at import when rfc3987-syntax is
# installed (jupyter-events brings it): 1-2 s of CPU in every test process, for an "iri" format that no
# schema here uses. Marked missing, jsonschema leaves that one check out, as where it is not installed (the
# class hub uninstalls it for the same reason: classroom/hub/install.py). Kernels and servers are other processes.
sys.modules.setdefault("rfc3987_syntax", None)

# tests/ is on sys.path (this file's folder) for the shared support modules; the root is too, for
# `import tools.<job>.<module>` from any folder of tests.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# torch's CPU kernels as run.py test pins them (tools/run/env.py), also for a plain `pytest`: before any
# test imports torch, and inherited by the notebook kernels nbval starts.
from tools.run.env import pinned_kernels  # noqa: E402

os.environ.update(pinned_kernels())

# The lesson's residual matrix exactly as printed, so that exact references start from its decimals.
LESSON_X_TEXT = (
    ("1.133", "-0.299", "0.503"),
    ("-0.176", "0.911", "0.143"),
    ("0.766", "0.781", "-0.518"),
    ("1.601", "-0.669", "0.368"),
    ("0.663", "0.779", "0.648"),
)
LESSON_X = np.array([[float(v) for v in row] for row in LESSON_X_TEXT])
LESSON_X.flags.writeable = False

# The lesson's published "complete output" table, as printed (it is wrong on all five rows, row 3 closest).
PUBLISHED_OUTPUT = np.array(
    [
        [1.40, -1.52, 0.12],
        [-1.15, 1.29, -0.14],
        [0.71, 0.70, -1.41],
        [1.31, -1.14, -0.17],
        [-0.16, 0.91, -0.75],
    ]
)
PUBLISHED_OUTPUT.flags.writeable = False

EPS = 1e-5  # PyTorch's default, and the lesson's


def numpy_stages(row, eps=EPS, gamma=1.0, beta=0.0) -> dict[str, np.ndarray]:
    """Every stage of LayerNorm on one row in plain numpy, by the label the step tables give it."""
    row = np.asarray(row, dtype=np.float64)
    mean = row.mean()
    differences = row - mean
    variance = (differences**2).mean()
    std = np.sqrt(variance + eps)
    normalised = differences / std
    return {
        "mean": mean,
        "differences": differences,
        "squares": differences**2,
        "variance": variance,
        "std": std,
        "normalised": normalised,
        "output": np.asarray(gamma) * normalised + np.asarray(beta),
    }


def numpy_layer_norm(matrix, eps=EPS) -> np.ndarray:
    """LayerNorm (γ = 1, β = 0) of every row in plain numpy: the biased variance, eps inside the root."""
    matrix = np.asarray(matrix, dtype=np.float64)
    mean = matrix.mean(axis=-1, keepdims=True)
    variance = ((matrix - mean) ** 2).mean(axis=-1, keepdims=True)
    return (matrix - mean) / np.sqrt(variance + eps)


def exact_layer_norm(texts, eps=Fraction(1, 100_000), unbiased=False):
    """Mean and variance of one row as exact fractions from its decimals (variance ÷ n, or ÷ (n − 1) when
    ``unbiased``); the std and the output to float precision. Returns (mean, variance, std, output)."""
    x = [Fraction(t) for t in texts]
    mean = sum(x) / len(x)
    variance = sum((v - mean) ** 2 for v in x) / (len(x) - 1 if unbiased else len(x))
    std = math.sqrt(variance + eps)  # float(Fraction) inside sqrt: correctly rounded first
    return mean, variance, std, [float(v - mean) / std for v in x]


def torch_layer_norm(x, weight=None, bias=None, eps=EPS) -> np.ndarray:
    """``torch.nn.functional.layer_norm`` over the last axis in float64 (skips the test without torch)."""
    torch = pytest.importorskip("torch")
    tensor = torch.tensor(np.asarray(x), dtype=torch.float64)
    w = None if weight is None else torch.tensor(np.asarray(weight), dtype=torch.float64)
    b = None if bias is None else torch.tensor(np.asarray(bias), dtype=torch.float64)
    return torch.nn.functional.layer_norm(tensor, (tensor.shape[-1],), w, b, eps).numpy()


# Hypothesis's profiles. No deadline in any: Hypothesis's 200 ms per example is a time, not a state, and
# on a busy machine it failed a correct test (DeadlineExceeded at load 12 on two cores). "fast" (`run.py
# test --fast` sets LAYERNORM_HYPOTHESIS_PROFILE) also tries fewer examples in the property tests that do
# not choose their own number; every other run keeps Hypothesis's number of examples.
settings.register_profile("layernorm", deadline=None)
settings.register_profile("fast", parent=settings.get_profile("layernorm"), max_examples=20)
HYPOTHESIS_PROFILE = os.environ.get("LAYERNORM_HYPOTHESIS_PROFILE") or "layernorm"
settings.load_profile(HYPOTHESIS_PROFILE)


def examples(full: int, fast: int) -> int:
    """The number of examples for a property test that chooses its own: ``full`` in every run but the fast
    loop's (`run.py test --fast` and `--changed`), which tries ``fast`` of them. The family tests draw with
    ``derandomize=True``, so their fast run is a fixed part of the family; `run.py test` draws all ``full``."""
    return fast if HYPOTHESIS_PROFILE == "fast" else full


def pytest_unconfigure(config):
    # A fast-loop worker (pytest-xdist), once pytest is done with it: every result is with the controller, so
    # it leaves without the interpreter's own tear-down of a large heap (and IPython's exit hooks), which took
    # each worker 2 to 4 s while the controller waited.
    if os.environ.get("PYTEST_XDIST_WORKER") and HYPOTHESIS_PROFILE == "fast":
        import atexit

        atexit.register(os._exit, 0)


def _fast_loop_worker() -> bool:
    return bool(os.environ.get("PYTEST_XDIST_WORKER")) and HYPOTHESIS_PROFILE == "fast"


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    # A fast-loop worker's collection imports torch, matplotlib and ~150 test modules: objects that live
    # until the worker ends, which Python's cyclic garbage collector scanned again in each of its full
    # passes, during collection and in every test after. The collector waits until collection is done;
    # what is alive then is frozen (gc.freeze: kept, never scanned again) and the tests' own objects are
    # collected as usual. CPU in the collector per fast run, both workers (gc.callbacks), interleaved, four
    # pairs: 4.3, 3.8, 4.5, 4.5 s without this; 2.7, 2.5, 2.7, 2.5 s with it (of about 45 s).
    if not _fast_loop_worker():
        return (yield)
    gc.disable()
    try:
        return (yield)
    finally:
        gc.collect()
        gc.freeze()
        gc.enable()


def pytest_configure(config):
    # nbval's time-out for one notebook cell (`run.py test` gives 300 s) is a quiet machine's: scaled like
    # every other deadline in the tests (tests/patience.py).
    if getattr(config.option, "nbval_cell_timeout", None):
        from patience import scaled_s

        config.option.nbval_cell_timeout = scaled_s(config.option.nbval_cell_timeout)


# Fixtures that start Chromium, JupyterLab, Voila or npm: a test using one is a browser test, so
# `run.py test --fast` (-m "not browser") leaves it out even if its module forgot the marker.
BROWSER_FIXTURES = {
    "browser",
    "chromium_browser",
    "lab",
    "lab_page",
    "voila",
    "slides",
    "laptop_page",
    "lecture_server",
}


def pytest_itemcollected(item):
    # Marked as each test is collected, before any pytest_collection_modifyitems (where `-m` deselects)
    # runs, whatever order those hooks run in: `run.py test` splits the run by this mark.
    in_browser_folder = "browser" in Path(str(item.path)).resolve().relative_to(ROOT).parts[:2]
    if in_browser_folder or BROWSER_FIXTURES & set(getattr(item, "fixturenames", ())):
        item.add_marker(pytest.mark.browser)


# `run.py test --fast` gives its two workers whole modules, the longest first (tools/run/fast_order.py),
# from the times of the last fast runs; every worker orders its collection alike, as xdist requires.
def pytest_collection_modifyitems(config, items):
    from tools.run import fast_order

    durations = (
        fast_order.load(Path(os.environ[fast_order.ENVIRONMENT])) if fast_order.ENVIRONMENT in os.environ else {}
    )
    if durations:
        items[:] = [items[index] for index in fast_order.longest_first([item.nodeid for item in items], durations)]
    # A test marked `last` ends what the others share (test_browser's clean shut-down of the shared JupyterLab):
    # after every other test, so that no module after it starts the session and runs the notebooks again.
    items.sort(key=lambda item: item.get_closest_marker("last") is not None)  # stable: the rest keep their order


# What this session's `-m` left out, with each test's markers, for tests/maintenance/test_run_halves.py: in
# `run.py test`'s last part (-m REST_MARKERS) that is every other part's tests, so that test reads the whole
# suite from the run it is in instead of collecting it again (about 18 s).
DESELECTED: dict[str, frozenset[str]] = {}


def pytest_deselected(items):
    DESELECTED.update((item.nodeid, frozenset(mark.name for mark in item.iter_markers())) for item in items)


# `run.py test --fast` leaves out tests marked slow; a quick test that has become slow is named at the
# end of that run (a note, never a failure: a busy machine makes anything slow).
SLOW_SECONDS = 2.0
_UNMARKED_SLOW: list[tuple[float, str]] = []


def pytest_runtest_logreport(report):
    if report.when == "call" and report.duration > SLOW_SECONDS and "slow" not in report.keywords:
        _UNMARKED_SLOW.append((report.duration, report.nodeid))


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if "not slow" in (config.getoption("markexpr", "") or "") and _UNMARKED_SLOW:
        terminalreporter.write_line(
            f"{len(_UNMARKED_SLOW)} test(s) took over {SLOW_SECONDS:g} s without the slow marker "
            "(mark them @pytest.mark.slow, or make them quick):"
        )
        for seconds, nodeid in sorted(_UNMARKED_SLOW, reverse=True)[:10]:
            terminalreporter.write_line(f"  {seconds:5.1f} s  {nodeid}")
