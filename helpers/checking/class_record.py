"""Send a check's verdict to the lecturer's live page, when the notebook runs on the class hub.

``helpers.checking.exercises.check`` calls :func:`record_result` with every verdict it returns, and each
check-your-answer box calls :func:`record_answer` with its verdict. On the
class hub (the hub sets LAYERNORM_CLASS_URL, and JUPYTERHUB_API_TOKEN is the student's server
token) it sends the step, ✓ or ✗ and the mistake's key (never the learner's code or answer) to
the hub's ``class`` service, which records it under the student's hub name. Anywhere else (a
laptop, Colab, Binder, the test suite) it does nothing and sends nothing.

It never raises and never slows the check: the sending happens in a background daemon thread,
with a 2-second time-out. If the service cannot be reached, the verdict waits in
~/.layernorm/pending-results.jsonl (readable by the student only) and goes with the next one that
gets through, so nothing is lost. A verdict the service refuses (400, or 413 for a body too large) is dropped, not retried.

Standard library only, and the one catalogue's keys (helpers.checking.mistakes).
"""

from __future__ import annotations

import json
import os
import re
import threading
import urllib.error
import urllib.request
import uuid
from pathlib import Path

from helpers.checking.mistakes.outcomes import (
    NOT_AN_ATTEMPT,  # not a mistake: nothing written, or a cell that did not run
)

URL_VARIABLE = "LAYERNORM_CLASS_URL"
TOKEN_VARIABLE = "JUPYTERHUB_API_TOKEN"
TIMEOUT = 2.0  # seconds per request; the learner never waits for it
PENDING = Path("~/.layernorm/pending-results.jsonl")
# Where each exercise is introduced: the notebook a check belongs to when the kernel's own
# notebook is not one of the series (a scratch notebook, a console).
STEP_NOTEBOOKS = {
    "mean": "02",
    "variance": "03",
    "std": "04",
    "normalise": "05",
    "scale_shift": "06",
    "layer_norm": "07",
    "module": "08",
    # the check-your-answer boxes (helpers/widgets/answer.py): "answer-" and the quantity asked for
    "answer-mean": "02",
    "answer-variance": "03",
    "answer-std": "04",
    "answer-normalised": "05",
    "answer-output": "06",
}
_lock = threading.Lock()  # one sender at a time per kernel, so the pending file is rewritten safely


def recorded(check):
    """Decorate ``check`` so that each verdict it returns is also recorded (see the module's docstring)."""
    import functools

    @functools.wraps(check)
    def checked(step, fn):
        result = check(step, fn)
        record_result(result)
        return result

    return checked


def record_result(result) -> threading.Thread | None:
    """Record a :class:`helpers.checking.exercises.CheckResult`; never raises."""
    try:
        if getattr(result, "mistake", None) in NOT_AN_ATTEMPT:
            return None
        return record(None, result.step, result.passed, result.mistake)
    except Exception:  # noqa: BLE001 — recording must never break a learner's check
        return None


def record_answer(verdict) -> threading.Thread | None:
    """Record a check-your-answer box's :class:`helpers.checking.answers.Verdict`; never raises.

    Right up to rounding counts as passed: the box shows it as right."""
    try:
        return record(None, f"answer-{verdict.quantity}", verdict.is_right, verdict.mistake)
    except Exception:  # noqa: BLE001 — recording must never break the answer box
        return None


def record(notebook: str | None, step: str, passed: bool, mistake: str | None = None, environ=None):
    """Send one verdict in the background; returns the sending thread, or None when nothing is sent."""
    try:
        environ = os.environ if environ is None else environ
        url, token = environ.get(URL_VARIABLE), environ.get(TOKEN_VARIABLE)
        if not url or not token or "PYTEST_CURRENT_TEST" in environ or step not in STEP_NOTEBOOKS:
            return None
        verdict = {
            "id": str(uuid.uuid4()),  # made once: a resend of this verdict is never counted twice
            "notebook": notebook or notebook_of(environ.get("JPY_SESSION_NAME", "")) or STEP_NOTEBOOKS[step],
            "step": step,
            "passed": bool(passed),
            "mistake": None if passed else mistake,
        }
        thread = threading.Thread(target=deliver, args=(url, token, verdict), daemon=True, name="class_record")
        thread.start()
        return thread
    except Exception:  # noqa: BLE001
        return None


def notebook_of(session_name: str) -> str | None:
    """ "…/notebooks/03_variance.ipynb" → "03" (jupyter_server sets JPY_SESSION_NAME to the notebook's path)."""
    match = re.match(r"(\d\d)_", os.path.basename(session_name))
    return match.group(1) if match and int(match.group(1)) <= 13 else None


def deliver(url: str, token: str, verdict: dict, pending: Path = PENDING) -> bool:
    """Send ``verdict``, then any that waited; keep what could not be sent. True if ``verdict`` got through."""
    try:
        with _lock:
            pending = pending.expanduser()
            if _send(url, token, verdict) == "retry":
                _append(pending, [verdict])
                return False
            waiting = _read(pending)
            if waiting:
                left = [v for v in waiting if _send(url, token, v) == "retry"]
                _write(pending, left)
            return True
    except Exception:  # noqa: BLE001 — a full disk or an odd home must not surface in the notebook
        return False


def _send(url: str, token: str, verdict: dict) -> str:
    """ "sent", "refused" (the service said 400: retrying cannot help) or "retry"."""
    request = urllib.request.Request(
        url.rstrip("/") + "/api/results",
        data=json.dumps(verdict).encode(),
        method="POST",
        headers={"Authorization": f"token {token}", "Content-Type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
            return "sent" if answer.status < 300 else "retry"
    except urllib.error.HTTPError as error:
        return "refused" if error.code in (400, 413) else "retry"
    except (OSError, ValueError):  # unreachable, time-out, a malformed URL
        return "retry"


def _read(path: Path) -> list[dict]:
    if not path.exists():
        return []
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            found.append(json.loads(line))
        except ValueError:
            continue  # a line cut short by a crash: the rest still count
    return found


def _append(path: Path, verdicts: list[dict]) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    with os.fdopen(descriptor, "a", encoding="utf-8") as file:
        file.writelines(json.dumps(v) + "\n" for v in verdicts)


def _write(path: Path, verdicts: list[dict]) -> None:
    if not verdicts:
        path.unlink(missing_ok=True)
        return
    temporary = path.with_suffix(".tmp")
    temporary.unlink(missing_ok=True)
    _append(temporary, verdicts)
    os.replace(temporary, path)
