"""The options a projected slide uses (lecture/): a row editor showing chosen stages and controls, a
matrix editor working its row out in chosen stages. Expected numbers in plain Python."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("ipywidgets")

from expected_numbers import X  # noqa: E402

from helpers import widgets  # noqa: E402


def std(row, eps=1e-5):
    mean = sum(row) / len(row)
    return math.sqrt(sum((v - mean) ** 2 for v in row) / len(row) + eps)


def lines_named(text: str) -> list[str]:
    """The stage names a steps text shows, in order (its lines start with a stage label)."""
    labels = ("input", "mean", "differences", "squares", "variance + ε", "variance", "epsilon", "std", "normalised")
    found = []
    for line in text.splitlines()[1:]:
        words = line.replace("▶", "").strip()
        found += [label for label in labels + ("gamma", "beta", "output") if words.startswith(label)][:1]
    return found


def test_a_row_editor_shows_only_the_stages_asked_for_and_unfolds_all_on_request():
    editor = widgets.row_editor(X[4], stages=("input", "variance_plus_eps", "std", "normalised"))
    shown = repr(editor)
    assert lines_named(shown) == ["input", "variance + ε", "std", "normalised"], shown
    assert f"{std(X[4]):.4f}" in shown and "6 more steps folded: press “show every step”" in shown
    assert "mean" not in editor.table.value.split("folded")[0].lower().replace("mean now", "")
    editor.later_toggle.value = True  # "show every step"
    every = ["input", "mean", "differences", "squares", "variance", "epsilon", "variance + ε", "std", "normalised"]
    assert lines_named(repr(editor)) == [*every, "output"], repr(editor)
    assert "folded" not in repr(editor)


def test_a_row_editor_shows_only_the_controls_asked_for():
    editor = widgets.row_editor(X[0], controls=("values", "gamma", "beta"))
    shown = {
        "row": editor.children[0],
        "values": editor.value_boxes_row,
        "eps": editor.children[2],
        "gamma": editor.children[3],
        "beta": editor.children[4],
        "by_hand": editor.children[5],
    }
    hidden = sorted(name for name, box in shown.items() if box.layout.display == "none")
    assert hidden == ["by_hand", "eps", "row"], hidden
    editor.set_gamma([2, 1, 0])  # the controls shown still work
    assert "2.0000" in repr(editor)


def test_an_unknown_control_or_stage_is_named_in_one_sentence():
    with pytest.raises(ValueError, match=r"controls names lines that do not exist: 'epsilon'; they are row, values"):
        widgets.row_editor(X[0], controls=("epsilon",))
    with pytest.raises(ValueError, match=r"stages names stages that do not exist: 'sd'"):
        widgets.row_editor(X[0], stages=("sd",))


def test_a_matrix_editor_works_its_row_out_in_the_stages_asked_for():
    editor = widgets.matrix_editor(X, stages=("std", "normalised"))
    worked = repr(editor).split("\n\n", 1)[1]
    assert lines_named(worked) == ["std", "normalised"], worked
    editor.set_cell(0, 0, "2.5")
    assert f"{std([2.5, X[0][1], X[0][2]]):.4f}" in repr(editor)
    assert "layernorm-matrix-editor" in editor._dom_classes
    assert all("layernorm-cell" in cell._dom_classes for line in editor.cells for cell in line)
