"""The checker's "close enough" proved on generated families (issue 35): every correct float64 formulation,
in any summation order, gets ✓; every result off by a tiny additive error, a float32 rounding or float32
arithmetic gets ✗ with the right sentence; a torch module built with its own ε is checked at that ε; and
a loop over a few things written out is no loop over the data.

Each family is the product of independent choices (how the sums are done × what is done wrong), built here
from the spec, not from the checker's code. ``python tests/checking/test_close_enough_families.py`` prints
the families' sizes.
"""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from helpers.checking.exercises import check  # noqa: E402

ROW_STEPS = ("mean", "variance", "std", "normalise")


# --- sums, each exact up to float64 rounding, in a different order --------------------------------
def _kahan(values):
    total, carry = 0.0, 0.0
    for v in values:
        y = v - carry
        t = total + y
        carry = (t - total) - y
        total = t
    return total


def _pairwise(values):
    values = list(values)
    if len(values) <= 2:
        return sum(values)
    half = len(values) // 2
    return _pairwise(values[:half]) + _pairwise(values[half:])


SUMS = {
    "forward": lambda v: sum(v),
    "reversed": lambda v: sum(reversed(v)),
    "sorted": lambda v: sum(sorted(v)),
    "by size": lambda v: sum(sorted(v, key=abs)),
    "fsum": math.fsum,
    "kahan": _kahan,
    "pairwise": _pairwise,
    "numpy": lambda v: float(np.sum(v)),
}


def row_learner(step, summer):
    """A correct learner for a row step, every sum done by ``summer`` on float64 values."""

    def mean(row):
        values = [float(v) for v in np.asarray(row, dtype=np.float64)]
        return summer(values) / len(values)

    def variance(row):
        m = mean(row)
        return summer([(float(v) - m) ** 2 for v in np.asarray(row, dtype=np.float64)]) / len(row)

    def std(row, eps):
        return math.sqrt(variance(row) + eps)

    def normalise(row, eps):
        m, s = mean(row), std(row, eps)
        return np.array([(float(v) - m) / s for v in np.asarray(row, dtype=np.float64)])

    return {"mean": mean, "variance": variance, "std": std, "normalise": normalise}[step]


# whole-matrix forms, no Python loop: each row's mean and variance by another numpy route
MATRIX_FORMS = {
    "mean and var": lambda x: (x.mean(-1, keepdims=True), x.var(-1, keepdims=True)),
    "columns reversed": lambda x: (
        x[:, ::-1].sum(-1, keepdims=True) / x.shape[-1],
        ((x - x.mean(-1, keepdims=True))[:, ::-1] ** 2).sum(-1, keepdims=True) / x.shape[-1],
    ),
    "matmul by ones": lambda x: (
        (x @ np.ones(x.shape[-1]))[:, None] / x.shape[-1],
        ((x - x.mean(-1, keepdims=True)) ** 2 @ np.ones(x.shape[-1]))[:, None] / x.shape[-1],
    ),
    "einsum": lambda x: (
        np.einsum("ij->i", x)[:, None] / x.shape[-1],
        np.einsum("ij,ij->i", x - x.mean(-1, keepdims=True), x - x.mean(-1, keepdims=True))[:, None] / x.shape[-1],
    ),
    "cumsum": lambda x: (
        np.cumsum(x, -1)[:, -1:] / x.shape[-1],
        np.cumsum((x - x.mean(-1, keepdims=True)) ** 2, -1)[:, -1:] / x.shape[-1],
    ),
}


def matrix_learner(form):
    def layer_norm(x, eps):
        x = np.asarray(x, dtype=np.float64)
        m, v = MATRIX_FORMS[form](x)
        return (x - m) / np.sqrt(v + eps)

    return layer_norm


def statistics_learner(step):
    """The standard library's exact statistics (fractions inside): more exact than any float sum."""
    return {
        "mean": lambda row: statistics.fmean(row),
        "variance": lambda row: statistics.pvariance([float(v) for v in row]),
        "std": lambda row, eps: math.sqrt(statistics.pvariance([float(v) for v in row]) + eps),
        "normalise": lambda row, eps: (
            (np.asarray(row, dtype=np.float64) - statistics.fmean(row))
            / math.sqrt(statistics.pvariance([float(v) for v in row]) + eps)
        ),
    }[step]


CORRECT = [(step, f"sum {name}", row_learner(step, summer)) for step in ROW_STEPS for name, summer in SUMS.items()]
CORRECT += [(step, "statistics", statistics_learner(step)) for step in ROW_STEPS]
CORRECT += [("layer_norm", form, matrix_learner(form)) for form in MATRIX_FORMS]
CORRECT += [("scale_shift", "γ · x̂ + β", lambda x, g, b: np.asarray(g) * x + b)]
CORRECT += [("scale_shift", "x̂ · γ + β by columns", lambda x, g, b: np.multiply(x, g) + np.asarray(b))]


@pytest.mark.parametrize(("step", "name", "fn"), CORRECT, ids=[f"{s}-{n}" for s, n, _ in CORRECT])
def test_every_correct_float64_formulation_passes(step, name, fn):
    result = check(step, fn)
    assert result.passed, result


# --- wrong: a tiny error, or float32 precision, on a float64 input ---------------------------------
def additive(fn, delta):
    return lambda *a: np.asarray(fn(*a), dtype=np.float64) + delta


def relative(fn, factor):
    return lambda *a: np.asarray(fn(*a), dtype=np.float64) * factor


def float32_result(fn):
    """The right result, rounded to float32 where the input is float64 (kept where it is float32)."""

    def rounded(*a):
        value = np.asarray(fn(*a), dtype=np.float64)
        return value.astype(np.float32).astype(np.float64) if np.asarray(a[0]).dtype == np.float64 else value

    return rounded


BASE = {
    **{step: row_learner(step, SUMS["numpy"]) for step in ROW_STEPS},
    "layer_norm": matrix_learner("mean and var"),
    "scale_shift": lambda x, g, b: np.asarray(g) * x + b,
}


def _float32_inside(step):
    def run(*a):
        args = [np.asarray(v, dtype=np.float32) if isinstance(v, np.ndarray) else np.float32(v) for v in a]
        x = args[0].astype(np.float32)
        if step == "scale_shift":
            return (args[1] * x + args[2]).astype(np.float64)
        m = x.mean(-1, keepdims=True, dtype=np.float32)
        v = ((x - m) ** 2).mean(-1, keepdims=True, dtype=np.float32)
        out = {
            "mean": m,
            "variance": v,
            "std": np.sqrt(v + args[-1]) if len(args) > 1 else None,
            "normalise": (x - m) / np.sqrt(v + args[-1]) if len(args) > 1 else None,
            "layer_norm": (x - m) / np.sqrt(v + args[-1]) if len(args) > 1 else None,
        }[step]
        out = out.astype(np.float64)
        return out.reshape(()) if step in ("mean", "variance", "std") else out

    return run


WRONG_STEPS = (*ROW_STEPS, "layer_norm", "scale_shift")
DIFFERS = "apart, more than rounding explains"
FLOAT32 = "right only to float32's precision"
WRONG = (
    [(step, f"+ {d:g}", additive(BASE[step], d), DIFFERS) for step in WRONG_STEPS for d in (1e-10, -1e-11)]
    + [(step, f"× (1 + {r:g})", relative(BASE[step], 1 + r), None) for step in WRONG_STEPS for r in (3e-8, -1e-9)]
    + [(step, "rounded to float32", float32_result(BASE[step]), FLOAT32) for step in WRONG_STEPS]
    + [(step, "computed in float32", _float32_inside(step), FLOAT32) for step in WRONG_STEPS]
)


@pytest.mark.parametrize(("step", "name", "fn", "words"), WRONG, ids=[f"{s}-{n}" for s, n, _, _ in WRONG])
def test_every_tiny_error_and_float32_precision_fails_with_its_sentence(step, name, fn, words):
    result = check(step, fn)
    assert not result.passed, result
    if words is not None:
        assert words in result.diagnosis, result
    if words == FLOAT32:
        assert result.mistake == "float32-precision", result
    else:
        assert result.mistake is None, result  # not a catalogued mistake, nor a named precision
    if result.expected and result.got:  # the two numbers shown differ where the values differ
        assert result.expected != result.got, result


def test_a_variance_loop_of_float64_noise_only_passes_and_one_unit_of_float32_does_not():
    """The edge, from both sides, on the variance of float64 rows: a few units of float64 pass; 2^-24 fails."""
    right = BASE["variance"]
    assert check("variance", relative(right, 1 + 8 * 2.0**-53)).passed
    assert not check("variance", relative(right, 1 + 2.0**-24)).passed


# --- a module built with its own ε ------------------------------------------------------------------
torch = pytest.importorskip("torch")


def _module(eps_in_forward=None):
    class MyLN(torch.nn.Module):
        def __init__(self, n_features, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.gamma = torch.nn.Parameter(torch.ones(n_features))
            self.beta = torch.nn.Parameter(torch.zeros(n_features))

        def forward(self, x):
            mean = x.mean(-1, keepdim=True)
            var = ((x - mean) ** 2).mean(-1, keepdim=True)
            eps = self.eps if eps_in_forward is None else eps_in_forward
            return self.gamma * (x - mean) / torch.sqrt(var + eps) + self.beta

    return MyLN


@pytest.mark.parametrize("eps", [1e-5, 1e-6, 1e-12, 1e-3, 0.0])
def test_a_module_built_with_its_own_eps_is_checked_at_it(eps):
    result = check("module", _module()(4, eps=eps))
    assert result.passed, result
    assert ("its own ε" in result.diagnosis) is (eps != 1e-5), result
    own = check("module", torch.nn.LayerNorm(4, eps=eps))  # PyTorch's own is named, not judged at its ε
    assert not own.passed and own.mistake == "torch-layer-norm", own


@pytest.mark.parametrize("eps", [1e-6, 1e-3])
def test_a_module_that_ignores_its_own_eps_is_named(eps):
    result = check("module", _module(eps_in_forward=1e-5)(4, eps=eps))
    assert not result.passed and result.mistake == "eps-ignored", result
    assert f"{eps:g}" in result.diagnosis  # the sentence names the ε it was built with


# --- a loop over a few things written out is no loop over the data ----------------------------------
LOOPS = {
    "generator over (np.mean, np.var)": (
        "def layer_norm(x, eps):\n"
        "    m, v = (f(x, axis=-1, keepdims=True) for f in (np.mean, np.var))\n"
        "    return (x - m) / np.sqrt(v + eps)\n",
        True,
    ),
    "for over [np.mean, np.var]": (
        "def layer_norm(x, eps):\n"
        "    s = []\n"
        "    for f in [np.mean, np.var]:\n"
        "        s.append(f(x, axis=-1, keepdims=True))\n"
        "    return (x - s[0]) / np.sqrt(s[1] + eps)\n",
        True,
    ),
    "dict over a written-out tuple": (
        "def layer_norm(x, eps):\n"
        "    s = {k: f(x, axis=-1, keepdims=True) for k, f in (('m', np.mean), ('v', np.var))}\n"
        "    return (x - s['m']) / np.sqrt(s['v'] + eps)\n",
        True,
    ),
    "comprehension over the rows": (
        "def layer_norm(x, eps):\n    return np.array([(r - r.mean()) / np.sqrt(r.var() + eps) for r in x])\n",
        False,
    ),
    "range over the rows": (
        "def layer_norm(x, eps):\n"
        "    out = np.empty_like(x, dtype=float)\n"
        "    for i in range(len(x)):\n"
        "        out[i] = (x[i] - x[i].mean()) / np.sqrt(x[i].var() + eps)\n"
        "    return out\n",
        False,
    ),
    "written-out rows": (
        "def layer_norm(x, eps):\n"
        "    rows = [(r - r.mean()) / np.sqrt(r.var() + eps) for r in (x[0], x[-1])]\n"
        "    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + eps) + 0 * len(rows)\n",
        False,
    ),
}


@pytest.mark.parametrize("name", LOOPS)
def test_only_a_loop_over_the_data_is_a_python_loop(name, tmp_path, monkeypatch):
    source, passes = LOOPS[name]
    path = tmp_path / f"learner_{abs(hash(name))}.py"
    path.write_text("import numpy as np\n\n" + source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    module = __import__(path.stem)
    result = check("layer_norm", module.layer_norm)
    assert result.passed is passes, result
    if not passes:
        assert result.mistake == "python-loop", result
    else:
        assert "no Python loop over the data" in result.diagnosis, result


if __name__ == "__main__":
    print(f"correct: {len(CORRECT)} learners; wrong: {len(WRONG)}; loops: {len(LOOPS)}")
