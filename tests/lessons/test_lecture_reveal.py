"""The lecture asks before it answers: the published table's slide and the PyTorch slide open with the
question, and their verdicts come one click later, live (helpers.widgets.reveal) and in the offline slides.

The lecture's own cells are run here (not copies of them), so a slide that gives its answer away, or a
rounding allowance on the slide that differs from the one the checks use, fails.
"""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import nbformat
import pytest

import helpers
from helpers.core.published_table import check_published_output
from helpers.widgets.reveal import STAGE_CLASS, Reveal

ROOT = Path(__file__).resolve().parents[2]
LECTURE = ROOT / "lecture" / "layernorm_lecture.ipynb"
VERDICT_WORDS = ("rows are wrong", "catch", "impossible", "passes both", "off by", "✗", "≈", "✓", "matches", "DIFFERS")


def _cells():
    return nbformat.read(LECTURE, as_version=4).cells


def _slide_of(cells, title):
    """The cells of the slide whose heading contains ``title`` (up to the next heading)."""
    start = next(
        i for i, c in enumerate(cells) if c.cell_type == "markdown" and re.match(r"#{1,2} .*" + title, c.source)
    )
    end = next(
        (
            i
            for i in range(start + 1, len(cells))
            if cells[i].cell_type == "markdown" and re.match(r"#{1,2} ", cells[i].source)
        ),
        len(cells),
    )
    return cells[start:end]


@pytest.fixture(scope="module")
def lecture_run():
    """Run the lecture's set-up cell and the code cells of the two checking slides; their reveal widgets."""
    cells = _cells()
    namespace = {}
    setup = next(c for c in cells if c.cell_type == "code" and "helpers.load_residual()" in c.source)
    exec(compile(setup.source, "setup", "exec"), namespace)
    found = {}
    for title in ("The lesson's published table", "The lesson's PyTorch module", "The same numbers in PyTorch"):
        for cell in _slide_of(cells, title):
            if cell.cell_type != "code":
                continue
            if "live" in cell.metadata.get("tags", []):
                found[title] = eval(compile(cell.source, title, "eval"), namespace)  # noqa: S307 - the lecture's own cell
            else:
                exec(compile(cell.source, title, "exec"), namespace)
    return namespace, found


def test_the_published_tables_slide_opens_with_the_question_and_no_verdict(lecture_run):
    _, found = lecture_run
    widget = found["The lesson's published table"]
    assert isinstance(widget, Reveal) and widget.position == 0
    first = widget.text()
    assert "prove wrong" in first and first.rstrip().endswith("?"), first
    for word in VERDICT_WORDS:
        assert word not in first.replace("pencils first; Next ▶: what a pencil proves", ""), (word, first)
    assert "true" not in first.split("rounded from")[0].lower(), "the true output is shown before the question"


def test_the_verdicts_come_on_the_next_clicks_in_order(lecture_run):
    _, found = lecture_run
    widget = found["The lesson's published table"]
    check = check_published_output(helpers.load_published_output(), helpers.load_residual())
    wrong = sum(not row.matches for row in check.rows)
    squares = " and ".join(str(row.row) for row in check.rows if not row.squares_within_n)
    try:
        widget.next()
        assert f"the sum of squares catches rows {squares}" in widget.text()
        assert f"{wrong} of its {len(check.rows)} rows are wrong" not in widget.text(), "the truth before the pencil"
        widget.next()
        assert f"{wrong} of its {len(check.rows)} rows are wrong" in widget.text()
        assert widget.next_button.disabled, "Next ▶ stays enabled at the last stage: PageDown would never move on"
    finally:
        while widget.position:
            widget.previous()


def test_the_allowance_on_the_slide_is_the_one_the_checks_use_and_gives_their_verdicts(lecture_run):
    _, found = lecture_run
    first = found["The lesson's published table"].text()
    check = check_published_output(helpers.load_published_output(), helpers.load_residual())
    (half,) = set(re.findall(r"up to (\d+\.\d+)", first))
    (sum_allowance,) = re.findall(r"± (\d+\.\d+)", first)
    moved = re.search(r"moved (\d+\.\d+) towards 0", first).group(1)
    assert float(half) == float(moved) == check.half_unit == check.rows[0].half_unit
    assert float(sum_allowance) == pytest.approx(check.rows[0].sum_allowance)
    places = int(re.search(r"Printed to (\d+) places", first).group(1))
    assert places == check.places and Fraction(half) == Fraction(1, 2 * 10**places)
    n = int(re.search(r"at most (\d+)", first).group(1))
    # The rule exactly as the slide states it, with a pencil's exact decimals, on the printed digits:
    printed = re.findall(r"\((-?\d\.\d\d), (-?\d\.\d\d), (-?\d\.\d\d)\)", first)
    assert len(printed) == len(check.rows)
    for row, digits in zip(check.rows, printed):
        values = [Fraction(d) for d in digits]
        by_pencil = (
            abs(sum(values)) <= Fraction(sum_allowance)
            and sum(max(abs(v) - Fraction(half), Fraction(0)) ** 2 for v in values) <= n
        )
        assert by_pencil == (row.sums_to_zero and row.squares_within_n), f"row {row.row}: the slide's rule disagrees"


def test_the_pytorch_slide_asks_which_agree_before_it_shows(lecture_run):
    _, found = lecture_run
    widget = found["The same numbers in PyTorch"]
    assert "?" in widget.text() and not any(word in widget.text() for word in ("matches", "DIFFERS"))
    widget.next()
    try:
        assert "DIFFERS (as it should)" in widget.text()
    finally:
        widget.previous()


def test_the_module_slide_defines_every_name_its_listing_uses(lecture_run):
    import torch

    namespace, _ = lecture_run
    listing = namespace["listing"]
    assert re.search(r"^DEFAULT_EPS = ", listing, re.M), "the listing uses DEFAULT_EPS without defining it"
    shown = {}  # the listing run as the slide shows it, with nothing but its own lines
    exec(compile(listing, "the slide's listing", "exec"), shown)
    eps = torch.nn.LayerNorm(3).eps
    assert shown["DEFAULT_EPS"] == eps == helpers.DEFAULT_EPS
    x = torch.tensor(helpers.load_residual())
    module = shown["LessonLayerNorm"](3).double()
    assert torch.allclose(module(x), torch.nn.functional.layer_norm(x, (3,), eps=eps), atol=1e-12)


# ---------------------------------------------------------------------------------------------
# What the offline slides make of the lecture's widget (the widget itself: tests/widgets/test_reveal.py)


def test_the_offline_slides_show_each_stage_on_a_later_click_in_place_of_the_last(lecture_run):
    """The handout's own recipe (tools/build/lecture_slides.py) turns the widget into HTML whose stages are
    reveal.js fragments: the question fades out at the first click, each answer comes one click later."""
    from tools.build import lecture_slides

    namespace, found = lecture_run
    static = {}
    exec(lecture_slides.STATIC_VIEWS, static)
    page = static["_static"](found["The lesson's published table"]).data
    assert "<button" not in page and page.count("<style>") == 1
    stages = re.findall(rf'<div class="({STAGE_CLASS}[^"]*)"(?: data-fragment-index="(\d+)")?>', page)
    assert stages == [
        (f"{STAGE_CLASS} fragment fade-out", "0"),
        (f"{STAGE_CLASS} fragment fade-in-then-out", "0"),
        (f"{STAGE_CLASS} fragment", "1"),
    ]
    question = page.split(f'<div class="{STAGE_CLASS} fragment fade-in-then-out"')[0]
    assert "rows are wrong" not in question and "catches" not in question
    handout = lecture_slides.handout_notebook()
    wrapped = [cell.source for cell in handout.cells if "reveal(" in cell.source]
    assert wrapped and all(source.startswith("_static(") for source in wrapped), "a reveal widget is not tagged live"
