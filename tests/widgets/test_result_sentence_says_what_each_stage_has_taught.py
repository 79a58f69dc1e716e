"""The row editor's sentence under its table (helpers/widgets/accessibility.py, ``result_sentence``) says what
changed after an edit, and only what the notebook has taught by its stage (``upto``): the mean first, then the
standard deviation, at the normalised stage x̂ and its variance, at γ and β x̂ still, and once the output is
taught (``upto="output"``, as with every step, ``None``) the output."""

from __future__ import annotations

import pytest

from helpers.core.layernorm import layer_norm_steps
from helpers.widgets.accessibility import result_sentence

ROW = [1.0, 2.0, 4.0]
GAMMA, BETA = [2.0, 1.0, 0.5], [0.0, 1.0, -1.0]


def parts(upto):
    record = layer_norm_steps(ROW, gamma=GAMMA, beta=BETA)
    said = result_sentence(record, upto)
    return said, record


@pytest.mark.parametrize(
    "upto, std, normalised, variance, output",
    [
        ("mean", False, False, False, False),
        ("variance", False, False, False, False),
        ("std", True, False, False, False),
        ("normalised", True, True, True, False),
        ("gamma", True, True, False, False),
        ("beta", True, True, False, False),
        ("output", True, False, False, True),
        (None, True, False, False, True),
    ],
)
def test_each_stage_says_what_it_has_taught(upto, std, normalised, variance, output):
    said, record = parts(upto)
    assert said.startswith(f"mean now {record.mean:.4f}")
    assert ("standard deviation now" in said) is std
    assert ("normalised x̂ now" in said) is normalised
    assert ("variance of x̂ now" in said) is variance
    assert ("output now" in said) is output
    if output:
        shown = said.split("output now ")[1].rstrip(".").split(", ")
        assert [float(v) for v in shown] == pytest.approx(list(record.output), abs=5e-5)
