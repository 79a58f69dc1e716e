"""Check a learner's own code: ``helpers.checking.exercises.check("mean", mean)`` in the "Your turn" cells.

``check(step, fn)`` runs ``fn`` on cases the learner has not seen (random rows of other widths, a row of 128
with one value far out, row 5, a constant row, values far from zero, float32 and float64), compares every result with
:func:`helpers.core.formula.layer_norm_forward`, and returns a :class:`CheckResult`: ✓, or ✗ with the first
failing input, the expected and the returned values, and a diagnosis that names the mistake the
result matches (dividing by n − 1, ε outside the root, the wrong axis, …). It never raises: an
exception in ``fn``, a stub, a wrong type, NaN or an endless loop each get one plain sentence.
Introduced in notebook 02; the steps and signatures:

    mean(row) -> float              variance(row) -> float         std(row, eps) -> float
    normalise(row, eps) -> array    scale_shift(x_hat, gamma, beta) -> array
    layer_norm(x, eps) -> 2-D array (the whole matrix)     "module": a torch.nn.Module class or instance

Return types: mean, variance and std must return a number (a float or a 0-d numpy value); a list such
as ``[m]`` or text such as ``str(m)`` is named as the wrong type. The array steps accept a numpy array,
a plain list of numbers or a tensor (read through ``detach()``, so one that requires grad is right when
its values are), as long as its shape is right; text, booleans, ragged lists and other objects are
named in one sentence (helpers.checking.reading).

The code on the page: in IPython (JupyterLab, Notebook 7, Colab, Voilà), when the newest cell that
defines the function failed to run, or did not define this function, ``check`` says so in one sentence
and judges nothing (helpers.checking.page). ``layer_norm``'s verdict also says whether its code has a
Python loop, read from its source (helpers.checking.structure): notebook 07 asks for none.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from helpers.checking import class_record, page, structure
from helpers.checking.cases import STEPS, Case, cases, in_float32
from helpers.checking.reading import a_type, numbers_of, problem_key, read_result
from helpers.checking.results import (
    CheckResult,
    close,
    match_mistake,
    one_pass_shown,
    one_torch_thread,
    run_call,
    telling_digits,
    values_text,
)
from helpers.core.layernorm import DEFAULT_EPS
from helpers.core.tolerance import close_at

SCALAR_STEPS = ("mean", "variance", "std")
page.watch()  # in IPython, note each cell's error from now on
FLOAT32_ONLY = (
    "Your result is right only to float32's precision (about 7 significant digits) on a float64 input: "
    "keep every step in float64 (no np.float32 or torch.float32, no .float() on a tensor), so that the "
    "result keeps float64's 16 digits."
)
PER_FEATURE = (
    "γ and β are per feature: one per column. Your function treats them as one per row (numpy could "
    "not line the shapes up); write gamma * x_hat + beta, which applies γ and β along each row's features."
)


@class_record.recorded  # on the class hub, the verdict also goes to the lecturer's page
def check(step: str, fn) -> CheckResult:
    """Run the learner's ``fn`` for ``step`` on unseen cases; never raises. See the module docstring."""
    with one_torch_thread():
        return _check(step, fn)


def _check(step, fn) -> CheckResult:
    name = _step_name(step)
    if name not in STEPS:
        return CheckResult(
            name or "check",
            False,
            f"There is no exercise called {_shown(step)}; the exercises are: {', '.join(STEPS)}.",
        )
    elsewhere = page.off_the_page(
        fn, None if name == "module" else name
    )  # a cell that failed to define it: no verdict about older code
    if elsewhere is not None:
        return CheckResult(name, False, elsewhere, "off-the-page")
    if name == "module":
        from helpers.checking.module_check import check_module  # torch, only here

        return check_module(fn)
    if not callable(fn):
        return CheckResult(
            name,
            False,
            f"check needs your function itself (for example `{name}`, without brackets); got {type(fn).__name__}.",
        )
    found = cases(name)
    outcomes = []  # (case, result array, or None where fn raised)
    raised = None  # the first case where fn raised, with its outcome
    misshapen = None  # the first case where fn returned the wrong shape
    for case in found:
        outcome = run_call(fn, case.args)
        if outcome.key == "exception":
            raised = raised or (case, outcome)
            outcomes.append((case, None))
            continue
        if outcome.key in ("not-written", "timeout"):  # the only other outcomes with a problem (run_call)
            return CheckResult(name, False, outcome.problem, outcome.key)
        value, problem = _as_result(name, case, outcome.value)
        if problem is not None and name in SCALAR_STEPS or problem is not None and value is None:
            return _failure(name, case, problem, got=outcome.value, mistake=problem_key(problem))
        if problem is not None:  # the wrong shape: reported unless a named mistake explains it
            misshapen = misshapen or (case, problem, value)
        if outcome.mutated:
            return _failure(
                name,
                case,
                "Your function changed the array it was given (it mutates its input): "
                "work on a copy, e.g. `row = row - mean` instead of `row -= mean`.",
                got=value,
                mistake="mutates-input",
            )
        outcomes.append((case, value))
    wrong = [
        (case, value)
        for case, value in outcomes
        if value is None or np.shape(value) != case.expected.shape or not close(value, case.expected, case)
    ]
    if not wrong:
        right = f"right on all {len(found)} unseen inputs: {_summary(found)}"
        if name == "layer_norm":  # notebook 07 asks for no loop over the rows: read off the code's structure
            return _vectorised(fn, right, len(found))
        return CheckResult(name, True, right + ".", count=len(found))
    case, value = wrong[0]
    mistake = match_mistake(name, outcomes)
    if mistake is not None:
        shown = _shown_case(mistake, wrong)
        case, value = shown
        eps = case.args[1] if len(case.args) > 1 and name != "scale_shift" else DEFAULT_EPS
        return _failure(
            name,
            case,
            f"Looks like a known mistake: {mistake.name}. {mistake.advice(case.args[0], eps)}",
            got=value,
            mistake=mistake.key,
        )
    if misshapen is not None:
        return _failure(name, misshapen[0], misshapen[1], got=misshapen[2], mistake="wrong-length")
    if raised is not None and name == "scale_shift" and "broadcast" in str(raised[1].value):
        return _failure(name, raised[0], PER_FEATURE, mistake="per-row")
    if raised is not None:
        return _failure(name, raised[0], raised[1].problem, mistake="exception")
    if np.any(np.isnan(value)):
        return _failure(
            name,
            case,
            "Your function returned NaN (not a number), which comes from 0 / 0 or the root of a negative number.",
            got=value,
            mistake="nan",
        )
    if _float32_only(wrong):
        return _failure(name, case, FLOAT32_ONLY, got=value, mistake="float32-precision")
    where = _first_difference(value, case.expected)
    return _failure(name, case, f"Your result differs from LayerNorm's {where}.", got=value)


def _float32_only(wrong) -> bool:
    """Every wrong result is of a float64 case, holds only float32 numbers, and is right at float32's
    precision: a float64 result rounded to float32, or one computed in float32 from the input rounded to
    float32 (a 0 or a 0.5 alone is no sign)."""
    telling = False
    for case, value in wrong:
        if case.dtype != np.float64 or value is None or np.shape(value) != case.expected.shape:
            return False
        value = np.asarray(value, dtype=np.float64)
        if not np.all(np.isfinite(value)) or not np.array_equal(value.astype(np.float32), value):
            return False
        single = in_float32(case)
        if not (
            close_at(value, case.expected, dataclasses.replace(case, dtype=np.float32).tolerance)
            or close_at(value, single.expected, single.tolerance)
        ):
            return False
        telling = telling or not np.array_equal(value, case.expected)
    return telling


def _step_name(step) -> str:
    """The step's name as the exercises spell it, or "" when ``step`` is not text that can be read."""
    try:
        return str(step).strip().lower().replace("normalize", "normalise")
    except Exception:  # noqa: BLE001 — an object whose str raises: no exercise is called that
        return ""


def _shown(step) -> str:
    try:
        return repr(step)[:80]
    except Exception:  # noqa: BLE001
        return a_type(step)


def _vectorised(fn, right: str, count: int) -> CheckResult:
    """The verdict on a right layer_norm: ✓ without a Python loop; ✗ naming the loop with one."""
    loops = structure.python_loops(fn)
    if loops is None:
        return CheckResult(
            "layer_norm",
            True,
            right + " (its source could not be read, so whether it loops was not checked).",
            count=count,
        )
    fixed = [loop for loop in loops if loop.fixed]
    loops = structure.data_loops(loops)
    if not loops and fixed:  # a loop over (np.mean, np.var): a fixed count of whole-matrix steps
        return CheckResult(
            "layer_norm",
            True,
            right + f"; no Python loop over the data (read from its code: its loop on line {fixed[0].line} "
            "runs over a few things written out, the same number of times whatever the matrix).",
            count=count,
        )
    if not loops:
        return CheckResult("layer_norm", True, right + "; no Python loop (read from its code).", count=count)
    return CheckResult(
        "layer_norm",
        False,
        f"Right values on all {count} unseen inputs, but it has {structure.loop_words(loops)}: notebook 07 asks for no loop, "
        "so that numpy does every row at once; x.mean(axis=-1, keepdims=True) is each row's mean as a column.",
        "python-loop",
    )


# ---------------------------------------------------------------------------------------------
# Reading what the learner's function returned


def _as_result(step: str, case: Case, value):
    """The returned value as a float array shaped like the expected one, or (None, a sentence)."""
    return read_result(step, case.expected.shape, value)


def _shown_case(mistake, wrong):
    """The failing case to show with a named mistake: for the one-pass variance, the row far from zero
    (for its precision) where its error shows; otherwise the first failing case."""
    if mistake.key == "one-pass":
        return one_pass_shown(wrong)
    return wrong[0]


# ---------------------------------------------------------------------------------------------
# Words and numbers for the verdict


def _arguments(case: Case) -> str:
    parts = []
    for arg in case.args:
        if isinstance(arg, np.ndarray):
            parts.append(values_text(arg) + (" (float32)" if arg.dtype == np.float32 else ""))
        else:
            parts.append(f"{arg:g}")
    return ", ".join(parts)


def _failure(step, case: Case, diagnosis: str, got=None, mistake: str | None = None) -> CheckResult:
    if isinstance(got, (str, bytes)):  # text that reads like the right number: shown as the text it is
        got = None
    shown = "" if got is None or isinstance(got, BaseException) else _safe_text(got, case.expected)
    return CheckResult(
        step,
        False,
        diagnosis,
        mistake,
        case.label,
        _arguments(case),
        values_text(case.expected, against=_number_array(got)) if shown else "",
        shown,
    )


def _number_array(got):
    """``got`` as numbers, or None when it is not numbers; never raises."""
    try:
        array, problem = numbers_of(got)
    except Exception:  # noqa: BLE001
        return None
    return array if problem is None else None


def _safe_text(got, expected=None) -> str:
    """The returned value as short text: its numbers, or its repr when it is not numbers; never raises."""
    array, problem = numbers_of(got)
    if problem is None:
        return values_text(array, against=expected)
    try:
        return repr(got)[:120]
    except Exception:  # noqa: BLE001 — a learner's object whose repr raises
        return a_type(got)


def _first_difference(value, expected) -> str:
    value, expected = np.atleast_1d(value), np.atleast_1d(expected)
    index = int(np.argmax(np.abs(value - expected).ravel()))
    where = [int(i) + 1 for i in np.unravel_index(index, expected.shape)]  # 1-based, plain ints
    place = (
        ""
        if expected.size == 1
        else f"at feature {where[0]} "
        if expected.ndim == 1
        else f"at row {where[0]}, feature {where[1]} "
    )
    right, got = expected.ravel()[index], value.ravel()[index]
    digits = telling_digits(got, right)
    apart = f": {abs(got - right):.1e} apart, more than rounding explains" if digits > 6 else ""
    return (
        f"{place}(expected {right:.{digits}g}, got {got:.{digits}g}{apart}); check each step against the formula above"
    )


def _summary(found) -> str:
    """What the cases were, in words, each part read off the cases themselves."""
    widths = sorted({np.shape(case.args[0])[-1] for case in found})
    shapes = "matrices" if any(np.ndim(case.args[0]) == 2 for case in found) else "rows"
    inputs = [np.atleast_2d(np.asarray(case.args[0], dtype=np.float64)) for case in found]
    listed = ", ".join(map(str, widths[:-1])) + (" and " if len(widths) > 1 else "") + str(widths[-1])
    parts = [f"{shapes} with {listed} values per row"]
    if any(np.any(np.all(x == x[:, :1], axis=-1)) for x in inputs):
        parts.append("a constant row")
    with np.errstate(all="ignore"):
        spread = [np.abs(x - x.mean(-1, keepdims=True)) / x.std(-1, keepdims=True) for x in inputs]
    if any(np.nanmax(np.where(np.isfinite(z), z, 0.0)) > 5 for z in spread):
        parts.append("one value far out")
    if any(case.far for case in found):
        kinds = sorted({"float32" if c.dtype == np.float32 else "float64" for c in found if c.far_from_zero})
        parts.append("values far from zero" + (f" (in {' and '.join(kinds)})" if kinds else ""))
    kinds = {case.dtype for case in found}
    return ", ".join(parts) + (", in float32 and float64" if np.float32 in kinds else ", in float64 only")
