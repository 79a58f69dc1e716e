"""Reading a submitted notebook: the answer cell by its nbgrader ``grade_id``, never by position, and
the test cells compared with the released ones (their source and points, as nbgrader's checksums
do). Bad input gets one sentence (:class:`BadSubmission`); JSON only, no kernel, no execution.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

UNREADABLE = "# Not graded: "  # how a stand-in for an unreadable submission begins (classroom.grading.cycle)


class BadSubmission(ValueError):
    """A submission that cannot be graded; ``str()`` is the one sentence the student reads."""


def read(path: Path) -> dict:
    """The notebook at ``path`` as JSON, or :class:`BadSubmission` saying why it cannot be read."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadSubmission(f"No notebook was submitted ({path.name} is missing).") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BadSubmission(f"{path.name} could not be read ({type(error).__name__}).") from None
    if not text.strip():
        raise BadSubmission(f"{path.name} is empty: nothing was submitted.")
    try:
        notebook = json.loads(text)
    except json.JSONDecodeError as error:
        raise BadSubmission(
            f"{path.name} is not a readable notebook (its JSON breaks at line {error.lineno}); "
            "submit it again from JupyterLab."
        ) from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list):
        raise BadSubmission(
            f"{path.name} is not a notebook (it has no list of cells); submit it again from JupyterLab."
        )
    return notebook


def source(cell: dict) -> str:
    text = cell.get("source", "")
    return "".join(text) if isinstance(text, list) else str(text)


def grade_id(cell: dict) -> str | None:
    meta = cell.get("metadata") if isinstance(cell, dict) else None
    info = meta.get("nbgrader") if isinstance(meta, dict) else None
    return info.get("grade_id") if isinstance(info, dict) else None


def by_id(notebook: dict) -> dict[str, dict]:
    """Every graded cell by its grade_id (the first of a repeated id)."""
    found: dict[str, dict] = {}
    for cell in notebook["cells"]:
        key = grade_id(cell)
        if isinstance(key, str):
            found.setdefault(key, cell)
    return found


def answer(notebook: dict, cell_id: str) -> str:
    """The source of the answer cell ``cell_id``, or :class:`BadSubmission`."""
    cell = by_id(notebook).get(cell_id)
    if cell is None:
        raise BadSubmission(
            f"Your notebook has no answer cell {cell_id} (it was deleted, or its metadata removed), so there "
            "is nothing to grade: fetch the assignment again and copy your code into its answer cell."
        )
    if cell.get("cell_type") != "code":
        raise BadSubmission(
            f"Your answer cell {cell_id} was turned into {cell.get('cell_type')} text; make it code again."
        )
    return source(cell)


def checksum(cell: dict) -> str:
    """What a test cell must keep: its source, its points and its grade_id (sha256)."""
    meta = cell.get("metadata", {}).get("nbgrader", {})
    text = json.dumps([source(cell), meta.get("points"), meta.get("grade_id"), cell.get("cell_type")])
    return hashlib.sha256(text.encode()).hexdigest()


def changed_tests(submitted: dict, released: dict, test_ids: list[str]) -> str | None:
    """One sentence naming the test cells the submission deleted, edited (source or points) or
    moved, or None. The grade always uses the released tests, so none of this changes it."""
    theirs, ours = by_id(submitted), by_id(released)
    missing = [key for key in test_ids if key not in theirs]
    edited = [key for key in test_ids if key in theirs and key in ours and checksum(theirs[key]) != checksum(ours[key])]
    order = [key for key in (grade_id(c) for c in submitted["cells"]) if key in ours]
    moved = order != [key for key in (grade_id(c) for c in released["cells"]) if key in theirs]
    parts = []
    if edited:
        parts.append(f"edited {_some(edited)} (its code or points)")
    if missing:
        parts.append(f"deleted {_some(missing)}")
    if moved:
        parts.append("moved cells")
    if not parts:
        return None
    return (
        f"Your notebook {' and '.join(parts)}: the grade uses the tests as released, found by their ids, "
        "so that was ignored."
    )


def _some(keys: list[str]) -> str:
    shown = ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")
    return ("test cell " if len(keys) == 1 else "test cells ") + shown
