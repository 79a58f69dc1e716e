"""The row editor's boxes (helpers/widgets/row.py): one small box per value for rows up to MAX_VALUE_BOXES (12)
long, the limit included; a longer row is edited in the paste field alone."""

from __future__ import annotations

import pytest

from helpers import widgets
from helpers.widgets.base import MAX_VALUE_BOXES


@pytest.mark.parametrize("length", [MAX_VALUE_BOXES - 1, MAX_VALUE_BOXES])
def test_a_row_up_to_the_limit_gets_one_box_per_value(length):
    row = [float(v) for v in range(1, length + 1)]
    editor = widgets.row_editor(row)
    assert [float(box.value) for box in editor.value_boxes] == row
    editor.set_row(row[::-1])
    assert [float(box.value) for box in editor.value_boxes] == row[::-1]


def test_one_value_more_gets_no_boxes():
    editor = widgets.row_editor([float(v) for v in range(MAX_VALUE_BOXES + 1)])
    assert editor.value_boxes == []
    editor.set_row(list(range(MAX_VALUE_BOXES)))
    assert len(editor.value_boxes) == MAX_VALUE_BOXES
