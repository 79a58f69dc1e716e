"""helpers.lessons.norm_family: BatchNorm, RMSNorm, where the norm sits, and learning γ and β."""

import numpy as np
import pytest
import torch

import helpers
from helpers.lessons import norm_family
from helpers.lessons.norm_family import (
    batch_norm,
    batch_norm_statistics,
    post_ln_block,
    pre_ln_block,
    rms_norm,
    statistic_groups,
    train_gamma_beta,
)

WEIGHT = np.array([[0.5, -0.2, 0.1], [0.0, 0.3, -0.4], [0.2, 0.1, 0.6]])


@pytest.fixture(scope="module")
def residual():
    return helpers.load_residual()


def test_batch_norm_matches_torch_training_mode(residual):
    layer = torch.nn.BatchNorm1d(3, eps=1e-5, dtype=torch.float64)
    layer.train()
    expected = layer(torch.tensor(residual)).detach().numpy()
    np.testing.assert_allclose(batch_norm(residual), expected, atol=1e-12)
    mean, variance = batch_norm_statistics(residual)
    np.testing.assert_allclose(mean, residual.mean(axis=0), atol=1e-15)
    np.testing.assert_allclose(variance, residual.var(axis=0), atol=1e-15)
    np.testing.assert_allclose(batch_norm(residual).mean(axis=0), 0.0, atol=1e-12)


def test_rms_norm_matches_torch(residual):
    weight = np.array([1.5, 0.5, -1.0])
    expected = torch.nn.functional.rms_norm(torch.tensor(residual), (3,), torch.tensor(weight), eps=1e-6).numpy()
    np.testing.assert_allclose(rms_norm(residual, weight), expected, atol=1e-12)
    plain = rms_norm(residual)
    assert np.all(np.abs(plain.sum(axis=1)) > 0.1)  # no mean removed: rows do not sum to 0
    np.testing.assert_allclose(
        np.mean(plain**2, axis=1), np.mean(residual**2, axis=1) / (np.mean(residual**2, axis=1) + 1e-6), atol=1e-12
    )


def test_layer_norm_is_the_same_function_as_helpers():
    assert norm_family.layer_norm is helpers.layer_norm


def test_statistic_groups():
    np.testing.assert_array_equal(statistic_groups("layer", (2, 3)), [[0, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(statistic_groups("rms", (2, 3)), [[0, 0, 0], [1, 1, 1]])
    np.testing.assert_array_equal(statistic_groups("batch", (2, 3)), [[0, 1, 2], [0, 1, 2]])


def test_statistic_groups_say_which_cells_each_norm_averages(residual):
    # Cells with one label must share a statistic: check it against the norms themselves.
    layer_groups = statistic_groups("layer", residual.shape)
    batch_groups = statistic_groups("batch", residual.shape)
    means = residual.mean(axis=1)
    for label in np.unique(layer_groups):
        np.testing.assert_allclose(residual[layer_groups == label].mean(), means[label])
    batch_means, _ = batch_norm_statistics(residual)
    for label in np.unique(batch_groups):
        np.testing.assert_allclose(residual[batch_groups == label].mean(), batch_means[label])


def test_post_ln_normalises_the_stream_and_pre_ln_does_not(residual):
    post, pre = post_ln_block(residual, WEIGHT), pre_ln_block(residual, WEIGHT)
    np.testing.assert_allclose(post.output, helpers.layer_norm(residual + residual @ WEIGHT), atol=1e-12)
    np.testing.assert_allclose(pre.output, residual + helpers.layer_norm(residual) @ WEIGHT, atol=1e-12)
    np.testing.assert_allclose(post.output.mean(axis=1), 0.0, atol=1e-12)
    assert np.all(np.abs(pre.output.mean(axis=1)) > 1e-3)  # the residual stream keeps its own mean
    np.testing.assert_allclose(pre.sublayer_input.mean(axis=1), 0.0, atol=1e-12)
    assert post.kind == "post-LN" and pre.kind == "pre-LN"


def test_pre_ln_matches_a_torch_block(residual):
    x = torch.tensor(residual)
    expected = x + torch.nn.functional.layer_norm(x, (3,)) @ torch.tensor(WEIGHT)
    np.testing.assert_allclose(pre_ln_block(residual, WEIGHT).output, expected.numpy(), atol=1e-12)


def test_training_learns_the_true_gamma_and_beta_in_a_hundred_steps():
    run = train_gamma_beta(steps=100)  # its speed (≤ 1 s) is measured in benchmarks/bench_verdicts.py
    assert len(run.losses) == 101
    assert run.losses[-1] < 1e-10 < run.losses[0]
    assert np.all(np.diff(run.losses) <= 1e-15)  # gradient descent on a convex loss: never goes up
    np.testing.assert_allclose(run.gamma, run.target_gamma, atol=1e-5)
    np.testing.assert_allclose(run.beta, run.target_beta, atol=1e-5)


def test_training_matches_the_same_loop_in_torch():
    # Five steps with torch autograd and SGD must land on the same γ and β.
    run = train_gamma_beta(steps=5, learning_rate=0.5, seed=3)
    x = torch.tensor(np.random.default_rng(3).normal(size=(64, 3)))
    target = torch.nn.functional.layer_norm(x, (3,), torch.tensor(run.target_gamma), torch.tensor(run.target_beta))
    layer = torch.nn.LayerNorm(3, dtype=torch.float64)
    optimiser = torch.optim.SGD(layer.parameters(), lr=0.5)
    for _ in range(5):
        optimiser.zero_grad()
        loss = torch.mean((layer(x) - target) ** 2)
        loss.backward()
        optimiser.step()
    np.testing.assert_allclose(run.gamma, layer.weight.detach().numpy(), atol=1e-12)
    np.testing.assert_allclose(run.beta, layer.bias.detach().numpy(), atol=1e-12)


@pytest.mark.parametrize(
    "bad",
    [
        lambda: batch_norm([1.0, 2.0, 3.0]),
        lambda: rms_norm([[1.0, 2.0]], weight=[1.0]),
        lambda: rms_norm([[0.0, 0.0]], eps=0.0),
        lambda: statistic_groups("group", (2, 3)),
        lambda: statistic_groups("layer", (2, 3, 4)),
        lambda: post_ln_block(np.ones((2, 3)), np.ones((2, 2))),
        lambda: train_gamma_beta(target_gamma=(1.0, 2.0), target_beta=(0.0,)),
    ],
)
def test_bad_input_is_a_plain_value_error(bad):
    with pytest.raises(ValueError):
        bad()


def test_bad_eps_or_weight_is_refused_in_plain_words_not_nan():
    x = np.array([[1.0, 2.0, 3.0], [1.0, 4.0, 9.0]])
    for norm in (batch_norm, rms_norm):
        for bad_eps in (-1e-5, None, float("inf")):
            with pytest.raises(ValueError, match="^eps must be"):
                norm(x, eps=bad_eps)
    with pytest.raises(ValueError, match="A column has every value the same and eps is 0"):
        batch_norm(x, eps=0.0)  # the first column is constant: 0 / 0 would give NaN
    assert np.all(np.isfinite(batch_norm(x)))
    with pytest.raises(ValueError, match="^weight needs numbers"):
        rms_norm(x, weight=["a", "b", "c"])
    with pytest.raises(ValueError, match="rectangular array of numbers"):
        batch_norm([[1.0, 2.0], [3.0]])


def test_batch_norm_running_statistics_and_eval_match_torch():
    import torch

    from helpers.lessons.norm_family import batch_norm_eval, batch_norm_running_update

    x = np.random.default_rng(0).normal(size=(6, 3)) * 2 + 1
    layer = torch.nn.BatchNorm1d(3, dtype=torch.float64)
    layer.train()
    layer(torch.tensor(x))
    mean, var = batch_norm_running_update(np.zeros(3), np.ones(3), x)
    np.testing.assert_allclose(mean, layer.running_mean.numpy(), rtol=1e-12)
    np.testing.assert_allclose(var, layer.running_var.numpy(), rtol=1e-12)
    assert not np.allclose(var, 0.9 + 0.1 * x.var(axis=0))  # the biased variance would be wrong
    layer.eval()
    np.testing.assert_allclose(batch_norm_eval(x, mean, var), layer(torch.tensor(x)).detach().numpy(), rtol=1e-10)
    with pytest.raises(ValueError, match="two rows"):
        batch_norm_running_update(np.zeros(3), np.ones(3), x[:1])
