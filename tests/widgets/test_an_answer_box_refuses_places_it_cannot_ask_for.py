"""``answer_checker(..., places=...)``: "how many decimal places the question asks for (see
``answer_check.diagnose``)", which takes a whole number 0 or more. A box asking for -1 or 2.5 places cannot
be answered (every answer was told "Your answer places must be …"): it is refused when made, in the cell,
in the sentence ``diagnose`` uses, as a bad quantity or index is.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

from helpers import widgets  # noqa: E402

ROW = [1.133, -0.299, 0.503]


@pytest.mark.parametrize("places", [-1, 2.5, True, "2"])
def test_places_that_are_not_a_whole_number_0_or_more_are_refused_when_the_box_is_made(places):
    with pytest.raises(ValueError) as refused:
        widgets.answer_checker(ROW, "mean", places=places)
    assert str(refused.value) == f"places must be a whole number of decimal places, 0 or more; got {places!r}."


@pytest.mark.parametrize("places", [0, 3, np.int64(2)])
def test_whole_places_are_asked_for_and_answers_get_a_verdict(places):
    box = widgets.answer_checker(ROW, "mean", places=places)
    mean = float(np.mean(ROW))
    verdict = box.check(f"{mean:.{max(int(places), 4)}f}")
    assert box.message == "" and verdict is not None and verdict.is_right
