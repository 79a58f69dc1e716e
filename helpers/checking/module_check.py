"""The "module" exercise of notebook 08: check a learner's ``torch.nn.Module`` LayerNorm.

Imported by :func:`helpers.checking.exercises.check` only for ``step="module"``, so torch is never imported
by ``import helpers``; it never imports exercises (what both need is in helpers.checking.results). The
module may be a class taking ``(n_features, eps=1e-5)`` or an instance; its forward takes a tensor whose
last axis is the features. Checked, in order: first, at every width, that it can be built for 3, 5 and
128 features (a hard-coded width fails at 5), that it has learnable γ and β (one per feature; a missing
one is named) and that its forward runs on each batch, leaves its input as it was and does not call
PyTorch's own layer norm (helpers.checking.module_forward); then, width by width, that its output
matches LayerNorm on unseen batches, near zero and far from it, in float32 and float64 (so the one-pass
variance is named in both; statistics over other axes, dim=0 or dim=1, are named by
helpers.checking.module_axes), with a token of small spread (where ε shows) and, at 128 features, one with
a value far out (|x̂| ≈ 11, so that clipping shows), that it uses γ and β the right way round, and
that its gradients for the input, γ and β are those of torch's own layer_norm
(helpers.checking.module_gradients); it follows its own eps, built with eps=0.1 (a class, or an
instance's class), or with its float ``eps`` set to 0.1, so a hard-coded 1e-5 is caught; where neither
can be done, the ✓ says ε was not checked (helpers.checking.module_eps). A missing
``super().__init__()`` is named in plain words.
"""

from __future__ import annotations

import numpy as np

from helpers.checking.cases import SEED, WIDE, Case, mistakes
from helpers.checking.module_axes import other_axes
from helpers.checking.module_eps import eps_of, own_eps
from helpers.checking.module_forward import forward as _forward
from helpers.checking.module_gradients import gamma_beta_and_gradients
from helpers.checking.results import (
    CheckResult,
    close,
    match_mistake,
    one_pass_shown,
    one_torch_thread,
    pair_texts,
    run_call,
    values_text,
)
from helpers.core.formula import layer_norm_forward
from helpers.core.layernorm import DEFAULT_EPS
from helpers.display import and_list

WIDTHS = (3, 5, WIDE)
NO_SUPER = (
    "Call `super().__init__()` first in your __init__, before creating γ and β: it sets up the "
    "nn.Module machinery that keeps track of parameters."
)


def _no_super(error, name: str) -> bool:
    """Whether building the class ``name`` failed for want of ``super().__init__()``: torch's own words for
    assigning before it ran, or the class's instance lacking the parameter or module table nn.Module.__init__
    makes (what reading parameters() or calling add_module, .to() or .train() raises then; an AttributeError
    of something else that names them is the learner's own, not this)."""
    text = str(error)
    return isinstance(error, AttributeError | TypeError) and (
        "before Module.__init__() call" in text
        or any(f"'{name}' object has no attribute '_{table}'" in text for table in ("parameters", "modules"))
    )


def _never_initialised(layer) -> bool:
    """An nn.Module whose nn.Module.__init__ never ran: it has no parameter table at all."""
    return "_parameters" not in vars(layer)  # every nn.Module instance has a __dict__


def check_module(module) -> CheckResult:
    """Check ``module`` (a class or an instance); never raises."""
    try:
        import torch  # noqa: F401 — imported here, so that one_torch_thread finds it

        dtype = _dtype_of(module)
        with one_torch_thread():  # batches this small gain nothing from more threads, and cost CPU time
            try:
                return _check_module(module)
            finally:
                if dtype is not None:
                    module.to(dtype)  # an instance is moved to float32 and float64 by the check: put it back
    except Exception as error:  # noqa: BLE001 — the learner's module may fail in ways no check foresaw
        return CheckResult(
            "module", False, f"Checking your module failed with {type(error).__name__}: {error}"[:400], "exception"
        )


def _dtype_of(module):
    """An instance's floating-point dtype (that of its first parameter), or None."""
    import torch

    if isinstance(module, type) or not isinstance(module, torch.nn.Module):
        return None
    try:
        return next((p.dtype for p in module.parameters() if p.is_floating_point()), None)
    except Exception:  # noqa: BLE001 — a learner's parameters() may raise: the check says so
        return None


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
    if not isinstance(module, type) and _never_initialised(module):
        return fail(NO_SUPER, "no-super-init")
    rng = np.random.default_rng(SEED + 3)
    count = 0
    scalar = _scalar_parameters(module) if not isinstance(module, type) else None
    if scalar is not None:
        return fail(scalar, "scalar-gamma")
    widths = WIDTHS if isinstance(module, type) else (_width(module),)
    wide = False  # γ and β of shape (1, n): accepted, and said so
    built_all = []  # (n, layer, its batches' outcomes, its eps): every width built and run before any is compared
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
            if built.key == "exception" and _no_super(built.value, module.__name__):
                return fail(NO_SUPER, "no-super-init")
            if built.problem is not None:
                hard = n != WIDTHS[0]
                return fail(
                    (f"It builds for {WIDTHS[0]} features but not for {n}: it hard-codes the width. " if hard else "")
                    + f"Making {module.__name__}({n}) failed. {built.problem}",
                    "hard-coded-width" if hard else built.key,
                )
            layer = built.value
            if _never_initialised(layer):  # its __init__ ran without super().__init__() and raised nothing
                return fail(NO_SUPER, "no-super-init")
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
        problem = _parameter_problem(layer, params, n, hard=n != WIDTHS[0] and isinstance(module, type))
        if problem is not None:
            return fail(*problem)
        wide = wide or any(p.dim() > 1 for p in params)
        outcomes = []
        eps = eps_of(layer)  # its own ε (nn.LayerNorm(n, eps=1e-6) is checked against ε = 1e-6)
        for label, dtype, x in _batches(rng, n):
            result = _forward(layer, x, getattr(torch, dtype))
            count += 1
            if isinstance(result, CheckResult):
                return result
            case = Case(
                f"{label}, first token" + (f", ε = {eps:g}" if eps != DEFAULT_EPS else ""),
                (x, eps),
                layer_norm_forward(x, eps)[0],
                np.float32 if dtype == "float32" else np.float64,
            )
            outcomes.append((case, result))
        built_all.append((n, layer, outcomes, eps))
    # Every width was built, with its parameters, and ran without calling torch's layer norm or changing its
    # input: what a module's own mistakes are, judged before any output is (classroom/grading/plan.py relies on it).
    earlier, checked = [], []  # the batches of the widths already found right, and those widths
    for n, layer, outcomes, eps in built_all:
        problem = _compare(outcomes, earlier, checked)
        if problem is not None:
            return fail(*problem)
        problem = gamma_beta_and_gradients(layer, n, rng, eps)
        if problem is not None:
            return fail(*problem)
        earlier, checked = earlier + outcomes, checked + [n]
    first = (built_all[0][1], built_all[0][0])  # (layer, n) of the first width
    eps = built_all[0][3]
    eps_words = "" if eps == DEFAULT_EPS else f"; checked with its own ε = {eps:g} (its eps attribute)"
    problem, unchecked = own_eps(module, *first, rng)  # after the widths: a hard-coded width is named first
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
        f"right on {count} unseen batches ({and_list(widths)} features, float32 and float64, near zero and far "
        "from it, of small spread" + (" and with a value far out" if max(widths) >= WIDE else "") + "); "
        "γ and β are learnable and its gradients are "
        "LayerNorm's" + eps_words + (f"; {unchecked}." if unchecked else ".") + shape,
        count=count,
    )


def _batches(rng, n):
    """(label, dtype, batch): near zero and far from it in each precision, far enough that the one-pass
    variance fails there (+1000 in float32, 10⁸ in float64, in halves that float64 holds exactly); a
    batch of small spread (σ² ≈ 1e-6, where ε = 1e-5 outweighs the variance); and, at WIDE features, a
    first token with one value far out (|x̂| ≈ 11 there, so that a clipped x̂ shows)."""
    shape = (2, 4, n)
    outlier = np.round(rng.normal(0, 1.5, shape), 3) + 100.0
    far_out = n >= WIDE
    if far_out:
        outlier[0, 0, 17] = 250.0
    return [
        (f"a batch of shape {shape} in float32", "float32", np.round(rng.normal(0, 1.5, shape), 3)),
        (
            f"a batch of shape {shape} in float32, far from zero (1000 added)",
            "float32",
            np.round(rng.normal(0, 1.0, shape), 3) + 1000.0,
        ),
        (
            f"a batch of shape {shape} in float64" + (", one value of the first token far out" if far_out else ""),
            "float64",
            outlier,
        ),
        (
            f"a batch of shape {shape} in float64, far from zero (100,000,000 added)",
            "float64",
            np.round(rng.normal(0, 1.5, shape) * 2) / 2 + 1e8,
        ),
        (
            f"a batch of shape {shape} in float64 of small spread (σ² ≈ 1e-6, where ε matters)",
            "float64",
            np.round(rng.normal(0, 1e-3, shape), 7),
        ),
    ]


def _compare(outcomes, earlier=(), checked=()):
    """None when every batch's output is LayerNorm's; else the failure's words, the named mistake's if
    one explains every batch, those of the ``earlier`` widths (all right) included (the one-pass variance
    shown on the batch far from zero where it fails); a formula that changes with the width is said so."""
    wrong = [(case, result) for case, result in outcomes if not close(result, case.expected, case)]
    if not wrong:
        return None
    case, result = wrong[0]
    x = case.args[0]

    def shown(words, key, where=(case, result)):
        (at, got), data = where, where[0].args[0]
        n = np.shape(data)[-1]
        tokens = np.abs(np.reshape(got, (-1, n)) - np.reshape(at.expected, (-1, n)))
        worst = int(np.argmax(np.where(np.isnan(tokens), np.inf, tokens).max(axis=-1)))  # where it shows most
        b, t = divmod(worst, np.shape(data)[1])
        label = at.label.replace("first token", f"token {t + 1} of sequence {b + 1}") if worst else at.label
        part = slice(None)
        if n > 8:  # a wide token: the eight features around its largest difference
            j = int(np.nanargmax(np.where(np.isnan(tokens[worst]), np.inf, tokens[worst])))
            part = slice(min(max(0, j - 3), n - 8), min(max(0, j - 3), n - 8) + 8)
            label += f", features {part.start + 1} to {part.stop}"
        relative, absolute = at.tolerance
        absolute = np.broadcast_to(absolute, np.shape(got))[b, t][part]  # its row's room
        expected_text, got_text = pair_texts(at.expected[b, t][part], got[b, t][part], (relative, absolute))
        return (words, key, label, expected_text, got_text, values_text(data[b, t][part]))

    if close(result, np.ones_like(result), case):
        scale = [m for m in mistakes("scale_shift") if m.key == "gamma-beta-swapped"][0]
        return shown(
            f"Looks like a known mistake: {scale.name} (with γ = 1 and β = 0 every output is 1). {scale.advice(x)}",
            scale.key,
        )
    mistake = match_mistake("layer_norm", [*earlier, *outcomes])
    across = other_axes(outcomes) if mistake is None else None
    if across is not None:
        return shown(across, "wrong-axis")
    if mistake is None and checked:
        n = np.shape(x)[-1]
        return shown(
            f"It is right at {and_list(checked)} features, but at {n} its output differs from LayerNorm (with "
            "γ = 1, β = 0 as a new layer starts).",
            None,
        )
    if mistake is None:
        return shown("Its output differs from LayerNorm (with γ = 1, β = 0 as a new layer starts).", None)
    if mistake.key == "one-pass":
        at = one_pass_shown(wrong)
        return shown(
            f"Looks like a known mistake: {mistake.name}. {mistake.advice(at[0].args[0], at[0].args[1])}",
            mistake.key,
            at,
        )
    if mistake.key in ("wrong-axis", "no-axis", "lost-keepdims"):
        return shown(f"Looks like a known mistake: {mistake.name}. Use dim=-1 and keepdim=True.", mistake.key)
    return shown(f"Looks like a known mistake: {mistake.name}. {mistake.advice(x, case.args[1])}", mistake.key)


def _parameter_problem(layer, params, n, hard):
    """The failure's words when the learnable parameters are not γ and β, one number per feature each:
    a missing one is named (with where it went: a buffer or a plain tensor), an extra one counted."""
    shaped = [p for p in params if _per_feature(tuple(p.shape), n)]
    if len(params) == 2 and len(shaped) == 2:
        return None
    if hard:
        shapes = ", ".join(str(tuple(p.shape)) for p in params)
        return (
            f"Built for {n} features, its parameters have shapes {shapes}: it hard-codes the width. "
            f"γ and β need one number per feature, shape ({n},).",
            "hard-coded-width",
        )
    if len(params) == 1 and len(shaped) == 1:
        import torch

        here = "γ" if bool(torch.all(params[0] == 1)) else "β" if bool(torch.all(params[0] == 0)) else None
        missing = {"γ": "β", "β": "γ"}.get(here)
        kept = [name for name, b in layer.named_buffers() if _per_feature(tuple(b.shape), n)]
        kept += [k for k, v in vars(layer).items() if isinstance(v, torch.Tensor) and _per_feature(tuple(v.shape), n)]
        where = (
            f" (`{kept[0]}` is a {'buffer' if kept[0] in dict(layer.named_buffers()) else 'plain tensor'}, "
            "which training cannot change: make it an nn.Parameter)"
            if kept
            else ""
        )
        return (
            f"It has one learnable parameter of shape {tuple(params[0].shape)}"
            + (f", γ (all ones), but no learnable {missing}" if here == "γ" else "")
            + (f", β (all zeros), but no learnable {missing}" if here == "β" else "")
            + f"{where}: LayerNorm learns both γ and β, one number per feature each.",
            "no-parameters",
        )
    shapes = ", ".join(str(tuple(p.shape)) for p in params)
    extra = len(params) - 2 if len(params) > 2 and len(shaped) >= 2 else 0
    return (
        f"Built for {n} features, its {len(params)} learnable parameters have shapes {shapes}: "
        + (
            f"LayerNorm learns only γ and β, shape ({n},) each, and ε is a fixed number, not learned."
            if extra
            else f"γ and β need one number per feature, shape ({n},)."
        ),
        "parameter-shape",
    )


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


def _width(layer):
    shapes = [tuple(p.shape) for p in layer.parameters() if p.dim() > 0]
    return shapes[0][-1] if shapes else None
