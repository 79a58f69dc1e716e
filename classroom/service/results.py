"""One posted verdict: read, checked, or refused with one plain sentence.

The student is never taken from the body: the service records the owner of the token that
posted it. A body that names a student (``student``, ``user``, ...) is refused outright, so a
client that tries it learns at once that it cannot work, and nothing is stored.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass

from classroom.service.catalogue import ALL_STEPS, MISTAKES, NOTEBOOKS

MAX_BODY = 4096  # bytes: a verdict is about 100
FIELDS = {"notebook", "step", "passed", "mistake", "id"}
NAMING_FIELDS = {"student", "user", "username", "name", "owner"}


class Refused(ValueError):
    """Why a body is not stored, in one sentence (the 400's message)."""


@dataclass(frozen=True)
class Result:
    id: str
    notebook: str
    step: str
    passed: bool
    mistake: str | None


def parse(body: bytes) -> Result:
    if len(body) > MAX_BODY:
        raise Refused(f"The body is {len(body)} bytes; a result is at most {MAX_BODY}.")
    try:
        data = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        raise Refused("The body is not JSON.") from None
    if not isinstance(data, dict):
        raise Refused("The body must be one JSON object.")
    named = NAMING_FIELDS & set(data)
    if named:
        raise Refused(
            "A result is recorded for the owner of the token that sends it; the body must not name a student."
        )
    unknown = set(data) - FIELDS
    if unknown:
        raise Refused(f"Unknown field(s) {', '.join(sorted(unknown))}; a result has {', '.join(sorted(FIELDS))}.")
    notebook, step, passed, mistake, ident = (data.get(k) for k in ("notebook", "step", "passed", "mistake", "id"))
    if notebook not in NOTEBOOKS:
        raise Refused('The "notebook" must be one of "00" to "13".')
    if step not in ALL_STEPS:
        raise Refused(f'The "step" must be one of {", ".join(ALL_STEPS)}.')
    if not isinstance(passed, bool):
        raise Refused('The "passed" field must be true or false.')
    if mistake is not None and (not isinstance(mistake, str) or mistake not in MISTAKES):
        raise Refused('The "mistake" must be one of the checker\'s mistake keys, or null.')
    if passed and mistake is not None:
        raise Refused('A passed check has no mistake: send "mistake": null.')
    try:
        ident = str(uuid.UUID(ident)) if isinstance(ident, str) else None
    except ValueError:
        ident = None
    if ident is None:
        raise Refused('The "id" must be a UUID, made once per check, so that a resend is not counted twice.')
    return Result(ident, notebook, step, passed, mistake)
