"""Figures drawn for the room: in real Chromium, every figure the lecture shows has its smallest text at
least the page's text size, at every screen size, live in Voilà (presenter template) and in the
offline reveal.js handout; and it is still the right picture (a round circle, each row's point where
numpy puts it, no label on another, the whole figure on the screen).

The page's text size is measured, not assumed: the rendered size of the slide's own paragraphs
(computed font size times the scale the page is drawn at). A figure's text is the rendered size of
each SVG <text>: its computed size, in the picture's units, times the picture's scale on the screen.
A raster picture (<img>) fails: its text is baked in at one size and cannot follow the screen.
Screenshots go to tests/_artifacts/figure_text/.
"""

from __future__ import annotations

import importlib.util
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from expected_numbers import X
from patience import scaled_ms

from browser_support import ARTIFACTS, chromium, missing_browser, offline_context, skip_or_fail

ROOT = Path(__file__).resolve().parents[2]
# The folder Voilà serves (lecture/layernorm_lecture.ipynb in it) and the lecture the handout is made from.
LECTURE_FOLDER = ROOT
LIVE_SCREENS = [(1280, 720), (1024, 768), (1920, 1080)]
HANDOUT_SCREENS = [(1024, 768), (1280, 720)]
SHOTS = ARTIFACTS / "figure_text"

# Every figure on the slide shown (`slide` picks the slide's elements): its texts' rendered sizes and
# boxes, its own box, and where its circle and row points are drawn; and the slide's prose text size.
MEASURE = """(slideSelector) => {
    const roots = [...document.querySelectorAll(slideSelector)];
    const scaleOf = element => {
        const box = element.getBoundingClientRect();
        return element.offsetWidth ? box.width / element.offsetWidth : 1;
    };
    const prose = roots.flatMap(root => [...root.querySelectorAll('p, li')])
        .filter(p => p.offsetParent && p.innerText.trim() && !p.closest('aside, .layernorm-room-figure'))
        .map(p => parseFloat(getComputedStyle(p).fontSize) * scaleOf(p));
    const figures = [];
    for (const root of roots) {
        for (const img of root.querySelectorAll('.jp-OutputArea-output img, .output_subarea img')) {
            if (!img.offsetParent) continue;
            const box = img.getBoundingClientRect();
            figures.push({raster: true, scale: box.width / img.naturalWidth, box: [box.left, box.top, box.right, box.bottom]});
        }
        for (const svg of root.querySelectorAll('svg[role="img"]')) {
            if (!svg.getClientRects().length) continue;
            const box = svg.getBoundingClientRect();
            const scale = box.width / svg.viewBox.baseVal.width;
            const texts = [...svg.querySelectorAll('text')].map(text => {
                const r = text.getBoundingClientRect();
                return {text: text.textContent, size: parseFloat(getComputedStyle(text).fontSize) * scale,
                        box: [r.left, r.top, r.right, r.bottom]};
            });
            const rect = element => { const r = element.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
            const circle = svg.querySelector('g[id$="-circle"] path');
            const rows = [...svg.querySelectorAll('g[id*="-row-"]')]
                .map(g => [Number(g.id.split('-row-')[1]), rect(g.querySelector('use'))]);
            figures.push({raster: false, scale, texts, box: rect(svg), circle: circle && rect(circle), rows});
        }
    }
    return {prose, figures, width: innerWidth, height: innerHeight};
}"""


def _numpy_points(x) -> np.ndarray:
    """Each row of x normalised (γ = 1, β = 0, ε = 1e-5) and seen in the plane x₁ + x₂ + x₃ = 0."""
    x = np.asarray(x, dtype=np.float64)
    y = (x - x.mean(axis=1, keepdims=True)) / np.sqrt(x.var(axis=1, keepdims=True) + 1e-5)
    return np.stack([y @ (np.array([1, -1, 0]) / math.sqrt(2)), y @ (np.array([1, 1, -2]) / math.sqrt(6))], axis=1)


def _overlap(a, b) -> float:
    """How far two boxes (left, top, right, bottom) overlap, in px (negative when apart)."""
    return min(min(a[2], b[2]) - max(a[0], b[0]), min(a[3], b[3]) - max(a[1], b[1]))


def figure_problems(found: dict, where: str) -> tuple[list[str], float | None]:
    """What is wrong with the figures measured on one slide, and the smallest figure text rendered."""
    problems, smallest = [], None
    page = min(found["prose"], default=None)
    if page is None:
        return [f"{where}: no prose on the slide to compare the figure's text with"], None
    for figure in found["figures"]:
        if figure["raster"]:
            problems.append(
                f"{where}: a raster picture drawn at {figure['scale']:.2f}× its pixels: its text cannot follow the screen"
            )
            continue
        sizes = [text["size"] for text in figure["texts"] if text["text"].strip()]
        smallest = min(sizes + ([smallest] if smallest is not None else []))
        small = [f"{t['text']!r} {t['size']:.1f}px" for t in figure["texts"] if t["size"] < page - 0.05]
        if small:
            problems.append(f"{where}: figure text below the page's {page:.1f}px: {', '.join(small[:6])}")
        left, top, right, bottom = figure["box"]
        if left < -1 or top < -1 or right > found["width"] + 1 or bottom > found["height"] + 1:
            problems.append(f"{where}: the figure {[round(v) for v in figure['box']]} is not all on the screen")
        texts = figure["texts"]
        for k, a in enumerate(texts):
            for b in texts[k + 1 :]:
                if _overlap(a["box"], b["box"]) > 1:
                    problems.append(f"{where}: {a['text']!r} and {b['text']!r} overlap")
        if figure["circle"]:
            problems += _circle_problems(figure, where)
    return problems, smallest


def _circle_problems(figure, where: str) -> list[str]:
    left, top, right, bottom = figure["circle"]
    if abs((right - left) - (bottom - top)) > 1:
        return [f"{where}: the circle is {right - left:.1f} × {bottom - top:.1f} px, not round"]
    centre = np.array([(left + right) / 2, (top + bottom) / 2])
    per_unit = (right - left) / 2 / math.sqrt(3)
    expected = _numpy_points(X)
    drawn = {row: np.array([(b[0] + b[2]) / 2, (b[1] + b[3]) / 2]) for row, b in figure["rows"]}
    if sorted(drawn) != list(range(1, len(X) + 1)):
        return [f"{where}: the circle shows rows {sorted(drawn)}"]
    problems = []
    for row, at in drawn.items():
        u, v = (at - centre) / per_unit * np.array([1, -1])  # the screen's y points down
        if math.hypot(u - expected[row - 1][0], v - expected[row - 1][1]) > 2 / per_unit:  # within 2 px
            problems.append(f"{where}: row {row} drawn at ({u:.3f}, {v:.3f}), numpy puts it at {expected[row - 1]}")
    return problems


# ---------------------------------------------------------------------------------------------
# Live, in Voilà


@pytest.fixture(scope="module")
def lecture_server(tmp_path_factory):
    from browser_support import voila_lecture

    server = voila_lecture(LECTURE_FOLDER, tmp_path_factory.mktemp("figure-voila"), "voila-figures")
    yield server
    server.stop()


LIVE_SLIDE = ".jp-Cell.lecture-current"
SLIDES_WITH_FIGURES = """() => window.lecturePresenter.state.slides
    .map((cells, index) => cells.some(cell => cell.querySelector('.jp-OutputArea-output img, svg[role="img"]')) ? index : -1)
    .filter(index => index >= 0)"""


def test_live_lecture_figures_text_is_the_page_text_size_at_every_screen(lecture_server):
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems, report = [], []
    with chromium() as browser:
        context = offline_context(browser, (lecture_server.base,))
        page = context.new_page()
        page.set_viewport_size({"width": 1280, "height": 720})
        page.goto(lecture_server.url("/"))  # Voilà runs the whole lecture before the page loads (a page load's time)
        page.wait_for_function(
            "() => window.lecturePresenter && document.querySelector('button')", timeout=scaled_ms(180_000)
        )
        slides = page.evaluate(SLIDES_WITH_FIGURES)
        assert slides, "the lecture shows no figure: the test would see nothing"
        for width, height in LIVE_SCREENS:
            page.set_viewport_size({"width": width, "height": height})
            for index in slides:
                page.evaluate("(i) => window.lecturePresenter.show(i)", index)
                page.wait_for_function("(s) => document.querySelector(s)", arg=LIVE_SLIDE)
                found = page.evaluate(MEASURE, LIVE_SLIDE)
                where = f"live {width}×{height}, slide {index + 1}"
                found_problems, smallest = figure_problems(found, where)
                problems += found_problems
                report.append(f"{where}: page text {min(found['prose']):.1f}px, smallest figure text {smallest}")
                page.screenshot(path=str(SHOTS / f"live_{width}x{height}_slide{index + 1}.png"))
        context.close()
    print("\n".join(report))
    assert not problems, "\n".join(problems[:20])


# ---------------------------------------------------------------------------------------------
# The offline handout (reveal.js)


@pytest.fixture(scope="module")
def handout(tmp_path_factory):
    if shutil.which("npm") is None and not (ROOT / "build" / "npm").is_dir():
        skip_or_fail("exporting the slides needs npm once, to fetch reveal.js: apt-get install npm")
    reason = missing_browser()
    if reason:
        skip_or_fail(reason)
    tool = importlib.import_module("tools.build.lecture_slides")
    try:
        return tool.build(tmp_path_factory.mktemp("figure-slides"), LECTURE_FOLDER / "lecture" / tool.LECTURE.name)
    except tool.SlidesError as problem:
        pytest.fail(f"the slides could not be exported: {problem}")


HANDOUT_SLIDE = ".slides > section.present > section.present, .slides > section.present:not(.stack)"


def test_handout_figures_text_is_the_page_text_size_at_every_screen(handout):
    SHOTS.mkdir(parents=True, exist_ok=True)
    problems, report, seen = [], [], 0
    with chromium() as browser:
        for width, height in HANDOUT_SCREENS:
            context = offline_context(browser, ("file://",), record_images=True)
            page = context.new_page()
            page.set_viewport_size({"width": width, "height": height})
            page.goto(handout.as_uri())
            page.wait_for_selector(".reveal.ready", timeout=scaled_ms(60_000))
            page.add_style_tag(content=".reveal .slides section { transition: none !important; }")
            total = page.evaluate("Reveal.getTotalSlides()")
            for index in range(total):
                page.evaluate("(i) => Reveal.slide(i)", index)
                page.wait_for_function("(i) => Reveal.getIndices().h === i", arg=index)
                found = page.evaluate(MEASURE, HANDOUT_SLIDE)
                if not found["figures"]:
                    continue
                seen += 1
                where = f"handout {width}×{height}, slide {index + 1}"
                found_problems, smallest = figure_problems(found, where)
                problems += found_problems
                report.append(f"{where}: page text {min(found['prose']):.1f}px, smallest figure text {smallest}")
                page.screenshot(path=str(SHOTS / f"handout_{width}x{height}_slide{index + 1}.png"))
            context.close()
    print("\n".join(report))
    assert seen >= len(HANDOUT_SCREENS), "the handout shows no figure: the test would see nothing"
    assert not problems, "\n".join(problems[:20])
