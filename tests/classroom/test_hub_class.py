"""A class on the hub: N simulated students log in at once, start their servers, pull the series,
run notebook 02's exercise check with a wrong and then a right function, and log out.

Everything is real: JupyterHub, the proxy, nbgitpuller, Unix users, kernels. The class size is
LAYERNORM_CLASS_SIZE (default 20, what CI runs); `python3 run.py bench` runs a larger class and
prints its figures (benchmarks/bench_class.py).
"""

from __future__ import annotations

import os
import pwd
import time
from pathlib import Path

import pytest
from patience import Deadline, patience

from classroom.sim import lesson
from classroom.sim.client import Student

from hub_support import PASSWORD, class_hub, names, on_own_server, run_async

pytestmark = pytest.mark.hub

CLASS_SIZE = int(os.environ.get("LAYERNORM_CLASS_SIZE", "20"))
STUDENTS = names("sim-", CLASS_SIZE)
TORCH_STUDENTS = set(STUDENTS[:3])  # these also run the torch notebook 08
INSTRUCTOR = "teach-sim"


@pytest.fixture(scope="module")
def hub():
    with class_hub(STUDENTS, [INSTRUCTOR]) as running:
        yield running


@pytest.fixture(scope="module")
def class_run(hub):
    start = time.monotonic()
    results = run_async(
        lesson.run_class(hub.url, STUDENTS, PASSWORD, hub.settings.series_repo, TORCH_STUDENTS, patience())
    )
    summary = lesson.summary(results, time.monotonic() - start)
    log = Path(hub.log_path).read_text(encoding="utf-8", errors="replace")
    summary["logs"] = {r.name: lesson.log_excerpt(log, r) for r in results if not r.ok}
    return results, summary


def test_every_student_gets_through_the_exercise(class_run):
    results, summary = class_run
    failures = {r.name: r.error for r in results if not r.ok}
    logs = "\n".join(f"--- the hub's log on {name}:\n{text}" for name, text in summary["logs"].items())
    assert not failures, f"{len(failures)} of {len(results)} students failed: {failures}\n{logs}"
    assert summary["failures"] == 0 and summary["students"] == CLASS_SIZE
    print(
        f"\nclass of {CLASS_SIZE}: spawn median {summary['spawn_seconds']['median']} s, "
        f"p95 {summary['spawn_seconds']['p95']} s; memory {summary['memory_mib']}"
    )


def test_the_wrong_function_is_named_and_the_right_one_passes(class_run):
    results, _ = class_run
    for result in results:
        assert result.wrong_verdict.startswith("✗ mean:"), result.wrong_verdict
        assert "not dividing the sum by n" in result.wrong_verdict, result.wrong_verdict
        assert result.right_verdict.startswith("✓ mean: right on all"), result.right_verdict


def test_memory_and_cpu_are_measured_from_the_students_processes(class_run):
    results, summary = class_run
    for result in results:
        assert result.numpy.processes >= 2  # the server and the kernel of notebook 02
        assert 50 < result.numpy.rss_mib < 2000 and 0 < result.numpy.pss_mib <= result.numpy.rss_mib
        assert result.numpy.cpu_seconds > 0
    torch = [r for r in results if r.name in TORCH_STUDENTS]
    for result in torch:
        assert not result.torch_errors, result.torch_errors
        assert result.torch.rss_mib > result.numpy.rss_mib  # torch is the memory-heavy kernel
    assert summary["memory_mib"]["torch"]["students"] == len(TORCH_STUDENTS)


def test_servers_were_stopped_when_students_left(hub, class_run):
    # A stop the hub accepted (202) finishes on its own time: wait for the state, not for a moment.
    deadline = Deadline(30)
    while True:
        status, users = hub.api("/users", hub.token)
        assert status == 200
        running = [u["name"] for u in users if u["servers"]]
        left = [name for name in STUDENTS[:3] if lesson.usage(pwd.getpwnam(name).pw_uid).processes]
        if not (running or left) or deadline.expired():
            break
        time.sleep(0.5)
    assert not running, f"servers still running {deadline.elapsed():.0f} s after logout: {running}"
    assert not left, f"processes still running {deadline.elapsed():.0f} s after logout: {left}"


def test_a_kernel_runs_as_its_student_with_one_thread(hub):
    """The kernel is the student's own Unix user, in the hub's Python, with one thread per library, and
    speaks to its server over Unix sockets in the student's own runtime folder."""
    name = STUDENTS[-1]

    async def probe():
        async with on_own_server(hub, name) as student:
            kernel = await student.open_kernel("02_mean.ipynb")
            answer = await kernel.run(
                "import os, sys, torch, numpy\n"
                "from ipykernel.kernelapp import IPKernelApp\n"
                "app = IPKernelApp.instance()\n"
                "print(os.getuid(), os.environ['HOME'], sys.executable, torch.get_num_threads(),\n"
                "      os.environ['OMP_NUM_THREADS'], os.environ['OPENBLAS_NUM_THREADS'], torch.__version__,\n"
                "      app.transport, app.abs_connection_file)"
            )
            await kernel.close()
            return answer["text"].split()

    uid, home, python, threads, omp, openblas, version, transport, connection = run_async(probe())
    entry = pwd.getpwnam(name)
    assert (int(uid), home) == (entry.pw_uid, entry.pw_dir)
    assert python.startswith(hub.settings.home) and "/root" not in python
    assert (threads, omp, openblas) == ("1", "1", "1")
    assert version.endswith("+cpu")
    # Unix sockets in the student's own folder, not ports any user of the machine can reach (and two
    # servers can pick at once); the folder's path short enough for a socket's 107 bytes.
    assert transport == "ipc", transport
    assert connection.startswith(f"{entry.pw_dir}/.jupyter-run/kernel-"), connection


def test_a_kernel_that_dies_as_it_starts_is_restarted_and_the_student_carries_on(hub, class_run):
    """A kernel can die as it starts. The server restarts it, on new sockets while it is that young
    ("new random ports": new socket files over IPC), and reaches them only through a new websocket:
    the student's client reconnects when the server says "restarting", as JupyterLab's does."""
    import signal

    from classroom.hub.accounts import processes_of

    name = STUDENTS[-2]
    uid = pwd.getpwnam(name).pw_uid

    def kernel_process(kernel_id: str) -> int:
        for pid in processes_of(uid):
            try:
                if kernel_id in Path(f"/proc/{pid}/cmdline").read_bytes().decode("utf-8", "replace"):
                    return pid
            except OSError:
                continue
        raise AssertionError(f"no process of {name} runs kernel {kernel_id}")

    async def probe():
        async with on_own_server(hub, name) as student:
            kernel = await student.open_kernel("02_mean.ipynb")
            before = Path(hub.log_path).read_text(encoding="utf-8", errors="replace").count("KernelRestarter")
            os.kill(kernel_process(kernel.id), signal.SIGKILL)
            await kernel.ready()
            answer = await kernel.run("print(6 * 7)")
            await kernel.close()
            log = Path(hub.log_path).read_text(encoding="utf-8", errors="replace")
            said = [line for line in log.splitlines() if "KernelRestarter" in line][before:]
            return answer, kernel.reconnects, said

    answer, reconnects, said = run_async(probe())
    print(f"\nthe hub: {said}")
    assert said and "restarting kernel" in said[0], said
    assert "the server said the kernel was restarting" in reconnects
    assert answer == {"text": "42\n", "error": None}


def test_an_instructor_sees_every_student(hub):
    async def listing():
        teacher = Student(hub.url, INSTRUCTOR, PASSWORD)
        await teacher.sign_in()
        return await teacher.json("/hub/api/users")

    listed = {user["name"] for user in run_async(listing())}
    assert set(STUDENTS) <= listed


def test_the_students_server_starts_without_the_unused_slow_parser(hub):
    """rfc3987-syntax costs each server start 1.6 CPU seconds and serves no Jupyter schema; the hub
    removes it after installing (classroom/hub/install.py). A reinstall that brings it back fails here."""
    import subprocess

    from classroom.hub import install

    python = install.venv_python(Path(hub.settings.home))
    probe = "import importlib.util, jupyter_events, jsonschema; print(importlib.util.find_spec('rfc3987_syntax'))"
    answer = subprocess.run([str(python), "-c", probe], capture_output=True, text=True, check=True)
    assert answer.stdout.strip() == "None"
