"""helpers.lessons.norm_family at its edges: notebook 10's tables, every block step, the refusals word for word,
the boundaries the checks decide, and γ, β learned by a plain-numpy gradient descent written out here."""

import re

import numpy as np
import pytest

from helpers.lessons.norm_family import (
    batch_norm,
    batch_norm_running_update,
    post_ln_block,
    pre_ln_block,
    rms_norm,
    statistic_groups,
    train_gamma_beta,
)

from conftest import LESSON_X

W = np.array([[0.5, -0.2, 0.1], [0.0, 0.3, -0.4], [0.2, 0.1, 0.6]])  # notebook 10's sublayer weight


def _layer_norm(x, eps=1e-5):
    x = np.asarray(x, dtype=np.float64)
    centred = x - x.mean(axis=-1, keepdims=True)
    return centred / np.sqrt((centred**2).mean(axis=-1, keepdims=True) + eps)


def _refused(call, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call()


# --- RMSNorm -------------------------------------------------------------------------------------


def test_rms_norm_of_row_1_and_of_the_matrix_are_notebook_10s_tables():
    row_1 = rms_norm(LESSON_X[0])  # one flat row, as notebook 10 passes it
    assert row_1.shape == (3,)
    np.testing.assert_array_equal(np.round(row_1, 4), [1.5389, -0.4061, 0.6832])
    published = [
        [1.5389, -0.4061, 0.6832],
        [-0.3247, 1.6808, 0.2638],
        [1.0961, 1.1176, -0.7413],
        [1.5634, -0.6533, 0.3593],
        [0.9483, 1.1143, 0.9269],
    ]
    np.testing.assert_array_equal(np.round(rms_norm(LESSON_X), 4), published)
    expected = LESSON_X / np.sqrt((LESSON_X**2).mean(axis=1, keepdims=True) + 1e-6)  # eps 1e-6 by default
    np.testing.assert_allclose(rms_norm(LESSON_X), expected, rtol=1e-15)


def test_rms_norm_works_over_the_last_axis_of_a_stack_and_with_one_feature():
    stack = np.stack([LESSON_X, 2 * LESSON_X])
    np.testing.assert_allclose(rms_norm(stack, eps=0.0)[1], LESSON_X / np.sqrt((LESSON_X**2).mean(axis=1))[:, None])
    one_feature = rms_norm([[3.0], [-2.0]], eps=0.0)  # one feature per row is enough: x / |x|
    np.testing.assert_array_equal(one_feature, [[1.0], [-1.0]])


def test_rms_norm_refuses_rows_without_features_and_non_finite_input_in_words():
    _refused(lambda: rms_norm(np.ones((2, 0))), "RMSNorm needs at least one feature per row; got shape (2, 0).")
    _refused(lambda: rms_norm(3.0), "RMSNorm needs at least one feature per row; got shape ().")
    _refused(lambda: rms_norm([[1.0, np.nan]]), "The input contains NaN or infinity; RMSNorm needs finite numbers.")


def test_rms_norm_refuses_a_zero_row_only_when_eps_is_0_and_a_mean_square_equal_to_eps_is_fine():
    _refused(
        lambda: rms_norm([[0.0, 0.0]], eps=0.0),
        "A row is all zeros and eps is 0, so its root mean square is 0; use a positive eps.",
    )
    np.testing.assert_array_equal(rms_norm([[0.0, 0.0]], eps=1e-6), [[0.0, 0.0]])
    # mean(x²) = 0.25 = eps: the root is √0.5, not a division by 0
    np.testing.assert_allclose(rms_norm([[0.5, 0.5]], eps=0.25), [[0.5 / np.sqrt(0.5)] * 2], rtol=1e-15)


# --- BatchNorm -----------------------------------------------------------------------------------


def test_batch_norm_of_the_lesson_matrix_is_notebook_10s_table():
    published = [
        [0.5714, -0.9182, 0.6708],
        [-1.6572, 0.9348, -0.2099],
        [-0.0535, 0.7357, -1.8270],
        [1.3681, -1.4849, 0.3405],
        [-0.2288, 0.7326, 1.0255],
    ]
    np.testing.assert_array_equal(np.round(batch_norm(LESSON_X), 4), published)


def test_batch_norm_divides_by_any_nonzero_variance_plus_eps():
    # column variances 1 and 2.25 with eps 0: exactly ±1 in every cell
    np.testing.assert_array_equal(batch_norm([[0.0, 1.0], [2.0, 4.0]], eps=0.0), [[-1.0, -1.0], [1.0, 1.0]])
    # variance 0.25 equal to eps: divided by √0.5
    np.testing.assert_allclose(batch_norm([[0.0], [1.0]], eps=0.25), [[-0.5 / np.sqrt(0.5)], [0.5 / np.sqrt(0.5)]])


def test_batch_norm_refuses_a_constant_column_with_eps_0_and_bad_shapes_in_words():
    _refused(
        lambda: batch_norm([[1.0, 2.0], [1.0, 3.0]], eps=0.0),
        "A column has every value the same and eps is 0, so its standard deviation is 0 and "
        "dividing by it is impossible; use a positive eps such as 1e-5.",
    )
    _refused(lambda: batch_norm([1.0, 2.0, 3.0]), "x must be a matrix (rows × features); got shape (3,).")
    _refused(lambda: batch_norm([[1.0, np.inf]]), "x contains NaN or infinity; it needs finite numbers.")


def test_running_statistics_blend_the_old_ones_with_the_batch_by_momentum():
    x = np.array([[1.0, 2.0], [3.0, 8.0]])  # the smallest batch that has a variance: two rows
    old_mean, old_var = np.array([10.0, -4.0]), np.array([2.0, 0.5])
    mean, var = batch_norm_running_update(old_mean, old_var, x)  # momentum 0.1 by default
    np.testing.assert_allclose(mean, [0.9 * 10.0 + 0.1 * 2.0, 0.9 * -4.0 + 0.1 * 5.0], rtol=1e-15)
    np.testing.assert_allclose(var, [0.9 * 2.0 + 0.1 * 2.0, 0.9 * 0.5 + 0.1 * 18.0], rtol=1e-15)  # ÷ (n − 1)
    _refused(
        lambda: batch_norm_running_update(old_mean, old_var, x[:1]),
        "The running variance needs at least two rows (tokens) in the batch.",
    )


def test_running_statistics_are_mixed_in_float64_whatever_type_they_are_kept_in():
    x = np.array([[0.1, 0.2], [0.3, 0.7]])
    old_mean, old_var = np.array([0.1, 0.3], dtype=np.float32), np.array([0.7, 1.3], dtype=np.float32)
    mean, var = batch_norm_running_update(old_mean, old_var, x)
    wide_mean, wide_var = old_mean.astype(np.float64), old_var.astype(np.float64)
    np.testing.assert_array_equal(mean, 0.9 * wide_mean + 0.1 * x.mean(axis=0))
    np.testing.assert_array_equal(var, 0.9 * wide_var + 0.1 * x.var(axis=0, ddof=1))


def test_running_statistics_of_the_lesson_batch_are_notebook_10s_table():
    mean, var = batch_norm_running_update(np.zeros(3), np.ones(3), LESSON_X)
    np.testing.assert_array_equal(np.round(mean, 5), [0.07974, 0.03006, 0.02288])
    np.testing.assert_array_equal(np.round(var, 5), [0.94312, 0.95330, 0.92088])


# --- which cells share a statistic ----------------------------------------------------------------


def test_statistic_groups_of_a_single_cell_row_and_column():
    np.testing.assert_array_equal(statistic_groups("layer", (1, 1)), [[0]])
    np.testing.assert_array_equal(statistic_groups("batch", (1, 3)), [[0, 1, 2]])
    np.testing.assert_array_equal(statistic_groups("rms", (3, 1)), [[0], [1], [2]])


def test_statistic_groups_refuse_an_unknown_norm_and_a_bad_shape_in_words():
    _refused(lambda: statistic_groups("group", (2, 3)), "kind must be one of layer, rms, batch; got 'group'.")
    _refused(
        lambda: statistic_groups("layer", (2, 3, 4)),
        "shape must be (rows, features) with both at least 1; got (2, 3, 4).",
    )
    _refused(
        lambda: statistic_groups("batch", (0, 3)), "shape must be (rows, features) with both at least 1; got (0, 3)."
    )


# --- Post-LN and Pre-LN blocks ----------------------------------------------------------------------


def test_post_ln_block_keeps_every_step_and_shows_notebook_10s_table():
    block = post_ln_block(LESSON_X, W)
    np.testing.assert_array_equal(block.input, LESSON_X)
    np.testing.assert_array_equal(block.sublayer_input, LESSON_X)  # Post-LN: the sublayer reads the stream itself
    np.testing.assert_allclose(block.sublayer_output, LESSON_X @ W, rtol=1e-15)
    np.testing.assert_allclose(block.residual_sum, LESSON_X + LESSON_X @ W, rtol=1e-15)
    np.testing.assert_allclose(block.output, _layer_norm(LESSON_X + LESSON_X @ W), rtol=1e-12)
    published = [
        [1.0577, -1.3418, 0.2842],
        [-0.7672, 1.4124, -0.6452],
        [0.8279, 0.5789, -1.4069],
        [1.1375, -1.2965, 0.1590],
        [1.2548, -0.0633, -1.1916],
    ]
    np.testing.assert_array_equal(np.round(block.output, 4), published)


def test_pre_ln_block_keeps_every_step_and_shows_notebook_10s_table():
    block = pre_ln_block(LESSON_X, W)
    np.testing.assert_array_equal(block.input, LESSON_X)
    np.testing.assert_allclose(block.sublayer_input, _layer_norm(LESSON_X), rtol=1e-12)
    np.testing.assert_allclose(block.sublayer_output, _layer_norm(LESSON_X) @ W, rtol=1e-12)
    np.testing.assert_allclose(block.residual_sum, LESSON_X + _layer_norm(LESSON_X) @ W, rtol=1e-12)
    np.testing.assert_array_equal(block.output, block.residual_sum)
    published = [
        [1.7390, -0.9050, 1.1873],
        [-0.7553, 1.4903, -0.6987],
        [0.8305, 0.7165, -1.5848],
        [2.2161, -1.2841, 0.9268],
        [0.2098, 1.2322, -0.4693],
    ]
    np.testing.assert_array_equal(np.round(block.output, 4), published)


def test_both_blocks_normalise_with_the_eps_they_are_given():
    eps = 0.5
    np.testing.assert_allclose(
        post_ln_block(LESSON_X, W, eps=eps).output, _layer_norm(LESSON_X + LESSON_X @ W, eps), rtol=1e-12
    )
    np.testing.assert_allclose(
        pre_ln_block(LESSON_X, W, eps=eps).output, LESSON_X + _layer_norm(LESSON_X, eps) @ W, rtol=1e-12
    )


def test_blocks_refuse_a_weight_that_is_not_a_square_matrix_of_finite_numbers_in_words():
    _refused(
        lambda: post_ln_block(LESSON_X, np.ones((2, 2))),
        "weight must be square, 3 × 3, to keep the residual stream's width; got shape (2, 2).",
    )
    _refused(lambda: pre_ln_block(LESSON_X, np.ones(3)), "weight must be a matrix (rows × features); got shape (3,).")
    bad = W.copy()
    bad[1, 1] = np.nan
    _refused(lambda: post_ln_block(LESSON_X, bad), "weight contains NaN or infinity; it needs finite numbers.")


# --- learning γ and β -------------------------------------------------------------------------------


def _descent(x, target_gamma, target_beta, learning_rate, steps, eps=1e-5):
    """Plain gradient descent on mean((x̂·γ + β − target)²), with dL/dγ and dL/dβ written out by hand."""
    x_hat = _layer_norm(x, eps)
    target = x_hat * target_gamma + target_beta
    gamma, beta, losses = np.ones(x.shape[1]), np.zeros(x.shape[1]), []
    for step in range(steps + 1):
        error = x_hat * gamma + beta - target
        losses.append(np.mean(error**2))
        if step == steps:
            break
        gamma = gamma - learning_rate * (2 * error * x_hat).sum(axis=0) / error.size
        beta = beta - learning_rate * (2 * error).sum(axis=0) / error.size
    return np.array(losses), gamma, beta


def test_training_on_a_given_matrix_with_a_given_eps_is_plain_gradient_descent():
    x = np.array([[0.3, -1.2, 2.0], [1.0, 0.1, -0.4], [-0.7, 0.9, 0.2], [2.2, -0.3, 0.6]])
    run = train_gamma_beta(
        x, target_gamma=(1.5, -0.5, 3.0), target_beta=(0.2, 0.0, -1.0), learning_rate=0.3, steps=7, eps=0.5
    )
    losses, gamma, beta = _descent(x, np.array([1.5, -0.5, 3.0]), np.array([0.2, 0.0, -1.0]), 0.3, 7, eps=0.5)
    np.testing.assert_allclose(run.losses, losses, rtol=1e-12)
    np.testing.assert_allclose(run.gamma, gamma, rtol=1e-12)
    np.testing.assert_allclose(run.beta, beta, rtol=1e-12)
    assert (run.learning_rate, run.steps) == (0.3, 7)
    assert type(run.learning_rate) is float and type(run.steps) is int


def test_training_defaults_are_a_seeded_64_by_3_matrix_half_a_step_and_a_hundred_steps():
    run = train_gamma_beta()
    x = np.random.default_rng(0).normal(size=(64, 3))
    losses, gamma, beta = _descent(x, np.array([2.0, 0.5, -1.0]), np.array([0.5, -0.25, 1.0]), 0.5, 100)
    assert (run.learning_rate, run.steps, len(run.losses)) == (0.5, 100, 101)
    np.testing.assert_allclose(run.losses[:10], losses[:10], rtol=1e-12)
    np.testing.assert_allclose(run.gamma, gamma, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(run.beta, beta, rtol=1e-9, atol=1e-15)


def test_no_steps_leave_pytorchs_start_and_one_loss():
    run = train_gamma_beta(steps=0)
    np.testing.assert_array_equal(run.gamma, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(run.beta, [0.0, 0.0, 0.0])
    assert len(run.losses) == 1 and run.losses[0] > 0


def test_integer_targets_are_kept_as_float_numbers():
    run = train_gamma_beta(target_gamma=(2, 1, -1), target_beta=(0, 1, 0), steps=1)
    assert run.target_gamma.dtype == np.float64 == run.target_beta.dtype
    np.testing.assert_array_equal(run.target_gamma, [2.0, 1.0, -1.0])


def test_training_refuses_bad_targets_a_width_mismatch_and_a_bad_rate_or_step_count_in_words():
    _refused(
        lambda: train_gamma_beta(target_gamma=[[1.0, 2.0]], target_beta=[[0.0, 0.0]]),
        "target_gamma and target_beta need one value per feature each, the same number.",
    )
    _refused(
        lambda: train_gamma_beta(target_gamma=(1.0, 2.0), target_beta=(0.0,)),
        "target_gamma and target_beta need one value per feature each, the same number.",
    )
    _refused(lambda: train_gamma_beta(x=np.ones((4, 2))), "x has 2 features but the targets have 3.")
    rule = "learning_rate must be positive and steps a whole number of at least 0."
    _refused(lambda: train_gamma_beta(learning_rate=0.0, steps=5), rule)
    _refused(lambda: train_gamma_beta(learning_rate=0.5, steps=-1), rule)
    assert len(train_gamma_beta(learning_rate=1e-9, steps=1).losses) == 2  # any positive rate is taken
