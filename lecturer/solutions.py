"""Solutions to the "Your turn" code exercises of notebooks 02–08, for the lecturer.

Never shown in the student notebooks. ``tests/checking/test_exercises.py`` runs every one through
``helpers.exercises.check`` and asserts it passes; ``tools/build/lecturer_exercises.py`` copies them
into ``lecturer/exercises.md``.
"""

import numpy as np


def mean(row):  # notebook 02
    return sum(row) / len(row)


def variance(row):  # notebook 03
    mu = sum(row) / len(row)
    return sum((value - mu) ** 2 for value in row) / len(row)


def std(row, eps):  # notebook 04
    return np.sqrt(variance(row) + eps)


def normalise(row, eps):  # notebook 05
    row = np.asarray(row)
    return (row - row.mean()) / np.sqrt(row.var() + eps)


def scale_shift(x_hat, gamma, beta):  # notebook 06
    return gamma * x_hat + beta


def layer_norm(x, eps):  # notebook 07
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps)


def make_module():  # notebook 08 (torch is imported only here)
    import torch
    from torch import nn

    class MyLayerNorm(nn.Module):
        def __init__(self, n_features, eps=1e-5):
            super().__init__()
            self.eps = eps
            self.gamma = nn.Parameter(torch.ones(n_features))
            self.beta = nn.Parameter(torch.zeros(n_features))

        def forward(self, x):
            mean = x.mean(dim=-1, keepdim=True)
            var = x.var(dim=-1, keepdim=True, unbiased=False)
            return self.gamma * (x - mean) / torch.sqrt(var + self.eps) + self.beta

    return MyLayerNorm


SOLUTIONS = {
    "mean": mean,
    "variance": variance,
    "std": std,
    "normalise": normalise,
    "scale_shift": scale_shift,
    "layer_norm": layer_norm,
}
