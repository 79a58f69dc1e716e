"""A graded class on the real class hub: 21 students (Unix users, each on their own server) fetch an
assignment from JupyterLab's assignment list (nbgrader's server extension, through the hub's proxy),
write their answer through the contents API and submit: right variants, every catalogued variance
mistake, the one-pass formula, tampering, a function that never returns, the stub. The instructor
generates, releases and collects with the formgrader's buttons (as the instructor); its autograde button
is refused in one sentence (students' code runs only as ``nobody``), so root autogrades, generates and
releases feedback (``run.py hub-grade``), in the course ``run.py hub`` set up (classroom/grading/hubsetup.py). Each student
fetches their feedback from the assignment list.

Checked: every grade in the gradebook equals the one computed here from what that student wrote
(test_grading_grader's expected_points, from the plan, never from the grader); each student's
feedback is one page, their own (their own code in it, their own score); no student can list the
exchange's inbound, enter the course folder (gradebook, sources, others' submissions) or another's
home; the instructor's server has the formgrader, which shows the same grades, a student's has
neither; a machine account not on the class list that submits anyway is set aside, ungraded, in one
sentence; and the live class page (classroom/service) counts each posted check while all this runs.

Needs root (students are Unix users) and the hub's environment with nbgrader (tests/classroom/
grading_support.py): skipped without, failed under REQUIRE_HUB=1.
"""

from __future__ import annotations

import asyncio
import json
import pwd
import re
import subprocess
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
from grading_support import gradebook_scores, python_fixture, text_of  # noqa: F401 — the fixture `python`
from patience import Deadline
from test_grading_grader import expected_points, mistaken, planted

from classroom.grading import assignment, course, hubconfig, hubsetup, nbgrader_hooks, plan
from classroom.hub import accounts, install
from classroom.sim.client import Student

from hub_support import PASSWORD, class_hub, run_async

# its own hub, sharing nothing: run.py test runs it with the other class hubs, beside the browser tests
pytestmark = pytest.mark.hub

STEP = "variance"
NAME = assignment.name_of(STEP)
INSTRUCTOR = "grd-teach"
RIGHT = [
    "import numpy as np\ndef variance(row):\n    return float(np.var(row))\n",
    "import statistics\ndef variance(row):\n    return statistics.pvariance([float(v) for v in row])\n",
    "import numpy as np\ndef variance(row):\n    r = np.asarray(row, dtype=np.float64)\n    return float(((r - r.mean()) ** 2).mean())\n",
    "def variance(row):\n    m = sum(row) / len(row)\n    return sum((v - m) ** 2 for v in row) / len(row)\n",
]
TAMPER = {
    "checker": "import helpers.exercises\nhelpers.exercises.check = lambda s, f: True\n",
    "numpy": "import numpy as np\nnp.allclose = lambda *a, **k: True\n",
    "exchange": "import os\ntry:\n    os.listdir('{exchange}/layernorm/inbound')\nexcept OSError:\n    pass\n",
    "gradebook": "try:\n    open('{course}/gradebook.db', 'rb').read()\nexcept OSError:\n    pass\n",
    "writes": "try:\n    open('/tmp/grd-forged.csv', 'w').write('100')\nexcept OSError:\n    pass\n",
}
ONE_PASS = "import numpy as np\ndef variance(row):\n    r = np.asarray(row)\n    return float((r * r).mean() - r.mean() ** 2)\n"


def _class() -> dict[str, tuple[str | None, int]]:
    """student → (answer cell, with {exchange} and {course} to fill in, or None for the stub as released;
    the grade it earns, computed from what was planted)."""
    full = plan.total_points(STEP)
    first = planted(STEP)[0]
    found = {f"grd-right{i}": (code, full) for i, code in enumerate(RIGHT)}
    for i, mistake in enumerate(planted(STEP)):
        found[f"grd-m{i:02d}"] = (mistaken(STEP, mistake), expected_points(STEP, {mistake.key}, False))
    for kind, trick in TAMPER.items():
        if kind == "numpy":  # patched numpy around a mistaken function: still the mistake's grade
            found[f"grd-t-{kind}"] = (trick + mistaken(STEP, first), expected_points(STEP, {first.key}, False))
        else:  # around a right function: all its points, nothing more
            found[f"grd-t-{kind}"] = (trick + RIGHT[0], full)
    found["grd-onepass"] = (ONE_PASS, expected_points(STEP, {"one-pass"}, False))
    found["grd-loop"] = ("def variance(row):\n    while True:\n        pass\n", 0)
    found["grd-stub"] = (None, 0)
    return found


PLAN = _class()
assert len(PLAN) >= 20


@pytest.fixture(scope="module")
def hub(python):  # the nbgrader check first: under REQUIRE_HUB=1 a hub without it fails here
    with class_hub(list(PLAN), [INSTRUCTOR]) as running:
        yield running


def _bare(text: str) -> str:
    """Without any white space: code as the feedback's highlighted HTML shows it, tags taken out."""
    return "".join(text.split())


PACE = 0.5  # seconds between two posted checks: the class's pace (a rate, not a wait for a state)
STRANGER = "grd-stranger"  # an account on the machine, not on the class list, who submits all the same


class LivePage:
    """The lecturer's live class page, read through its API while the class is graded: one student after
    another posts a check's verdict with their own token, and the page's count must reach it."""

    def __init__(self, teacher: Student, students: list[Student]):
        self.teacher, self.students = teacher, students
        self.phase = "start"
        self.counted: dict[str, int] = {}
        self.delays: list[float] = []
        self.stopped = asyncio.Event()

    async def count(self) -> int:
        return (await self.teacher.json("/services/class/api/summary"))["results"]

    async def run(self) -> None:
        expected = await self.count()
        turn = 0
        while not self.stopped.is_set():
            student, phase = self.students[turn % len(self.students)], self.phase
            turn += 1
            verdict = {"id": str(uuid.uuid4()), "notebook": "03", "step": "variance", "passed": False, "mistake": "n-1"}
            posted = time.monotonic()
            await student.json("/services/class/api/results", "POST", verdict, expect=(201,))
            expected += 1
            deadline = Deadline(10)
            while await self.count() < expected:
                if deadline.expired():
                    raise AssertionError(f"the class page did not count a check within {deadline} (during {phase})")
                await asyncio.sleep(0.1)
            self.delays.append(time.monotonic() - posted)
            self.counted[phase] = self.counted.get(phase, 0) + 1
            # a class's pace, about two checks a second, not a flood that would slow what it watches
            await self._pause()

    async def counted_in(self, phase: str) -> None:
        """Wait until the page has counted a check posted in ``phase`` (a short phase ends before it
        could: this holds the next phase back until the page has shown it counts)."""
        deadline = Deadline(30)
        while self.counted.get(phase, 0) < 1:
            assert not deadline.expired(), f"the class page counted nothing during {phase}"
            await asyncio.sleep(0.05)

    async def _pause(self) -> None:
        try:
            await asyncio.wait_for(self.stopped.wait(), PACE)
        except asyncio.TimeoutError:
            pass


async def _submit(student: Student, code: str | None) -> None:
    await student.spawn()
    listing = await student.json(
        student.server("assignments/fetch"), "POST", form={"course_id": course.COURSE_ID, "assignment_id": NAME}
    )
    statuses = {a["assignment_id"]: a["status"] for a in listing["value"]}
    assert statuses.get(NAME) == "fetched", (student.name, listing)
    path = student.server(f"api/contents/{quote(NAME)}/{quote(NAME)}.ipynb")
    notebook = (await student.json(path + "?content=1"))["content"]
    if code is not None:
        [answer] = [
            c for c in notebook["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") == plan.answer_id(STEP)
        ]
        answer["source"] = code
    await student.json(path, "PUT", {"type": "notebook", "format": "json", "content": notebook}, expect=(200, 201))
    answer = await student.json(
        student.server("assignments/submit"), "POST", form={"course_id": course.COURSE_ID, "assignment_id": NAME}
    )
    assert answer.get("success") is not False, (student.name, str(answer)[-600:])
    assert any(a["status"] == "submitted" for a in answer["value"] if a["assignment_id"] == NAME), student.name


async def _feedback(student: Student) -> list[str]:
    """The feedback pages the student has after fetching it from the assignment list."""
    await student.json(
        student.server("assignments/fetch_feedback"),
        "POST",
        form={"course_id": course.COURSE_ID, "assignment_id": NAME},
    )
    folder = await student.json(student.server(f"api/contents/{quote(NAME)}/feedback"))
    pages = []
    for stamp in folder["content"]:
        listed = await student.json(student.server(f"api/contents/{quote(stamp['path'])}"))
        for item in listed["content"]:
            if item["name"].endswith(".html"):
                page = await student.json(student.server(f"api/contents/{quote(item['path'])}?content=1&format=text"))
                pages.append(page["content"])
    return pages


async def _graded_class(hub, grading, students: dict[str, tuple[str | None, int]]) -> dict:
    loop = asyncio.get_running_loop()
    people = {name: Student(hub.url, name, PASSWORD) for name in students}
    teacher = Student(hub.url, INSTRUCTOR, PASSWORD)
    await asyncio.gather(teacher.sign_in(), *(p.sign_in() for p in people.values()))
    await teacher.spawn()
    for button in ("assign", "release"):  # the formgrader's "generate" and "release" buttons, as the instructor
        answer = await _button(teacher, f"assignment/{NAME}/{button}")
        assert answer.get("success"), (button, answer)
    hub_python = str(install.venv_python(Path(hub.settings.home)))
    await loop.run_in_executor(None, _stranger_submits, hub, hub_python)  # someone not on the list, first
    live = LivePage(teacher, list(people.values()))
    watching = asyncio.create_task(live.run())
    phases, pages, formgrader, said = {}, {}, {}, {}
    try:
        begun = time.monotonic()
        live.phase = "fetch and submit"
        await asyncio.gather(*(_submit(people[name], code) for name, (code, _) in students.items()))
        phases[live.phase] = time.monotonic() - begun
        # the formgrader: the instructor's server has it; a student's has neither it nor its API
        released = await teacher.json(teacher.server("formgrader/api/assignments"))
        assert {a["name"]: a["status"] for a in released}.get(NAME) == "released", released
        someone = next(iter(people.values()))
        for path in ("formgrader", "formgrader/api/assignments"):
            status, _ = await someone.request(someone.server(path))
            assert status == 404, (path, status)
        live.phase, begun = "collect", time.monotonic()
        collected = await _button(teacher, f"assignment/{NAME}/collect")  # the formgrader's button
        assert collected.get("success"), collected
        phases[live.phase] = time.monotonic() - begun
        await live.counted_in(live.phase)
        # its autograde button runs as the instructor, not as nobody: refused, in one sentence, nothing graded
        refused = await _button(teacher, f"submission/{NAME}/{next(iter(people))}/autograde")
        said["autograde button"] = refused
        for phase, run in (("autograde", grading.autograde), ("feedback", grading.feedback)):
            live.phase, begun = phase, time.monotonic()
            said[phase] = await loop.run_in_executor(None, run, STEP)
            phases[phase] = time.monotonic() - begun
        graded = await teacher.json(teacher.server(f"formgrader/api/submissions/{NAME}"))  # the gradebook, as shown
        formgrader = {row["student"]: row["score"] for row in graded}
        live.phase, begun = "fetch feedback", time.monotonic()
        found = await asyncio.gather(*(_feedback(people[name]) for name in students))
        pages = dict(zip(students, found))
        phases[live.phase] = time.monotonic() - begun
        live.phase = "end"
        deadline = Deadline(10)  # the class page has counted a check since the last phase began
        while "end" not in live.counted and not watching.done():
            assert not deadline.expired(), "the class page stopped counting"
            await asyncio.sleep(0.1)
    finally:
        live.stopped.set()
        try:
            await watching
        finally:
            await asyncio.gather(*(p.stop_server() for p in [teacher, *people.values()]), return_exceptions=True)
    return {
        "phases": phases,
        "pages": pages,
        "counted": live.counted,
        "delays": live.delays,
        "formgrader": formgrader,
        "set aside": said.get("autograde"),
        "autograde button": said.get("autograde button"),
    }


async def _button(teacher: Student, action: str) -> dict:
    """Click a formgrader button: POST to its API in the instructor's server; nbgrader's JSON answer."""
    return await teacher.json(teacher.server(f"formgrader/api/{action}"), "POST", b"", timeout=teacher.timeout)


def _stranger_submits(hub, hub_python: str) -> None:
    """An account of the machine that is not on the class list fetches and submits with nbgrader's own
    commands (the exchange's inbound is writable by every account)."""
    home = accounts.ensure_student(STRANGER)
    entry = pwd.getpwnam(STRANGER)
    env = {
        "PATH": f"{Path(hub_python).parent}:/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": str(home),
        "JUPYTER_CONFIG_PATH": hubconfig.config_path(hub.settings.grading / "jupyter", instructor=False),
    }
    for action in ("fetch_assignment", "submit"):
        done = subprocess.run(
            [hub_python, "-m", "nbgrader", action, NAME],
            cwd=home,
            env=env,
            user=entry.pw_uid,
            group=entry.pw_gid,
            extra_groups=[],
            capture_output=True,
            text=True,
        )
        assert done.returncode == 0, (action, done.stderr[-600:])


def _denied(student: str, command: list[str]) -> bool:
    entry = pwd.getpwnam(student)
    done = subprocess.run(command, user=entry.pw_uid, group=entry.pw_gid, extra_groups=[], capture_output=True)
    return done.returncode != 0


def test_a_class_is_graded_on_the_hub_exactly_and_each_sees_only_their_own(hub):
    hub_python = str(install.venv_python(Path(hub.settings.home)))
    grading = hubsetup.course_for(hub.settings.grading, hub_python, hub.settings.roster_path)
    students = {
        name: (None if code is None else code.format(exchange=grading.exchange, course=grading.folder), earned)
        for name, (code, earned) in PLAN.items()
    }
    started = time.monotonic()
    try:
        seen = run_async(_graded_class(hub, grading, students))
    finally:
        accounts.remove_student(STRANGER)
        forged = Path("/tmp/grd-forged.csv")
        written = forged.exists()
        forged.unlink(missing_ok=True)
    wall = time.monotonic() - started
    assert not written  # the judge writes no file

    scores = gradebook_scores(grading.folder)
    assert scores == {name: earned for name, (_, earned) in students.items()}
    assert seen["formgrader"] == scores  # what the instructor's formgrader shows
    button = seen["autograde button"]
    refusal = nbgrader_hooks.NOT_ROOT.format(user=hubsetup.JUDGE_USER, assignment=NAME)
    assert not button["success"] and refusal in f"{button.get('error')} {button.get('log')}", button
    assert seen["set aside"] == {
        STRANGER: f"{STRANGER} is not on the class list: their {NAME} was kept in {grading.folder / 'refused'} "
        "and not graded."
    }

    for name, (code, earned) in students.items():
        pages = seen["pages"][name]
        assert len(pages) == 1, (name, len(pages))  # one page, fetched by the student: their own
        text = text_of(pages[0])
        score = re.search(r"Score: ([0-9.]+) / ([0-9.]+)", text)
        assert score and float(score[1]) == earned and float(score[2]) == plan.total_points(STEP), (name, text[:300])
        own = _bare(code or "raise NotImplementedError")
        assert own in _bare(text), name  # their own code, whole, not someone else's
        assert "BEGIN HIDDEN" not in text and ".passed" not in text and "BEGIN SOLUTION" not in text

    # what no student reaches: the inbound's list, the course folder, the gradebook, another's home
    names = list(students)
    inbound = grading.exchange / course.COURSE_ID / "inbound"
    for i, name in enumerate(names):
        other = pwd.getpwnam(names[(i + 1) % len(names)]).pw_dir
        for command in (
            ["ls", str(inbound)],
            ["ls", str(grading.folder)],
            ["cat", str(grading.folder / "gradebook.db")],
            ["ls", f"{other}/{NAME}"],
        ):
            assert _denied(name, command), (name, command)

    for phase in ("fetch and submit", "collect", "autograde", "feedback", "fetch feedback"):
        assert seen["counted"].get(phase, 0) >= 1, (phase, seen["counted"])
    delays = sorted(seen["delays"])
    print(
        f"\ngraded class of {len(students)} on the hub in {wall:.0f} s: "
        + json.dumps({k: round(v, 1) for k, v in seen["phases"].items()})
        + f"; the class page counted {len(delays)} checks meanwhile (median {delays[len(delays) // 2]:.2f} s, "
        f"max {delays[-1]:.2f} s)"
    )
