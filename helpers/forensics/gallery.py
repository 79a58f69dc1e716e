"""The LayerNorms learners meet, each written here in a few lines of numpy from its documented behaviour.

None of this is copied code: each function does what its source's documentation (or its published
formula) says, on a matrix whose rows are tokens and whose columns are features. Notebook 13
fingerprints every one with :func:`helpers.forensics.fingerprints.fingerprint` and shows what it gets wrong on
the lesson's matrix. Introduced in notebook 13.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from helpers.core.formula import layer_norm_forward


def pytorch_layer_norm(x):
    """torch.nn.LayerNorm's documented formula: ÷ n, ε = 1e-5 inside the root (helpers' own formula)."""
    return layer_norm_forward(x, 1e-5)[0]


class LessonLayerNorm:
    """The lesson's module in numpy: a γ and β per feature, mean, biased variance, ε = 1e-5 inside."""

    def __init__(self, features: int = 3, eps: float = 1e-5):
        self.gamma, self.beta, self.eps = np.ones(features), np.zeros(features), eps

    def __call__(self, x):
        mean = x.mean(axis=-1, keepdims=True)
        variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return self.gamma * (x - mean) / np.sqrt(variance + self.eps) + self.beta


def annotated_transformer(x, eps=1e-6):
    """The Annotated Transformer's LayerNorm: x.std(-1) (÷ n − 1, torch's default), ε added to the std."""
    mean = x.mean(axis=-1, keepdims=True)
    std = x.std(axis=-1, ddof=1, keepdims=True)
    return (x - mean) / (std + eps)


def one_pass(x, eps=1e-5):
    """The variance as E[x²] − E[x]²: one sweep over the row, the formula that cancels on large offsets."""
    mean = x.mean(axis=-1, keepdims=True)
    variance = (x * x).mean(axis=-1, keepdims=True) - mean * mean
    return (x - mean) / np.sqrt(variance + eps)


def keras_layer_norm(x, epsilon=1e-3):
    """keras.layers.LayerNormalization's default: axis=-1, ÷ n, epsilon=1e-3 inside the root."""
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + epsilon)


def bert_layer_norm(x, eps=1e-12):
    """BERT's LayerNorm (its config's layer_norm_eps = 1e-12): ÷ n, ε inside the root."""
    mean = x.mean(axis=-1, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps)


def rms_norm(x, eps=1e-6):
    """RMSNorm as in the original LLaMA: no mean subtracted, divide by √(mean(x²) + ε), ε = 1e-6."""
    return x / np.sqrt((x * x).mean(axis=-1, keepdims=True) + eps)


class ScalarGammaLayerNorm:
    """A from-scratch LayerNorm with one γ and one β for all features (PyTorch has one per feature)."""

    def __init__(self, eps: float = 1e-5):
        self.gamma, self.beta, self.eps = np.float64(1.0), np.float64(0.0), eps

    def __call__(self, x):
        mean = x.mean(axis=-1, keepdims=True)
        variance = ((x - mean) ** 2).mean(axis=-1, keepdims=True)
        return self.gamma * (x - mean) / np.sqrt(variance + self.eps) + self.beta


def wrong_axis(x, eps=1e-5):
    """Statistics over axis 0 (each feature across the tokens): right formula, wrong axis."""
    mean = x.mean(axis=0, keepdims=True)
    variance = ((x - mean) ** 2).mean(axis=0, keepdims=True)
    return (x - mean) / np.sqrt(variance + eps)


def mystery(x):
    """Notebook 13's check-yourself question: fingerprint it to find what it does differently."""
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / x.std(axis=-1, keepdims=True)


@dataclass(frozen=True)
class GalleryEntry:
    name: str
    fn: object
    source: str  # where its documented behaviour comes from


def gallery(features: int = 3) -> tuple[GalleryEntry, ...]:
    """Every LayerNorm of the gallery, PyTorch's first."""
    return (
        GalleryEntry("PyTorch nn.LayerNorm", pytorch_layer_norm, "torch.nn.LayerNorm documentation"),
        GalleryEntry("the lesson's module", LessonLayerNorm(features), "the lesson (notebook 08)"),
        GalleryEntry("Annotated Transformer", annotated_transformer, "The Annotated Transformer's LayerNorm class"),
        GalleryEntry("one-pass variance", one_pass, "E[x²] − E[x]², as in many from-scratch versions"),
        GalleryEntry("Keras default", keras_layer_norm, "keras.layers.LayerNormalization signature"),
        GalleryEntry("BERT", bert_layer_norm, "BERT's config, layer_norm_eps"),
        GalleryEntry("RMSNorm (LLaMA 1)", rms_norm, "LLaMA 1's RMSNorm, norm_eps (Llama 2 and 3 use 1e-5)"),
        GalleryEntry("scalar γ", ScalarGammaLayerNorm(), "from-scratch versions with one γ"),
        GalleryEntry("wrong axis", wrong_axis, "statistics over the tokens"),
    )
