"""What the module check (notebook 08) says, written from helpers/checking/module_check.py's docstrings: a
missing γ or β is named with where it went, an extra parameter counted, a hard-coded width and a missing
``super().__init__()`` named in plain words; the ✓ says what was tried; a failure is shown where it shows
most, with digits enough that what was expected and what came back differ on the page.

Every module here is one template (``layer``) with one thing changed, as a learner would write it."""

from __future__ import annotations

import re

import numpy as np
import pytest

from helpers.checking import results
from helpers.checking.exercises import check
from helpers.checking.module_check import NO_SUPER, WIDTHS, _batches
from helpers.core.formula import layer_norm_forward

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402


def x_hat(x, eps=1e-5):
    mean = x.mean(-1, keepdim=True)
    return (x - mean) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False) + eps)


def affine(self, x_hat_of_x):
    return self.gamma * x_hat_of_x + self.beta


def layer(forward=None, gamma="parameter", beta="parameter", shape=lambda n: (n,), default_eps=1e-5, extra=None):
    """A LayerNorm class. ``gamma``/``beta``: "parameter", "buffer", "plain" (a tensor attribute) or None (not
    kept; forward uses 1 or 0); ``shape(n)``: their shape; ``extra(self, n)``: more done in __init__."""

    class Norm(nn.Module):
        def __init__(self, n, eps=default_eps):
            super().__init__()
            self.eps = eps
            for name, how, fill in (("gamma", gamma, torch.ones), ("beta", beta, torch.zeros)):
                value = fill(shape(n))
                if how == "parameter":
                    setattr(self, name, nn.Parameter(value))
                elif how == "buffer":
                    self.register_buffer(name, value)
                elif how == "plain":
                    setattr(self, name, value)
            if extra is not None:
                extra(self, n)

        def forward(self, x):
            g = getattr(self, "gamma", 1.0)
            b = getattr(self, "beta", 0.0)
            return forward(self, x) if forward is not None else g * x_hat(x, self.eps) + b

    return Norm


def both(cls, n=4):
    """The class and an instance of it: the check takes either."""
    return [cls, cls(n)]


def numbers(text: str) -> list[str]:
    return re.findall(r"-?(?:\d+\.?\d*(?:e[+-]?\d+)?|nan|inf)", text)


# ---------------------------------------------------------------- the learnable parameters


@pytest.mark.parametrize(
    "gamma, beta, words",
    [
        ("parameter", "buffer", ", γ (all ones), but no learnable β (`beta` is a buffer, "),
        ("parameter", "plain", ", γ (all ones), but no learnable β (`beta` is a plain tensor, "),
        ("buffer", "parameter", ", β (all zeros), but no learnable γ (`gamma` is a buffer, "),
        ("plain", "parameter", ", β (all zeros), but no learnable γ (`gamma` is a plain tensor, "),
        ("parameter", None, ", γ (all ones), but no learnable β: "),
        (None, "parameter", ", β (all zeros), but no learnable γ: "),
    ],
)
def test_a_missing_gamma_or_beta_is_named_with_where_it_went(gamma, beta, words):
    for module in both(layer(gamma=gamma, beta=beta)):
        n = 3 if isinstance(module, type) else 4
        result = check("module", module)
        assert result.passed is False and result.mistake == "no-parameters", result
        assert result.diagnosis.startswith(f"It has one learnable parameter of shape ({n},){words}"), result
        kept = gamma in ("buffer", "plain") or beta in ("buffer", "plain")
        assert (" tensor, which training cannot change: make it an nn.Parameter): " in result.diagnosis) is (
            "plain" in (gamma, beta)
        ), result
        assert (" buffer, which training cannot change: make it an nn.Parameter): " in result.diagnosis) is (
            "buffer" in (gamma, beta)
        ), result
        assert ("(`" in result.diagnosis) is kept, result
        assert result.diagnosis.endswith("LayerNorm learns both γ and β, one number per feature each."), result


def test_one_parameter_that_is_neither_ones_nor_zeros_is_not_called_gamma_or_beta():
    def keep_one(self, n):
        del self.beta
        self.gamma = nn.Parameter(torch.full((n,), 2.0))

    result = check("module", layer(extra=keep_one))
    assert result.passed is False and result.mistake == "no-parameters", result
    assert result.diagnosis.startswith("It has one learnable parameter of shape (3,): LayerNorm learns both"), result


def test_a_learned_eps_is_counted_beside_gamma_and_beta():
    def learned_eps(self, n):
        self.eps = nn.Parameter(torch.tensor(1e-5))

    for module in both(layer(extra=learned_eps)):
        n = 3 if isinstance(module, type) else 4
        result = check("module", module)
        assert result.passed is False and result.mistake == "parameter-shape", result
        assert result.diagnosis == (
            f"Built for {n} features, its 3 learnable parameters have shapes ({n},), ({n},), (): LayerNorm "
            f"learns only γ and β, shape ({n},) each, and ε is a fixed number, not learned."
        ), result


@pytest.mark.parametrize("eps_too", [False, True], ids=["two", "three"])
def test_parameters_of_the_wrong_shape_are_listed_and_none_is_called_extra(eps_too):
    def square_gamma(self, n):
        self.gamma = nn.Parameter(torch.ones(n, n))
        if eps_too:
            self.eps = nn.Parameter(torch.tensor(1e-5))

    result = check("module", layer(forward=lambda self, x: x_hat(x) @ self.gamma + self.beta, extra=square_gamma))
    assert result.passed is False and result.mistake == "parameter-shape", result
    count, shapes = (3, "(3, 3), (3,), ()") if eps_too else (2, "(3, 3), (3,)")
    assert result.diagnosis == (
        f"Built for 3 features, its {count} learnable parameters have shapes {shapes}: γ and β need one number "
        "per feature, shape (3,)."
    ), result


def test_parameters_built_for_one_width_are_a_hard_coded_width_with_their_shapes():
    result = check("module", layer(shape=lambda n: (3,)))
    assert result.passed is False and result.mistake == "hard-coded-width", result
    assert result.diagnosis == (
        "Built for 5 features, its parameters have shapes (3,), (3,): it hard-codes the width. γ and β need one "
        "number per feature, shape (5,)."
    ), result


@pytest.mark.parametrize("count", [1, 2])
def test_single_number_parameters_are_counted_in_words(count):
    def scalars(self, n):
        self.gamma = nn.Parameter(torch.tensor(1.0))
        if count == 2:
            self.beta = nn.Parameter(torch.tensor(0.0))
        else:
            del self.beta

    for module in both(layer(extra=scalars)):
        result = check("module", module)
        assert result.passed is False and result.mistake == "scalar-gamma", result
        start = (
            "Its 2 learnable parameters are single numbers"
            if count == 2
            else "Its 1 learnable parameter is a single number"
        )
        assert result.diagnosis.startswith(start + " (shape ()): one scale and one shift shared by every feature."), (
            result
        )
        assert result.diagnosis.endswith(
            " LayerNorm learns one γ and one β per feature, shape (n_features,): "
            "nn.Parameter(torch.ones(n_features)) and nn.Parameter(torch.zeros(n_features))."
        ), result


def test_no_parameter_at_all_and_frozen_ones_are_told_apart():
    class Bare(nn.Module):
        def forward(self, x):
            return x_hat(x)

    result = check("module", Bare())
    assert (result.passed, result.mistake) == (False, "no-parameters"), result
    assert result.diagnosis == (
        "Your module has no learnable parameters: give it γ and β as nn.Parameter (torch.ones(n_features) and "
        "torch.zeros(n_features))."
    )

    def freeze(self, n):
        self.gamma.requires_grad_(False)
        self.beta.requires_grad_(False)

    for module in both(layer(extra=freeze)):
        result = check("module", module)
        assert (result.passed, result.mistake) == (False, "no-parameters"), result
        assert result.diagnosis == (
            "Your module has no learnable parameters: wrap γ and β in nn.Parameter, so that training can change them."
        )


# ---------------------------------------------------------------- building it


WITHOUT_SUPER = {
    "a parameter assigned": lambda self, n: setattr(self, "gamma", nn.Parameter(torch.ones(n))),
    "register_parameter": lambda self, n: self.register_parameter("gamma", nn.Parameter(torch.ones(n))),
    "register_buffer": lambda self, n: self.register_buffer("gamma", torch.ones(n)),
    "add_module": lambda self, n: self.add_module("inner", nn.Identity()),
    "a ParameterList": lambda self, n: setattr(self, "ps", nn.ParameterList([nn.Parameter(torch.ones(n))])),
    "parameters() read": lambda self, n: list(self.parameters()),
    "plain tensors only": lambda self, n: (
        setattr(self, "gamma", torch.ones(n)),
        setattr(self, "beta", torch.zeros(n)),
    ),
    "nothing at all": lambda self, n: None,
}


@pytest.mark.parametrize("init", WITHOUT_SUPER.values(), ids=WITHOUT_SUPER.keys())
def test_a_missing_super_init_is_named_however_the_init_goes_on(init):
    class Forgot(nn.Module):
        def __init__(self, n, eps=1e-5):
            init(self, n)

        def forward(self, x):
            return x_hat(x)

    modules = [Forgot]
    try:
        modules.append(Forgot(4))  # an instance, where its __init__ raises nothing
    except AttributeError:
        pass
    for module in modules:
        result = check("module", module)
        assert (result.passed, result.mistake, result.diagnosis) == (False, "no-super-init", NO_SUPER), result


FAILING_AFTER_SUPER = {
    "attribute error": lambda self: self.gamma.not_there,
    "type error": lambda self: torch.ones("n"),
    "an error naming _parameters": lambda self: None._parameters,
}


@pytest.mark.parametrize("error", FAILING_AFTER_SUPER.values(), ids=FAILING_AFTER_SUPER.keys())
def test_an_init_that_fails_after_super_init_is_not_called_a_missing_super_init(error):
    result = check("module", layer(extra=lambda self, n: error(self)))
    assert result.passed is False and result.mistake == "exception", result
    assert result.diagnosis.startswith("Making Norm(3) failed. Your function raised "), result


def test_a_constructor_that_works_only_at_three_features_hard_codes_the_width():
    def only_three(self, n):
        if n != 3:
            raise ValueError("only three")

    result = check("module", layer(extra=only_three))
    assert result.passed is False and result.mistake == "hard-coded-width", result
    assert result.diagnosis.startswith(
        "It builds for 3 features but not for 5: it hard-codes the width. Making Norm(5) failed. "
    ), result


@pytest.mark.parametrize("error, key", [(NotImplementedError, "not-written"), (ValueError, "exception")])
def test_a_constructor_that_fails_at_three_features_is_not_called_a_hard_coded_width(error, key):
    def never(self, n):
        raise error

    result = check("module", layer(extra=never))
    assert result.passed is False and result.mistake == key, result
    assert "hard-codes" not in result.diagnosis, result
    assert result.diagnosis.startswith("Making Norm(3) failed.") is (key == "exception"), result


@pytest.mark.parametrize("given, named", [(3.0, "got float"), (x_hat, "got function"), (object, "object is not one")])
def test_what_is_not_a_module_is_named_and_nothing_else_is_filled_in(given, named):
    result = check("module", given)
    assert (result.step, result.passed, result.mistake) == ("module", False, "not-a-module"), result
    assert named in result.diagnosis and "needs a torch.nn.Module class or instance" in result.diagnosis, result
    assert result.diagnosis.endswith(" is not one (write `class MyLayerNorm(nn.Module):`).") is isinstance(given, type)
    assert (result.case, result.expected, result.got, result.arguments, result.count) == ("", "", "", "", 0)


def test_a_check_that_fails_in_a_way_nobody_foresaw_says_so_in_400_characters_at_most():
    class Unmovable(layer()):
        def to(self, *args, **kwargs):
            raise ValueError("cannot move " * 60)

    result = check("module", Unmovable(4))
    assert (result.step, result.passed, result.mistake) == ("module", False, "exception"), result
    assert result.diagnosis.startswith("Checking your module failed with ValueError: cannot move cannot move")
    assert len(result.diagnosis) == 400, result


# ---------------------------------------------------------------- the ✓


def test_the_check_mark_says_what_was_tried():
    result = check("module", layer())
    assert (result.step, result.passed, result.count) == ("module", True, 5 * len(WIDTHS)), result
    assert result.diagnosis == (
        "right on 15 unseen batches (3, 5 and 128 features, float32 and float64, near zero and far from it, of "
        "small spread and with a value far out); γ and β are learnable and its gradients are LayerNorm's."
    )
    result = check("module", layer()(4))
    assert (result.passed, result.count) == (True, 5), result
    assert result.diagnosis == (
        "right on 5 unseen batches (4 features, float32 and float64, near zero and far from it, of small spread); "
        "γ and β are learnable and its gradients are LayerNorm's."
    )


def test_the_check_mark_says_when_gamma_and_beta_have_shape_one_by_n():
    result = check("module", layer(shape=lambda n: (1, n)))
    assert result.passed, result
    assert result.diagnosis.endswith(
        "LayerNorm's. Its γ and β have shape (1, n): one per feature, which broadcasts over the last axis just as "
        "nn.LayerNorm's shape (n,) does."
    ), result


def test_its_own_eps_is_used_and_said_in_the_check_mark_and_in_a_failure():
    result = check("module", layer(default_eps=1e-6))
    assert result.passed, result
    assert "its gradients are LayerNorm's; checked with its own ε = 1e-06 (its eps attribute)." in result.diagnosis
    unbiased = layer(
        forward=lambda self, x: affine(
            self, (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True) + self.eps)
        )
    )
    for eps, label in ((1e-6, ", ε = 1e-06"), (1e-5, "")):
        result = check("module", unbiased(4, eps))
        assert result.passed is False and result.mistake == "n-1", result
        assert result.case.endswith(f"in float32, token 4 of sequence 2{label}"), result


def test_an_instance_whose_class_cannot_be_rebuilt_is_held_to_its_eps_attribute():
    class Fixed(nn.Module):  # built with no arguments: its class cannot be rebuilt with another ε
        def __init__(self):
            super().__init__()
            self.eps = 1e-5
            self.gamma = nn.Parameter(torch.ones(4))
            self.beta = nn.Parameter(torch.zeros(4))

        def forward(self, x):
            return self.gamma * x_hat(x, self.eps) + self.beta

    class HardEps(Fixed):
        def forward(self, x):
            return self.gamma * x_hat(x, 1e-5) + self.beta

    result = check("module", Fixed())
    assert result.passed and "not checked" not in result.diagnosis, result
    result = check("module", HardEps())
    assert result.passed is False and result.mistake == "eps-ignored", result


def test_a_float64_output_at_float32_precision_is_not_layernorm_in_float64():
    rounded = layer(forward=lambda self, x: (self.gamma * x_hat(x, self.eps) + self.beta).float().to(x.dtype))
    result = check("module", rounded)
    assert result.passed is False and "float64" in result.case, result


# ---------------------------------------------------------------- where a failure is shown


def bumped(where, by=0.5):
    """LayerNorm, but with ``by`` added at ``where(n)`` = (sequence, token, feature) of every batch."""

    def forward(self, x):
        out = self.gamma * x_hat(x, self.eps) + self.beta
        b, t, j = where(x.shape[-1])
        bump = torch.zeros_like(out)
        bump[b, t, j] = by
        return out + bump

    return layer(forward=forward)


def test_a_failure_is_shown_at_the_token_where_it_is_and_the_first_batch_it_is_in():
    result = check("module", bumped(lambda n: (1, 2, 1)))
    assert result.passed is False and result.mistake is None, result
    assert result.case == "a batch of shape (2, 4, 3) in float32, token 3 of sequence 2", result
    expected, got = numbers(result.expected), numbers(result.got)
    differences = [float(g) - float(e) for e, g in zip(expected, got)]
    assert differences == pytest.approx([0, 0.5, 0], abs=1e-5) and len(differences) == 3, result
    result = check("module", bumped(lambda n: (0, 0, 0)))
    assert result.case == "a batch of shape (2, 4, 3) in float32, first token", result


@pytest.mark.parametrize(
    "feature, shown", [(0, (1, 8)), (1, (1, 8)), (99, (97, 104)), (126, (121, 128)), (127, (121, 128))]
)
def test_a_wide_failure_shows_eight_features_around_the_largest_difference(feature, shown):
    result = check("module", bumped(lambda n: (0, 1, feature))(128))
    assert result.passed is False, result
    assert result.case.endswith(f"token 2 of sequence 1, features {shown[0]} to {shown[1]}"), result
    expected, got = numbers(result.expected), numbers(result.got)
    assert len(expected) == len(got) == 8, result
    differ = [i for i in range(8) if abs(float(expected[i]) - float(got[i])) > 1e-4]
    assert differ == [feature - (shown[0] - 1)], result


@pytest.mark.parametrize("n, windowed", [(8, False), (9, True)])
def test_only_a_token_wider_than_eight_is_cut_to_eight_features(n, windowed):
    result = check("module", bumped(lambda n: (1, 3, 2))(n))
    assert result.passed is False, result
    assert ("features" in result.case) is windowed, result
    assert len(numbers(result.got)) == 8 and len(numbers(result.expected)) == 8, result


def test_a_nan_is_shown_where_it_is_even_beside_larger_finite_differences():
    def forward(self, x):
        out = affine(self, x_hat(x, self.eps)) + 0.001 * torch.arange(x.shape[-1], dtype=x.dtype)
        out[0, 0, 3] = float("nan")
        return out

    result = check("module", layer(forward=forward)(128))
    assert result.passed is False, result
    assert result.case.endswith("first token, features 1 to 8"), result
    assert numbers(result.got)[3] == "nan", result


def test_a_formula_that_changes_with_the_width_is_said_so():
    grows = layer(forward=lambda self, x: affine(self, x_hat(x, self.eps) * (1.01 if x.shape[-1] > 64 else 1.0)))
    result = check("module", grows)
    assert result.passed is False and result.mistake is None, result
    assert result.diagnosis == (
        "It is right at 3 and 5 features, but at 128 its output differs from LayerNorm (with γ = 1, β = 0 as a "
        "new layer starts)."
    )
    assert ", features " in result.case, result


def test_an_output_wrong_from_the_first_width_is_said_plainly():
    result = check("module", bumped(lambda n: (1, 2, 1)))
    assert result.diagnosis == "Its output differs from LayerNorm (with γ = 1, β = 0 as a new layer starts)."


def test_a_named_mistake_is_named_at_a_width_where_the_earlier_ones_were_right_too():
    """Dividing by n − 1 only at 128 features is no known mistake at every width: said as a change with width."""
    unbiased_when_wide = layer(
        forward=lambda self, x: affine(
            self,
            (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True, unbiased=x.shape[-1] > 64) + self.eps),
        )
    )
    result = check("module", unbiased_when_wide)
    assert result.passed is False and result.mistake is None, result
    assert result.diagnosis.startswith("It is right at 3 and 5 features, but at 128"), result


def test_gamma_and_beta_swapped_is_named_with_its_advice():
    swapped = layer(forward=lambda self, x: self.beta * x_hat(x, self.eps) + self.gamma)
    result = check("module", swapped)
    assert result.passed is False and result.mistake == "gamma-beta-swapped", result
    assert result.diagnosis == (
        "Looks like a known mistake: γ and β swapped (with γ = 1 and β = 0 every output is 1). Multiply by γ "
        "(gamma) and add β (beta): γ · x̂ + β."
    )


def test_the_one_pass_variance_is_explained_with_the_numbers_of_the_batch_shown():
    def one_pass(self, x):
        mean = x.mean(-1, keepdim=True)
        return affine(self, (x - mean) / torch.sqrt((x * x).mean(-1, keepdim=True) - mean * mean + self.eps))

    result = check("module", layer(forward=one_pass))
    assert result.passed is False and result.mistake == "one-pass", result
    assert "far from zero" in result.case, result
    mean = re.search(r"one row's mean is ([-\d.]+)", result.diagnosis)
    assert mean and 990 < float(mean[1]) < 1010, result  # a row of the batch 1000 away from zero, as shown


def test_statistics_of_the_whole_batch_are_told_to_use_the_last_axis():
    whole = layer(forward=lambda self, x: affine(self, (x - x.mean()) / torch.sqrt(x.var(unbiased=False) + self.eps)))
    result = check("module", whole)
    assert result.passed is False and result.mistake == "no-axis", result
    assert result.diagnosis == (
        "Looks like a known mistake: no axis (the whole matrix at once). Use dim=-1 and keepdim=True."
    ), result


# ---------------------------------------------------------------- what a failure shows


FAILING = {
    "float32 precision": layer(forward=lambda self, x: affine(self, x_hat(x, self.eps)).float().to(x.dtype)),
    "a bump": bumped(lambda n: (1, 2, 1), by=1e-4),
    "1.01 when wide": layer(
        forward=lambda self, x: affine(self, x_hat(x, self.eps) * (1.01 if x.shape[-1] > 64 else 1.0))
    ),
    "one pass": layer(
        forward=lambda self, x: affine(
            self,
            (x - x.mean(-1, keepdim=True))
            / torch.sqrt((x * x).mean(-1, keepdim=True) - x.mean(-1, keepdim=True) ** 2 + self.eps),
        )
    ),
}


@pytest.mark.parametrize("module", FAILING.values(), ids=FAILING.keys())
def test_what_was_expected_and_what_came_back_differ_where_they_are_shown(module):
    result = check("module", module)
    assert result.passed is False, result
    expected, got = numbers(result.expected), numbers(result.got)
    assert len(expected) == len(got) and expected != got, result


def test_the_same_module_gets_the_same_verdict_every_time():
    first, second = (check("module", bumped(lambda n: (1, 2, 1))) for _ in range(2))
    assert (first.case, first.expected, first.got) == (second.case, second.expected, second.got)


# ---------------------------------------------------------------- the batches


@pytest.mark.parametrize("n", WIDTHS)
def test_the_batches_are_those_the_docstring_promises(n):
    batches = _batches(np.random.default_rng(0), n)
    assert [dtype for _, dtype, _ in batches] == ["float32", "float32", "float64", "float64", "float64"]
    for label, _, x in batches:
        assert np.shape(x) == (2, 4, n) and label.startswith(f"a batch of shape (2, 4, {n}) in ")
    near, far32, outlier, far64, small = (x for _, _, x in batches)
    assert np.abs(near.mean(-1)).max() < 3 and np.abs(far32.mean(-1) - 1000).max() < 3
    assert np.abs(far64.mean(-1) - 1e8).max() < 5 and np.array_equal(far64 * 2, np.round(far64 * 2))
    assert 1e-8 < small.var(-1).max() < 1e-5 and 1e-8 < small.var(-1).min()
    far_out = n >= 128
    assert batches[2][0] == f"a batch of shape (2, 4, {n}) in float64" + (
        ", one value of the first token far out" if far_out else ""
    )
    if far_out:
        scaled = np.abs(layer_norm_forward(outlier, 1e-5)[0])
        assert 10 < scaled[0, 0].max() < 12.5, "one value of the first token at |x̂| ≈ 11"
        assert scaled[0, 1:].max() < 5 and scaled[1].max() < 5, "the far value is in the first token only"


def test_a_constructor_that_never_returns_is_named_as_such(monkeypatch):
    monkeypatch.setattr(results, "TIME_LIMIT", 0.2)  # the limit's size is not what is tested: a short one

    class Endless(layer()):
        def __init__(self, n, eps=1e-5):
            while True:
                pass

    result = check("module", Endless)
    assert result.passed is False and result.mistake == "timeout", result
    assert result.diagnosis.startswith("Your function did not finish within 0.2 seconds"), result


def test_a_learned_eps_registered_first_does_not_hide_the_width():
    class EpsFirst(nn.Module):
        def __init__(self, n=4):
            super().__init__()
            self.eps = nn.Parameter(torch.tensor(1e-5))
            self.gamma = nn.Parameter(torch.ones(n))
            self.beta = nn.Parameter(torch.zeros(n))

        def forward(self, x):
            return self.gamma * x_hat(x, self.eps) + self.beta

    result = check("module", EpsFirst())
    assert result.passed is False and result.mistake == "parameter-shape", result
    assert result.diagnosis.startswith("Built for 4 features, its 3 learnable parameters have shapes (), (4,), (4,)")


def test_the_advice_names_the_modules_own_eps():
    without_eps = layer(
        forward=lambda self, x: affine(
            self, (x - x.mean(-1, keepdim=True)) / torch.sqrt(x.var(-1, keepdim=True, unbiased=False))
        ),
        default_eps=1e-6,
    )
    result = check("module", without_eps)
    assert result.passed is False and result.mistake == "no-eps", result
    assert "ε = 1e-06" in result.diagnosis and "ε = 1e-05" not in result.diagnosis, result


def test_a_narrow_token_is_shown_as_one_row_of_numbers():
    result = check("module", bumped(lambda n: (1, 2, 1)))
    assert result.got.startswith("[") and not result.got.startswith("[["), result
    assert result.expected.startswith("[") and not result.expected.startswith("[["), result
