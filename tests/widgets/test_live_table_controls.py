"""A live table's controls as notebooks 09–13 give them: a drop-down, a text box, controls with no
description or no label width (an image, an upload button); the table made once per change, the
labels' widths, and the text form under a refused value.
"""

from __future__ import annotations

import numpy as np
import pytest

ipywidgets = pytest.importorskip("ipywidgets")

import helpers  # noqa: E402
from helpers import widgets  # noqa: E402


def test_picking_from_a_drop_down_makes_the_table_once():
    """Notebook 12's table times an implementation: each pick must run make_table once, with the new value."""
    made = []

    def one_implementation(name, regime):
        made.append((name, regime))
        return helpers.show_matrix([[len(name), len(regime)]], title=f"{name}, {regime}")

    name = ipywidgets.Dropdown(options=["numpy", "torch"], value="numpy", description="implementation")
    regime = ipywidgets.Dropdown(options=["from memory", "from cache"], value="from memory", description="regime")
    table = widgets.live_table(one_implementation, name=name, regime=regime)
    assert made == [("numpy", "from memory")]
    name.value = "torch"
    regime.value = "from cache"
    assert made == [("numpy", "from memory"), ("torch", "from memory"), ("torch", "from cache")]
    name.description = "implementation used"  # not a value: the table is not made again
    assert len(made) == 3
    assert table.table_html.value == helpers.show_matrix([[5, 10]], title="torch, from cache")._repr_html_()


def test_the_text_form_under_a_refused_value_is_the_last_table_then_the_warning():
    def scaled(scale):
        if scale <= 0:
            raise ValueError("The scale must be positive.")
        return helpers.show_matrix(np.array([[1.0, 2.0]]) * scale, title=f"scale {scale:g}")

    control = ipywidgets.FloatText(value=2.0, description="scale")
    table = widgets.live_table(scaled, scale=control)
    good = str(helpers.show_matrix(np.array([[2.0, 4.0]]), title="scale 2"))
    control.value = -1.0
    assert repr(table) == good + "\n⚠ The scale must be positive."
    assert table.message_html.value == '<span style="color:#a33c00">⚠ The scale must be positive.</span>'


def test_a_labelled_control_gets_a_label_as_wide_as_its_words_and_an_unlabelled_one_is_left_alone():
    labelled = ipywidgets.Dropdown(options=[1, 2], description="learning rate")
    chosen = ipywidgets.FloatSlider(description="offset", style={"description_width": "120px"})
    unlabelled = ipywidgets.Textarea(value="1 2 3", rows=6)  # notebook 13's table box has no description
    widgets.live_table(
        lambda rate, offset, table: helpers.show_matrix([[rate]]), rate=labelled, offset=chosen, table=unlabelled
    )
    assert labelled.style.description_width == "initial"
    assert chosen.style.description_width == "120px"
    assert unlabelled.style.description_width == ""


def test_controls_without_a_description_or_a_label_width_are_placed_as_they_are():
    """An image has neither a description nor a style; an upload button's style has no label width."""
    picture = ipywidgets.Image()
    upload = ipywidgets.FileUpload(description="Upload")

    def count(picture, upload):
        return helpers.show_matrix([[len(picture), len(upload)]], title="files")

    table = widgets.live_table(count, picture=picture, upload=upload)
    assert list(table.children) == [picture, upload, table.message_html, table.table_html]
    assert upload.description == "Upload" and table.message == ""
    assert repr(table) == str(helpers.show_matrix([[0, 0]], title="files"))
