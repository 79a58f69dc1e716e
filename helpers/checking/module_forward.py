"""Run a learner's torch module once, for the module check (helpers.checking.module_check): the output as a
float64 numpy array, or a :class:`CheckResult` naming what went wrong (it failed, it left torch, it
returned the wrong thing, it changed the tensor it was given, it called PyTorch's own layer norm). Imports
torch only when called."""

from __future__ import annotations

import functools
from contextlib import contextmanager

import numpy as np

from helpers.checking.results import CheckResult, run_call

IN_PLACE = (
    "Its forward changed the tensor it was given (an in-place operation such as x.sub_(…) or x -= …): "
    "compute new tensors instead, e.g. `x = x - mean`, so that the caller's input stays as it was."
)

TORCH_OWN = (
    "Its forward calls PyTorch's own layer norm (nn.LayerNorm or torch.nn.functional.layer_norm): this "
    "exercise asks you to compute it yourself, from the mean, the variance and ε, with tensor operations."
)
# Where every public way to PyTorch's layer norm passes (nn.LayerNorm → F.layer_norm → torch.layer_norm).
TORCH_LAYER_NORMS = (("torch", "layer_norm"), ("torch", "native_layer_norm"), ("torch.nn.functional", "layer_norm"))


@contextmanager
def torch_layer_norm_watched(calls: list):
    """While inside, each call to PyTorch's own layer norm appends to ``calls``; put back on the way out."""
    import importlib

    saved = []
    for owner_name, name in TORCH_LAYER_NORMS:
        owner = importlib.import_module(owner_name)
        if hasattr(owner, name):
            saved.append((owner, name, getattr(owner, name)))

    def watched(original):
        @functools.wraps(original)
        def called(*args, **kwargs):
            calls.append(original.__name__)
            return original(*args, **kwargs)

        return called

    for owner, name, original in saved:
        setattr(owner, name, watched(original))
    try:
        yield calls
    finally:
        for owner, name, original in saved:
            setattr(owner, name, original)


def forward(layer, x, dtype):
    """``layer`` (moved to ``dtype``) on the batch ``x``: a float64 array, or a CheckResult."""
    import torch

    layer = layer.to(dtype)
    tensor = torch.tensor(x, dtype=dtype)
    before = tensor.clone()
    with torch_layer_norm_watched([]) as calls:
        outcome = run_call(layer, (tensor,))
    if calls:
        return CheckResult("module", False, TORCH_OWN, "torch-layer-norm", f"a batch of shape {tuple(x.shape)}")
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
