"""The row editor as a learner sees it on a laptop (issue 33): JupyterLab at 1024×768 with the file browser open.

A scratch notebook holds the row editor with its number line, notebook 05's editor, and a row of 1e150s. After
each is drawn, and after bad input, nothing reaches past the output's right edge, the number line is inline SVG
inside the output with its text as real text, no number runs off the edge, and a screenshot of each is kept in
tests/_artifacts/views/ (look at them: the file tool shows PNGs).
"""

from __future__ import annotations

import pytest

from browser_support import ARTIFACTS
from lab_driver import MARK_OUTPUT, close_notebook, open_and_run, open_sidebar, shared_session, within
from laptop_support import OVERFLOWS

pytestmark = pytest.mark.browser

CELLS = [
    "import helpers\nfrom helpers import widgets\nx = helpers.load_residual()",
    "widgets.row_editor(x[0], plot=True)",
    'widgets.row_editor(x[4], upto="normalised", focus=("std", "normalised"))',
    "widgets.row_editor([1e150, 2e150, 3.5e150], plot=True)",
    "import helpers.formula\nfrom helpers.display import show_source\nshow_source(helpers.formula.layer_norm_forward)",
]
NAMES = ["plotted", "upto-normalised", "huge", "source"]


@pytest.fixture(scope="module")
def views_page():
    import nbformat

    session = shared_session()
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code) for code in CELLS])
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, session.folder / "notebooks" / "views_at_1024.ipynb")
    page = session.page
    page.set_viewport_size({"width": 1024, "height": 768})
    open_sidebar(page)
    report = open_and_run(page, "notebooks/views_at_1024.ipynb")
    assert not report["problems"], report["problems"]
    for source, name in zip(CELLS[1:], NAMES):
        assert page.evaluate(MARK_OUTPUT, [source, name])
    yield page
    close_notebook(page)


def shoot(page, name: str, suffix: str = "") -> None:
    folder = ARTIFACTS / "views"
    folder.mkdir(parents=True, exist_ok=True)
    # 1024 px wide as on the laptop; the window made tall for the shot only, so the whole widget is in it.
    page.set_viewport_size({"width": 1024, "height": 2400})
    within(
        page,
        "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))",
        what="two frames drawn",
        ms=10_000,
    )
    output = page.locator(f'[data-test="{name}"]')
    output.scroll_into_view_if_needed()
    output.screenshot(path=str(folder / f"{name}{suffix}-1024.png"))
    page.set_viewport_size({"width": 1024, "height": 768})


def test_the_row_editor_fits_a_laptop_and_its_number_line_is_text(views_page):
    page = views_page
    assert not page.evaluate("() => window.jupyterapp.shell.leftCollapsed"), "the file browser should be open"
    problems = page.evaluate(OVERFLOWS)
    assert not problems, problems
    for name in NAMES:
        shoot(page, name)
    editor = page.locator('[data-test="plotted"]')
    svg = editor.locator("svg.layernorm-number-line")
    assert svg.count() == 1 and not editor.locator("img").count()  # no raster picture
    box, edge = svg.bounding_box(), editor.bounding_box()
    assert box["x"] + box["width"] <= edge["x"] + edge["width"] + 1, (box, edge)
    labels = svg.locator("text.value-label")
    assert sorted(labels.all_text_contents()) == ["x1 = 1.133", "x2 = -0.299", "x3 = 0.503"]
    # A huge row reads in scientific notation in the table, the status line and the picture, inside the edge.
    huge = page.locator('[data-test="huge"]')
    assert "2.1667e+150" in huge.locator("table").first.text_content()
    assert "mean now 2.1667e+150" in huge.locator('[role="status"]').first.text_content()
    assert "mean μ = 2.1667e+150" in huge.locator("svg").first.text_content()


def test_bad_input_keeps_its_warning_while_other_controls_move(views_page):
    """Type abc into x2, then tick "by hand" and type a new ε: the warning stays beside the row, x2 still shows
    abc and the numbers stay the last good ones, said so, until x2 is corrected."""
    page = views_page
    editor = page.locator('[data-test="plotted"]')
    table_before = editor.locator("table").first.text_content()
    box = editor.locator(".widget-text", has_text="x2").locator("input")
    box.fill("abc")
    box.press("Enter")
    page.wait_for_function(
        "(root) => root.textContent.includes(\"Value 2 'abc' is not a number\")", arg=editor.element_handle()
    )
    editor.locator('input[type="checkbox"]').first.check()
    eps = editor.locator(".widget-text", has_text="exact ε:").locator("input")
    eps.fill("0.001")
    eps.press("Enter")
    page.wait_for_function(  # the kernel has answered both, in order: the slider's readout follows ε
        "(root) => [...root.querySelectorAll('.widget-readout')].some(r => r.textContent.trim() === '1.0e-3')",
        arg=editor.element_handle(),
    )
    assert "Value 2 'abc' is not a number" in editor.text_content()
    assert box.input_value() == "abc"
    assert editor.locator("table").first.text_content() == table_before
    assert "last good" in editor.locator('[role="status"]').first.text_content()
    shoot(page, "plotted", "-bad-input")
    box.fill("-0.299")
    box.press("Enter")
    page.wait_for_function(
        "(root) => !root.textContent.includes('is not a number') && root.textContent.includes('by hand')",
        arg=editor.element_handle(),
    )


def test_code_shown_with_show_source_keeps_every_line_whole(views_page):
    """JupyterLab's <pre> for printed text breaks a long line inside a word; show_source's does not wrap."""
    page = views_page
    shown = page.evaluate(
        """() => {
            const pre = document.querySelector('[data-test="source"] .layernorm-scroll pre');
            const box = pre.closest('.layernorm-scroll');
            const style = getComputedStyle(pre);
            const lines = pre.textContent.split('\\n').length;
            const output = box.closest('.jp-OutputArea-output');
            return {whiteSpace: style.whiteSpace, scrolls: box.scrollWidth > box.clientWidth + 1,
                    box: [box.clientWidth, box.scrollWidth], pre: pre.getBoundingClientRect().width,
                    output: [output.clientWidth, output.scrollWidth],
                    tall: pre.getBoundingClientRect().height / parseFloat(style.lineHeight || 16), lines};
        }"""
    )
    assert shown["whiteSpace"] == "pre" and shown["scrolls"], shown
    assert shown["tall"] <= shown["lines"] + 1, shown  # no line wrapped onto a second one
    assert "⇆ On a narrow screen this code scrolls sideways." in page.locator('[data-test="source"]').text_content()
