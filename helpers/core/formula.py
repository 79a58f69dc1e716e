"""LayerNorm's formula, once: every path in ``helpers`` that normalises calls this function.

It is short on purpose, so that notebooks 04 and 05 can show its source and the formula a learner
reads is the one that runs. Checking input and rounding by hand live elsewhere (``layernorm``).
"""

from __future__ import annotations

import numpy as np


def layer_norm_forward(x: np.ndarray, eps: float):
    """Normalise ``x`` over its last axis. Returns ``(x_hat, mean, var, std)``, all arrays.

    x: (..., n) floats; the statistics keep their axis so that they broadcast back.
    """
    n = x.shape[-1]
    mean = x.sum(axis=-1, keepdims=True) / n  # (..., 1)  centre of each row
    diff = x - mean  # (..., n)  distance from the centre
    var = (diff * diff).sum(axis=-1, keepdims=True) / n  # (..., 1)  biased: divide by n, like PyTorch
    std = np.sqrt(var + x.dtype.type(eps))  # (..., 1)  ε inside the root: never divide by 0
    x_hat = diff / std  # (..., n)  mean 0, variance ≈ 1
    return x_hat, mean, var, std
