"""The row editor's "by hand, rounding every step to … places" switch: off at first, with the places field at the
lesson's three places (notebook 02: "we keep three decimal places"), so that switching it on gives what the
learner wrote on paper - "Row 1's mean is 0.446 by hand (three places)".
"""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402

from conftest import LESSON_X as X  # noqa: E402


def test_switching_by_hand_on_rounds_every_step_to_three_places():
    editor = widgets.row_editor(X[0])
    assert editor.by_hand.value is False and editor.places.value == 3
    assert editor.record.decimals is None
    editor.by_hand.value = True
    assert editor.record.decimals == 3
    assert f"{editor.record.mean:.3f}" == "0.446" and editor.record.mean == pytest.approx(0.446, abs=1e-12)
    assert "by hand, rounding every step to 3 places" in editor.announcement.value


def test_decimals_given_are_the_places_shown_and_used():
    editor = widgets.row_editor(X[0], decimals=2)
    assert editor.by_hand.value is True and editor.places.value == 2 and editor.record.decimals == 2
