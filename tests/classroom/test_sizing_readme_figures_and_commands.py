"""classroom/sizing.py's figures for the README and its command line, from the module's docstrings, on a
measurement typed in here (every expected number worked out by hand below it):

- each timing row reads "median / p95 / max", one decimal, in that order;
- the per-student rows give RSS and PSS "median (max)" in whole MiB, numpy then torch;
- the hub lets in floor(60 s / its CPU seconds per student) students a minute (a whole student, never
  rounded up);
- a server row names what holds it back: "memory" (numpy notebooks), "memory (torch)" or "CPU";
- a measurement without positive memory or CPU per student is refused in one sentence;
- with no option the command prints each sized line; --write says what it wrote, and --check also fails on
  a README whose measured section is stale, saying how to mend it.
"""

from __future__ import annotations

import json

import pytest

from classroom import sizing


def measurement(**changes) -> dict:
    found = {
        "date": "2026-01-02",
        "students": 50,
        "torch_students": 8,
        "failures": 1,
        "wall_seconds": 123.4,
        "machine": {"cores": 4, "memory_gib": 16, "load_before": 0.5},
        "login_seconds": {"median": 1.2, "p95": 3.4, "max": 5.6},
        "spawn_seconds": {"median": 10.1, "p95": 20.2, "max": 30.3},
        "pull_seconds": {"median": 0.7, "p95": 0.8, "max": 0.9},
        "check_seconds": {"median": 4.4, "p95": 6.6, "max": 8.8},
        "memory_mib": {
            "numpy": {"rss": {"median": 200, "p95": 205, "max": 210}, "pss": {"median": 150, "max": 160}},
            "torch": {"rss": {"median": 400, "max": 420}, "pss": {"median": 300, "max": 330}, "students": 8},
        },
        "cpu_seconds_per_student": {"median": 3.0, "p95": 4.0},
        "cpu_seconds_server_start": {"median": 2.0},
        "cpu_seconds_per_check": {"median": 0.035},
        "hub_cpu_seconds": 35.0,  # 0.7 s per student: 60 / 0.7 = 85.7 students a minute
    }
    found.update(changes)
    return found


def lines() -> list[str]:
    return sizing.measured_section(measurement()).splitlines()


def test_the_section_is_between_its_markers_and_opens_with_the_run():
    found = lines()
    assert found[0] == sizing.BEGIN and found[-1] == sizing.END
    assert found[1] == (
        "Measured on 2026-01-02 with `sudo .venv/bin/python benchmarks/bench_class.py --students 50 --torch 8 "
        "--save`: 50 simulated students arriving at once on one machine of 4 cores and 16 GiB (load 0.5 before "
        "the run), 1 failures, 123 s from the first login to the last logout."
    )


def test_each_timing_row_reads_median_then_p95_then_max():
    found = lines()
    assert "| log in (form, first password) and get a token | 1.2 s / 3.4 s / 5.6 s |" in found
    assert "| start the server (all 50 at once) | 10.1 s / 20.2 s / 30.3 s |" in found
    assert "| nbgitpuller clone into the home | 0.7 s / 0.8 s / 0.9 s |" in found
    assert "| open notebook 02, run its set-up and two checks | 4.4 s / 6.6 s / 8.8 s |" in found


def test_the_per_student_rows_give_rss_and_pss_median_and_max_numpy_then_torch():
    found = lines()
    numpy = found.index("| server + notebook 02's kernel (numpy) | 200 MiB (210) | 150 MiB (160) |")
    torch = found.index("| server + notebook 08's kernel (torch; 8 students) | 400 MiB (420) | 300 MiB (330) |")
    assert torch == numpy + 1


def test_the_cpu_sentence_gives_each_share():
    assert (
        "CPU per student: 3.00 s to arrive and do the first exercise (of which 2.00 s starting the server; one "
        "check 0.035 s). The hub, proxy and culler together: 0.70 s per student, on one core."
    ) in lines()


def test_the_hub_lets_in_whole_students_a_minute_never_rounded_up():
    assert sizing.hub_starts_per_minute(measurement()) == 85  # 60 / 0.7 = 85.7
    assert sizing.hub_starts_per_minute(measurement(hub_cpu_seconds=25.0)) == 120  # 60 / 0.5, exactly
    assert sizing.hub_starts_per_minute(measurement(hub_cpu_seconds=60.0, students=20)) == 20  # 3 s each
    assert lines()[-2] == (
        "The hub process lets in about 85 students a minute whatever the server's size, so a class larger than "
        "that should arrive over a few minutes (see the rush, below)."
    )


def test_each_server_row_counts_and_names_what_holds_it_back():
    # 16 GiB: (16384 - 2048) MiB / 150 = 95.6 numpy, / 300 = 47.8 torch; 4 cores / (3 s / 60 s) = 80
    assert "| 16 GiB, 4 cores | 95 | 47 | 80 | **47** (memory (torch)) |" in lines()
    # 128 GiB: 129024 / 150 = 860.2, / 300 = 430.1; 32 cores / 0.05 = 640
    assert "| 128 GiB, 32 cores | 860 | 430 | 640 | **430** (memory (torch)) |" in lines()
    busy = measurement(cpu_seconds_per_student={"median": 12.0, "p95": 13.0})  # 4 / 0.2 = 20
    assert "| 16 GiB, 4 cores | 95 | 47 | 20 | **20** (CPU) |" in sizing.measured_section(busy).splitlines()


def test_a_numpy_student_larger_than_a_torch_one_is_held_by_memory():
    memory = json.loads(json.dumps(measurement()["memory_mib"]))
    memory["numpy"]["pss"]["median"] = 600  # 14336 / 600 = 23.9
    row = "| 16 GiB, 4 cores | 23 | 47 | 80 | **23** (memory) |"
    assert row in sizing.measured_section(measurement(memory_mib=memory)).splitlines()
    counts = sizing.students_per_server(16, 4, measurement(memory_mib=memory))
    assert (counts["binding"], counts["students"]) == ("memory_numpy", 23)


@pytest.mark.parametrize(("case", "value"), [("numpy", 0), ("torch", -1.0), ("cpu", 0.0)])
def test_a_measurement_without_positive_memory_or_cpu_is_refused(case, value):
    results = json.loads(json.dumps(measurement()))
    if case == "cpu":
        results["cpu_seconds_per_student"]["median"] = value
    else:
        results["memory_mib"][case]["pss"]["median"] = value
    with pytest.raises(ValueError) as refused:
        sizing.students_per_server(16, 4, results)
    assert str(refused.value) == "the measured memory and CPU per student must be positive"


@pytest.fixture
def files(tmp_path, monkeypatch):
    """A measurement, a values.yaml and a README in tmp_path, the README as the module's own."""
    results = tmp_path / "class_results.json"
    results.write_text(json.dumps(measurement()), encoding="utf-8")
    values = tmp_path / "values.yaml"
    values.write_text(
        "singleuser:\n  memory:\n    guarantee: 1G  # sizing: singleuser.memory.guarantee\n"
        "    limit: 1G  # sizing: singleuser.memory.limit\n  cpu:\n    guarantee: 1  # sizing: singleuser.cpu.guarantee\n",
        encoding="utf-8",
    )
    readme = tmp_path / "README.md"
    readme.write_text(f"# Class\n\n{sizing.BEGIN}\nold figures\n{sizing.END}\nafter\n", encoding="utf-8")
    monkeypatch.setattr(sizing, "README", readme)
    return results, values, readme


def test_with_no_option_it_prints_each_sized_line(files, capsys):
    results, values, _ = files
    assert sizing.main(["--results", str(results), "--values", str(values)]) == 0
    # numpy RSS p95 205 -> 256 (64s); torch RSS max 420 x 1.5 = 630 -> 640 (128s); 4 s / 60 s = 0.067 -> 0.1
    assert capsys.readouterr().out == (
        "singleuser.memory.guarantee: 256M\nsingleuser.memory.limit: 640M\nsingleuser.cpu.guarantee: 0.1\n"
    )


def test_write_says_what_it_wrote_and_check_then_passes(files, capsys):
    results, values, readme = files
    assert sizing.main(["--write", "--results", str(results), "--values", str(values)]) == 0
    assert capsys.readouterr().out == (
        "wrote singleuser.memory.guarantee=256M, singleuser.memory.limit=640M, singleuser.cpu.guarantee=0.1 "
        f"to {values}\n"
    )
    assert "    guarantee: 256M  # sizing: singleuser.memory.guarantee\n" in values.read_text(encoding="utf-8")
    text = readme.read_text(encoding="utf-8")
    assert text.startswith("# Class\n\n" + sizing.BEGIN) and text.endswith(sizing.END + "\nafter\n")
    assert "old figures" not in text and "| 16 GiB, 4 cores | 95 | 47 | 80 | **47** (memory (torch)) |" in text
    assert sizing.main(["--check", "--results", str(results), "--values", str(values)]) == 0
    assert capsys.readouterr().err == ""


def test_check_fails_on_a_stale_readme_alone_and_says_how_to_mend_it(files, capsys):
    results, values, readme = files
    sizing.main(["--write", "--results", str(results), "--values", str(values)])
    capsys.readouterr()
    readme.write_text(readme.read_text(encoding="utf-8").replace("| **47** (", "| **48** ("), encoding="utf-8")
    assert sizing.main(["--check", "--results", str(results), "--values", str(values)]) == 1
    assert capsys.readouterr().err == (
        f"{values}: README.md measured section is stale, {results} gives regenerated\n"
        "run: python3 classroom/sizing.py --write\n"
    )
