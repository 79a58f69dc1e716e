"""The widgets as a learner and a screen-reader user experience them, step by step (issue 24).

Each test drives a widget the way a person does and checks, after every action, what the person can
do next and what they read or hear, against numbers computed here in plain numpy. A button is pressed
only while it is enabled (see :func:`press`), since a person cannot press a disabled one.
"""

from __future__ import annotations

import html
import re

import numpy as np
import pytest

pytest.importorskip("ipywidgets")

import helpers  # noqa: E402
from helpers import widgets  # noqa: E402

from conftest import LESSON_X as X  # noqa: E402
from conftest import numpy_layer_norm, numpy_stages  # noqa: E402
from widget_driver import four, rows_by_label  # noqa: E402

# The explorer's stages in the order the lesson teaches them (notebook 03), written out here.
STAGES = (
    "input",
    "mean",
    "differences",
    "squared_differences",
    "variance",
    "variance_plus_eps",
    "std",
    "normalised",
    "output",
)
LAST = len(STAGES) - 1


def press(button) -> bool:
    """Press ``button`` as a person does: only while it is enabled. True when it was pressed."""
    if button.disabled:
        return False
    button.click()
    return True


# --- step explorer: Next and Previous at every stage


def assert_buttons_fit_the_stage(explorer, position: int) -> None:
    where = f"at stage {position + 1} ({STAGES[position]})"
    assert explorer.stage == STAGES[position], where
    assert explorer.next_button.disabled == (position == LAST), f"Next {where}"
    assert explorer.previous_button.disabled == (position == 0), f"Previous {where}"
    label = explorer.position_label.value
    assert label.startswith(f"step {position + 1} of {len(STAGES)}: {widgets.STAGE_LABELS[STAGES[position]][0]}"), label
    if position < LAST:
        assert label.endswith(f"(next: {widgets.STAGE_LABELS[STAGES[position + 1]][0]})"), label
    else:
        assert "next:" not in label, label


@pytest.mark.parametrize("decimals", [None, 3])
def test_explorer_next_and_previous_are_enabled_exactly_while_there_is_a_stage_to_go_to(decimals):
    assert tuple(widgets.EXPLORER_STAGES) == STAGES
    explorer = widgets.step_explorer(X, row=0, decimals=decimals)
    for position in range(LAST):  # forwards, pressing Next like a person
        assert_buttons_fit_the_stage(explorer, position)
        assert press(explorer.next_button), f"Next is disabled at stage {position + 1}, before the last"
    assert_buttons_fit_the_stage(explorer, LAST)
    shown = explorer.stages_html.value
    explorer.next_button.click()  # a click from code on the disabled Next does nothing either
    explorer.next()
    assert_buttons_fit_the_stage(explorer, LAST)
    assert explorer.stages_html.value == shown
    for position in range(LAST, 0, -1):  # and back, pressing Previous
        assert_buttons_fit_the_stage(explorer, position)
        assert press(explorer.previous_button), f"Previous is disabled at stage {position + 1}"
    assert_buttons_fit_the_stage(explorer, 0)
    explorer.previous_button.click()
    explorer.previous()
    assert_buttons_fit_the_stage(explorer, 0)


def test_explorer_methods_press_like_a_person_and_reach_every_stage_both_ways():
    explorer = widgets.step_explorer(X, row=1)
    seen = [explorer.stage]
    for _ in range(LAST):
        explorer.next()
        seen.append(explorer.stage)
    assert tuple(seen) == STAGES
    for position in range(LAST - 1, -1, -1):
        explorer.previous()
        assert_buttons_fit_the_stage(explorer, position)


def test_explorer_buttons_stay_right_through_a_row_change_and_show_all():
    explorer = widgets.step_explorer(X, row=0)
    for position in range(1, len(STAGES)):
        press(explorer.next_button)
        explorer.select_row(position % 5)
        assert_buttons_fit_the_stage(explorer, position)
        explorer.show_all(True)
        explorer.show_all(False)
        assert_buttons_fit_the_stage(explorer, position)


# --- matrix editor: a flat list is one row


ROW = [1.133, -0.299, 0.503]


def test_a_flat_list_given_to_the_matrix_editor_is_one_row_of_three_features():
    editor = widgets.matrix_editor(ROW)
    assert [[cell.value for cell in line] for line in editor.cells] == [["1.133", "-0.299", "0.503"]]
    assert [cell.description for cell in editor.cells[0]] == [f"row 1, feature f{j}" for j in (1, 2, 3)]
    assert [label for label, _ in editor.row_picker.options] == ["row 1"]
    expected = numpy_layer_norm([ROW])
    np.testing.assert_allclose(editor.output, expected, atol=1e-12)
    np.testing.assert_allclose(editor.output, helpers.layer_norm(np.array([ROW])), atol=1e-12)
    shown = rows_by_label(editor.output_html.value)
    assert [label for label in shown if label.startswith("row")] == ["row 1"]
    assert shown["row 1"].cells[1:4] == [four(v) for v in expected[0]]
    steps = rows_by_label(editor.steps_html.value)
    assert steps["output"].numbers() == [float(four(v)) for v in expected[0]]
    editor.set_cell(0, 1, "0.911")  # still one row after an edit
    np.testing.assert_allclose(editor.output, numpy_layer_norm([[1.133, 0.911, 0.503]]), atol=1e-12)


def test_a_flat_list_given_to_the_explorer_is_one_row():
    explorer = widgets.step_explorer(ROW)
    explorer.show_all(True)
    np.testing.assert_allclose(explorer.record.input, ROW)
    np.testing.assert_allclose(explorer.record.output, numpy_stages(ROW)["output"], atol=1e-12)
    assert [label for label, _ in explorer.row_picker.options] == ["row 1"]


def test_a_bad_cell_stays_named_and_marked_when_another_row_is_picked():
    editor = widgets.matrix_editor(X)
    good = editor.output.copy()
    editor.set_cell(1, 2, "abc")
    message = editor.message
    assert "row 2, feature 3" in message
    editor.select_row(3)
    assert editor.message == message and editor.cells[1][2].layout.border  # the cell still holds "abc"
    np.testing.assert_array_equal(editor.output, good)
    np.testing.assert_allclose(editor.record.output, numpy_stages(X[3])["output"], atol=1e-12)
    assert "last good" in repr(editor)
    assert message in html.unescape(re.sub(r"<[^>]+>", "", editor.message_html.value))


# --- row editor: the announcement says the numbers shown


SENTENCE = re.compile(
    r"mean now (?P<mean>\S+), standard deviation now (?P<std>\S+) \(√\(σ² \+ ε\)\), "
    r"output now (?P<output>.+?)(; by hand, rounding every step to (?P<places>\d+) places)?\.$"
)


def announced(editor) -> dict:
    """What a screen reader reads from the live region, split into its numbers (as text)."""
    value = editor.announcement.value
    assert 'role="status"' in value and 'aria-live="polite"' in value
    said = html.unescape(re.sub(r"<[^>]+>", "", value)).strip()
    found = SENTENCE.match(said)
    assert found, said
    return {
        "mean": [found["mean"]],
        "std": [found["std"]],
        "output": found["output"].split(", "),
        "places": found["places"],
    }


def shown_column(editor, label: str) -> list[str]:
    """The numbers the step table shows for ``label``: the by-hand column when rounding by hand."""
    cells = rows_by_label(editor.table.value)[label].cells[2:]
    if "│" in cells:
        cells = cells[: cells.index("│")]
    return [cell for cell in cells if cell]


def assert_announces_what_is_shown(editor, places: int | None) -> dict:
    said = announced(editor)
    assert said["places"] == (None if places is None else str(places))
    digits = 4 if places is None else places
    pattern = rf"-?\d+\.\d{{{digits}}}" if digits else r"-?\d+"
    for label in ("mean", "std", "output"):
        assert said[label] == shown_column(editor, label), f"{label}: said {said[label]}"
        assert all(re.fullmatch(pattern, number) for number in said[label]), f"{label} not at {digits} places"
    return said


@pytest.mark.parametrize("row, places", [(X[0], 1), (X[0], 2), (X[0], 3), (X[3], 5), ([12.5, -7.25, 4.125], 0)])
def test_by_hand_the_announcement_says_the_numbers_shown_at_those_places(row, places):
    editor = widgets.row_editor(row)
    editor.by_hand.value = True  # as a person: tick "by hand", then type the places
    editor.places.value = places
    said = assert_announces_what_is_shown(editor, places)
    assert said["output"] != [four(v) for v in numpy_stages(row)["output"]]  # not the exact numbers


def test_the_announcement_changes_with_the_places_and_returns_to_exact():
    editor = widgets.row_editor(X[0])
    exact = assert_announces_what_is_shown(editor, None)
    assert exact["output"] == [four(v) for v in numpy_stages(X[0])["output"]]
    heard = []
    for places in (1, 2, 3, 4, 6):
        editor.set_decimals(places)
        heard.append(assert_announces_what_is_shown(editor, places))
        assert len(heard) == 1 or heard[-1] != heard[-2], f"the same words at {places} places"
    editor.set_decimals(None)
    assert assert_announces_what_is_shown(editor, None) == exact


def test_a_message_is_shown_once_beside_its_field_and_announced_once():
    editor = widgets.row_editor(X[0], decimals=2)
    editor.set_eps("abc")
    assert editor.message.count("not a number") == 1
    said = html.unescape(re.sub(r"<[^>]+>", "", editor.announcement.value))
    assert said.count("not a number") == 1 and "last good" in said
    beside = [name for name, box in editor.messages.items() if "not a number" in box.value]
    assert beside == ["eps"]
    editor.set_eps("1e-5")
    assert_announces_what_is_shown(editor, 2)
