"""The class run's measurements (classroom/sim/lesson.py, processes.py), without a hub or root: what a
student costs, read from /proc files written here; the spread of a measure; the summary the class
benchmark prints; the hub log's lines about one student; notebook 02's exercise cells.

Expected values are worked out by hand from the docstrings and the files' formats (proc(5)).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from classroom.sim import lesson, processes
from classroom.sim.lesson import Result
from classroom.sim.processes import Usage

# --- what a student costs: /proc/<pid>/status, smaps_rollup and stat, summed over their processes


def _proc(root: Path, pid: int, rss_kib: int, pss_kib: int, ticks: tuple[int, int, int, int], command="python"):
    folder = root / "proc" / str(pid)
    folder.mkdir(parents=True)
    (folder / "status").write_text(f"Name:\t{command}\nVmPeak:\t  999999 kB\nVmRSS:\t  {rss_kib} kB\nThreads:\t4\n")
    (folder / "smaps_rollup").write_text(f"00400000-7fff [rollup]\nRss:   {rss_kib + 7} kB\nPss:   {pss_kib} kB\n")
    utime, stime, cutime, cstime = ticks
    # fields 1-2 are "pid (comm)"; after the ")" come state, ppid, ... and utime is the 14th field of the line
    after = ["S", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", str(utime), str(stime), str(cutime), str(cstime)]
    (folder / "stat").write_text(f"{pid} ({command}) " + " ".join([*after, "20", "0", "1"]) + "\n")


@pytest.fixture
def fake_proc(tmp_path, monkeypatch):
    monkeypatch.setattr(processes, "Path", lambda text: tmp_path / str(text).lstrip("/"))
    return tmp_path


def test_a_students_usage_sums_rss_pss_and_all_four_cpu_times_of_their_processes(fake_proc, monkeypatch):
    _proc(fake_proc, 101, rss_kib=2048, pss_kib=1024, ticks=(100, 50, 7, 3))
    _proc(fake_proc, 102, rss_kib=1024, pss_kib=512, ticks=(10, 20, 30, 40), command="a (tricky) name")
    monkeypatch.setattr(processes, "processes_of", lambda uid: [101, 102, 999] if uid == 1234 else [])
    found = processes.usage(1234)  # 999 has ended: it is left out, not counted
    ticks = 100 + 50 + 7 + 3 + 10 + 20 + 30 + 40
    assert found == Usage(2, (2048 + 1024) / 1024, (1024 + 512) / 1024, ticks / processes.TICK)


def test_a_user_with_no_processes_costs_nothing(fake_proc, monkeypatch):
    monkeypatch.setattr(processes, "processes_of", lambda uid: [])
    assert processes.usage(1234) == Usage(0, 0.0, 0.0, 0.0)


@pytest.mark.parametrize("error", [FileNotFoundError, ProcessLookupError, PermissionError])
def test_a_process_that_cannot_be_read_is_skipped(fake_proc, monkeypatch, error):
    _proc(fake_proc, 101, rss_kib=2048, pss_kib=1024, ticks=(1, 2, 3, 4))
    _proc(fake_proc, 102, rss_kib=4096, pss_kib=4096, ticks=(5, 5, 5, 5))
    real = processes.Path

    def path(text):
        if "/102/" in str(text) and str(text).endswith("smaps_rollup"):
            raise error(str(text))
        return real(text)

    _proc(fake_proc, 103, rss_kib=1024, pss_kib=1024, ticks=(1, 1, 1, 1))
    monkeypatch.setattr(processes, "Path", path)
    monkeypatch.setattr(processes, "processes_of", lambda uid: [101, 102, 103])
    assert processes.usage(7) == Usage(2, 3.0, 2.0, 14 / processes.TICK)  # 102 is skipped, 103 still counted


def test_a_field_missing_from_a_proc_file_counts_as_zero():
    assert processes._kib("Name:\tpython\nVmRSS:\t  512 kB\n", "VmRSS") == 512
    assert processes._kib("Name:\tpython\nVmRSSx:\t  512 kB\n", "VmRSS") == 0  # another field's prefix
    assert processes._kib("Name:\tpython\n", "Pss") == 0


# --- the spread of a measure: median, 95th percentile, largest, to three places


def test_the_spread_of_1_to_100_is_median_50_5_p95_95_max_100():
    assert lesson.spread([float(v) for v in range(100, 0, -1)]) == {"median": 50.5, "p95": 95.0, "max": 100.0}


@pytest.mark.parametrize(
    ("values", "p95"),
    [
        ([7.0], 7.0),
        ([1.0, 2.0], 2.0),
        ([float(v) for v in range(1, 21)], 19.0),
        ([float(v) for v in range(1, 41)], 38.0),
    ],
)
def test_the_95th_percentile_is_the_value_below_which_95_percent_lie(values, p95):
    assert lesson.spread(values)["p95"] == p95


@pytest.mark.parametrize("n", range(1, 241))
def test_the_95th_percentile_is_the_nearest_rank_at_every_class_size(n):
    """The smallest value that at least 95 % of the class does not exceed: for 30 students the 29th (28.5
    rounds up), never the 28th, which 28 of 30 (93 %) do not exceed; for 20, the 19th."""
    values = [float(v) for v in range(1, n + 1)]  # the k-th value is k
    p95 = lesson.spread(values)["p95"]
    assert p95 / n >= 0.95 - 1e-12  # at least 95 % of the values are at or below it
    assert (p95 - 1) / n < 0.95  # and no smaller value has that


def test_a_spread_is_rounded_to_three_places_and_empty_for_no_values():
    assert lesson.spread([0.12345, 0.12345, 2.71828]) == {"median": 0.123, "p95": 2.718, "max": 2.718}
    assert lesson.spread([]) == {}


# --- the summary of a class run


def _usage(rss, pss, cpu):
    return Usage(3, rss, pss, cpu)


def test_the_summary_counts_failures_and_measures_only_the_students_who_got_through():
    ok = [
        Result(
            f"s{n}",
            ok=True,
            login_seconds=n,
            spawn_seconds=10 * n,
            pull_seconds=100 * n,
            check_seconds=0.5 * n,
            started=_usage(100, 50, 0.25 * n),
            numpy=_usage(200 + n, 150 + n, 2.0 * n),
            check_cpu_seconds=3.0 * n,
            reconnects=["kernel restarted"] * (n - 1),
        )
        for n in (1, 2, 3)
    ]
    ok[2].torch = _usage(900, 600, 9.0)
    failed = [
        Result("f1", error="s-f1: login refused", login_seconds=99.0, reconnects=["dropped"]),
        Result("f2", error="s-f1: login refused"),
        Result("f3", error="a timeout", numpy=_usage(9999, 9999, 99.0)),
    ]
    found = lesson.summary([*ok, *failed], wall_seconds=12.345)
    assert found == {
        "students": 6,
        "failures": 3,
        "errors": ["a timeout", "s-f1: login refused"],
        "wall_seconds": 12.3,
        "websocket_reconnects": 0 + 1 + 2 + 1,
        "reconnect_reasons": ["dropped", "kernel restarted"],
        "login_seconds": {"median": 2.0, "p95": 3.0, "max": 3.0},
        "spawn_seconds": {"median": 20.0, "p95": 30.0, "max": 30.0},
        "pull_seconds": {"median": 200.0, "p95": 300.0, "max": 300.0},
        "check_seconds": {"median": 1.0, "p95": 1.5, "max": 1.5},
        "memory_mib": {
            "numpy": {
                "students": 3,
                "rss": {"median": 202.0, "p95": 203.0, "max": 203.0},
                "pss": {"median": 152.0, "p95": 153.0, "max": 153.0},
            },
            "torch": {
                "students": 1,
                "rss": {"median": 900.0, "p95": 900.0, "max": 900.0},
                "pss": {"median": 600.0, "p95": 600.0, "max": 600.0},
            },
        },
        "cpu_seconds_per_student": {"median": 4.0, "p95": 6.0, "max": 6.0},
        "cpu_seconds_server_start": {"median": 0.5, "p95": 0.75, "max": 0.75},
        "cpu_seconds_per_check": {"median": 3.0, "p95": 4.5, "max": 4.5},  # two checks per student
    }


def test_the_summary_keeps_ten_errors_and_five_reconnect_reasons_at_most():
    results = [Result(f"s{n:02d}", error=f"error {n:02d}", reconnects=[f"why {n:02d}"]) for n in range(12)]
    found = lesson.summary(results, 1.0)
    assert found["errors"] == [f"error {n:02d}" for n in range(10)]
    assert found["reconnect_reasons"] == [f"why {n:02d}" for n in range(5)]
    assert found["memory_mib"] == {} and found["login_seconds"] == {}


def test_a_result_becomes_a_plain_dict_with_its_usages():
    result = Result("s1", ok=True, numpy=_usage(1.0, 2.0, 3.0), kernels=["k1"])
    found = lesson.as_dict(result)
    assert found["name"] == "s1" and found["ok"] is True and found["kernels"] == ["k1"]
    assert found["numpy"] == {"processes": 3, "rss_mib": 1.0, "pss_mib": 2.0, "cpu_seconds": 3.0}
    assert found["torch"] is None


# --- the hub log's lines about one student


def test_the_log_excerpt_keeps_the_last_lines_naming_the_student_its_kernels_or_a_restart():
    log = "\n".join(
        [
            "[I] s001 logged in",
            "[I] s002 logged in",
            "[W] KernelRestarter: restarting kernel (1/5)",
            "[I] kernel abc-123 started",
            "[I] kernel zzz-999 started",
            "[E] Kernel died and will not restart",
            "[I] s001 server stopped",
        ]
    )
    result = Result("s001", kernels=["abc-123"])
    assert lesson.log_excerpt(log, result) == "\n".join(
        [
            "[I] s001 logged in",
            "[W] KernelRestarter: restarting kernel (1/5)",
            "[I] kernel abc-123 started",
            "[E] Kernel died and will not restart",
            "[I] s001 server stopped",
        ]
    )
    assert lesson.log_excerpt(log, result, lines=2) == "[E] Kernel died and will not restart\n[I] s001 server stopped"


def test_the_log_excerpt_keeps_the_last_40_lines_unless_told():
    log = "\n".join(f"[I] s001 step {n}" for n in range(45))
    assert lesson.log_excerpt(log, Result("s001")).splitlines() == [f"[I] s001 step {n}" for n in range(5, 45)]


def test_a_log_that_never_names_the_student_says_so():
    assert lesson.log_excerpt("[I] s002 logged in\n", Result("s001")) == "(the hub's log says nothing of s001)"


# --- notebook 02's exercise cells, found by what they hold


def _cell(kind, source):
    return {"cell_type": kind, "source": source}


def test_the_exercise_cells_are_found_by_what_they_hold_not_their_position():
    setup = ["import helpers\n", "from helpers import SetupProblem\n"]
    check = ['helpers.exercises.check("mean", mean)\n']
    notebook = {
        "cells": [
            _cell("markdown", ["import helpers and SetupProblem\n", 'helpers.exercises.check("mean"']),
            _cell("code", check),
            _cell("code", ["import helpers\n"]),
            _cell("code", setup),
        ]
    }
    assert lesson.code_cells(notebook) == ["".join(check), "import helpers\n", "".join(setup)]
    assert lesson.exercise_cells(notebook) == ("".join(setup), "".join(check))


def test_the_series_notebook_02_has_both_exercise_cells():
    import json

    notebook = json.loads((Path(__file__).resolve().parents[2] / "notebooks" / "02_mean.ipynb").read_text())
    setup, check = lesson.exercise_cells(notebook)
    assert "SetupProblem" in setup and check.count('helpers.exercises.check("mean"') == 1
