"""``live_table(make_table, **controls)``: the controls, in the order given, above the table; ``values()`` is the
controls' current values by name; a bad start raises in the notebook cell; afterwards nothing raises: a
``ValueError`` is shown as its own words, any other error as "Something went wrong: …", and the last good table
stays (in the page and in the text form) until a control makes a good one.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

from ipywidgets import Dropdown, FloatText  # noqa: E402

from helpers import show_matrix, widgets  # noqa: E402


def scaled(scale, dtype="float64"):
    if scale == 0:
        raise ValueError("The scale must not be 0.")
    if scale < 0:
        raise RuntimeError("negative scales are not written yet")
    return show_matrix([[1.0 * scale, 2.0 * scale]], title=f"scale {scale:g} ({dtype})")


def test_the_controls_stand_in_the_order_given_above_the_message_and_the_table():
    scale, dtype = FloatText(value=1.0, description="scale"), Dropdown(options=["float64", "float32"])
    table = widgets.live_table(scaled, scale=scale, dtype=dtype)
    assert table.children == (scale, dtype, table.message_html, table.table_html)
    assert table.values() == {"scale": 1.0, "dtype": "float64"}
    dtype.value = "float32"
    assert table.values() == {"scale": 1.0, "dtype": "float32"}
    assert repr(table) == str(show_matrix([[1.0, 2.0]], title="scale 1 (float32)"))


def test_a_bad_start_raises_in_the_cell():
    with pytest.raises(ValueError, match="The scale must not be 0."):
        widgets.live_table(scaled, scale=FloatText(value=0.0))


def test_an_unexpected_error_is_a_message_and_the_last_good_table_stays():
    control = FloatText(value=2.0)
    table = widgets.live_table(scaled, scale=control)
    good = show_matrix([[2.0, 4.0]], title="scale 2 (float64)")
    control.value = -1.0  # must not raise
    assert table.message == "Something went wrong: negative scales are not written yet"
    assert table.table_html.value == good._repr_html_()
    assert repr(table) == f"{good}\n⚠ Something went wrong: negative scales are not written yet"
    control.value = 3.0
    assert table.message == "" and repr(table) == str(show_matrix([[3.0, 6.0]], title="scale 3 (float64)"))
