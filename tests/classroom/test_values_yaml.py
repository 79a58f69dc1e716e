"""classroom/values.yaml, the Zero to JupyterHub recipe: valid chart keys, sized from measurement, and an image
whose versions agree with the hub's pins and the series' requirements.

The expected sizes are computed from whatever data/class_results.json holds, so the tests stay right when a
new measurement replaces it; a hand edit of a sized line fails them. Nothing here needs Kubernetes or Docker.
"""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

yaml = pytest.importorskip("yaml", reason="PyYAML is needed to read classroom/values.yaml (pip install pyyaml)")

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from classroom import sizing  # noqa: E402

CLASSROOM = ROOT / "classroom"
VALUES = CLASSROOM / "values.yaml"
SCHEMA_KEYS = CLASSROOM / "z2jh-schema-keys.txt"
DOCKERFILE = CLASSROOM / "Dockerfile"
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "NUMEXPR_NUM_THREADS")


@pytest.fixture(scope="module")
def values() -> dict:
    loaded = yaml.safe_load(VALUES.read_text(encoding="utf-8"))
    assert isinstance(loaded, dict), "values.yaml must be a mapping at the top"
    return loaded


def get(values: dict, dotted: str):
    node = values
    for part in dotted.split("."):
        node = node[part]
    return node


def mebibytes(quantity: str) -> float:
    """'256M' -> 256, '1G' -> 1024 (JupyterHub reads K, M, G, T as powers of 1024)."""
    match = re.fullmatch(r"(\d+(?:\.\d+)?)([KMGT])", str(quantity))
    assert match, f"memory {quantity!r} is not a number followed by K, M, G or T"
    return float(match[1]) * 1024 ** ("KMGT".index(match[2]) - 1)


def pins(lines) -> dict[str, str]:
    """{name: version} of every 'name==version' requirement in lines (comments and other specifiers ignored)."""
    found = {}
    for line in lines:
        line = line.split("#", 1)[0].strip().rstrip("\\").strip()
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==([A-Za-z0-9.+!_-]+)", line)
        if match:
            found[match[1].lower()] = match[2]
    return found


def dockerfile_pins() -> dict[str, str]:
    """The name==version words of the Dockerfile's instructions (its comment lines left out)."""
    lines = DOCKERFILE.read_text(encoding="utf-8").splitlines()
    return pins(" ".join(line for line in lines if not line.lstrip().startswith("#")).split())


def requirements(path: Path) -> dict[str, Requirement]:
    found = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            requirement = Requirement(line)
            found[requirement.name.lower()] = requirement
    return found


# --- the chart's schema --------------------------------------------------------------------------------


def test_schema_keys_file_names_its_source():
    first = SCHEMA_KEYS.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("#")
    assert "jupyterhub/zero-to-jupyterhub-k8s" in first and "jupyterhub/values.schema.yaml" in first
    assert re.search(r"\bcommit [0-9a-f]{40}\b", first)


def test_every_key_is_one_the_chart_knows(values):
    lines = SCHEMA_KEYS.read_text(encoding="utf-8").splitlines()
    known = {line.strip() for line in lines if line.strip() and not line.startswith("#")}
    unknown = []

    def check(node: dict, prefix: str) -> None:
        for key, child in node.items():
            path = f"{prefix}{key}"
            if path not in known:
                unknown.append(path)
            elif f"{path}.*" not in known and isinstance(child, dict):
                check(child, path + ".")  # a free-form map (hub.config.*, ...) is not checked below itself

    check(values, "")
    assert not unknown, f"not keys of the z2jh values schema (see {SCHEMA_KEYS.name}): {unknown}"


def test_the_key_check_would_catch_a_typo(values):
    known = {line for line in SCHEMA_KEYS.read_text(encoding="utf-8").splitlines() if not line.startswith("#")}
    assert "singleuser.memory.guarantee" in known
    assert "singleuser.memory.guarante" not in known  # the check above is not vacuous
    assert "hub.config.*" in known and "singleuser.extraEnv.*" in known


def test_image_tag_is_a_string(values):
    # The schema wants a string; an unquoted 2026.12 would be read as a float, and 2026.10 as 2026.1.
    assert isinstance(get(values, "singleuser.image.tag"), str)


# --- sized from measurement ----------------------------------------------------------------------------


def test_sizes_follow_the_measurement(values):
    wanted = sizing.sizing(sizing.load_results())
    assert get(values, "singleuser.memory.guarantee") == wanted["singleuser.memory.guarantee"]
    assert get(values, "singleuser.memory.limit") == wanted["singleuser.memory.limit"]
    assert float(get(values, "singleuser.cpu.guarantee")) == float(wanted["singleuser.cpu.guarantee"])


def test_guarantees_are_within_limits(values):
    assert mebibytes(get(values, "singleuser.memory.guarantee")) <= mebibytes(get(values, "singleuser.memory.limit"))
    assert float(get(values, "singleuser.cpu.guarantee")) <= float(get(values, "singleuser.cpu.limit"))


def test_a_torch_student_is_not_oom_killed(values):
    torch_max = sizing.load_results()["memory_mib"]["torch"]["rss"]["max"]
    assert mebibytes(get(values, "singleuser.memory.limit")) >= 1.5 * torch_max


def test_the_rule_rounds_up_to_its_steps():
    def results(numpy_p95, torch_max, cpu_p95):
        return {
            "memory_mib": {"numpy": {"rss": {"p95": numpy_p95}}, "torch": {"rss": {"max": torch_max}}},
            "cpu_seconds_per_student": {"p95": cpu_p95},
        }

    assert sizing.sizing(results(230, 700, 6.4)) == {
        "singleuser.memory.guarantee": "256M",  # 230 -> next multiple of 64
        "singleuser.memory.limit": "1152M",  # 700 x 1.5 = 1050 -> next multiple of 128
        "singleuser.cpu.guarantee": "0.15",  # 6.4 s / 60 s = 0.107 core -> next 0.05
    }
    exact = sizing.sizing(results(256, 512, 3.0))
    assert exact["singleuser.memory.guarantee"] == "256M"  # a multiple already stays
    assert exact["singleuser.memory.limit"] == "768M"
    assert exact["singleuser.cpu.guarantee"] == "0.05"
    assert sizing.sizing(results(257, 513, 0.01))["singleuser.memory.guarantee"] == "320M"
    assert sizing.sizing(results(257, 513, 0.01))["singleuser.cpu.guarantee"] == "0.05"  # never below 0.05


def test_float_noise_on_a_multiple_does_not_add_a_whole_step():
    """A value already a multiple stays as it is, also when float arithmetic left noise in its last bit."""
    assert sizing.round_up(150.00000000000003, 50) == 150  # 9.000000000000002 s / 60 s, in millicores
    assert sizing.round_up(3 * 0.1 * 1000, 100) == 300  # 300.00000000000006
    assert sizing.round_up(150.001, 50) == 200


def test_check_fails_on_a_hand_edit_and_write_repairs_only_the_sized_lines(tmp_path, capsys):
    copy = tmp_path / "values.yaml"
    shutil.copy(VALUES, copy)
    assert sizing.main(["--check", "--values", str(copy)]) == 0

    original = copy.read_text(encoding="utf-8")
    edited = re.sub(r"(guarantee: )\S+( # sizing: singleuser\.memory\.guarantee)", r"\g<1>4G\2", original)
    assert edited != original
    copy.write_text(edited, encoding="utf-8")
    assert sizing.main(["--check", "--values", str(copy)]) == 1
    assert "singleuser.memory.guarantee is 4G" in capsys.readouterr().err

    assert sizing.main(["--write", "--values", str(copy)]) == 0
    assert copy.read_text(encoding="utf-8") == original


def test_check_follows_new_results(tmp_path):
    results = sizing.load_results()
    results["memory_mib"]["numpy"]["rss"]["p95"] += 64
    changed = tmp_path / "class_results.json"
    changed.write_text(json.dumps(results), encoding="utf-8")
    assert sizing.main(["--check", "--results", str(changed)]) == 1


# --- threads, secrets --------------------------------------------------------------------------------


def test_every_maths_library_runs_one_thread(values):
    env = get(values, "singleuser.extraEnv")
    for name in THREAD_VARIABLES:
        assert env.get(name) == "1", f"singleuser.extraEnv.{name} must be the string '1'"
    for name in THREAD_VARIABLES:  # the image sets the same, for use outside the chart
        assert re.search(rf"\b{name}=1\b", DOCKERFILE.read_text(encoding="utf-8"))


def test_no_oauth_secret_is_written_in_values(values):
    oauth = get(values, "hub.config.GenericOAuthenticator")
    assert "client_secret" not in oauth and "client_id" not in oauth
    for name in ("OAUTH_CLIENT_ID", "OAUTH_CLIENT_SECRET"):
        assert "secretKeyRef" in get(values, f"hub.extraEnv.{name}.valueFrom")


# --- versions ------------------------------------------------------------------------------------------


def test_the_image_matches_the_charts_hub_and_the_series_pins():
    """jupyterhub-singleuser in the image is the chart's hub version (a students' side ahead of its hub is
    not supported); every other pin the image shares with the one-server hub is the same."""
    hub = pins((CLASSROOM / "requirements-hub.txt").read_text(encoding="utf-8").splitlines())
    image = dockerfile_pins()
    assert image["jupyterhub"] == sizing.CHART_HUB_JUPYTERHUB
    assert f"--version={sizing.CHART_VERSION}" in VALUES.read_text(encoding="utf-8")
    shared = {name for name in image if name in hub and name != "jupyterhub"}
    assert "nbgitpuller" in shared
    assert {name: image[name] for name in shared} == {name: hub[name] for name in shared}


def test_the_image_meets_the_series_requirements():
    image = dockerfile_pins()
    wanted = requirements(ROOT / "requirements.txt")
    for name in ("numpy", "matplotlib", "ipywidgets", "jupyterlab", "ipykernel", "torch"):
        assert name in image, f"the Dockerfile does not pin {name}"
        assert wanted[name].specifier.contains(image[name]), f"{name}=={image[name]} is not {wanted[name]}"


def test_torch_comes_from_the_cpu_index():
    install = re.search(r"^RUN pip install (.*torch==\S+.*)$", DOCKERFILE.read_text(encoding="utf-8"), re.M)
    assert install and "--index-url https://download.pytorch.org/whl/cpu" in install[1]


# --- students per server -------------------------------------------------------------------------------


def test_students_per_server_is_the_formula():
    results = {
        "memory_mib": {"numpy": {"pss": {"median": 160}}, "torch": {"pss": {"median": 480}}},
        "cpu_seconds_per_student": {"median": 3.0},
    }
    counts = sizing.students_per_server(16, 4, results)
    assert counts["memory_numpy"] == (16 * 1024 - 2048) // 160  # 89
    assert counts["memory_torch"] == (16 * 1024 - 2048) // 480  # 29
    assert counts["cpu"] == 80  # 4 cores / (3 s / 60 s)
    assert counts["binding"] == "memory_torch" and counts["students"] == 29
    assert sizing.students_per_server(1, 4, results)["students"] == 0  # less memory than the OS keeps


def test_students_per_server_never_drops_with_more_server():
    results = sizing.load_results()
    sizes = [(memory, cores) for memory in (4, 8, 16, 32, 64, 128) for cores in (1, 2, 4, 8, 16, 32)]
    for memory, cores in sizes:
        counts = sizing.students_per_server(memory, cores, results)
        assert counts["students"] == min(counts["memory_numpy"], counts["memory_torch"], counts["cpu"]) >= 0
        assert counts["memory_torch"] <= counts["memory_numpy"]  # a torch student is the larger one
        more_memory = sizing.students_per_server(memory * 2, cores, results)
        more_cores = sizing.students_per_server(memory, cores * 2, results)
        for bigger in (more_memory, more_cores):
            assert all(bigger[key] >= counts[key] for key in ("memory_numpy", "memory_torch", "cpu", "students"))


# --- the README's table, the rewrite, the command line ---------------------------------------------------


def server_rows(results) -> dict:
    """{(GiB, cores): (torch students, CPU students, holds, what holds it back)} of the README's table."""
    rows = {}
    for line in sizing.measured_section(results).splitlines():
        match = re.fullmatch(r"\| (\d+) GiB, (\d+) cores \| (\d+) \| (\d+) \| (\d+) \| \*\*(\d+)\*\* \((.+)\) \|", line)
        if match:
            rows[int(match[1]), int(match[2])] = (int(match[4]), int(match[5]), int(match[6]), match[7])
    return rows


def test_each_server_row_says_what_holds_it_back():
    """The table's last column: the count of the resource that binds first, and which one (the torch case's
    memory, or CPU), on the committed measurement and on one whose students need ten times the CPU."""
    measured = sizing.load_results()
    busier = json.loads(json.dumps(measured))
    busier["cpu_seconds_per_student"]["median"] *= 10
    seen = set()
    for results in (measured, busier):
        cpu_seconds = results["cpu_seconds_per_student"]["median"]
        torch_pss = results["memory_mib"]["torch"]["pss"]["median"]
        rows = server_rows(results)
        assert set(rows) == set(sizing.SERVERS)
        for (gib, cores), (torch_count, cpu_count, holds, why) in rows.items():
            assert torch_count == (gib * 1024 - sizing.OS_AND_HUB_MIB) // torch_pss
            assert cpu_count == int(cores // (cpu_seconds / sizing.BURST_SECONDS))
            assert holds == min(torch_count, cpu_count)
            assert why == ("memory (torch)" if torch_count <= cpu_count else "CPU"), (gib, cores, why)
            seen.add(why)
    assert seen == {"memory (torch)", "CPU"}


@pytest.mark.parametrize("missing", ["begin", "end", "both"])
def test_a_readme_without_its_measured_markers_is_refused_by_name(missing):
    text = f"intro\n{sizing.BEGIN}\nold figures\n{sizing.END}\nafter\n"
    if missing in ("begin", "both"):
        text = text.replace(sizing.BEGIN, "")
    if missing in ("end", "both"):
        text = text.replace(sizing.END, "")
    with pytest.raises(ValueError, match="has no .*measured.* section"):
        sizing.with_measured(text, sizing.load_results())


def test_rewrite_names_every_sized_line_it_cannot_find():
    text = "singleuser:\n  memory:\n    guarantee: 1G  # sizing: singleuser.memory.guarantee\n"
    wanted = {"singleuser.memory.guarantee": "256M", "singleuser.memory.limit": "1G", "singleuser.cpu.guarantee": "1"}
    with pytest.raises(ValueError) as refused:
        sizing.rewrite(text, wanted)
    assert str(refused.value) == (
        "values.yaml has no '# sizing:' line for singleuser.cpu.guarantee, singleuser.memory.limit"
    )


def test_rewrite_leaves_every_other_line_exactly_as_it_was():
    others = ["# a comment ending in X", "hub:", "  image: name   ", "  tag: '4.4.0'\t", "", "note: MAX"]
    sized = "    guarantee: 1G  # sizing: singleuser.memory.guarantee"
    text = "\n".join([*others[:3], sized, *others[3:]]) + "\n"
    out = sizing.rewrite(text, {"singleuser.memory.guarantee": "256M"}).split("\n")
    assert out[:3] + out[4:-1] == others and out[-1] == ""
    assert out[3] == "    guarantee: 256M  # sizing: singleuser.memory.guarantee"


def test_the_command_line_help_says_what_each_option_does(capsys):
    with pytest.raises(SystemExit) as done:
        sizing.main(["--help"])
    assert done.value.code == 0
    shown = " ".join(capsys.readouterr().out.split())  # argparse wraps lines to the terminal's width
    first, second = (" ".join(part.split()) for part in sizing.__doc__.split("\n\n")[:2])
    assert first in shown and second not in shown  # the first paragraph alone
    for option, says in [
        ("--write", r"\brewrite the '# sizing:' lines of values\.yaml\b"),
        ("--check", r"\bexit 1 if values\.yaml does not match the results\b"),
        ("--results", r"\bdefault: data/class_results\.json\b"),
        ("--values", r"\bdefault: classroom/values\.yaml\b"),
    ]:
        assert re.search(re.escape(option) + r"[^-]*?" + says, shown), (option, shown)
