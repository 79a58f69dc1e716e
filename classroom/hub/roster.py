"""The class list: who may log in to the hub, and who is an instructor.

The lecturer edits one plain text file (``students.txt`` in the hub's state folder)::

    # one name per line; "instructor" after a name makes it a hub admin (the lecturer, the TAs)
    lecturer  instructor
    alice
    bob

A name is also the student's Unix account on the hub's machine, so it must be one the system can
use: lower-case letters, digits, "-" or "_", starting with a letter, at most 31 characters. Every
problem in the file is reported in one sentence naming its line; nothing is half-applied.

Standard library only: ``run.py hub`` reads this before any package is installed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

NAME = re.compile(r"[a-z][a-z0-9_-]{0,30}\Z")
INSTRUCTOR = "instructor"
# Names a Unix system or JupyterHub reserves; refused even when no such account exists yet.
RESERVED = frozenset(
    "root daemon bin sys sync games man lp mail news uucp proxy www-data backup list irc gnats nobody "
    "systemd-network systemd-resolve messagebus sshd admin hub jupyterhub services user users".split()
)

TEMPLATE = """\
# The class list of the LayerNorm hub: one name per line. Only these names can log in.
# Add "instructor" after a name for the lecturer and the TAs (hub admins, who see every student).
# A name is also the student's account on this machine: lower-case letters, digits, - or _,
# starting with a letter, at most 31 characters (e.g. "alice", "s1234567", "jan-de-vries").
# Students choose their own password the first time they log in.
"""


class RosterError(ValueError):
    """A problem with the class list, in one sentence that names the file and line."""


@dataclass(frozen=True)
class Roster:
    students: tuple[str, ...]
    instructors: tuple[str, ...]

    @property
    def everyone(self) -> tuple[str, ...]:
        return self.instructors + self.students


def name_problem(name: str) -> str | None:
    """Why ``name`` cannot be a hub user and Unix account, or None when it can."""
    if not NAME.match(name):
        if name.lower() != name and NAME.match(name.lower()):
            return f"{name!r} has capital letters; Unix names are lower case: write {name.lower()!r}"
        return (
            f"{name!r} cannot be a user name: use lower-case letters, digits, - or _, "
            "starting with a letter, at most 31 characters"
        )
    if name in RESERVED:
        return f"{name!r} is reserved for the system or the hub; choose another name"
    return None


def parse(text: str, source: str = "students.txt") -> Roster:
    students: list[str] = []
    instructors: list[str] = []
    seen: dict[str, int] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        words = line.split()
        if len(words) > 2 or (len(words) == 2 and words[1] != INSTRUCTOR):
            raise RosterError(
                f"{source} line {number}: {line!r} is not a name: write one name per line, "
                f'optionally followed by "{INSTRUCTOR}"'
            )
        name = words[0]
        problem = name_problem(name)
        if problem:
            raise RosterError(f"{source} line {number}: {problem}")
        if name in seen:
            raise RosterError(f"{source} line {number}: {name!r} is listed twice (first on line {seen[name]})")
        seen[name] = number
        (instructors if len(words) == 2 else students).append(name)
    if not seen:
        raise RosterError(f"{source} lists nobody: add the students' names, one per line, and start the hub again")
    return Roster(tuple(students), tuple(instructors))


def read(path: Path) -> Roster:
    try:
        text = path.read_text(encoding="utf-8-sig")  # a list saved by Windows Notepad starts with a BOM
    except FileNotFoundError:
        raise RosterError(f"the class list {path} does not exist") from None
    except UnicodeDecodeError:
        raise RosterError(f"the class list {path} is not plain text (UTF-8)") from None
    return parse(text, str(path))
