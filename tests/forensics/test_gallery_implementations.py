"""Notebook 13's gallery: each LayerNorm computes what its name and docstring say, checked token by token
against a formula written out here in plain numpy (never read from helpers), on a batch × time × channels
tensor as the models they come from are given, with a token of tiny spread and one of tiny size, where
the ε values show."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.forensics.gallery import LessonLayerNorm, ScalarGammaLayerNorm, gallery, mystery, one_pass, wrong_axis

from conftest import LESSON_X

# Batch × time × channels, (2, 4, 3): ordinary tokens, one whose features are all but equal (its variance,
# about 7e-11, is far below every ε, so ε decides its output) and one whose values are tiny (RMSNorm's ε).
BTC = np.array(
    [
        [[1.133, -0.299, 0.503], [-0.176, 0.911, 0.143], [0.5, 0.5 + 1e-5, 0.5 - 1e-5], [0.766, 0.781, -0.518]],
        [[1e-3, -2e-3, 1.5e-3], [1.601, -0.669, 0.368], [2.266, -0.598, 1.006], [0.663, 0.779, 0.648]],
    ]
)


def _layer_norm_token(eps, ddof=0, eps_added_to_std=False):
    """One token's features normalised: its mean taken away, divided by √(σ² + ε) or by σ + ε."""

    def normalise(token):
        centred = token - sum(token) / len(token)
        variance = sum(centred * centred) / (len(token) - ddof)
        return centred / (np.sqrt(variance) + eps if eps_added_to_std else np.sqrt(variance + eps))

    return normalise


def _rms_token(eps):
    def normalise(token):
        return token / np.sqrt(sum(token * token) / len(token) + eps)

    return normalise


def _token_by_token(normalise, x):
    """``normalise`` applied to every token (the last axis) on its own, in a Python loop."""
    out = np.empty_like(x)
    for index in np.ndindex(x.shape[:-1]):
        out[index] = normalise(x[index])
    return out


# What each entry computes, from its documentation: statistics over each token's features.
DOCUMENTED = {
    "PyTorch nn.LayerNorm": _layer_norm_token(1e-5),
    "the lesson's module": _layer_norm_token(1e-5),
    "Annotated Transformer": _layer_norm_token(1e-6, ddof=1, eps_added_to_std=True),
    "one-pass variance": _layer_norm_token(1e-5),  # E[x²] − E[x]² is the variance (it cancels only far from 0)
    "Keras default": _layer_norm_token(1e-3),
    "BERT": _layer_norm_token(1e-12),
    "RMSNorm (LLaMA 1)": _rms_token(1e-6),
    "scalar γ": _layer_norm_token(1e-5),
}


@pytest.mark.parametrize("name", DOCUMENTED)
def test_each_gallery_layer_norm_normalises_every_tokens_features_as_documented(name):
    fn = {entry.name: entry.fn for entry in gallery()}[name]
    np.testing.assert_allclose(fn(BTC.copy()), _token_by_token(DOCUMENTED[name], BTC), rtol=1e-8, atol=1e-12)


@pytest.mark.parametrize(
    ("name", "eps", "other"),
    [("Keras default", 1e-3, 1e-5), ("BERT", 1e-12, 1e-5), ("BERT", 1e-12, 0.0), ("RMSNorm (LLaMA 1)", 1e-6, 1e-5)],
)
def test_the_documented_eps_is_the_one_that_shows_on_a_token_of_tiny_spread(name, eps, other):
    """Keras's 1e-3, BERT's 1e-12 and LLaMA 1's 1e-6: its own ε gives its output, PyTorch's (or none) does not."""
    fn = {entry.name: entry.fn for entry in gallery()}[name]
    token = BTC[0, 2] if name != "RMSNorm (LLaMA 1)" else BTC[1, 0]
    per_token = _rms_token if name == "RMSNorm (LLaMA 1)" else _layer_norm_token
    got = fn(token[None, :].copy())[0]
    np.testing.assert_allclose(got, per_token(eps)(token), rtol=1e-8)
    assert not np.allclose(got, per_token(other)(token), rtol=1e-3)


def test_the_lessons_module_is_made_for_the_lessons_three_features():
    """LessonLayerNorm() as notebook 08 builds it: γ = 1 and β = 0 on each of 3 features, ε = 1e-5."""
    module = LessonLayerNorm()
    np.testing.assert_array_equal(module.gamma, np.ones(3))
    np.testing.assert_array_equal(module.beta, np.zeros(3))
    assert module.eps == 1e-5
    np.testing.assert_allclose(module(BTC.copy()), _token_by_token(_layer_norm_token(1e-5), BTC), rtol=1e-8)


def test_the_lessons_module_scales_and_shifts_each_feature_by_its_own_gamma_and_beta():
    module = LessonLayerNorm(3)
    module.gamma, module.beta = np.array([2.0, 0.5, -1.0]), np.array([0.25, -3.0, 1.5])
    expected = np.array([2.0, 0.5, -1.0]) * _token_by_token(_layer_norm_token(1e-5), BTC) + np.array([0.25, -3.0, 1.5])
    np.testing.assert_allclose(module(BTC.copy()), expected, rtol=1e-8, atol=1e-12)


def test_the_scalar_gamma_module_starts_at_one_and_zero_and_then_scales_every_feature_alike():
    """Notebook 13: the scalar γ "matches at the start, when γ is 1"; one γ and one β serve all features."""
    module = ScalarGammaLayerNorm()
    assert (module.gamma, module.beta, module.eps) == (1.0, 0.0, 1e-5)
    np.testing.assert_allclose(module(BTC.copy()), _token_by_token(_layer_norm_token(1e-5), BTC), rtol=1e-8)
    module.gamma, module.beta = np.float64(2.5), np.float64(-1.0)
    np.testing.assert_allclose(
        module(BTC.copy()), 2.5 * _token_by_token(_layer_norm_token(1e-5), BTC) - 1.0, rtol=1e-8, atol=1e-12
    )


def test_wrong_axis_normalises_each_feature_across_the_tokens():
    """Right formula (÷ n, ε = 1e-5 inside the root), applied down each column of the tokens × features matrix."""
    expected = _token_by_token(_layer_norm_token(1e-5), LESSON_X.T).T
    np.testing.assert_allclose(wrong_axis(LESSON_X.copy()), expected, rtol=1e-8)


def test_the_mystery_is_a_layer_norm_with_no_eps_so_a_row_of_equal_values_gives_nan():
    """What the check-yourself answer says: ÷ n, no ε at all, so 0 ÷ 0 on a row of equal values."""
    np.testing.assert_allclose(mystery(BTC.copy()), _token_by_token(_layer_norm_token(0.0), BTC), rtol=1e-8)
    with np.errstate(invalid="ignore"):
        out = mystery(np.array([[1.0, 2.0, 4.0], [3.0, 3.0, 3.0]]))
    assert np.isnan(out[1]).all() and np.isfinite(out[0]).all()


def test_the_one_pass_variance_loses_the_tiny_spread_row_when_moved_100_away_in_float32():
    """E[x²] − E[x]² cancels: on x + 100 in float32 row 5 (the smallest spread) moves far from the two-pass
    answer, which the lesson's module (two passes) keeps to float32's rounding."""
    shifted = (LESSON_X + 100.0).astype(np.float32)
    exact = _token_by_token(_layer_norm_token(1e-5), LESSON_X)
    one_pass_move = np.abs(one_pass(shifted.copy()) - exact).max(axis=1)
    two_pass_move = np.abs(LessonLayerNorm(3)(shifted.copy()) - exact).max(axis=1)
    assert int(np.argmax(one_pass_move)) == 4 and one_pass_move[4] > 0.05
    assert two_pass_move.max() < 1e-3


def test_every_entry_names_where_its_documented_behaviour_comes_from():
    """The gallery's record of its sources, in the order notebook 13 lists them, PyTorch's first."""
    assert [(entry.name, entry.source) for entry in gallery()] == [
        ("PyTorch nn.LayerNorm", "torch.nn.LayerNorm documentation"),
        ("the lesson's module", "the lesson (notebook 08)"),
        ("Annotated Transformer", "The Annotated Transformer's LayerNorm class"),
        ("one-pass variance", "E[x²] − E[x]², as in many from-scratch versions"),
        ("Keras default", "keras.layers.LayerNormalization signature"),
        ("BERT", "BERT's config, layer_norm_eps"),
        ("RMSNorm (LLaMA 1)", "LLaMA 1's RMSNorm, norm_eps (Llama 2 and 3 use 1e-5)"),
        ("scalar γ", "from-scratch versions with one γ"),
        ("wrong axis", "statistics over the tokens"),
    ]
