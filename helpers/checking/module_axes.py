"""A learner's ``torch.nn.Module`` that normalises over other axes than each token's features.

Its input is (batch, tokens, features): LayerNorm takes each token's mean and variance over its own
features (dim=-1). A module written with dim=0, dim=1 (or −2), or both at once (BatchNorm's axes) is
wrong on every batch; :func:`other_axes` says which axes explain its output, computed here for the
batches at hand, so the checker can name the mistake (the catalogue's "wrong-axis") for the module on
the page. Used by :mod:`helpers.checking.module_check`. Pure numpy.
"""

from __future__ import annotations

import numpy as np

from helpers.core.tolerance import close_at, result_room

# (axes, how a learner's code says it, what that takes the statistics across)
OTHER_AXES = (
    ((0,), "dim=0", "across the batch"),
    ((1,), "dim=1 (dim=-2)", "across the tokens"),
    ((0, 1), "dim=(0, 1)", "across the batch and its tokens, as BatchNorm does"),
)


def normalised_over(x, axes: tuple, eps: float, unbiased: bool = False) -> np.ndarray:
    """(x − mean) / √(variance + ε), the statistics taken over ``axes`` (÷ (count − 1) when ``unbiased``)."""
    x = np.asarray(x, dtype=np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    count = int(np.prod([x.shape[a] for a in axes]))
    variance = ((x - mean) ** 2).sum(axis=axes, keepdims=True) / (count - 1 if unbiased else count)
    return (x - mean) / np.sqrt(variance + eps)


def _last(a, axes: tuple) -> np.ndarray:
    """``a`` with ``axes`` moved to the end and made one: each group the statistics are taken over, a row."""
    a = np.moveaxis(np.asarray(a, dtype=np.float64), axes, tuple(range(-len(axes), 0)))
    return a.reshape(*a.shape[: a.ndim - len(axes)], -1)


def explains(result, x, eps: float, axes: tuple, unbiased: bool, dtype) -> bool:
    """``result`` is x normalised over ``axes``, to the room a correct computation in ``dtype`` has there
    (helpers.core.tolerance.result_room, with each group of ``axes`` as its row); never where x normalised
    over ``axes`` is not finite (a group of equal values with ε = 0)."""
    if np.shape(result) != np.shape(x):
        return False
    expected = normalised_over(x, axes, eps, unbiased)
    if not np.all(np.isfinite(expected)):
        return False  # 0 / 0 somewhere: NaN matching NaN is no evidence of these axes
    room = result_room("normalised", _last(x, axes), eps, dtype)
    return close_at(_last(result, axes), _last(expected, axes), room)


def other_axes(outcomes) -> str | None:
    """The sentence naming the axes that explain every (case, result) of ``outcomes``, a case's arguments
    being (batch, ε), or None when no other axes do (or a batch has no result)."""
    if not outcomes or any(result is None or np.ndim(result) != 3 for _, result in outcomes):
        return None
    for axes, code, across in OTHER_AXES:
        for unbiased in (False, True):
            with np.errstate(all="ignore"):
                fits = all(
                    explains(result, case.args[0], case.args[1], axes, unbiased, case.dtype)
                    for case, result in outcomes
                )
            if fits:
                divisor = " and divides the variance by the count − 1 (torch's var is unbiased unless told)"
                return (
                    f"Looks like a known mistake: the wrong axis. It takes each mean and variance over {code}, "
                    f"{across}, not over each token's own features{divisor if unbiased else ''}. "
                    "Use dim=-1 and keepdim=True" + (", and unbiased=False." if unbiased else ".")
                )
    return None
