"""The lecturer's grading cycle, one command per step, as root on the hub's machine::

    sudo python3 run.py hub-grade release 04        # built from the series, generated, released
    sudo python3 run.py hub-grade due 04 "2026-12-09 23:59 UTC"    # optional: late submissions get a note
    sudo python3 run.py hub-grade collect 04        # after the deadline
    sudo python3 run.py hub-grade autograde 04      # each answer alone, in a fresh Python, as nobody
    sudo python3 run.py hub-grade feedback 04       # each student fetches only their own
    sudo python3 run.py hub-grade export grades.csv # one row per student, one column per exercise

An assignment is named by its notebook's number (``04``), its name (``04_epsilon_and_std``) or its step
(``std``). Run by ``run.py hub-grade`` with the hub's Python (it has nbgrader); every failure is one
sentence on stderr and exit status 1, and nothing else is changed.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from classroom.grading import assignment, cycle, hubsetup, plan
from classroom.hub import roster

DEFAULT_STATE = Path("/srv/layernorm-hub")


class Refused(ValueError):
    """A command that cannot be carried out, in one sentence."""


def step_of(name: str) -> str:
    """The step an assignment's number, name or step stands for; :class:`Refused` naming them all."""
    for step in plan.STEPS:
        if name in (step, plan.notebook_of(step), assignment.name_of(step)):
            return step
    listed = ", ".join(f"{plan.notebook_of(s)} ({assignment.name_of(s)})" for s in plan.STEPS)
    raise Refused(f"There is no assignment {name!r}; the assignments are {listed}.")


def parser() -> argparse.ArgumentParser:
    made = argparse.ArgumentParser(
        prog="run.py hub-grade",
        description="The grading cycle of the class hub's course (as root): release, collect, autograde, "
        "feedback, export.",
    )
    common = argparse.ArgumentParser(add_help=False)  # --state before or after the action
    common.add_argument("--state", default=argparse.SUPPRESS, help=f"the hub's folder (default {DEFAULT_STATE})")
    made.add_argument("--state", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    steps = made.add_subparsers(dest="action", required=True, metavar="ACTION")
    for action, words in (
        ("release", "generate the assignment from the series and release it to the class"),
        ("collect", "collect the class's submissions"),
        ("autograde", "grade every collected submission (the answer cell alone, as nobody)"),
        ("feedback", "generate the feedback and release it (each student fetches their own)"),
    ):
        steps.add_parser(action, help=words, parents=[common]).add_argument(
            "assignment", help="04, 04_epsilon_and_std or std"
        )
    due = steps.add_parser("due", parents=[common], help="set the assignment's due date (later submissions get a note)")
    due.add_argument("assignment")
    due.add_argument("date", help='e.g. "2026-12-09 23:59 UTC"')
    export = steps.add_parser("export", parents=[common], help="the gradebook as CSV, one column per exercise")
    export.add_argument("out", help="the CSV file to write")
    return made


def run(args: argparse.Namespace) -> list[str]:
    """Carry out one command; the lines to print."""
    state = Path(getattr(args, "state", DEFAULT_STATE))
    grading, class_list = state / "grading", state / "students.txt"
    if not (grading / "course" / "nbgrader_config.py").is_file():
        raise Refused(f"{grading} has no course yet: start the hub once (`sudo python3 run.py hub`).")
    course = hubsetup.course_for(grading, sys.executable, class_list if class_list.is_file() else None)
    if args.action == "export":
        out = course.export(Path(args.out))
        return [f"Wrote {out}: one row per student, one column per exercise, then the total and the maximum."]
    step = step_of(args.assignment)
    name = assignment.name_of(step)
    if args.action == "release":
        assignment.build(course.folder, [step])  # the source follows the series' newest notebook and solution
        course.generate(step)
        course.release(step)
        hubsetup.share_with_graders(course.folder, hubsetup.graders_gid([]))  # what root wrote, the graders' too
        return [f"Released {name}: students fetch it from the assignment list."]
    if args.action == "due":
        course.nbgrader("db", "assignment", "add", name, f"--duedate={args.date}")
        return [f"{name} is due {args.date}; a later submission is graded all the same, with a note."]
    if args.action == "collect":
        course.collect(step)
        found = sorted(p.parent.name for p in (course.folder / "submitted").glob(f"*/{name}"))
        return [f"Collected {name} from {len(found)} student{'s' if len(found) != 1 else ''}."]
    if args.action == "autograde":
        if not any((course.folder / "submitted").glob(f"*/{name}")):
            raise Refused(
                f"No submission of {name} has been collected: run `hub-grade collect {args.assignment}` first."
            )
        problems = course.autograde(step)
        lines = [f"{student}: {sentence}" for student, sentence in sorted(problems.items())]
        return [*lines, *_scores(course, name, plan.total_points(step))]
    course.feedback(step)
    return [f"Released the feedback on {name}: each student fetches their own from the assignment list."]


def _scores(course: cycle.Course, name: str, maximum: int) -> list[str]:
    with tempfile.TemporaryDirectory() as folder:
        table = course.export(Path(folder) / "grades.csv")
        with open(table, newline="", encoding="utf-8") as handle:
            rows = [row for row in csv.DictReader(handle) if row.get(name)]
    lines = [f"{row['student']}: {row[name]} of {maximum}" for row in rows]
    return lines + [f"Autograded {name}: {len(rows)} submission{'s' if len(rows) != 1 else ''}."]


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    if os.geteuid() != 0:
        print("error: grading runs students' code as nobody: run it as root (sudo …)", file=sys.stderr)
        return 1
    try:
        lines = run(args)
    except (
        Refused,
        cycle.CycleError,
        hubsetup.SetupError,
        roster.RosterError,
        assignment.SourceError,
        OSError,
    ) as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    except subprocess.TimeoutExpired as error:  # cycle.Course.nbgrader's limit: its command, without the Python
        command = " ".join(map(str, error.cmd[2:]))  # [python, "-m", "nbgrader", ...]
        print(f"error: `{command}` did not finish within {error.timeout:g} s.", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
