"""A problem with gamma or beta is an InputError about that argument (helpers.core.validation.per_feature).

validation's promise: each check "raises InputError, a ValueError that also says which argument it is about
(``error.argument``), so a widget shows the message next to the right field without guessing". Every way
gamma or beta can be wrong names gamma or beta, never the input x.
"""

from __future__ import annotations

import pytest

from helpers.core.layernorm import layer_norm, layer_norm_steps
from helpers.core.validation import InputError

NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize("name", ["gamma", "beta"])
@pytest.mark.parametrize(
    "given, sentence",
    [
        ([1.0, NAN, 1.0], "{name} contains NaN or infinity; it needs finite numbers."),
        ([1.0, 1.0, -INF], "{name} contains NaN or infinity; it needs finite numbers."),
        (2.0, "{name} needs one value per feature (3 values); got a single number."),
        ([1.0, 1.0], "{name} needs one value per feature: 3 values; got 2."),
        (["a", "b", "c"], "{name} needs numbers, one per feature (3 values)."),
    ],
)
@pytest.mark.parametrize("run", [layer_norm, layer_norm_steps])
def test_each_problem_names_the_argument_it_is_about(run, name, given, sentence):
    with pytest.raises(InputError) as caught:
        run([1.0, 2.0, 4.0], **{name: given})
    assert caught.value.argument == name
    assert str(caught.value) == sentence.format(name=name)
