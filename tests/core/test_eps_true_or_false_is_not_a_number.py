"""eps is "a finite number, 0 or larger" (helpers.core.validation.check_eps): True and False are not numbers.

Python counts True as 1 and False as 0, so a box ticked by mistake would otherwise run LayerNorm with eps = 1
(a different result) or eps = 0 (dividing by 0 for a constant row) without a word. numpy's own number types
are numbers.
"""

from __future__ import annotations

import numpy as np
import pytest

from helpers.core.layernorm import layer_norm, layer_norm_steps
from helpers.core.validation import InputError, check_eps, eps_from_text

RULE = "eps must be a number 0 or larger, such as 1e-5 (PyTorch's default)"


@pytest.mark.parametrize("flag", [True, False, np.True_])
@pytest.mark.parametrize("run", [check_eps, eps_from_text, lambda eps: layer_norm([1.0, 2.0], eps=eps)])
def test_a_bool_eps_is_refused_naming_eps(run, flag):
    with pytest.raises(InputError) as caught:
        run(flag)
    assert caught.value.argument == "eps"
    assert str(caught.value) == f"{RULE}; got {flag!r}."


def test_a_bool_eps_is_refused_by_the_steps_record_too():
    with pytest.raises(InputError, match=r"got True\.$"):
        layer_norm_steps([1.0, 2.0], eps=True)


@pytest.mark.parametrize(
    "eps, expected", [(np.float32(0.5), 0.5), (np.int64(1), 1.0), (np.float64(1e-5), 1e-5), (0, 0.0)]
)
def test_numpys_numbers_and_plain_ints_are_eps_values(eps, expected):
    value = check_eps(eps)
    assert value == expected and type(value) is float
