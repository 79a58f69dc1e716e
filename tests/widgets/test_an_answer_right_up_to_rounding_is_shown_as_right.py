"""The answer box's verdict colour: "≈ Right up to rounding" is a right answer (``Verdict.is_right``), so it is
shown in the right answer's blue with its ≈ mark - never in the warning colour a wrong answer gets, which would
tell a learner who rounded along the way that they were wrong.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402

ROW = [1.133, -0.299, 0.503]  # mean 0.44567, std √(σ² + ε) 0.58602


@pytest.mark.parametrize(
    ("quantity", "typed", "mark"),
    [
        ("std", "0.587", "≈ Right up to rounding"),  # off by one in the last place
        ("mean", "0.4", "≈ Right up to rounding"),  # fewer than two significant digits
        ("mean", "0.446", "✓ Right"),
    ],
)
def test_a_right_answer_of_either_kind_is_shown_in_blue_with_its_own_mark(quantity, typed, mark):
    box = widgets.answer_checker(ROW, quantity)
    verdict = box.check(typed)
    assert verdict.is_right
    assert box.verdict_html.value.startswith(f'<div style="color:#005a87"><b>{mark}</b> ({typed}): ')


def test_a_wrong_answer_is_shown_in_the_warning_colour():
    box = widgets.answer_checker(ROW, "std")
    assert not box.check("0.7").is_right
    assert box.verdict_html.value.startswith('<div style="color:#a33c00"><b>✗ Not yet</b> (0.7): ')
