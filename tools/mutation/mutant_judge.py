"""The independent judge of tools/mutation/solution_mutants.py: the exercise's domain and tolerance, written
out from the issue (19), not taken from the checker; the inputs tried; and whether a function differs."""

from __future__ import annotations

import functools
import math
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from helpers.core.formula import layer_norm_forward  # noqa: E402
from tools.mutation.mutant_maker import ROW_STEPS, SCALAR_STEPS, mutants, reference  # noqa: E402

# ---------------------------------------------------------------------------------------------
# The domain and the tolerance (from issue 19; written here, not taken from the checker)

U32 = 2.0**-24
U64 = 2.0**-53
N_ROW, N_MATRIX, M_MATRIX = (2, 32), (2, 8), (1, 6)
SPREAD, OFFSET_OVER_SPREAD, OFFSET_MAX = (1e-2, 1e2), 1000.0, 1e4
EPS_RANGE = (1e-8, 1e-1)
GAMMA_BETA = 3.0
DTYPES = (np.float64, np.float32)


def make_row(n: int, dtype, spread: float | None, offset: float, z=None) -> np.ndarray:
    """c + s·z (z rounded to 3 decimals) in ``dtype``; ``spread=None`` gives the constant row c."""
    if spread is None:
        return np.full(n, offset, dtype=np.float64).astype(dtype)
    z = np.round(np.asarray(z, dtype=np.float64), 3)
    return (offset + spread * z).astype(dtype)


def truth(step: str, args) -> np.ndarray:
    """LayerNorm's answer for ``args``, in float64 (0-d for mean, variance and std)."""
    if step == "scale_shift":
        x_hat, gamma, beta = (np.asarray(a, dtype=np.float64) for a in args)
        return gamma * x_hat + beta
    x = np.asarray(args[0], dtype=np.float64)
    eps = args[1] if len(args) > 1 else 1e-5  # mean and variance do not depend on it
    x_hat, mean, var, std = layer_norm_forward(x, eps)
    return {"mean": mean, "variance": var, "std": std}.get(step, x_hat).reshape(() if step in SCALAR_STEPS else x.shape)


TOLERANCES = ("spec", "with-mean-error")
TOLERANCE = "with-mean-error"  # issue 19's, plus the float32 mean's error; see tolerance()


def tolerance(step: str, args, variant: str | None = None):
    """(rtol, atol) for ``args``; atol is an array (one per row) for normalise and layer_norm in float32.

    ``variant="spec"`` (the default) is issue 19's tolerance exactly. ``"with-mean-error"`` adds, in
    float32, what an error δ = n·u·max|x| in the mean (a float32 sum of n values) does to the
    variance (δ²) and to the std (δ² / (√(σ²+ε+δ²) + √(σ²+ε))): the spec leaves that out, and the
    lecturer's own variance and std fail it in float32 (see the report)."""
    variant = TOLERANCE if variant is None else variant
    x = np.asarray(args[0])
    single = x.dtype == np.float32
    # float64 (issue 35): the same rule at float64's rounding, about 1000 units relative and 16 absolute, so
    # that a float64 result rounded to float32 (2^-24 relative) or a variance with 1e-10 added differs
    unit, rtol, floor = (U32, 1e-4, 1e-6) if single else (U64, 2.0**-43, 2.0**-49)
    x = x.astype(np.float64)
    n = x.shape[-1]
    if step == "scale_shift":
        gamma, beta = (np.asarray(a, dtype=np.float64) for a in args[1:3])
        if single:
            return 1e-4, 1e-5 * float(np.max(np.abs(gamma))) + 1e-5
        size = np.max(np.abs(gamma * x) + np.abs(beta), axis=-1, keepdims=True)
        return rtol, floor + 8 * n * unit * size
    eps = args[1] if len(args) > 1 else 0.0
    _, _, var, _ = layer_norm_forward(x, 1e-5)
    top = np.max(np.abs(x), axis=-1, keepdims=True)
    delta = n * unit * top if variant == "with-mean-error" or not single else 0.0 * top
    if step == "mean":
        atol = floor + 8 * n * unit * top
    elif step == "variance":
        atol = floor + 8 * n * unit * var + delta**2
    elif step == "std":
        atol = floor + 8 * n * unit * np.sqrt(var) + delta**2 / (np.sqrt(var + eps + delta**2) + np.sqrt(var + eps))
    else:
        atol = 10 * floor + 8 * n * unit * top / np.sqrt(var + eps)
    return rtol, atol.reshape(()) if step in SCALAR_STEPS else atol


@dataclass(frozen=True)
class Difference:
    """How a result differs: ``reason`` (None: only by value), ``ratio`` = max |got − truth| / allowed."""

    reason: str | None
    ratio: float
    got: object = None

    @property
    def differs(self) -> bool:
        return self.reason is not None or not self.ratio <= 1.0


def compare(step: str, fn, args) -> Difference:
    """Call ``fn(*args)`` on copies and compare with the truth."""
    copies = tuple(np.array(a, copy=True) if isinstance(a, np.ndarray) else a for a in args)
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = fn(*copies)
    except Exception as error:  # noqa: BLE001 — a mutant may raise anything
        return Difference(f"raises {type(error).__name__}: {error}"[:200], math.inf)
    if any(isinstance(a, np.ndarray) and not np.array_equal(a, c, equal_nan=True) for a, c in zip(args, copies)):
        return Difference("changes its input array in place", math.inf, value)
    if (
        value is None
        or isinstance(value, (str, bytes, dict, set))
        or step in SCALAR_STEPS
        and isinstance(value, (list, tuple))
    ):
        return Difference(f"returns a {type(value).__name__}", math.inf, value)
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as error:
        return Difference(f"returns something that is not numbers ({error})", math.inf, value)
    if array.dtype.kind not in "fiu":
        return Difference(f"returns values of dtype {array.dtype}", math.inf, value)
    expected = truth(step, args)
    if array.shape != expected.shape:
        return Difference(f"returns shape {array.shape} where {expected.shape} is right", math.inf, value)
    rtol, atol = tolerance(step, args)
    got = array.astype(np.float64)
    with np.errstate(all="ignore"):
        allowed = atol + rtol * np.abs(expected)
        ratios = np.abs(got - expected) / allowed
    ratio = float(np.max(ratios)) if not np.any(np.isnan(ratios)) else math.inf
    return Difference(None, ratio, value)


# ---------------------------------------------------------------------------------------------
# Inputs: the checker's cases, corners of the domain, a random sample, and a Hypothesis search


@functools.cache
def checker_inputs(step: str) -> list[tuple]:
    """The checker's own cases (its arguments only: the truth is ours)."""
    from helpers.checking.cases import cases

    return [case.args for case in cases(step)]


@functools.cache
def _corner_rows() -> list[np.ndarray]:
    zs = {
        "wide": lambda n: np.resize([-3.0, 3.0], n),
        "one apart": lambda n: np.resize([0.0, 0.001], n),
        "ramp": lambda n: np.linspace(-3, 3, n),
        "one out": lambda n: np.r_[np.zeros(n - 1), 3.0],
    }
    found = []
    for dtype in DTYPES:
        for n in (2, 3, 5, 31, 32):
            for spread in (SPREAD[0], 1.0, SPREAD[1]):
                top = min(OFFSET_OVER_SPREAD * spread, OFFSET_MAX)
                for offset in (0.0, top, -top):
                    for z in zs.values():
                        found.append(make_row(n, dtype, spread, offset, z(n)))
            for offset in (0.0, 0.5, 0.1, -1e4, 1e4, 1234.567, 9920.539, -7777.777):
                found.append(make_row(n, dtype, None, offset))
    return found


def _random_row(rng, n, dtype) -> np.ndarray:
    if rng.random() < 0.15:
        return make_row(n, dtype, None, rng.uniform(-OFFSET_MAX, OFFSET_MAX))
    spread = 10 ** rng.uniform(-2, 2)
    top = min(OFFSET_OVER_SPREAD * spread, OFFSET_MAX)
    offset = rng.choice([rng.uniform(-top, top), top * rng.choice([-1, 1]), 0.0])
    return make_row(n, dtype, spread, offset, rng.uniform(-3, 3, n))


def _normalised(x, eps) -> np.ndarray:
    return layer_norm_forward(np.asarray(x, dtype=np.float64), eps)[0]


@functools.cache
def fixed_inputs(step: str, random_count: int = 150) -> list[tuple]:
    """Corners of the domain and a seeded random sample of it, as argument tuples for ``step``."""
    rng = np.random.default_rng(19)
    eps_values = (EPS_RANGE[0], 1e-5, EPS_RANGE[1])
    found = []
    if step in ROW_STEPS:
        rows = list(_corner_rows())
        rows += [
            _random_row(rng, int(rng.integers(N_ROW[0], N_ROW[1] + 1)), DTYPES[i % 2]) for i in range(random_count)
        ]
        for i, row in enumerate(rows):
            found.append((row,) if step in ("mean", "variance") else (row, eps_values[i % 3]))
            if step in ("std", "normalise") and i % 7 == 0:
                found.append((row, float(10 ** rng.uniform(-8, -1))))
        return found
    matrices = []
    for dtype in DTYPES:
        for m, n in ((1, 2), (2, 2), (3, 3), (6, 8), (2, 5), (5, 3)):
            matrices.append(np.stack([_random_row(rng, n, dtype) for _ in range(m)]))
        corner = [row for row in _corner_rows() if row.dtype == dtype and row.size == 5]
        matrices.append(np.stack(corner[:6]))
    for i in range(random_count // 3):
        m, n = int(rng.integers(M_MATRIX[0], M_MATRIX[1] + 1)), int(rng.integers(N_MATRIX[0], N_MATRIX[1] + 1))
        dtype = DTYPES[i % 2]
        matrices.append(np.stack([_random_row(rng, n, dtype) for _ in range(m)]))
    if step == "layer_norm":
        return [(x, eps_values[i % 3]) for i, x in enumerate(matrices)]
    for i, x in enumerate(matrices + [row for row in _corner_rows() if row.size <= 8][::5]):
        x_hat = _normalised(x, eps_values[i % 3]).astype(x.dtype)
        n = x.shape[-1]
        gamma = rng.uniform(-GAMMA_BETA, GAMMA_BETA, n).astype(x.dtype)
        beta = rng.uniform(-GAMMA_BETA, GAMMA_BETA, n).astype(x.dtype)
        found.append((x_hat, gamma, beta))
        if i % 5 == 0:
            found.append((x_hat, np.full(n, GAMMA_BETA, x.dtype), np.full(n, -GAMMA_BETA, x.dtype)))
    return found


def strategy(step: str):
    """Hypothesis's strategy for the argument tuples of ``step``, drawn from exactly the domain."""
    from hypothesis import strategies as st

    dtypes = st.sampled_from(DTYPES)
    eps = st.floats(math.log10(EPS_RANGE[0]), math.log10(EPS_RANGE[1])).map(lambda e: float(10**e))

    @st.composite
    def row(draw, n, dtype):
        if draw(st.integers(0, 5)) == 0:
            return make_row(n, dtype, None, draw(st.floats(-OFFSET_MAX, OFFSET_MAX)))
        spread = float(10 ** draw(st.floats(math.log10(SPREAD[0]), math.log10(SPREAD[1]))))
        offset = draw(st.floats(-1.0, 1.0)) * min(OFFSET_OVER_SPREAD * spread, OFFSET_MAX)
        z = draw(st.lists(st.integers(-3000, 3000), min_size=n, max_size=n))
        return make_row(n, dtype, spread, offset, np.asarray(z) / 1000.0)

    @st.composite
    def matrix(draw, dtype=None):
        dtype = draw(dtypes) if dtype is None else dtype
        m, n = draw(st.integers(*M_MATRIX)), draw(st.integers(*N_MATRIX))
        return np.stack([draw(row(n, dtype)) for _ in range(m)])

    @st.composite
    def arguments(draw):
        if step in ROW_STEPS:
            x = draw(row(draw(st.integers(*N_ROW)), draw(dtypes)))
            return (x,) if step in ("mean", "variance") else (x, draw(eps))
        if step == "layer_norm":
            return (draw(matrix()), draw(eps))
        dtype = draw(dtypes)
        x = draw(matrix(dtype)) if draw(st.booleans()) else draw(row(draw(st.integers(*N_MATRIX)), dtype))
        n = x.shape[-1]
        x_hat = _normalised(x, draw(eps)).astype(dtype)
        vector = st.lists(st.floats(-GAMMA_BETA, GAMMA_BETA), min_size=n, max_size=n)
        return x_hat, np.asarray(draw(vector), dtype=dtype), np.asarray(draw(vector), dtype=dtype)

    return arguments()


HYPOTHESIS_EXAMPLES = 200


class _Differs(Exception):
    pass


def hypothesis_search(step: str, fn, max_examples: int = HYPOTHESIS_EXAMPLES):
    """(args, Difference) of an input where ``fn`` differs (shrunk by Hypothesis), or None."""
    from hypothesis import HealthCheck, Verbosity, given, settings, target

    found = {}

    @settings(
        max_examples=max_examples,
        deadline=None,
        derandomize=True,
        database=None,
        verbosity=Verbosity.quiet,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
    )
    @given(strategy(step))
    def probe(args):
        difference = compare(step, fn, args)
        if difference.differs:
            found["last"] = (args, difference)
            raise _Differs
        if difference.ratio > 0:
            target(math.log10(difference.ratio))

    try:
        probe()
    except _Differs:
        return found["last"]
    return None


@dataclass(frozen=True)
class Judgement:
    """Whether a function differs from LayerNorm somewhere in the domain, and where (if it does)."""

    differs: bool
    stage: str = ""  # "checker's cases", "corners and sample", "hypothesis"
    args: tuple = ()
    difference: Difference | None = None
    tried: int = 0

    def summary(self) -> str:
        if not self.differs:
            return f"never differs ({self.tried} fixed inputs and the Hypothesis search)"
        d = self.difference
        how = d.reason or f"off by {d.ratio:.3g} × the tolerance"
        return f"differs ({self.stage}): {how}; input {describe_args(self.args)}"


def judge(step: str, fn, max_examples: int = HYPOTHESIS_EXAMPLES) -> Judgement:
    tried = 0
    for stage, inputs in (("checker's cases", checker_inputs(step)), ("corners and sample", fixed_inputs(step))):
        for args in inputs:
            tried += 1
            difference = compare(step, fn, args)
            if difference.differs:
                return Judgement(True, stage, args, difference, tried)
    hit = hypothesis_search(step, fn, max_examples)
    if hit is not None:
        return Judgement(True, "hypothesis", hit[0], hit[1], tried)
    return Judgement(False, tried=tried)


def judge_mutant(mutant_id: str, max_examples: int = HYPOTHESIS_EXAMPLES) -> Judgement:
    """The judgement of one mutant (cached: the test and the report share it)."""
    return _judge_mutant(mutant_id, max_examples, TOLERANCE)


@functools.cache
def _judge_mutant(mutant_id: str, max_examples: int, variant: str) -> Judgement:
    mutant = next(m for m in mutants() if m.id == mutant_id)
    return judge(mutant.step, mutant.compile(), max_examples)


def reference_failures(step: str, max_examples: int = 4 * HYPOTHESIS_EXAMPLES) -> Judgement:
    """The lecturer's solution judged like a mutant: it should never differ."""
    return judge(step, reference(step), max_examples)


def describe_args(args) -> str:
    parts = []
    for arg in args:
        if isinstance(arg, np.ndarray):
            text = np.array2string(arg, separator=", ", floatmode="unique", max_line_width=10**6, threshold=10**6)
            parts.append(f"np.array({text}, dtype=np.{arg.dtype})")
        else:
            parts.append(repr(arg))
    return "(" + ", ".join(parts) + ")"
