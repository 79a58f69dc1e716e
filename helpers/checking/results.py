"""What the "Your turn" checker (exercises.py) and the module check (module_check.py) share.

The verdict (:class:`CheckResult`), calling the learner's function with a time limit (:func:`run_call`,
through helpers.checking.sandbox), comparing a result with the expected one or with a named mistake's
(:func:`close`, :func:`match_mistake`) and writing numbers for the verdict (:func:`values_text`). Below
both of them, so that neither imports the other for these.
"""

from __future__ import annotations

import contextlib
import html
import sys
from dataclasses import dataclass

import numpy as np

from helpers.checking import sandbox
from helpers.checking.cases import Case, mistakes, rounded_results
from helpers.core.tolerance import close_at
from helpers.display.formatting import scroll_box

TIME_LIMIT = 3.0  # seconds for one call of the learner's function


@dataclass(frozen=True)
class CheckResult:
    """The verdict of :func:`helpers.checking.exercises.check`. ``passed`` (bool), ``diagnosis`` (plain
    words), ``mistake`` (the named mistake's key, e.g. "n-1", or None), and the first failing case:
    ``case`` (what it was), ``expected`` and ``got`` (as text)."""

    step: str
    passed: bool
    diagnosis: str
    mistake: str | None = None
    case: str = ""
    arguments: str = ""
    expected: str = ""
    got: str = ""
    count: int = 0

    def __repr__(self) -> str:
        mark = "✓" if self.passed else "✗"
        lines = [f"{mark} {self.step}: {self.diagnosis}"]
        if self.case:
            lines += [f"  input:    {self.case}" + (f": {self.arguments}" if self.arguments else "")]
        if self.expected:
            lines += [f"  expected: {self.expected}", f"  got:      {self.got}"]
        return "\n".join(lines)

    __str__ = __repr__

    def _repr_html_(self) -> str:
        colour = "#1a7f37" if self.passed else "#b3261e"
        mark = "✓" if self.passed else "✗"
        rows = ""
        for label, text in (
            ("input", self.case + (f": {self.arguments}" if self.arguments else "")),
            ("expected", self.expected),
            ("got", self.got),
        ):
            if text:
                rows += (
                    f'<tr><th style="text-align:left;padding-right:1em">{label}</th>'
                    f'<td style="text-align:left;font-family:monospace">{html.escape(text)}</td></tr>'
                )
        table = (
            scroll_box(f'<table style="margin:0.3em 0 0 1.5em">{rows}</table>', f"{self.step} check") if rows else ""
        )
        return (
            f'<div><div style="color:{colour}">'
            f"<b>{mark} {html.escape(self.step)}</b>: {html.escape(self.diagnosis)}</div>{table}</div>"
        )


# ---------------------------------------------------------------------------------------------
# Calling the learner's function


@contextlib.contextmanager
def one_torch_thread():
    """While checking, torch (when the learner's code has imported it) computes on one thread: the cases
    are small, and more threads only spend CPU time waiting. Put back afterwards; never raises."""
    torch = sys.modules.get("torch")
    threads = None
    try:
        threads = torch.get_num_threads() if torch is not None else None
        if threads is not None and threads != 1:
            torch.set_num_threads(1)
    except Exception:  # noqa: BLE001 — an odd torch: check as it is
        threads = None
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            if threads is not None and threads != 1:
                torch.set_num_threads(threads)


@dataclass
class Outcome:
    """One call of the learner's function: ``value``, or ``problem`` (a sentence) with its ``key``
    ("exception" keeps the exception in ``value``); ``mutated``: it changed an array it was given."""

    value: object = None
    problem: str | None = None
    key: str | None = None
    mutated: bool = False


def run_call(fn, args) -> Outcome:
    """Call ``fn(*copies of args)`` in the sandbox, so that an endless loop cannot hang the kernel."""
    copies = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)

    def call():
        with np.errstate(all="ignore"):  # 0 / 0 gets a plain sentence (NaN) instead of numpy's warning
            return fn(*copies)

    done = sandbox.run(call, time_limit=TIME_LIMIT, name="helpers.checking.exercises check")
    if done.left_running:
        return Outcome(
            problem=f"Your function did not finish within {TIME_LIMIT:g} seconds: look for a loop "
            "that never ends (a `while` whose condition never becomes false). It is still "
            "running in the background: restart the kernel once you have fixed it.",
            key="timeout",
        )
    if done.timed_out:
        return Outcome(
            problem=f"Your function did not finish within {TIME_LIMIT:g} seconds, so the check stopped "
            "it: look for a loop that never ends (a `while` whose condition never becomes false).",
            key="timeout",
        )
    if isinstance(done.error, NotImplementedError):
        return Outcome(
            problem="Not written yet: replace `raise NotImplementedError` with your code, run that "
            "cell, then run this one again.",
            key="not-written",
        )
    if done.error is not None:
        return Outcome(
            problem=f"Your function raised {sandbox.describe(done.error)}"[:400], key="exception", value=done.error
        )
    mutated = any(isinstance(a, np.ndarray) and not np.array_equal(a, c, equal_nan=True) for a, c in zip(args, copies))
    return Outcome(value=done.value, mutated=mutated)


# ---------------------------------------------------------------------------------------------
# Comparing results


def close(value, expected, case: Case) -> bool:
    """``value`` equals ``expected`` to the case's tolerance (NaN where both are NaN)."""
    return close_at(value, expected, case.tolerance)


def match_mistake(step: str, outcomes):
    """The first named mistake whose results match the learner's on every (case, result) of ``outcomes``
    (result None where the function raised); single mistakes are tried before two at once; rounding
    matches any rounded form, case by case; the one-pass variance, right in exact arithmetic, matches a
    function wrong only on rows far from zero for their precision (float32 or float64)."""
    for mistake in mistakes(step):
        if mistake.key == "rounding":
            if all(
                value is not None
                and any(np.shape(r) == np.shape(value) and close(value, r, case) for r in rounded_results(step, case))
                for case, value in outcomes
            ):
                return mistake
            continue
        if mistake.result is None:  # the one-pass variance: known by where it fails
            if _one_pass_pattern(outcomes):
                return mistake
            continue
        matched = any(value is not None for _, value in outcomes)
        for case, value in outcomes:
            try:
                theirs = mistake.result(case.args)
            except (ValueError, IndexError, TypeError):
                theirs = None
            if value is None and (theirs is None or not np.all(np.isfinite(theirs))):
                continue  # it raised where the mistake fails, or divides by zero (Python raises where numpy gives NaN)
            if theirs is None or value is None or np.shape(theirs) != np.shape(value) or not close(value, theirs, case):
                matched = False
                break
        if matched:
            return mistake
    return None


def _one_pass_pattern(outcomes) -> bool:
    """Right (to the tolerance) on every case but some far from zero for their precision, and wrong there
    the way the one-pass variance is: a wrong variance only rescales each row, so each row of a normalised
    result is a positive multiple of x̂ (or NaN or infinite, where the variance came out negative or 0)."""
    wrong = [
        (case, value)
        for case, value in outcomes
        if value is None or np.shape(value) != case.expected.shape or not close(value, case.expected, case)
    ]
    return bool(wrong) and all(
        case.far_from_zero and _rescaled(value, case.expected, case.far_rows()) for case, value in wrong
    )


def one_pass_shown(wrong):
    """Of the wrong (case, result) pairs, the one to show for the one-pass variance: the first far from zero
    for its precision where the lost digits show (1 % of the result's size), else the one most wrong there."""
    far = [(case, value) for case, value in wrong if case.far_from_zero]
    return next((shown for shown in far if _relative_error(shown) > 0.01), max(far, key=_relative_error))


def _relative_error(shown) -> float:
    """How wrong a (case, result) is, relative to the right result's size (infinite where it raised or is NaN)."""
    case, value = shown
    if value is None:
        return np.inf
    with np.errstate(all="ignore"):
        error = np.max(np.abs(np.asarray(value, dtype=np.float64) - case.expected))
        size = np.max(np.abs(case.expected))
    return float(error / size) if np.isfinite(error) and size > 0 else np.inf


def _rescaled(value, expected, far_rows=None) -> bool:
    """Each row of ``value`` is a positive multiple of the same row of ``expected`` (to 1e-3 of its size), or,
    in a row far from zero (``far_rows``), holds NaN or infinity; True for a single number (a variance or a
    std has no pattern to keep) and where the function raised (None: Python's math.sqrt raises on the
    negative variance where numpy gives NaN)."""
    if value is None or np.ndim(expected) == 0:
        return True
    n = np.shape(expected)[-1]
    rows = np.reshape(value, (-1, n))
    far = np.ones(len(rows), dtype=bool) if far_rows is None else np.reshape(far_rows, -1)
    for got, right, away in zip(rows, np.reshape(expected, (-1, n)), far):
        if not np.all(np.isfinite(got)):
            if away:
                continue  # a NaN or an infinity: the variance went negative or 0 where its digits cancel
            return False  # … which cannot happen in a row near zero: a 0 / 0 of the function's own
        if not np.any(right):
            continue  # x̂ = 0: no pattern to keep
        scale = float(got @ right) / float(right @ right)
        if not scale > 0 or np.max(np.abs(got - scale * right)) > 1e-3 * scale * np.max(np.abs(right)):
            return False
    return True


def values_text(value, limit: int = 8, against=None) -> str:
    """A number, a row or a matrix as short text: six significant digits, more where six would print two
    different values the same (1e8 and 1e8 + 1), at most ``limit`` values a row and four rows. With
    ``against`` (the value it is compared with, of the same shape), also enough digits that each value
    that differs from its counterpart prints differently (0.659363 and 0.659363 + 1e-10)."""
    array = np.asarray(value, dtype=np.float64)
    digits = _digits(array)
    if against is not None:
        digits = max(digits, telling_digits(array, against))
    return _text(array, limit, digits)


def pair_texts(expected, got, room) -> tuple[str, str]:
    """What was expected and what came back, as text: with digits enough that each pair of values that are
    not equal within ``room`` = (relative, absolute; broadcast as np.isclose does) print differently, and no
    more for pairs that are (a float32 result's rounding is not shown as a difference)."""
    expected, got = np.asarray(expected, dtype=np.float64), np.asarray(got, dtype=np.float64)
    if expected.shape != got.shape:
        return values_text(expected), values_text(got)
    relative, absolute = room
    far = ~np.isclose(got, expected, rtol=relative, atol=absolute, equal_nan=True)
    return (
        values_text(expected, against=np.where(far, got, expected)),
        values_text(got, against=np.where(far, expected, got)),
    )


def telling_digits(value, other) -> int:
    """The fewest significant digits, 6 or more, at which every value of ``value`` that differs from the same
    value of ``other`` prints differently from it (17 at most); 6 when the shapes differ."""
    try:
        a, b = np.broadcast_arrays(np.asarray(value, dtype=np.float64), np.asarray(other, dtype=np.float64))
    except (ValueError, TypeError):
        return 6
    if np.shape(a) != np.shape(value):
        return 6
    pairs = [(x, y) for x, y in zip(a.ravel()[:200], b.ravel()[:200]) if x != y and np.isfinite(x) and np.isfinite(y)]
    for digits in range(6, 18):
        if all(f"{x:.{digits}g}" != f"{y:.{digits}g}" for x, y in pairs):
            return digits
    return 17


def _digits(array: np.ndarray) -> int:
    """The fewest significant digits, 6 or more, at which the distinct values of ``array`` print distinctly."""
    values = np.unique(array[np.isfinite(array)])[:200]
    for digits in range(6, 18):
        if len({f"{v:.{digits}g}" for v in values}) == len(values):
            return digits
    return 17


def _text(array: np.ndarray, limit: int, digits: int) -> str:
    if array.ndim == 0:
        return f"{float(array):.{digits}g}"
    if array.ndim == 1:
        items = [f"{v:.{digits}g}" for v in array[:limit]] + (["…"] if array.size > limit else [])
        return "[" + ", ".join(items) + "]"
    return "[" + ", ".join(_text(row, limit, digits) for row in array[:4]) + (", …]" if array.shape[0] > 4 else "]")
