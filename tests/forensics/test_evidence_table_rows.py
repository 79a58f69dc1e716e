"""The fingerprint's evidence table as notebook 13's learner reads it (helpers/forensics/fingerprint_view.py):
the determinism and state rows, the axis row, the γ and β rows, which rows appear when a verdict is cut short,
the notes under the table, and what the HTML says with its tags: each row's name a row heading, the rows
that do not explain a printed table shaded, and which columns wrap. Every expected row is whole, word for
word, as it is printed; the functions are small numpy ones, fingerprinted in milliseconds."""

from __future__ import annotations

from html.parser import HTMLParser

import numpy as np
import pytest

import helpers
from helpers.display.formatting import FLAG_STYLE
from helpers.forensics import fingerprint
from helpers.forensics.display import table_fingerprint_html
from helpers.forensics.fingerprint_view import HEADER, fingerprint_html, fingerprint_rows, fingerprint_view
from helpers.forensics.record import Fingerprint, Measurements
from helpers.forensics.table import fingerprint_table, read_table

ALL_PRECISIONS = "float64, float32, float16, bfloat16"
IDENTICAL = ("deterministic", "yes", "determinism probe: the same 7 × 4 matrix twice gave identical outputs")
STATE_PROBE = (
    "state probe: A, then A's rows reversed, then A: the reversed rows came out reversed and A came out as before"
)
NO_STATE = ("keeps state", "no", STATE_PROBE + ", and once more after every probe")
ROWS = (
    "axis",
    "rows: each token's features",
    "edit probe: editing token 1 moved output rows: 1; editing feature 1 moved output columns: 1, 2, 3, 4",
)
NO_GAMMA = ("γ", "none (the same on every feature)", "±row probe: r and −r give γ feature by feature")
BETA_EVIDENCE = "±row probe: half of the outputs of r and −r added (a LayerNorm gives 0)"
NO_BETA = ("β", "0", BETA_EVIDENCE)
FULL_TABLE = [
    "deterministic",
    "keeps state",
    "axis",
    "precision",
    "γ",
    "β",
    "subtracts the mean",
    "variance",
    "ε placement",
    "ε",
    "one-pass variance",
    "a row of equal values",
    "matches F.layer_norm (ε = 1e-5)",
]


def layer_norm(x):
    x = np.asarray(x, dtype=np.float64)
    return (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)


class Jittery:
    """A LayerNorm whose output wobbles by ±3e-7 of itself from one call to the next."""

    def __init__(self):
        self.calls = 0

    def __call__(self, x):
        self.calls += 1
        return layer_norm(x) * (1 + 3e-7 * (-1) ** self.calls)


class WithWeight:
    """A LayerNorm that shows its γ as ``weight``, as nn.LayerNorm does."""

    weight = np.array([1.5, -0.75, 2.0, 0.5])

    def __call__(self, x):
        return layer_norm(x) * self.weight


def caches_its_statistics():
    cached = {}

    def fn(x):
        if x.shape not in cached:  # the first matrix of each shape fixes the mean and variance for good
            cached[x.shape] = (x.mean(axis=-1, keepdims=True), x.var(axis=-1, keepdims=True))
        mean, variance = cached[x.shape]
        return (x - mean) / np.sqrt(variance + 1e-5)

    return fn


def rows_of(fn, name: str = "f") -> dict:
    """The fingerprint's rows by name, and their names in order."""
    rows = fingerprint_rows(fingerprint(fn, name, time_limit=None))
    return {row[0]: row for row in rows}


def named(rows: dict, *names: str) -> list:
    return [rows[name] for name in names]


# --- the determinism and state rows --------------------------------------------------------------------------------


def test_a_layer_norm_is_deterministic_keeps_no_state_and_shows_every_row():
    rows = rows_of(layer_norm)
    assert list(rows) == FULL_TABLE
    assert named(rows, "deterministic", "keeps state", "axis") == [IDENTICAL, NO_STATE, ROWS]


def test_a_function_whose_output_wobbles_is_not_deterministic_and_says_by_how_much_in_words():
    rows = rows_of(Jittery())
    assert list(rows) == FULL_TABLE
    assert named(rows, "deterministic", "keeps state") == [
        (
            "deterministic",
            "no",
            "determinism probe: the same 7 × 4 matrix twice gave outputs that differ by 600 billionths of their "
            "size; every check below allows for 8 times that",
        ),
        ("keeps state", "none seen beyond its noise", STATE_PROBE + ", and once more after every probe"),
    ]


def test_a_function_that_keeps_state_shows_only_what_was_seen_before_it():
    found = fingerprint(caches_its_statistics(), "caches", time_limit=None)
    assert fingerprint_rows(found) == [
        IDENTICAL,
        ("keeps state", "yes, or depends on position", "state probe: see the sentence below"),
    ]
    assert fingerprint_view(found).notes == (f"? {found.differences[0]}",)
    assert found.differences[0].startswith("Cannot tell whether it is a LayerNorm: the same rows in reverse order")


def test_a_function_of_the_whole_matrix_stops_at_the_axis_and_its_state_probe_ran_once_only():
    def whole_matrix(x):
        x = np.asarray(x, dtype=np.float64)
        return (x - x.mean()) / np.sqrt(x.var() + 1e-5)

    found = fingerprint(whole_matrix, "whole", time_limit=None)
    assert fingerprint_rows(found) == [
        IDENTICAL,
        ("keeps state", "no", STATE_PROBE),  # no probe after the axis: nothing to check once more after
        (
            "axis",
            "neither rows nor columns",
            "edit probe: editing token 1 moved output rows: 1, 2, 3, 4, 5, 6, 7; editing feature 1 moved output "
            "columns: 1, 2, 3, 4",
        ),
    ]
    assert fingerprint_view(found).notes == (
        "Differences from PyTorch's LayerNorm:",
        "✗ It does not normalise one row or one column at a time: editing one token moved the output of other "
        "tokens and other features.",
    )


# --- the axis row ---------------------------------------------------------------------------------------------------


def test_a_layer_norm_down_the_columns_says_so_and_lists_every_row_the_edit_moved():
    def down_columns(x):
        x = np.asarray(x, dtype=np.float64)
        return (x - x.mean(0, keepdims=True)) / np.sqrt(x.var(0, keepdims=True) + 1e-5)

    found = fingerprint(down_columns, "columns", time_limit=None)
    assert {row[0]: row for row in fingerprint_rows(found)}["axis"] == (
        "axis",
        "columns: each feature's tokens",
        "edit probe: editing token 1 moved output rows: 1, 2, 3, 4, 5, 6, 7; editing feature 1 moved output columns: 1",
    )
    assert fingerprint_view(found).notes == (
        "Differences from PyTorch's LayerNorm:",
        "✗ It normalises each column (one feature across the tokens), not each row (one token's features) as "
        "PyTorch does.",
    )


def test_an_edit_that_moved_nothing_is_listed_as_none_and_the_sentence_under_it_says_so():
    found = fingerprint(lambda x: np.zeros(np.shape(x)), "zeros", time_limit=None)
    assert fingerprint_rows(found)[2] == (
        "axis",
        "neither rows nor columns",
        "edit probe: editing token 1 moved output rows: none; editing feature 1 moved output columns: none",
    )
    assert fingerprint_view(found).notes == (
        "Differences from PyTorch's LayerNorm:",
        "✗ It does not normalise one row or one column at a time: editing one token, or one feature, moved none "
        "of its output.",
    )


# --- verdicts cut short: which rows appear -------------------------------------------------------------------------


def test_a_fit_between_two_precisions_ends_the_table_at_a_precision_row_that_cannot_tell():
    def nearly(x):  # a LayerNorm bent by about 1e-9 of its size: more than float64 leaves, less than float32 would
        y = layer_norm(x)
        return y + 1e-9 * np.cos(7 * y) * np.abs(y).max(axis=-1, keepdims=True)

    assert list(rows_of(nearly).values()) == [
        IDENTICAL,
        NO_STATE,
        ROWS,
        ("precision", "cannot tell", f"residual probe: precisions tried: {ALL_PRECISIONS}"),
    ]


def test_a_function_that_is_no_layer_norm_ends_the_table_at_why_with_every_precision_tried():
    def softmax(x):
        e = np.exp(x - x.max(-1, keepdims=True))
        return e / e.sum(-1, keepdims=True)

    found = fingerprint(softmax, "softmax", time_limit=None)
    assert fingerprint_rows(found) == [
        IDENTICAL,
        NO_STATE,
        ROWS,
        (
            "a LayerNorm?",
            "no",
            "shape probe: the best stretch-and-shift of each centred input row misses its output row by 0.3 of the "
            f"row's size (precisions tried: {ALL_PRECISIONS})",
        ),
    ]
    assert fingerprint_view(found).notes == (f"✗ {found.differences[0]}",)
    assert found.differences[0].startswith("It is not a LayerNorm: its output row")


def test_cannot_tell_whether_it_centres_states_the_three_sizes_as_measured_and_ends_the_table():
    measured = Measurements(
        features=4, rows_changed=(1,), columns_changed=(1, 2, 3, 4), computes_in="bfloat16", end_change=0.0,
        centring_change=0.6, centring_departure=0.5, uncentred_change=0.9, centring_bound=0.6,
    )  # fmt: skip
    found = Fingerprint(
        "coarse", None, None, None, None, "rows", None, None, ["(the sentence)"], "none", None, measured, None,
        "centring",
    )  # fmt: skip
    assert fingerprint_rows(found) == [
        IDENTICAL,
        NO_STATE,
        ROWS,
        (
            "subtracts the mean",
            "cannot tell",
            "centring probe: adding 3 to every value of a row moved its output 0.5 of the row's size away from a "
            "LayerNorm's and an RMSNorm's would go 0.9 of the row's size away; bfloat16's rounding allows up to "
            "0.6 of the row's size",
        ),
    ]
    assert fingerprint_view(found).notes == ("? (the sentence)",)


# --- γ and β --------------------------------------------------------------------------------------------------------


def test_a_layer_norm_without_gamma_or_beta_shows_none_and_0():
    assert named(rows_of(layer_norm), "γ", "β") == [NO_GAMMA, NO_BETA]


def test_a_gamma_read_from_its_parameters_says_where_it_came_from():
    assert named(rows_of(WithWeight()), "γ", "β") == [
        (
            "γ",
            "per feature",
            "±row probe: r and −r give γ feature by feature (read from its parameters; their shape confirmed, "
            "their overall size taken as read)",
        ),
        NO_BETA,
    ]


@pytest.mark.parametrize(
    "gamma, zero",
    [(np.array([1.5, 0.0, 2.0, 0.0]), "0 on features 2, 4"), (np.array([1.5, 2.0, 0.0, 1.0]), "0 on feature 3")],
    ids=["two features", "one feature"],
)
def test_a_measured_gamma_of_0_on_some_features_names_them_and_its_size_is_unknown(gamma, zero):
    assert named(rows_of(lambda x: layer_norm(x) * gamma), "γ", "β") == [
        ("γ", "per feature, size unknown", f"±row probe: r and −r give γ feature by feature; {zero} (measured)"),
        NO_BETA,
    ]


@pytest.mark.parametrize(
    "beta, found",
    [(np.array([0.25, -0.5, 0.0, 1.0]), "per feature"), (np.full(4, 0.5), "0.5 on every feature")],
    ids=["per feature", "one shift"],
)
def test_a_beta_is_per_feature_or_one_shift_on_every_feature(beta, found):
    assert named(rows_of(lambda x: layer_norm(x) + beta), "γ", "β") == [NO_GAMMA, ("β", found, BETA_EVIDENCE)]


# --- the notes and the view ------------------------------------------------------------------------------------------


def test_a_layer_norm_with_no_difference_says_none_under_the_table():
    found = fingerprint(layer_norm, "layer_norm", time_limit=None)
    text = str(found)
    assert text.splitlines()[0] == "Fingerprint of layer_norm"
    assert text.splitlines()[-1] == "  Differences from PyTorch's LayerNorm: none."
    assert fingerprint_view(found).header == HEADER == ("convention", "found", "evidence (probe)")


class _Cells(HTMLParser):
    """An HTML table read back: (the tr's style, [(tag, style, text), ...]) per row, and the outer div's class."""

    def __init__(self, page: str):
        super().__init__()
        self.rows, self.classes, self._cell = [], [], None
        self.feed(page)

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "div" and "class" in attrs:
            self.classes.append(attrs["class"])
        elif tag == "tr":
            self.rows.append((attrs.get("style", ""), []))
        elif tag in ("th", "td"):
            self._cell = [tag, attrs.get("style", ""), ""]

    def handle_data(self, data):
        if self._cell is not None:
            self._cell[2] += data

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None:
            self.rows[-1][1].append(tuple(self._cell))
            self._cell = None


def _wraps(style: str) -> bool:
    if "min-width:" in style and "white-space:nowrap" not in style and "vertical-align:top" in style:
        return True
    assert "white-space:nowrap" in style and "vertical-align:top" in style, style
    return False


def test_the_fingerprint_html_names_each_row_in_a_heading_and_every_column_wraps():
    page = _Cells(fingerprint_html(fingerprint(layer_norm, "layer_norm", time_limit=None)))
    assert page.classes[0] == "layernorm-forensics"
    (_, header), *body = page.rows
    assert [(tag, text) for tag, _, text in header] == [("th", h) for h in HEADER]
    assert [[tag for tag, _, _ in cells] for _, cells in body] == [["th", "td", "td"]] * len(FULL_TABLE)
    assert [cells[0][2] for _, cells in body] == FULL_TABLE
    assert all(_wraps(style) for _, cells in page.rows for _, style, _ in cells)


def test_the_published_tables_html_shades_each_convention_that_misses_a_line_and_wraps_its_lists():
    x = helpers.load_residual()
    typed = "\n".join(  # notebook 13's typed table: the rows, to 3 places
        [
            "0.958, -1.038, 0.080",
            "-0.839, 1.107, -0.268",
            "0.567, 0.587, -1.155",
            "1.028, -0.970, -0.057",
            "-0.470, 1.148, -0.679",
        ]
    )
    found = fingerprint_table(x, read_table(typed, like=x))
    page = _Cells(table_fingerprint_html(found))
    assert page.classes[0] == "layernorm-forensics"
    (_, header), *body = page.rows
    assert [text for _, _, text in header][2:] == ["lines explained", "which", "common ε", "well-known ε in range"]
    shaded = [(shade, cells[2][2], cells[4][2]) for shade, cells in body]  # lines explained, common ε
    assert shaded == [  # only a convention that gives every line with one ε goes unshaded
        ("", "5 of 5", "0 to 1.6e-06"),
        ("", "5 of 5", "0 to 5.8e-06"),
        *[(FLAG_STYLE, "5 of 5", "no common ε")] * 2,
        *[(FLAG_STYLE, "0 of 3", "no common ε")] * 4,
    ]
    assert all(tag == "td" for _, cells in body for tag, _, _ in cells)  # no row heading: each column is data
    for cells in [header] + [cells for _, cells in body]:
        assert [_wraps(style) for _, style, _ in cells] == [False, False, False, True, False, True]
