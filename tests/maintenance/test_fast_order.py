"""The fast loop's order (tools/run/fast_order.py): whole modules, the longest first by the last runs' times,
so that its two workers finish together; a module never timed goes first; without times, pytest's order."""

from __future__ import annotations

import json
import os
from types import SimpleNamespace

import pytest

from tools.run import fast_order
from tools.run.fast_order import ROOT, load, longest_first, remember, report_durations
from tools.run.tests import fast_workers

CORE = "tests/core/test_layernorm.py"
ORIGINAL_THREADS = {
    name for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS") if name in os.environ
}
CHECKING = "tests/checking/test_exercises.py"


def junit(path, cases):
    body = "".join(f'<testcase classname="{c}" name="t{i}" time="{t}"/>' for i, (c, t) in enumerate(cases))
    path.write_text(f'<?xml version="1.0"?><testsuites><testsuite name="pytest">{body}</testsuite></testsuites>')
    return path


def test_a_report_gives_each_module_the_sum_of_its_tests_times_classes_included(tmp_path):
    report = junit(
        tmp_path / "fast.xml",
        [
            ("tests.core.test_layernorm", 1.5),
            ("tests.core.test_layernorm.TestSomething", 0.25),  # a test class: still the module's
            ("tests.checking.test_exercises", 2.0),
            ("tests.nowhere.test_gone", 9.0),  # no such file: left out
            ("", 3.0),
        ],
    )
    assert report_durations(report) == {CORE: 1.75, CHECKING: 2.0}


@pytest.mark.parametrize("content", [None, "not xml at all <", ""])
def test_a_missing_or_broken_report_gives_no_times(tmp_path, content):
    report = tmp_path / "fast.xml"
    if content is not None:
        report.write_text(content)
    assert report_durations(report) == {}


def test_longest_first_untimed_before_all_and_each_module_together_in_its_own_order():
    ids = [
        "tests/a.py::one", "tests/b.py::one", "tests/a.py::two", "tests/c.py::one", "tests/new.py::x",
        "tests/b.py::two", "tests/newer.py::y",
    ]  # fmt: skip
    order = [ids[i] for i in longest_first(ids, {"tests/a.py": 1.0, "tests/b.py": 5.0, "tests/c.py": 3.0})]
    assert order == [
        "tests/new.py::x", "tests/newer.py::y",  # never timed: first, in pytest's order
        "tests/b.py::one", "tests/b.py::two", "tests/c.py::one", "tests/a.py::one", "tests/a.py::two",
    ]  # fmt: skip


def test_equal_times_keep_pytest_s_order():
    ids = ["tests/z.py::t", "tests/y.py::t", "tests/x.py::t"]
    assert longest_first(ids, dict.fromkeys(["tests/x.py", "tests/y.py", "tests/z.py"], 2.0)) == [0, 1, 2]


def test_remember_takes_new_times_keeps_the_others_and_drops_modules_gone(tmp_path):
    store = tmp_path / "durations.json"
    store.write_text(json.dumps({CORE: 4.0, CHECKING: 1.0, "tests/gone/test_old.py": 7.0}))
    remember(junit(tmp_path / "fast.xml", [("tests.core.test_layernorm", 2.5)]), store)
    assert load(store) == {CORE: 2.5, CHECKING: 1.0}


@pytest.mark.parametrize("content", ["[1, 2]", "{not json", '{"tests/a.py": "slow", "tests/b.py": true}'])
def test_a_damaged_file_of_times_reads_as_none(tmp_path, content):
    store = tmp_path / "durations.json"
    store.write_text(content)
    assert load(store) == {}
    assert load(tmp_path / "missing.json") == {}


def test_the_workers_take_modules_in_the_order_given(monkeypatch):
    python = ROOT / ".venv" / "bin" / "python"
    monkeypatch.delenv("LAYERNORM_TEST_WORKERS", raising=False)
    options = fast_workers(python, [])
    if not options:
        pytest.skip("one core, or no pytest-xdist: no workers to order")
    assert options[options.index("--dist") + 1] == "loadfile" and "--no-loadscope-reorder" in options


def item(nodeid: str, marks: tuple[str, ...] = ()):
    """A collected test as the hook sees it: its id and its markers."""
    return SimpleNamespace(nodeid=nodeid, get_closest_marker=lambda name: name if name in marks else None)


def test_a_test_marked_last_runs_after_every_other_and_the_rest_keep_their_order(monkeypatch):
    from conftest import pytest_collection_modifyitems

    monkeypatch.delenv(fast_order.ENVIRONMENT, raising=False)
    items = [item("tests/a.py::one"), item("tests/a.py::ends", ("last",)), item("tests/b.py::one"), item("c.ipynb")]
    pytest_collection_modifyitems(None, items)
    assert [i.nodeid for i in items] == ["tests/a.py::one", "tests/b.py::one", "c.ipynb", "tests/a.py::ends"]


def test_the_suite_orders_a_session_s_tests_so_when_the_fast_loop_says_where_the_times_are(tmp_path, monkeypatch):
    """tests/conftest.py's hook, as each xdist worker runs it on its collection (alike in every worker)."""
    from conftest import pytest_collection_modifyitems

    names = ["tests/a.py::one", "tests/a.py::two", "tests/b.py::one", "tests/c.py::one"]
    items = [item(name) for name in names]
    store = tmp_path / "durations.json"
    store.write_text(json.dumps({"tests/a.py": 1.0, "tests/b.py": 3.0}))  # c never timed
    monkeypatch.delenv(fast_order.ENVIRONMENT, raising=False)
    pytest_collection_modifyitems(None, items)
    assert [item.nodeid for item in items] == names  # not the fast loop: pytest's order
    monkeypatch.setenv(fast_order.ENVIRONMENT, str(store))
    pytest_collection_modifyitems(None, items)
    assert [item.nodeid for item in items] == [
        "tests/c.py::one",
        "tests/b.py::one",
        "tests/a.py::one",
        "tests/a.py::two",
    ]


def test_each_fast_worker_does_its_numerical_work_in_one_thread_unless_told_otherwise():
    """On an environment of its own: set in this process, it reached the notebooks nbval runs later in the same
    session, and notebook 11's torch sums came out in another order (dγ 3.6e-15, stored 2.4e-15)."""
    from tools.run.tests import THREAD_VARIABLES, one_thread_each

    environ = {"OPENBLAS_NUM_THREADS": "3"}  # the caller's choice stands
    one_thread_each(environ)
    assert [environ[name] for name in THREAD_VARIABLES] == ["1", "1", "3"]
    assert not [name for name in THREAD_VARIABLES if os.environ.get(name) == "1" and name not in ORIGINAL_THREADS]
