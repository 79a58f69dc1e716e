"""The lecturer's cycle as functions: build → generate → release → collect → autograde → feedback →
export, each one nbgrader command run in the course folder with the hub environment's nbgrader
(standard library only; the commands are the ones classroom/README.md gives).
"""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
from pathlib import Path

from classroom.grading import assignment, course, notebook, plan


class CycleError(RuntimeError):
    """An nbgrader command failed; the message is one sentence with the command and its last line."""


class Course:
    """A course folder, its exchange, the grading code and the Python whose nbgrader runs."""

    def __init__(
        self,
        state: Path,
        python: str,
        *,
        judge_python: str = "",
        judge_user: str = "",
        group: str = "",
        students: tuple[str, ...] | None = None,
    ):
        self.state = Path(state)
        # The class list: a submission from anyone else (the inbound is writable by every account on the
        # machine) is set aside, not graded. None: every submission is graded.
        self.students = None if students is None else frozenset(students)
        # The hub's course belongs to its graders' group (hubsetup.py): what the commands write there the
        # group may change too (umask 002); the course folder (2770) keeps everyone else out, while a
        # released feedback file stays readable by the one student who knows its name.
        self.group = group
        self.folder = self.state / "course"
        self.exchange = self.state / "exchange"
        self.code = self.state / "grading-code"
        self.python = python
        self.judge_python = judge_python
        self.judge_user = judge_user

    def set_up(self, steps=None) -> None:
        """The course folder (root's only), the exchange, the grading code, the config and the sources."""
        course.make_course(self.folder)
        course.make_exchange(self.exchange)
        course.install_code(self.code)
        config = course.config_text(
            self.folder,
            self.exchange,
            self.code,
            python=self.judge_python,
            user=self.judge_user,
            groupshared=bool(self.group),
        )
        (self.folder / "nbgrader_config.py").write_text(config, encoding="utf-8")
        assignment.build(self.folder, steps)

    def nbgrader(self, *args: str, timeout: float = 900) -> str:
        env = {**os.environ, "PATH": f"{Path(self.python).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
        command = [self.python, "-m", "nbgrader", *args]
        done = subprocess.run(
            command,
            cwd=self.folder,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            umask=0o002 if self.group else -1,
        )
        if done.returncode != 0:
            last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
            raise CycleError(f"`nbgrader {' '.join(args)}` failed: {last}")
        return done.stderr

    def generate(self, step: str) -> Path:
        self.nbgrader("generate_assignment", assignment.name_of(step), "--force")
        return self.folder / "release" / assignment.name_of(step) / f"{assignment.name_of(step)}.ipynb"

    def release(self, step: str) -> None:
        """Release to the exchange; a second release is refused with one sentence, changing nothing
        (students who fetched it keep their copy)."""
        name = assignment.name_of(step)
        if (self.exchange / course.COURSE_ID / "outbound" / name).exists():
            raise CycleError(
                f"{name} is already released; nothing was changed (to replace it, run "
                f"`nbgrader release_assignment {name} --force` in {self.folder})."
            )
        self.nbgrader("release_assignment", name)

    def collect(self, step: str) -> None:
        self.nbgrader("collect", assignment.name_of(step), "--update")

    def autograde(self, step: str) -> dict[str, str]:
        """Autograde every collected submission; a notebook that cannot be read is kept beside it
        (``.unreadable``), replaced by the released notebook with its sentence in the answer cell (so
        it earns 0 and its feedback says why) and the others are graded as usual; a submission from
        a name not on the class list is set aside, ungraded. Returns student → sentence for those."""
        problems = self.screen(step)
        self.nbgrader("autograde", assignment.name_of(step), "--force")
        return problems

    def screen(self, step: str) -> dict[str, str]:
        name = assignment.name_of(step)
        released = self.folder / "release" / name / f"{name}.ipynb"
        problems = self.set_aside_strangers(name)
        for path in sorted((self.folder / "submitted").glob(f"*/{name}/{name}.ipynb")):
            try:
                notebook.answer(notebook.read(path), plan.answer_id(step))
            except notebook.BadSubmission as error:
                student = path.parent.parent.name
                problems[student] = str(error)
                path.rename(path.with_suffix(".ipynb.unreadable"))
                stand_in = json.loads(released.read_text(encoding="utf-8"))
                for cell in stand_in["cells"]:
                    if notebook.grade_id(cell) == plan.answer_id(step):
                        cell["source"] = notebook.UNREADABLE + str(error)
                path.write_text(json.dumps(stand_in), encoding="utf-8")
        return problems

    def set_aside_strangers(self, name: str) -> dict[str, str]:
        """Move the submissions of names not on the class list to ``refused/``: nbgrader grades every
        folder in ``submitted/``, and anyone with an account on the machine can submit."""
        if self.students is None:
            return {}
        problems = {}
        for folder in sorted((self.folder / "submitted").glob(f"*/{name}")):
            student = folder.parent.name
            if student in self.students:
                continue
            target = self.folder / "refused" / student / name
            target.parent.mkdir(parents=True, exist_ok=True)
            if target.exists():
                shutil.rmtree(target)
            folder.rename(target)
            problems[student] = (
                f"{student} is not on the class list: their {name} was kept in {target.parent.parent} and not graded."
            )
        return problems

    def feedback(self, step: str) -> None:
        self.nbgrader("generate_feedback", assignment.name_of(step), "--force")
        self.nbgrader("release_feedback", assignment.name_of(step))

    def export(self, out: Path) -> Path:
        """nbgrader's CSV (one line per student and assignment), then one column per exercise."""
        raw = self.state / "nbgrader-grades.csv"
        self.nbgrader("export", "--to", str(raw))
        return per_exercise(raw, out)


def per_exercise(raw: Path, out: Path) -> Path:
    """The gradebook for an LMS: one row per student, one column per exercise (its score; empty where
    not submitted), then the total and the maximum."""
    names = [assignment.name_of(step) for step in plan.STEPS]
    scores: dict[str, dict[str, str]] = {}
    with open(raw, newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            scores.setdefault(row["student_id"], {})[row["assignment"]] = row["score"]
    maximum = sum(plan.total_points(step) for step in plan.STEPS)
    with open(out, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", *names, "total", "max"])
        for student in sorted(scores):
            got = scores[student]
            total = sum(float(got[n]) for n in names if got.get(n))
            writer.writerow([student, *(_points(got.get(n, "")) for n in names), _points(str(total)), maximum])
    return out


def _points(text: str) -> str:
    return text if not text else (str(int(float(text))) if float(text).is_integer() else text)
