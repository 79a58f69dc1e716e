"""Run a learner's torch module once, for the module check (helpers.checking.module_check): the output as a
float64 numpy array, or a :class:`CheckResult` naming what went wrong (it failed, it left torch, it
returned the wrong thing, it changed the tensor it was given). Imports torch only when called."""

from __future__ import annotations

import numpy as np

from helpers.checking.results import CheckResult, run_call

IN_PLACE = (
    "Its forward changed the tensor it was given (an in-place operation such as x.sub_(…) or x -= …): "
    "compute new tensors instead, e.g. `x = x - mean`, so that the caller's input stays as it was."
)


def forward(layer, x, dtype, n=None):
    """``layer`` (moved to ``dtype``) on the batch ``x``: a float64 array, or a CheckResult."""
    import torch

    layer = layer.to(dtype)
    tensor = torch.tensor(x, dtype=dtype)
    before = tensor.clone()
    outcome = run_call(layer, (tensor,))
    if outcome.problem is not None:
        return CheckResult(
            "module", False, f"Its forward failed on a batch of shape {tuple(x.shape)}. {outcome.problem}", outcome.key
        )
    if not torch.equal(tensor, before):
        return CheckResult("module", False, IN_PLACE, "mutates-input", f"a batch of shape {tuple(x.shape)}")
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
    try:
        return out.detach().to(torch.float64).cpu().numpy()
    except Exception as error:  # noqa: BLE001 — a tensor that cannot be read (meta, sparse, complex)
        return CheckResult(
            "module",
            False,
            f"forward returned a tensor that cannot be read as numbers ({type(error).__name__}).",
            "wrong-type",
        )
