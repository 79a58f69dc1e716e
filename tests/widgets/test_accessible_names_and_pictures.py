"""What a screen reader gets from a control or a picture, and which widgets bring the host fixes.

From the docstrings of :mod:`helpers.widgets.accessibility`: a control's accessible name is its description,
else its tooltip (``description_tooltip`` on ipywidgets 7.7); a picture's text alternative is its title in 8
(with an empty synced description, so that 8's view lets the title through) and visible text under it; a
widget holding a slider or a drop-down, anywhere inside, is shown with the script that names slider handles.
"""

from __future__ import annotations

import pytest

pytest.importorskip("ipywidgets")

import ipywidgets  # noqa: E402
import traitlets  # noqa: E402

from helpers import widgets  # noqa: E402
from helpers.widgets import accessibility  # noqa: E402
from helpers.widgets.accessibility import (  # noqa: E402
    HOST_FIXES_JS,
    accessible_name,
    caption_html,
    describe_image,
    host_fixes_bundle,
    needs_host_fixes,
)

needs_8 = pytest.mark.skipif(not accessibility.IPYWIDGETS_8, reason="ipywidgets 8 behaviour")


# --- accessible names


def test_a_button_is_named_by_its_text_before_its_tooltip():
    assert accessible_name(ipywidgets.Button(description="  Check my answer ", tooltip="press to check")) == (
        "Check my answer"
    )


def test_a_field_is_named_by_its_label():
    assert accessible_name(ipywidgets.Text(description="exact ε:")) == "exact ε:"


@needs_8
def test_a_control_without_a_label_is_named_by_its_tooltip():
    assert accessible_name(ipywidgets.Text(tooltip="your answer")) == "your answer"
    assert accessible_name(ipywidgets.Image(tooltip="Number line of the row")) == "Number line of the row"


def test_a_control_with_neither_label_nor_tooltip_has_no_name():
    assert accessible_name(ipywidgets.Text()) == ""
    assert accessible_name(ipywidgets.Image()) == ""


def test_words_kept_outside_the_synced_traits_never_reach_the_browser_so_name_nothing():
    image = ipywidgets.Image()
    image.description = "a number line"  # a plain attribute: not a trait, not sent to the page
    assert "description" not in image.get_state()
    assert accessible_name(image) == ""


class Colab77Text(traitlets.HasTraits):
    """A text field as ipywidgets 7.7 (Colab) has it: a description and a description_tooltip, no tooltip."""

    description = traitlets.Unicode("")
    description_tooltip = traitlets.Unicode(None, allow_none=True)


def test_on_ipywidgets_7_a_field_named_in_code_is_named_by_its_hover_text(monkeypatch):
    monkeypatch.setattr(accessibility, "IPYWIDGETS_8", False)
    field = accessibility.name(Colab77Text(), "your answer")
    assert field.description_tooltip == "your answer"
    assert accessible_name(field) == "your answer"


# --- a picture's text alternative


@needs_8
def test_a_described_image_has_its_alt_as_title_and_an_empty_synced_description():
    image = ipywidgets.Image(value=b"", format="png")
    describe_image(image, "Number line of the row: mean 2, std 0.8165")
    state = image.get_state()
    assert state["tooltip"] == "Number line of the row: mean 2, std 0.8165"
    assert state["description"] == ""  # 8's view sets the title only when the description is empty
    assert accessible_name(image) == "Number line of the row: mean 2, std 0.8165"


@needs_8
def test_describing_an_image_again_changes_only_its_title():
    image = ipywidgets.Image(value=b"", format="png")
    describe_image(image, "first picture")
    describe_image(image, "the redrawn picture")
    state = image.get_state()
    assert (state["tooltip"], state["description"]) == ("the redrawn picture", "")
    assert accessible_name(image) == "the redrawn picture"


def test_on_ipywidgets_7_an_image_is_left_as_it_is(monkeypatch):
    monkeypatch.setattr(accessibility, "IPYWIDGETS_8", False)
    image = ipywidgets.Image(value=b"", format="png")
    describe_image(image, "Number line of the row")
    assert "description" not in image.trait_names()
    assert image.tooltip is None


def test_a_caption_without_numbers_is_the_alt_text_alone_escaped():
    assert caption_html("Number line: mean 2 & std <1>") == (
        '<div style="font-size:12px;color:#444;max-width:600px">Number line: mean 2 &amp; std &lt;1&gt;</div>'
    )


def test_a_caption_with_numbers_folds_them_under_the_alt_text():
    assert caption_html("Number line of the row", "x   1\ny  <2>") == (
        '<div style="font-size:12px;color:#444;max-width:600px">Number line of the row'
        "<details><summary>the picture's numbers as text</summary><pre>x   1\ny  &lt;2&gt;</pre></details></div>"
    )


def test_the_row_editors_picture_caption_holds_its_numbers_in_a_fold():
    caption = widgets.row_editor([1, 2, 3], plot=True).plot_caption.value
    assert caption.startswith('<div style="font-size:12px;color:#444;max-width:600px">')
    assert "<details><summary>the picture's numbers as text</summary><pre>" in caption
    assert caption.endswith("</pre></details></div>")


# --- which widgets need the host fixes, and the bundle they bring


@pytest.mark.parametrize(
    "control",
    [
        ipywidgets.FloatLogSlider(),
        ipywidgets.FloatSlider(),
        ipywidgets.IntSlider(),
        ipywidgets.SelectionSlider(options=["a", "b"]),
        ipywidgets.Dropdown(options=["a", "b"]),
        ipywidgets.RadioButtons(options=["a", "b"]),
    ],
    ids=lambda control: type(control).__name__,
)
def test_a_slider_or_drop_down_needs_the_host_fixes(control):
    assert needs_host_fixes(control) is True


@pytest.mark.parametrize(
    "widget",
    [ipywidgets.Button(description="Check"), ipywidgets.Text(), ipywidgets.HTML("ε"), ipywidgets.VBox()],
    ids=lambda widget: type(widget).__name__,
)
def test_a_widget_without_slider_or_drop_down_needs_no_host_fixes(widget):
    assert needs_host_fixes(widget) is False


def test_a_slider_deep_inside_boxes_needs_the_host_fixes():
    nested = ipywidgets.VBox([ipywidgets.HTML("ε"), ipywidgets.HBox([ipywidgets.Text(), ipywidgets.FloatSlider()])])
    assert needs_host_fixes(nested) is True
    assert needs_host_fixes(ipywidgets.VBox([ipywidgets.HBox([ipywidgets.Text(), ipywidgets.Button()])])) is False


def test_the_host_fixes_bundle_is_the_script_as_javascript():
    assert host_fixes_bundle() == {"application/javascript": HOST_FIXES_JS}


def displayed(widget) -> list[dict]:
    """The outputs Jupyter stores when ``widget`` is displayed: their data bundles, in order."""
    from IPython.core.interactiveshell import InteractiveShell
    from IPython.display import display
    from IPython.utils.capture import capture_output

    InteractiveShell.instance()
    with capture_output() as captured:
        display(widget)
    return [output.data for output in captured.outputs]


@needs_8
def test_a_row_editor_is_shown_with_the_script_and_a_number_question_without():
    editor_outputs = displayed(widgets.row_editor([1, 2, 3]))
    assert len(editor_outputs) == 2
    assert "application/vnd.jupyter.widget-view+json" in editor_outputs[0]
    assert editor_outputs[1] == {"application/javascript": HOST_FIXES_JS}
    question_outputs = displayed(widgets.number_question("The mean of 1, 2, 3?", 2, 0.01))
    assert len(question_outputs) == 1
    assert "application/vnd.jupyter.widget-view+json" in question_outputs[0]
