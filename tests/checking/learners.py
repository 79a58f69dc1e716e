"""Learner functions built by composition, for the family tests (test_families.py).

A learner is a step's formula written in one *backend* (numpy, torch, or pure Python on lists), computing
in the input's precision or upcast to float64, returning its result in some *form* (an array, a list, a
copy, a tensor, a tensor that requires grad, a Python float), with at most one mistake or two at once
from the one catalogue (helpers.checking.mistakes), applied by its formula settings ("changes"). The
formula here is written independently of helpers.checking.mistakes.formula: only the catalogue's keys,
names and settings are shared, so a checker that agreed with a wrong oracle would still be caught.
"""

from __future__ import annotations

import math

import numpy as np

DEFAULT_EPS = 1e-5
BACKENDS = ("numpy", "torch", "python")
PRECISIONS = ("own", "float64")  # compute in the input's dtype, or upcast to float64 first
ARRAY_FORMS = ("native", "list", "copy", "tensor", "tensor-grad")
SCALAR_FORMS = ("native", "float", "numpy-float", "tensor-0d", "tensor-grad")


class NumpyOps:
    """Row-wise operations on numpy arrays (the last axis is the features)."""

    def __init__(self, precision):
        self.precision = precision

    def asarray(self, x):
        x = np.array(x, copy=True)
        return x.astype(np.float64) if self.precision == "float64" else x

    def total(self, a, axis="row"):
        if axis == "column":
            return a.sum(axis=0, keepdims=True)
        if axis == "all":
            return a.sum()
        if axis == "lost":
            return a.sum(axis=-1)
        return a.sum(axis=-1, keepdims=True)

    def count(self, a, axis="row"):
        return {"column": a.shape[0], "all": a.size}.get(axis, a.shape[-1])

    def sqrt(self, a):
        return np.sqrt(a)

    def absolute(self, a):
        return np.abs(a)

    def median(self, a):
        return np.median(a, axis=-1, keepdims=True)

    def low(self, a):
        return a.min(axis=-1, keepdims=True)

    def high(self, a):
        return a.max(axis=-1, keepdims=True)

    def column(self, a):
        return a.reshape(-1, 1)

    def out(self, a):
        return a


class TorchOps(NumpyOps):
    def __init__(self, precision):
        super().__init__(precision)
        import torch

        self.torch = torch

    def asarray(self, x):
        t = self.torch.from_numpy(np.array(x, copy=True))
        return t.double() if self.precision == "float64" else t

    def total(self, a, axis="row"):
        if axis == "column":
            return a.sum(dim=0, keepdim=True)
        if axis == "all":
            return a.sum()
        if axis == "lost":
            return a.sum(dim=-1)
        return a.sum(dim=-1, keepdim=True)

    def count(self, a, axis="row"):
        return {"column": a.shape[0], "all": a.numel()}.get(axis, a.shape[-1])

    def sqrt(self, a):
        return self.torch.sqrt(a)

    def absolute(self, a):
        return self.torch.abs(a)

    def median(self, a):  # torch.median takes the lower middle value: the numpy median, written out
        s = self.torch.sort(a, dim=-1).values
        n = a.shape[-1]
        return (s[..., (n - 1) // 2 : (n - 1) // 2 + 1] + s[..., n // 2 : n // 2 + 1]) / 2

    def low(self, a):
        return a.min(dim=-1, keepdim=True).values

    def high(self, a):
        return a.max(dim=-1, keepdim=True).values


def _python_row(x, eps, changes, want="normalised"):
    """The formula on one row as a Python list of floats: pure Python, float64."""
    c = changes
    n = len(x)
    divisors = {"n": n, "n-1": n - 1, "1": 1, "3": 3}
    mean = sum(x) / divisors[c.get("mean_div", "n")]
    centre = mean
    if c.get("centre") == "median":
        s = sorted(x)
        centre = (s[(n - 1) // 2] + s[n // 2]) / 2
    if c.get("one_pass"):
        var = sum(v * v for v in x) / n - mean * mean
    else:
        diffs = [v - centre for v in x] if c.get("var_centred", True) else list(x)
        sizes = [d * d for d in diffs] if c.get("square", True) else [abs(d) for d in diffs]
        var = sum(sizes) / divisors[c.get("var_div", "n")]
    e = eps if c.get("eps_value", "given") == "given" else DEFAULT_EPS
    if want in ("mean", "variance"):
        return {"mean": centre, "variance": _variance_out(var, e, c, math.sqrt)}
    std = _std(var, e, c, math.sqrt)
    out = {"mean": centre, "variance": var, "std": std}
    if want != "normalised":  # a learner's std(row, eps) stops here
        return out
    if c.get("scale") == "min-max":
        lo, hi = min(x), max(x)
        out["normalised"] = [(v - lo) / (hi - lo) for v in x]
        return out
    numerator = [v - centre for v in x] if c.get("numerator_centred", True) else list(x)
    out["normalised"] = [v / std for v in numerator] if c.get("divide", True) else numerator
    return out


def _std(var, e, c, sqrt):
    at = c.get("eps_at", "inside")
    if not c.get("root", True):
        return var if at == "none" else var + e
    return {
        "inside": lambda: sqrt(var + e),
        "none": lambda: sqrt(var),
        "outside": lambda: sqrt(var) + e,
        "root-outside": lambda: sqrt(var) + math.sqrt(e),
        "both": lambda: sqrt(var + e) + e,
    }[at]()


def _variance_out(var, e, c, sqrt):
    if c.get("variance_out", "variance") == "variance":
        return var
    return {"variance": lambda: var, "variance+eps": lambda: var + e, "root": lambda: sqrt(var)}[
        c.get("variance_out", "variance")
    ]()


def _array_formula(o, x, eps, c):
    """The formula with numpy or torch operations, over the last axis (or the mistaken one)."""
    axis = {"column": "column", "all": "all"}.get(c.get("axis", "row"), "row")
    n = o.count(x, axis)
    divisors = {"n": n, "n-1": n - 1, "1": 1, "3": 3}
    mean = o.total(x, axis) / divisors[c.get("mean_div", "n")]
    centre = o.median(x) if c.get("centre") == "median" else mean
    kept = c.get("axis", "row")
    if kept.startswith("lost-keepdims"):
        mean = o.total(x, "lost") / n  # (m,): lines up with the columns, not the rows
        centre = mean
    if c.get("one_pass"):
        var = o.total(x * x, axis) / n - mean * mean
    elif kept == "lost-keepdims":  # x.var(axis=-1): each row's own variance, without keepdims
        d = x - o.column(mean)
        var = o.total(d * d, "lost") / n
    else:
        d = x - centre if c.get("var_centred", True) else x
        sizes = d * d if c.get("square", True) else o.absolute(d)
        var = o.total(sizes, "lost" if kept == "lost-keepdims-2" else axis) / divisors[c.get("var_div", "n")]
    e = eps if c.get("eps_value", "given") == "given" else DEFAULT_EPS
    std = _std(var, e, c, o.sqrt)
    out = {"mean": centre, "variance": _variance_out(var, e, c, o.sqrt), "std": std}
    if c.get("scale") == "min-max":
        lo, hi = o.low(x), o.high(x)
        out["normalised"] = (x - lo) / (hi - lo)
        return out
    numerator = x - centre if c.get("numerator_centred", True) else x
    out["normalised"] = numerator / std if c.get("divide", True) else numerator
    return out


def _affine(kind, x_hat, g, b, column):
    return {
        "right": lambda: g * x_hat + b,
        "swapped": lambda: b * x_hat + g,
        "no-gamma": lambda: x_hat + b,
        "no-beta": lambda: g * x_hat,
        "neither": lambda: x_hat,
        "beta-scaled": lambda: g * (x_hat + b),
        "scalar-gamma": lambda: g[0] * x_hat + b,
        "scalar-both": lambda: g[0] * x_hat + b[0],
        "per-row": lambda: column(g) * x_hat + column(b),
        "gamma-per-row": lambda: column(g) * x_hat + b,
        "beta-per-row": lambda: g * x_hat + column(b),
    }[kind]()


QUANTITY = {"mean": "mean", "variance": "variance", "std": "std", "normalise": "normalised", "layer_norm": "normalised"}


def learner(step, backend, precision, form, changes=(), places=None):
    """A learner's function for ``step``: see the module docstring. ``places``: it rounds its result."""
    c = dict(changes)

    def fn(*args):  # numpy or torch: whole arrays at once, no Python loop on the way
        value = _arrays(step, precision if backend == "numpy" else None, c, args)
        if places is not None:
            value = np.round(np.asarray(_plain(value), dtype=np.float64), places)
        return _shaped(value, form, step)

    def in_python(*args):  # pure Python: it loops over the values (and, for a matrix, the rows)
        value = _python(step, c, args)
        if places is not None:
            value = np.round(np.asarray(_plain(value), dtype=np.float64), places)
        return _shaped(value, form, step)

    if backend == "python":
        fn = in_python
    elif backend == "torch":
        fn = _torch_learner(step, precision, form, c, places)

    fn.__name__ = step
    return fn


def _plain(value):
    if hasattr(value, "detach"):
        return value.detach().numpy()
    return value


def _torch_learner(step, precision, form, c, places):
    def fn(*args):
        value = _tensors(step, precision, c, args)
        if places is not None:
            value = np.round(np.asarray(_plain(value), dtype=np.float64), places)
        return _shaped(value, form, step)

    return fn


def _arrays(step, precision, c, args):
    return _compute(NumpyOps(precision), step, c, args)


def _tensors(step, precision, c, args):
    return _compute(TorchOps(precision), step, c, args)


def _compute(o, step, c, args):
    if step == "scale_shift":
        x_hat, g, b = o.asarray(args[0]), o.asarray(args[1]), o.asarray(args[2])
        return _affine(c.get("affine", "right"), x_hat, g, b, o.column)
    x = o.asarray(args[0])
    eps = args[1] if len(args) > 1 else DEFAULT_EPS
    return _array_formula(o, x, eps, c)[QUANTITY[step]]


def _python(step, c, args):
    if step == "scale_shift":
        x_hat, g, b = (np.asarray(a).tolist() for a in args)
        kind = c.get("affine", "right")
        rows = x_hat if isinstance(x_hat[0], list) else [x_hat]
        out = []
        for i, row in enumerate(rows):
            gg = [g[i]] * len(row) if kind in ("per-row", "gamma-per-row") else g
            bb = [b[i]] * len(row) if kind in ("per-row", "beta-per-row") else b
            if kind in ("per-row", "gamma-per-row", "beta-per-row") and len(rows) == 1:
                raise ValueError("operands could not be broadcast together")
            out.append(_python_affine(kind, row, gg, bb))
        return out if isinstance(x_hat[0], list) else out[0]
    x = np.asarray(args[0]).tolist()
    eps = args[1] if len(args) > 1 else DEFAULT_EPS
    if step == "layer_norm":
        return [_python_row(row, eps, c)["normalised"] for row in x]
    return _python_row(x, eps, c, QUANTITY[step])[QUANTITY[step]]


def _python_affine(kind, row, g, b):
    pairs = list(zip(row, g, b))
    return {
        "right": [gi * v + bi for v, gi, bi in pairs],
        "per-row": [gi * v + bi for v, gi, bi in pairs],
        "gamma-per-row": [gi * v + bi for v, gi, bi in pairs],
        "beta-per-row": [gi * v + bi for v, gi, bi in pairs],
        "swapped": [bi * v + gi for v, gi, bi in pairs],
        "no-gamma": [v + bi for v, gi, bi in pairs],
        "no-beta": [gi * v for v, gi, bi in pairs],
        "neither": list(row),
        "beta-scaled": [gi * (v + bi) for v, gi, bi in pairs],
        "scalar-gamma": [g[0] * v + bi for v, gi, bi in pairs],
        "scalar-both": [g[0] * v + b[0] for v, gi, bi in pairs],
    }[kind]


def _shaped(value, form, step):
    """The result in the form the learner returns it."""
    scalar = step in ("mean", "variance", "std")
    if hasattr(value, "detach"):  # torch
        if scalar:
            value = value.reshape(())
        if form in ("tensor", "tensor-0d", "native"):
            return value
        if form == "tensor-grad":
            return value.detach().clone().requires_grad_(True)
        value = value.numpy()
    if scalar:
        number = np.asarray(value).reshape(())
        return {
            "float": lambda: float(number),
            "numpy-float": lambda: number[()],
            "native": lambda: number[()] if isinstance(value, np.ndarray) else value,
            "tensor-0d": lambda: _tensor(number, False),
            "tensor-grad": lambda: _tensor(number, True),
        }[form]()
    return {
        "native": lambda: value,
        "list": lambda: np.asarray(value).tolist(),
        "copy": lambda: np.array(value, copy=True),
        "tensor": lambda: _tensor(np.asarray(value), False),
        "tensor-grad": lambda: _tensor(np.asarray(value), True),
    }[form]()


def _tensor(array, grad):
    import torch

    tensor = torch.tensor(np.asarray(array, dtype=np.float64) if array.dtype.kind != "f" else array)
    return tensor.requires_grad_(True) if grad else tensor


def module(precision="own", gamma_shape="n", changes=()):
    """A learner's torch.nn.Module LayerNorm class: the formula above on the tensor itself (so that
    gradients flow), in the input's precision or upcast to float64, γ of shape (n,) or (1, n), with the
    catalogue's ``changes`` made to it."""
    import torch
    from torch import nn

    c = dict(changes)

    class Ops(TorchOps):
        def asarray(self, x):
            return x.double() if self.precision == "float64" else x

    class LearnerNorm(nn.Module):
        def __init__(self, n_features, eps=1e-5):
            super().__init__()
            self.eps = eps
            shape = (n_features,) if gamma_shape == "n" else (1, n_features)
            self.gamma = nn.Parameter(torch.ones(shape))
            self.beta = nn.Parameter(torch.zeros(shape))

        def forward(self, x):
            o = Ops(precision)
            x_hat = _array_formula(o, o.asarray(x), self.eps, c)["normalised"]
            return (self.gamma * x_hat + self.beta).to(x.dtype)

    return LearnerNorm
