"""Does a learner's module follow its own ε (helpers.checking.module_eps)? Built with eps=0.1 (by keyword,
else as the second argument), or an instance with its float ``eps`` set to 0.1 and put back; a hard-coded
1e-5 is named, any other difference said plainly, and what cannot be checked is said in the ✓. ``eps_of``
reads the ε a layer was built with, and never raises."""

from __future__ import annotations

import numpy as np
import pytest

from helpers.checking.module_eps import OTHER_EPS, eps_of, own_eps
from helpers.checking.results import one_torch_thread, values_text
from helpers.core.formula import layer_norm_forward
from helpers.core.layernorm import DEFAULT_EPS

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402


@pytest.fixture(autouse=True)
def _one_thread():
    """As the module check runs a module: torch on one thread (see results.one_torch_thread)."""
    with one_torch_thread():
        yield


class Norm(nn.Module):
    """LayerNorm over the last axis; ``used`` is the ε forward uses (None: its own)."""

    used = None

    def __init__(self, n, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.gamma, self.beta = nn.Parameter(torch.ones(n)), nn.Parameter(torch.zeros(n))

    def forward(self, x):
        eps = self.eps if self.used is None else self.used
        mean, var = x.mean(-1, keepdim=True), x.var(-1, keepdim=True, unbiased=False)
        return self.gamma * (x - mean) / torch.sqrt(var + eps) + self.beta


class Fixed(Norm):
    used = 1e-5  # the eps argument ignored


class Squared(Norm):
    def forward(self, x):
        self.used = self.eps**2
        return super().forward(x)


class NoEps(Norm):
    def __init__(self, n):
        super().__init__(n)


def _rng():
    return np.random.default_rng(7)


def test_a_module_that_follows_its_eps_passes_as_class_and_as_instance():
    assert own_eps(Norm, Norm(3), 3, _rng()) == (None, None)
    assert own_eps(Norm(3), Norm(3), 3, _rng()) == (None, None)


class FixedSeen(Fixed):
    seen = []

    def forward(self, x):
        self.seen.append(x.detach().numpy().copy())
        return super().forward(x)


def test_a_hard_coded_eps_is_named_with_the_batch_that_shows_it():
    (words, key, case, expected, got, given), note = own_eps(FixedSeen, FixedSeen(3), 3, _rng())
    x = FixedSeen.seen[-1]
    assert (expected, got, given) == (  # the first token: LayerNorm's with ε = 0.1, its output with 1e-5, its input
        values_text(layer_norm_forward(x, OTHER_EPS)[0][0, 0]),
        values_text(layer_norm_forward(x, 1e-5)[0][0, 0]),
        values_text(x[0, 0]),
    )
    assert note is None and key == "eps-ignored"
    assert words == (
        "Looks like a known mistake: the eps argument ignored. Use self.eps (the ε the module was built with) "
        "inside forward, not a fixed 1e-5."
    )
    assert case == "a batch of shape (2, 4, 3) with eps=0.1, first token"


def test_any_other_difference_with_eps_0_1_is_said_plainly():
    (words, key, case, *_), note = own_eps(Squared, Squared(3), 3, _rng())
    assert (words, key, case, note) == (
        "With eps=0.1 its output differs from LayerNorm's.",
        None,
        "a batch of shape (2, 4, 3) with eps=0.1, first token",
        None,
    )


def test_a_class_taking_eps_second_under_another_name_is_built_with_it():
    class Epsilon(Norm):
        def __init__(self, n, epsilon=1e-5):
            super().__init__(n, epsilon)

    assert own_eps(Epsilon, Epsilon(3), 3, _rng()) == (None, None)
    fixed = type("FixedEpsilon", (Epsilon,), {"used": 1e-5})
    assert own_eps(fixed, fixed(3), 3, _rng())[0][1] == "eps-ignored"


def test_a_class_that_takes_no_eps_is_told_how_to_take_it():
    (words, key), note = own_eps(NoEps, NoEps(3), 3, _rng())
    assert key == "no-eps-argument" and note is None
    assert words.startswith(
        "NoEps(3, eps=0.1) failed: take ε as a second argument, `def __init__(self, n_features, eps=1e-5)`. "
        "Your function raised TypeError"
    ), words


def test_an_instance_whose_class_takes_no_eps_is_checked_with_its_float_eps_set_and_put_back():
    layer = NoEps(3)
    layer.eps = 2e-5
    assert own_eps(layer, layer, 3, _rng()) == (None, None)
    assert layer.eps == 2e-5
    fixed = type("FixedNoEps", (NoEps,), {"used": 1e-5})(3)
    (_, key, *_), note = own_eps(fixed, fixed, 3, _rng())
    assert key == "eps-ignored" and fixed.eps == 1e-5


def test_an_instance_without_a_float_eps_to_set_says_its_eps_was_not_checked():
    layer = NoEps(3)
    layer.eps = torch.tensor(1e-5)
    assert own_eps(layer, layer, 3, _rng()) == (
        None,
        "its ε was not checked: its class could not be built again with eps=0.1 and it has no float eps "
        "attribute to set",
    )


def test_a_forward_that_fails_with_eps_0_1_is_named_as_forward_names_it():
    class Fails(Norm):
        def forward(self, x):
            if self.eps == OTHER_EPS:
                raise ValueError("only the default")
            return super().forward(x)

    (words, key), note = own_eps(Fails, Fails(3), 3, _rng())
    assert key == "exception" and note is None
    assert words.startswith("Its forward failed on a batch of shape (2, 4, 3). Your function raised ValueError")


class Plain:
    pass


def _with(**attributes):
    layer = Plain()
    vars(layer).update(attributes)
    return layer


@pytest.mark.parametrize(
    "attributes, eps",
    [
        ({"eps": 1e-6}, 1e-6),
        ({"eps": 3}, 3.0),
        ({"eps": np.float32(0.5)}, 0.5),
        ({"eps": torch.tensor(0.25)}, 0.25),
        ({"eps": torch.tensor([0.25])}, 0.25),
        ({"variance_epsilon": 1e-3}, 1e-3),
        ({"EPS": 1e-3}, 1e-3),
        ({"eps": 1e-6, "eps_other": 1e-3}, 1e-6),
        ({"eps_a": 1e-6, "eps_b": 1e-3}, DEFAULT_EPS),
        ({"eps_a": 1e-6, "eps_b": None}, 1e-6),
        ({"eps": 0.0}, 0.0),
        ({"eps": True}, DEFAULT_EPS),
        ({"eps": -1e-3}, DEFAULT_EPS),
        ({"eps": float("nan")}, DEFAULT_EPS),
        ({"eps": float("inf")}, DEFAULT_EPS),
        ({"eps": torch.tensor([1e-3, 1e-3])}, DEFAULT_EPS),
        ({"eps": None}, DEFAULT_EPS),
        ({"eps": object()}, DEFAULT_EPS),
        ({"scale": 2.0}, DEFAULT_EPS),
    ],
    ids=[
        "float",
        "int",
        "numpy",
        "tensor",
        "tensor-of-one",
        "variance_epsilon",
        "upper-case",
        "eps-first",
        "two-names",
        "two-names-one-a-number",
        "zero",
        "bool",
        "negative",
        "nan",
        "inf",
        "tensor-of-two",
        "none",
        "object",
        "no-eps",
    ],
)
def test_eps_of_reads_the_eps_a_layer_was_built_with(attributes, eps):
    assert eps_of(_with(**attributes)) == eps


def test_eps_of_an_object_without_attributes_is_the_default():
    assert eps_of(3) == DEFAULT_EPS
    assert eps_of(nn.LayerNorm(3, eps=1e-6)) == 1e-6
