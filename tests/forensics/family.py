"""A generated family of LayerNorm implementations for the fingerprint (issue 30, item 6), each with the truth.

Every member is an affine map of a LayerNorm (γ·LayerNorm + β, times a constant, plus a constant), built
from independent choices: the precision it computes in, centring, the divisor, where ε goes and how big
it is, one- or two-pass variance, the axis, γ and β (none, parameters it shows, a closure's, with a γ of 0),
a constant scale and shift, noise, and state (statistics cached per shape, a call counter). ``truth``
says what each one is; the test asserts that every attribute a fingerprint states is that, or "cannot
tell". Written from the spec, not from the fingerprint's code.
"""

from __future__ import annotations

import collections
import dataclasses
import functools
import itertools
import math
from dataclasses import dataclass

import numpy as np

N = 4  # the probes' width for a function that does not say (helpers.forensics.fingerprints.DEFAULT_FEATURES)
PRECISIONS = ("float64", "float32", "float32 in, float64 out", "float32 statistics", "bfloat16", "float16")
GAMMAS = ("none", "parameter", "closure", "zero parameter", "zero closure", "scalar parameter")
BETAS = ("none", "per feature", "constant")
EPS = {  # ε values each precision can show (float16 and bfloat16 cannot hold BERT's 1e-12 beside 1)
    "float64": (1e-5, 1e-3, 1e-6, 1e-12),
    "float32": (1e-5, 1e-3, 1e-6),
    "float32 in, float64 out": (1e-5, 1e-3, 1e-6),
    "float32 statistics": (1e-5, 1e-3, 1e-6),
    "bfloat16": (1e-5, 1e-3),
    "float16": (1e-5, 1e-3),
}
GAMMA_VALUES = np.array([1.5, -0.75, 2.0, 0.5])
BETA_VALUES = np.array([0.25, -0.5, 0.0, 1.0])


@dataclass(frozen=True)
class Spec:
    precision: str = "float64"
    centres: bool = True
    unbiased: bool = False
    placement: str = "inside sqrt"  # "inside sqrt", "added to std" or "none"
    eps: float = 1e-5
    one_pass: bool = False
    axis: str = "rows"
    gamma: str = "none"
    beta: str = "none"
    scale: float = 1.0
    shift: float = 0.0
    noise: bool = False
    state: str = "none"  # "none", "cache" (statistics per shape) or "counter"

    @property
    def gamma_values(self) -> np.ndarray:
        if self.gamma == "none":
            return np.ones(N)
        if self.gamma == "scalar parameter":
            return np.full(N, 1.5)
        values = GAMMA_VALUES.copy()
        if self.gamma.startswith("zero"):
            values[1] = 0.0
        return values

    @property
    def beta_values(self) -> np.ndarray:
        return {"none": np.zeros(N), "per feature": BETA_VALUES, "constant": np.full(N, 0.5)}[self.beta]


_Choice = collections.namedtuple("_Choice", [field.name for field in dataclasses.fields(Spec)])  # a Spec's fields


def valid(spec: Spec) -> bool:
    """The combinations that make sense: ε a number the precision can show, no ε only without one pass,
    γ and β per feature only along the rows (a column-wise one is given no γ), noise only in float64 output,
    one pass only where the offset probe can see it."""
    if spec.placement == "none" and spec.eps != 0.0 or spec.placement != "none" and spec.eps not in EPS[spec.precision]:
        return False
    if spec.one_pass and (not spec.centres or spec.precision not in ("float64", "float32")):
        return False
    if spec.axis == "columns" and (spec.gamma != "none" or spec.beta == "per feature"):
        return False
    if spec.gamma == "scalar parameter" and spec.beta == "per feature":
        return False
    return not (spec.noise and spec.precision not in ("float64", "float32 statistics"))


def _statistics(x, spec: Spec, dt):
    n = x.shape[-1]
    k = n - 1 if spec.unbiased else n
    mean = x.mean(axis=-1, keepdims=True, dtype=dt) if spec.centres else np.zeros_like(x[..., :1])
    if spec.one_pass:
        variance = ((x * x).mean(axis=-1, keepdims=True, dtype=dt) - mean * mean) * dt(n / k)
    else:
        u = x - mean
        variance = (u * u).sum(axis=-1, keepdims=True, dtype=dt) / dt(k)
    return mean, variance


def _normalise(x, mean, variance, spec: Spec, dt):
    eps = dt(spec.eps)
    if spec.placement == "added to std":
        return (x - mean) / (np.sqrt(variance) + eps)
    return (x - mean) / np.sqrt(variance + eps)


def _numpy_norm(x: np.ndarray, spec: Spec, cache: dict) -> np.ndarray:
    """The LayerNorm (γ = 1, β = 0) of each row of float64 ``x``, in the spec's precision."""
    if spec.precision == "bfloat16":
        import torch

        t = torch.from_numpy(x).to(torch.bfloat16)
        n = t.shape[-1]
        mean = t.mean(-1, keepdim=True) if spec.centres else torch.zeros_like(t[..., :1])
        u = t - mean
        variance = (u * u).sum(-1, keepdim=True) / (n - 1 if spec.unbiased else n)
        if spec.state == "cache":
            mean, variance = cache.setdefault(tuple(x.shape), (mean, variance))
        eps = torch.tensor(spec.eps, dtype=torch.bfloat16)
        if spec.placement == "added to std":
            y = (t - mean) / (variance.sqrt() + eps)
        else:
            y = (t - mean) / (variance + eps).sqrt()
        return y.float().numpy().astype(np.float64)
    dt = {"float64": np.float64, "float16": np.float16}.get(spec.precision, np.float32)
    work = x.astype(dt)
    mean, variance = _statistics(work, spec, dt)
    if spec.state == "cache":
        mean, variance = cache.setdefault(tuple(x.shape), (mean, variance))
    if spec.precision == "float32 statistics":  # T5's pattern: statistics in float32, the rest in float64
        return _normalise(x, mean.astype(np.float64), variance.astype(np.float64), spec, np.float64)
    y = _normalise(work, mean, variance, spec, dt)
    return y.astype(np.float64) if spec.precision == "float32 in, float64 out" else y


def build(spec: Spec):
    """The implementation: a function, or an object with ``weight``/``bias`` when γ is a parameter."""
    cache, calls = {}, [0]
    rng = np.random.default_rng(0)
    gamma, beta = spec.gamma_values, spec.beta_values

    def fn(x):
        x = np.asarray(x, dtype=np.float64)
        calls[0] += 1
        z = _numpy_norm(x.T.copy() if spec.axis == "columns" else x, spec, cache)
        dt = z.dtype
        if spec.gamma != "none":
            z = z * gamma.astype(dt)
        if spec.beta != "none":  # β the same on every feature is a number (so it fits a column-wise one too)
            z = z + (dt.type(0.5) if spec.beta == "constant" else beta.astype(dt))
        z = z * dt.type(spec.scale) + dt.type(spec.shift)
        if spec.axis == "columns":
            z = z.T
        if spec.noise:
            z = z + 1e-9 * rng.standard_normal(z.shape)
        if spec.state == "counter":
            z = z * (1 + 1e-2 * calls[0])  # 1 % a call: above float16's and bfloat16's rounding
        return z

    if spec.gamma.endswith("parameter"):

        class Module:
            weight = np.float64(1.5) if spec.gamma == "scalar parameter" else gamma
            bias = np.float64(0.5) if spec.beta == "constant" else beta

            def __call__(self, x):
                return fn(x)

        return Module()
    return fn


@functools.cache
def space() -> tuple[Spec, ...]:
    """Every valid member of the family, in a fixed order (made once: about 90,000 of some 930,000
    combinations; each is judged as a plain tuple first, as making a frozen Spec of each took seconds)."""
    eps_values = sorted({e for values in EPS.values() for e in values} | {0.0})
    choices = itertools.product(
        PRECISIONS,
        (True, False),
        (False, True),
        ("inside sqrt", "added to std", "none"),
        eps_values,
        (False, True),
        ("rows", "columns"),
        GAMMAS,
        BETAS,
        (1.0, 2.0, -1.0),
        (0.0, 0.5),
        (False, True),
        ("none", "cache", "counter"),
    )
    return tuple(Spec(*c) for c in choices if valid(_Choice(*c)))


def parameter_beta(spec: Spec) -> np.ndarray:
    return np.full(N, 0.5) if spec.beta == "constant" and spec.gamma == "scalar parameter" else spec.beta_values


def readable(spec: Spec) -> bool:
    """γ and β can be read from its parameters and its output follows them: its β is the one it shows, and
    its γ is the one it shows up to an overall size (a constant scale, which the divisor hides anyway)."""
    return spec.gamma.endswith("parameter") and bool(np.allclose(total_beta(spec), parameter_beta(spec)))


def unknown_scale(spec: Spec) -> bool:
    """Its γ differs between features and cannot be read: the output's overall size is not measurable."""
    return (
        spec.gamma in ("closure", "zero closure")
        or spec.gamma in ("parameter", "zero parameter")
        and not readable(spec)
    )


def factor_if_biased(spec: Spec, read: bool) -> float:
    """The constant factor a fingerprint reading ÷ n should find, relative to the γ it read (``read``) or to 1
    (a γ the same on every feature is then part of the factor)."""
    g = spec.scale * (1.5 if spec.gamma == "scalar parameter" and not read else 1.0)
    return g * (math.sqrt((N - 1) / N) if spec.unbiased else 1.0)


def total_beta(spec: Spec) -> np.ndarray:
    return spec.beta_values * spec.scale + spec.shift


def matches_torch(spec: Spec) -> bool:
    """PyTorch's conventions (÷ n, ε = 1e-5 inside the root, two-pass, along the rows), with γ and β of
    its own (a readable or unreadable γ; not a constant factor on top of a γ that is 1 or read)."""
    conventions = (
        spec.axis == "rows"
        and spec.centres
        and not spec.unbiased
        and spec.placement == "inside sqrt"
        and spec.eps == 1e-5
        and not spec.one_pass
    )
    scalar_unread = spec.gamma == "scalar parameter" and not readable(spec)
    return conventions and (spec.scale == 1.0 and not scalar_unread or unknown_scale(spec))


COMPUTES_IN = {
    "float64": "float64",
    "float32": "float32",
    "float32 in, float64 out": "float32",
    "float32 statistics": "float32",
    "bfloat16": "bfloat16",
    "float16": "float16",
}


def t5_statistics(x):
    """T5LayerNorm's pattern on a LayerNorm, written out: mean and variance computed in float32, the output float64."""
    x = np.asarray(x, dtype=np.float64)
    h = x.astype(np.float32)
    mean = h.mean(axis=-1, keepdims=True)
    variance = ((h - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean.astype(np.float64)) / np.sqrt(variance + np.float32(1e-6)).astype(np.float64)
