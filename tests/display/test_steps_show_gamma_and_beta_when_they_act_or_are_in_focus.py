"""Which stages a record's table shows by default (helpers.display.steps.steps_table).

steps_text: "``stages`` picks the stages shown (default: all, with gamma and beta only when they are not 1 and
0)"; _visible_stages: "gamma and beta only when they do something (γ ≠ 1 or β ≠ 0) or are in focus".
"""

from __future__ import annotations

from helpers.core.layernorm import STAGES, layer_norm_steps
from helpers.display.formatting import STAGE_LABELS
from helpers.display.steps import steps_table

WITHOUT_AFFINE = [stage for stage in STAGES if stage not in ("gamma", "beta")]


def shown(record, focus=()):
    return [line.label for line in steps_table(record, focus=focus).lines]


def labels(stages):
    return [STAGE_LABELS[stage][0] for stage in stages]


def test_plain_gamma_and_beta_are_left_out():
    assert shown(layer_norm_steps([1.0, 2.0, 4.0])) == labels(WITHOUT_AFFINE)


def test_a_focused_gamma_or_beta_is_shown_even_at_1_and_0_and_only_that_one():
    record = layer_norm_steps([1.0, 2.0, 4.0])
    assert shown(record, focus="gamma") == labels([s for s in STAGES if s != "beta"])
    assert shown(record, focus=("beta", "output")) == labels([s for s in STAGES if s != "gamma"])
    focused = [line.label for line in steps_table(record, focus="gamma").lines if line.focused]
    assert focused == ["gamma"]


def test_a_beta_that_shifts_shows_both_gamma_and_beta():
    assert shown(layer_norm_steps([1.0, 2.0, 4.0], beta=[0.0, 0.0, 0.5])) == labels(STAGES)
    assert shown(layer_norm_steps([1.0, 2.0, 4.0], gamma=[1.0, -1.0, 1.0])) == labels(STAGES)
