"""The "module" exercise of notebook 08: check a learner's ``torch.nn.Module`` LayerNorm.

Imported by :func:`helpers.checking.exercises.check` only for ``step="module"``, so torch is never imported
by ``import helpers``; it never imports exercises (what both need is in helpers.checking.results). The
module may be a class taking ``(n_features, eps=1e-5)`` or an instance; its forward takes a tensor whose
last axis is the features. Checked, in order: it can be built for 3 and for 5 features (a hard-coded
width fails at 5), it has learnable γ and β (one per feature), its output matches LayerNorm on unseen
batches, near zero and far from it, in float32 and float64 (so the one-pass variance is named in both), it
uses γ and β the right way round, gradients flow back to the input and
to γ and β, and it follows its own eps (built with eps=0.1, or an instance with its ``eps`` set to 0.1),
so a hard-coded 1e-5 is caught. A missing ``super().__init__()`` is named in plain words.
"""

from __future__ import annotations

import numpy as np

from helpers.checking.cases import SEED, Case, mistakes
from helpers.checking.results import CheckResult, close, match_mistake, run_call, values_text
from helpers.core.formula import layer_norm_forward
from helpers.core.layernorm import DEFAULT_EPS

WIDTHS = (3, 5)
OTHER_EPS = 0.1  # a module that ignores its eps (a hard-coded 1e-5) shows with this one
NO_SUPER = (
    "Call `super().__init__()` first in your __init__, before creating γ and β: it sets up the "
    "nn.Module machinery that keeps track of parameters."
)


def _no_super(error) -> bool:
    text = str(error)
    return isinstance(error, AttributeError | TypeError) and (
        "_parameters" in text or "Module.__init__()" in text or "_modules" in text
    )


def check_module(module) -> CheckResult:
    """Check ``module`` (a class or an instance); never raises."""
    try:
        return _check_module(module)
    except Exception as error:  # noqa: BLE001 — the learner's module may fail in ways no check foresaw
        return CheckResult(
            "module", False, f"Checking your module failed with {type(error).__name__}: {error}"[:400], "exception"
        )


def _check_module(module) -> CheckResult:
    import torch

    def fail(diagnosis, mistake=None, case="", expected="", got="", arguments=""):
        return CheckResult("module", False, diagnosis, mistake, case, arguments, expected, got)

    if isinstance(module, type) and not issubclass(module, torch.nn.Module):
        return fail(
            f"check('module', …) needs a torch.nn.Module class or instance; {module.__name__} is not one "
            "(write `class MyLayerNorm(nn.Module):`).",
            "not-a-module",
        )
    if not isinstance(module, (type, torch.nn.Module)):
        return fail(
            f"check('module', …) needs a torch.nn.Module class or instance; got {type(module).__name__}.",
            "not-a-module",
        )
    rng = np.random.default_rng(SEED + 3)
    count = 0
    scalar = _scalar_parameters(module) if not isinstance(module, type) else None
    if scalar is not None:
        return fail(scalar, "scalar-gamma")
    widths = WIDTHS if isinstance(module, type) else (_width(module),)
    wide = False  # γ and β of shape (1, n): accepted, and said so
    for n in widths:
        if n is None:
            return fail(
                "Your module has no learnable parameters: give it γ and β as nn.Parameter "
                "(torch.ones(n_features) and torch.zeros(n_features)).",
                "no-parameters",
            )
        if isinstance(module, type):
            built = run_call(module, (n,))
            if built.key in ("not-written", "timeout"):
                return fail(built.problem, built.key)
            if built.key == "exception" and _no_super(built.value):
                return fail(NO_SUPER, "no-super-init")
            if built.problem is not None:
                hard = n != WIDTHS[0]
                return fail(
                    ("It builds for 3 features but not for 5: it hard-codes the width. " if hard else "")
                    + f"Making {module.__name__}({n}) failed. {built.problem}",
                    "hard-coded-width" if hard else built.key,
                )
            layer = built.value
            scalar = _scalar_parameters(layer)
            if scalar is not None:
                return fail(scalar, "scalar-gamma")
        else:
            layer = module
        params = [p for p in layer.parameters() if p.requires_grad]
        if not params:
            return fail(
                "Your module has no learnable parameters: wrap γ and β in nn.Parameter, so that "
                "training can change them.",
                "no-parameters",
            )
        if len(params) != 2 or not all(_per_feature(tuple(p.shape), n) for p in params):
            shapes = ", ".join(str(tuple(p.shape)) for p in params)
            hard = n != WIDTHS[0] and isinstance(module, type)
            return fail(
                (
                    f"Built for {n} features, its parameters have shapes {shapes}: "
                    + ("it hard-codes the width. " if hard else "")
                    + f"γ and β need one number per feature, shape ({n},)."
                ),
                "hard-coded-width" if hard else "parameter-shape",
            )
        wide = wide or any(p.dim() > 1 for p in params)
        outcomes = []
        for label, dtype, x in _batches(rng, n):
            result = _forward(layer, x, getattr(torch, dtype), n)
            count += 1
            if isinstance(result, CheckResult):
                return result
            case = Case(
                f"{label}, first token",
                (x, DEFAULT_EPS),
                layer_norm_forward(x, DEFAULT_EPS)[0],
                np.float32 if dtype == "float32" else np.float64,
            )
            outcomes.append((case, result))
        problem = _compare(outcomes)
        if problem is not None:
            return fail(*problem)
        problem = _gamma_beta_and_gradients(layer, n, rng)
        if problem is not None:
            return fail(*problem)
        if n == widths[0]:
            first = (layer, n)
    problem = _own_eps(module, *first, rng)  # after the widths, so that a hard-coded width is named first
    if problem is not None:
        return fail(*problem)
    shape = (
        " Its γ and β have shape (1, n): one per feature, which broadcasts over the last axis just as "
        "nn.LayerNorm's shape (n,) does."
        if wide
        else ""
    )
    return CheckResult(
        "module",
        True,
        f"right on {count} unseen batches ({' and '.join(map(str, widths))} features, float32 and float64, "
        "near zero and far from it); γ and β are learnable and gradients flow." + shape,
        count=count,
    )


def _batches(rng, n):
    """(label, dtype, batch): near zero and far from it in each precision; far enough that the one-pass
    variance fails there (+1000 in float32, 10⁸ in float64, in halves that float64 holds exactly)."""
    shape = (2, 4, n)
    return [
        (f"a batch of shape {shape} in float32", "float32", np.round(rng.normal(0, 1.5, shape), 3)),
        (
            f"a batch of shape {shape} in float32, far from zero (1000 added)",
            "float32",
            np.round(rng.normal(0, 1.0, shape), 3) + 1000.0,
        ),
        (f"a batch of shape {shape} in float64", "float64", np.round(rng.normal(0, 1.5, shape), 3) + 100.0),
        (
            f"a batch of shape {shape} in float64, far from zero (100,000,000 added)",
            "float64",
            np.round(rng.normal(0, 1.5, shape) * 2) / 2 + 1e8,
        ),
    ]


def _compare(outcomes):
    """None when every batch's output is LayerNorm's; else the failure's words, the named mistake's if
    one explains every batch (the one-pass variance shown on the batch far from zero where it fails)."""
    wrong = [(case, result) for case, result in outcomes if not close(result, case.expected, case)]
    if not wrong:
        return None
    case, result = wrong[0]
    x = case.args[0]

    def shown(words, key, where=(case, result)):
        (at, got), data = where, where[0].args[0]
        return (words, key, at.label, values_text(at.expected[0, 0]), values_text(got[0, 0]), values_text(data[0, 0]))

    if close(result, np.ones_like(result), case):
        scale = [m for m in mistakes("scale_shift") if m.key == "gamma-beta-swapped"][0]
        return shown(
            f"Looks like a known mistake: {scale.name} (with γ = 1 and β = 0 every output is 1). {scale.advice(x)}",
            scale.key,
        )
    mistake = match_mistake("layer_norm", outcomes)
    if mistake is None:
        return shown("Its output differs from LayerNorm (with γ = 1, β = 0 as a new layer starts).", None)
    if mistake.key == "one-pass":
        at = next((c, r) for c, r in wrong if c.far_from_zero)
        return shown(f"Looks like a known mistake: {mistake.name}. {mistake.advice(at[0].args[0])}", mistake.key, at)
    if mistake.key in ("wrong-axis", "no-axis", "lost-keepdims"):
        return shown(f"Looks like a known mistake: {mistake.name}. Use dim=-1 and keepdim=True.", mistake.key)
    return shown(f"Looks like a known mistake: {mistake.name}. {mistake.advice(x)}", mistake.key)


def _per_feature(shape: tuple, n: int) -> bool:
    """One number per feature: shape (n,), or (1, n) / (1, 1, n), which broadcast over the last axis alike."""
    return len(shape) >= 1 and shape[-1] == n and all(size == 1 for size in shape[:-1])


def _scalar_parameters(layer) -> str | None:
    """The sentence for a module whose learnable parameters are all single numbers (shape ()), or None."""
    params = [p for p in layer.parameters() if p.requires_grad]
    if not params or any(p.dim() > 0 for p in params):
        return None
    return (
        f"Its {len(params)} learnable parameter{'s are single numbers' if len(params) > 1 else ' is a single number'} "
        "(shape ()): one scale and one shift shared by every feature. LayerNorm learns one γ and one β per "
        "feature, shape (n_features,): nn.Parameter(torch.ones(n_features)) and nn.Parameter(torch.zeros(n_features))."
    )


def _own_eps(module, layer, n, rng):
    """Check that the module uses its own eps: built with eps=OTHER_EPS (or, for an instance with an ``eps``
    attribute, with it set), its output must follow that ε. None, or the failure's words."""
    import torch

    if isinstance(module, type):
        built = run_call(module, (n, OTHER_EPS))
        if built.problem is not None:
            return (
                f"{module.__name__}({n}, eps={OTHER_EPS:g}) failed: take ε as a second argument, "
                f"`def __init__(self, n_features, eps=1e-5)`. {built.problem}",
                "no-eps-argument",
            )
        other, restore = built.value, None
    elif isinstance(getattr(layer, "eps", None), float):
        other, restore = layer, layer.eps
        layer.eps = OTHER_EPS
    else:
        return None
    try:
        x = np.round(rng.normal(0, 0.3, (2, 4, n)), 3)  # small values, so that ε matters
        result = _forward(other, x, torch.float64, n)
    finally:
        if restore is not None:
            layer.eps = restore
    if isinstance(result, CheckResult):
        return (result.diagnosis, result.mistake)
    case = Case(
        f"a batch of shape {x.shape} with eps={OTHER_EPS:g}, first token",
        (x, OTHER_EPS),
        layer_norm_forward(x, OTHER_EPS)[0],
    )
    if close(result, case.expected, case):
        return None
    if close(result, layer_norm_forward(x, DEFAULT_EPS)[0], case):
        return (
            "Looks like a known mistake: the eps argument ignored. Use self.eps (the ε the module was "
            "built with) inside forward, not a fixed 1e-5.",
            "eps-ignored",
            case.label,
            values_text(case.expected[0, 0]),
            values_text(result[0, 0]),
            values_text(x[0, 0]),
        )
    return (
        f"With eps={OTHER_EPS:g} its output differs from LayerNorm's.",
        None,
        case.label,
        values_text(case.expected[0, 0]),
        values_text(result[0, 0]),
        values_text(x[0, 0]),
    )


def _width(layer):
    shapes = [tuple(p.shape) for p in layer.parameters() if p.dim() > 0]
    return shapes[0][-1] if shapes else None


def _forward(layer, x, dtype, n):
    import torch

    layer = layer.to(dtype)
    tensor = torch.tensor(x, dtype=dtype)
    outcome = run_call(layer, (tensor,))
    if outcome.problem is not None:
        return CheckResult(
            "module", False, f"Its forward failed on a batch of shape {tuple(x.shape)}. {outcome.problem}", outcome.key
        )
    out = outcome.value
    if isinstance(out, np.ndarray):
        return CheckResult(
            "module",
            False,
            "forward returned a numpy array, so no gradient can flow back: "
            "it is not differentiable. Keep to torch operations.",
            "not-differentiable",
        )
    if not isinstance(out, torch.Tensor):
        return CheckResult(
            "module", False, f"forward should return a tensor; it returned {type(out).__name__}.", "wrong-type"
        )
    if tuple(out.shape) != tuple(x.shape):
        return CheckResult(
            "module",
            False,
            f"forward returned shape {tuple(out.shape)} for an input of shape {tuple(x.shape)}: the wrong length.",
            "wrong-length",
        )
    return out.detach().to(torch.float64).numpy()


def _gamma_beta_and_gradients(layer, n, rng):
    """Set γ and β to random values, check the output uses them per feature, then check gradients."""
    import torch

    layer = layer.to(torch.float64)
    params = [p for p in layer.parameters() if p.requires_grad]
    ones = [p for p in params if torch.all(p == 1)]
    zeros = [p for p in params if torch.all(p == 0)]
    if len(ones) != 1 or len(zeros) != 1:
        return ("A new LayerNorm starts with γ = 1 (torch.ones) and β = 0 (torch.zeros).", "initial-values")
    gamma, beta = ones[0], zeros[0]
    g, b = np.round(rng.uniform(0.5, 3, n), 2), np.round(rng.uniform(-1, 1, n), 2)
    with torch.no_grad():
        gamma.copy_(torch.tensor(g)), beta.copy_(torch.tensor(b))
    x = np.round(rng.normal(0, 1, (4, n)), 3)
    tensor = torch.tensor(x, requires_grad=True)
    outcome = run_call(layer, (tensor,))
    if outcome.problem is not None and "requires grad" in outcome.problem:
        return (
            "Its forward leaves torch (it calls .numpy() on a tensor that needs gradients), so it is not "
            "differentiable: keep to torch operations inside forward.",
            "not-differentiable",
        )
    if outcome.problem is not None:
        return (f"Its forward failed with γ and β set. {outcome.problem}", outcome.key)
    out = outcome.value
    x_hat = layer_norm_forward(x, DEFAULT_EPS)[0]
    got = out.detach().numpy()
    case = Case("a 4-row batch with γ and β set", (x, DEFAULT_EPS), g * x_hat + b)
    # γ and β swapped (β · x̂ + γ) is named before this is called: at γ = 1, β = 0 it returns 1 everywhere
    if not close(got, case.expected, case):
        return (
            "With γ and β set, its output is not γ · x̂ + β.",
            "gamma-beta",
            case.label + ", first row",
            values_text(case.expected[0]),
            values_text(got[0]),
            values_text(x[0]),
        )
    if not out.requires_grad or out.grad_fn is None:
        return (
            "Its output is not differentiable (no gradient can flow back): keep to torch operations, "
            "without .detach(), .numpy(), .item() or torch.no_grad() inside forward.",
            "not-differentiable",
        )
    weights = torch.tensor(rng.normal(0, 1, (4, n)))
    try:
        (out * weights).sum().backward()
    except RuntimeError as error:
        return (f"Gradients cannot flow back through it ({error}"[:300] + ").", "not-differentiable")
    finally:
        with torch.no_grad():
            gamma.fill_(1.0), beta.fill_(0.0)
    if tensor.grad is None or gamma.grad is None or beta.grad is None:
        return (
            "Gradients do not reach the input, γ and β: keep to torch operations inside forward.",
            "not-differentiable",
        )
    return None
