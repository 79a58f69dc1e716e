"""Does a learner's torch module follow its own ε? (for helpers.checking.module_check)

A module built with eps=0.1 must give LayerNorm with ε = 0.1 on a batch of small values, where ε
matters: a hard-coded 1e-5 is named. A class is built with ``(n, 0.1)`` or ``(n, eps=0.1)``; an instance
through its class the same way, or, when its class cannot be built so, with its float ``eps`` attribute
set to 0.1 for the check (and put back). When neither is possible the ✓ says that ε was not checked."""

from __future__ import annotations

import numpy as np

from helpers.checking.cases import Case
from helpers.checking.module_forward import forward
from helpers.checking.results import CheckResult, close, pair_texts, run_call, values_text
from helpers.core.formula import layer_norm_forward
from helpers.core.layernorm import DEFAULT_EPS

OTHER_EPS = 0.1  # a module that ignores its eps (a hard-coded 1e-5) shows with this one


def built_with_eps(cls, n):
    """``cls`` built for ``n`` features with eps=OTHER_EPS, by keyword or else as the second argument (by
    keyword first: a second argument that is not ε must not be taken for it): (the layer, None), or (None,
    the positional failure's sentence)."""
    first = run_call(lambda: cls(n, eps=OTHER_EPS), ())
    if first.problem is None:
        return first.value, None
    second = run_call(cls, (n, OTHER_EPS))
    if second.problem is None:
        return second.value, None
    return None, second.problem


def own_eps(module, layer, n, rng):
    """(None, None) when the module follows its own ε; (failure words, None) when it does not; (None, a
    note) when its ε could not be checked, to be said in the ✓."""
    import torch

    cls = module if isinstance(module, type) else type(module)
    other, problem = built_with_eps(cls, n)
    restore = None
    if other is None and isinstance(module, type):
        name = getattr(module, "__name__", "your class")
        return (
            (
                f"{name}({n}, eps={OTHER_EPS:g}) failed: take ε as a second argument, "
                f"`def __init__(self, n_features, eps=1e-5)`. {problem}",
                "no-eps-argument",
            ),
            None,
        )
    if other is None and isinstance(getattr(layer, "eps", None), float):
        other, restore = layer, layer.eps
        layer.eps = OTHER_EPS
    elif other is None:
        return None, (
            f"its ε was not checked: its class could not be built again with eps={OTHER_EPS:g} "
            "and it has no float eps attribute to set"
        )
    try:
        x = np.round(rng.normal(0, 0.3, (2, 4, n)), 3)  # small values, so that ε matters
        result = forward(other, x, torch.float64)
    finally:
        if restore is not None:
            layer.eps = restore
    if isinstance(result, CheckResult):
        return (result.diagnosis, result.mistake), None
    case = Case(
        f"a batch of shape {x.shape} with eps={OTHER_EPS:g}, first token",
        (x, OTHER_EPS),
        layer_norm_forward(x, OTHER_EPS)[0],
    )
    if close(result, case.expected, case):
        return None, None
    relative, absolute = case.tolerance
    absolute = np.broadcast_to(absolute, np.shape(case.expected))[0, 0]
    shown = (case.label, *pair_texts(case.expected[0, 0], result[0, 0], (relative, absolute)), values_text(x[0, 0]))
    if close(result, layer_norm_forward(x, DEFAULT_EPS)[0], case):
        return (
            "Looks like a known mistake: the eps argument ignored. Use self.eps (the ε the module was "
            "built with) inside forward, not a fixed 1e-5.",
            "eps-ignored",
            *shown,
        ), None
    return (f"With eps={OTHER_EPS:g} its output differs from LayerNorm's.", None, *shown), None


def eps_of(layer) -> float:
    """The ε ``layer`` was built with: its attribute named ``eps`` (or, failing that, the one attribute whose
    name holds "eps", e.g. ``variance_epsilon``), read as a number (a float, an int, a numpy or 0-d torch
    value); DEFAULT_EPS when it has none that reads as one number ≥ 0. Never raises."""
    try:
        found = {name: value for name, value in vars(layer).items() if "eps" in name.lower()}
    except TypeError:
        return DEFAULT_EPS
    names = ["eps"] if "eps" in found else list(found)
    values = [v for v in (_number(found[name]) for name in names) if v is not None]
    return values[0] if len(values) == 1 else DEFAULT_EPS


def _number(value) -> float | None:
    """``value`` as one finite number ≥ 0 (a bool is not one), or None."""
    if isinstance(value, bool):
        return None
    try:
        if hasattr(value, "detach"):  # a torch tensor: one value only
            value = value.detach().cpu().reshape(-1).tolist()
            value = value[0] if len(value) == 1 else None
        number = float(value)
    except (TypeError, ValueError, RuntimeError, AttributeError):
        return None
    return number if np.isfinite(number) and number >= 0 else None
