"""The live lecture (Voilà, presenter mode) fits the room at every stage of every slide.

At 1280 × 720, 1024 × 768 and 1920 × 1080, the clicker pages through every slide and every stage
(PageDown to the end, PageUp back, so each slide is reached both ways and the step-through reopens
at its last stage), then the step-through's nine stages for row 5 both ways and with "show all", and
every widget slide with "show every step" open. At each state nothing drawn crosses the right or
bottom edge of the screen, or of a scroll box that does not say it scrolls; the status line covers
nothing; the slide's title is on screen; no field or label is narrower than its text; no text is
below 24 px (36 px at 1920 × 1080). The per-slide table is written to tests/_artifacts/voila/lecture_fit.md.

The walk is made once: each state is reached once and then checked at every size, the screen resized
between (lecture_fit_support.Walker); the sizes take turns at being the one a state is reached at.
"""

from __future__ import annotations

import pytest
from lecture_fit_support import SIZES, fit_table, open_lecture, start_lecture, walk_lecture

from browser_support import ARTIFACTS, chromium, missing_browser, offline_context, skip_or_fail

pytestmark = pytest.mark.beside  # its own Voila and Chromium: run.py test runs it beside the other browser tests

FLOOR = 24  # px at 1280 × 720, growing with the screen (presenter.css: max(24px, 1.875vw)), never below 24


@pytest.fixture(scope="module")
def walks(tmp_path_factory):
    """One Voilà, one page and one walk, each state checked at every size: the walk takes minutes."""
    reason = missing_browser()
    if reason:
        skip_or_fail(reason)
    server = start_lecture(tmp_path_factory.mktemp("lecture-fit"))
    try:
        with chromium() as browser:
            context = offline_context(browser, (server.base,))
            page = open_lecture(context, server, *SIZES[0])
            found = walk_lecture(page, SIZES, shots=ARTIFACTS / "voila" / "fit")
            context.close()
    finally:
        server.stop()
    report = ARTIFACTS / "voila" / "lecture_fit.md"
    report.parent.mkdir(parents=True, exist_ok=True)
    report.write_text(fit_table([found[size] for size in SIZES]) + "\n", encoding="utf-8")
    return found


@pytest.mark.parametrize("width,height", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_stage_of_every_slide_fits(walks, width, height):
    slides = walks[(width, height)].slides
    assert len(slides) >= 10 and sum(s["stages"] for s in slides.values()) >= len(slides) * 2 + 18, (
        f"the walk saw too little: {[(i, s['stages']) for i, s in slides.items()]}"
    )
    problems = [problem for slide in slides.values() for problem in slide["problems"]]
    floor = max(FLOOR, FLOOR * width / 1280)
    small = [(s["smallest"], s["smallest_name"]) for s in slides.values() if s["smallest"] < floor - 0.5]
    assert not problems, f"{len(problems)} problems; first ones:\n" + "\n".join(problems[:15])
    assert not small, f"text below {floor:g} px at {width}×{height}: {small}"


def test_every_size_saw_the_same_stages(walks):
    """The walk checked each state at every size: the same slides, each as often, at every size."""
    counts = {size: {index: slide["stages"] for index, slide in walk.slides.items()} for size, walk in walks.items()}
    assert len({tuple(sorted(found.items())) for found in counts.values()}) == 1, counts
