"""Walking the live lecture (Voilà, presenter mode) stage by stage and measuring what does not fit.

Used by tests/browser/test_lecture_fit*.py. ``FIT_PROBLEMS`` is run in the page on the slide shown and
returns what a room would not see: a box past the right or bottom edge of the screen, a box cut by a
scroll box that shows no hint, the status line over content, the slide's title scrolled away, a field
or label narrower than its own text; and the smallest text drawn. ``settle`` waits for a state: the
page's text changed from what it was (when it should) and then stayed unchanged for a moment.
"""

from __future__ import annotations

import os
from pathlib import Path

from patience import scaled_ms

ROOT = Path(__file__).resolve().parent.parent
SIZES = [(1280, 720), (1024, 768), (1920, 1080)]


def start_lecture(home: Path):
    """Voilà serving the lecture as `run.py lecture` does (its own port, token and folders)."""
    from browser_support import voila_lecture

    return voila_lecture(ROOT, home, "voila-lecture-fit")


def open_lecture(context, server, width: int, height: int):
    page = context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.goto(server.url("/"), wait_until="commit")  # Voilà streams the page as the kernel runs
    page.wait_for_function(
        "() => window.lecturePresenter && document.querySelector('button')", timeout=scaled_ms(180_000)
    )
    settle(page)
    return page


# What the room sees of the slide shown: its words, its slide number and the explorer's position.
SIGNATURE = """() => {
    const cells = [...document.querySelectorAll('#rendered_cells .jp-Cell.lecture-current')];
    return window.lecturePresenter.state.current + '|' + cells.map(c => c.innerText).join('\\n');
}"""

# Resolves to true once nothing in the page has changed (DOM or scroll) for ``quiet`` ms; to false if that
# has not happened within ``most`` ms (a page that never goes quiet must fail, not hang: evaluate has no
# time-out of its own).
# The time of the page's last change (a mutation anywhere, or a scroll), kept on the page by one observer.
# Waiting for quiet is Playwright's wait_for_function on it, whose time limit Playwright itself enforces:
# a promise inside page.evaluate has none, and hung a whole run when the page's timers stopped firing.
WATCH_CHANGES = """() => {
    if (!window.__quietWatch) {
        const watch = {last: performance.now()};
        const touch = () => { watch.last = performance.now(); };
        new MutationObserver(touch).observe(document.body,
            {subtree: true, childList: true, attributes: true, characterData: true});
        addEventListener('scroll', touch, true);
        window.__quietWatch = watch;
    }
    window.__quietWatch.last = performance.now();
}"""
QUIET_FOR = "(quiet) => !!window.__quietWatch && performance.now() - window.__quietWatch.last >= quiet"


def wait_quiet(page, quiet_ms: int = 350, most_ms: int = 30_000) -> None:
    """Until the page has not changed for ``quiet_ms`` (a state: its layout is done); fails if it is still
    changing after ``most_ms`` on a quiet machine (tests/patience.py scales it)."""
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    most = scaled_ms(most_ms)
    page.evaluate(WATCH_CHANGES)
    try:
        page.wait_for_function(QUIET_FOR, arg=quiet_ms, polling=50, timeout=most)
    except PlaywrightTimeout:
        raise AssertionError(f"the page kept changing for {most / 1000:.0f} s") from None


def signature(page) -> str:
    return page.evaluate(SIGNATURE)


def settle(page, before: str | None = None, timeout: float = 30_000) -> str:
    """Wait until the slide's text differs from ``before`` (if given; ``timeout`` ms on a quiet machine), then
    until the page is quiet."""
    if before is not None:
        page.wait_for_function(f"(before) => ({SIGNATURE})() !== before", arg=before, timeout=scaled_ms(timeout))
    wait_quiet(page)
    return signature(page)


def press(page, key: str, expect_change: bool = True) -> str:
    before = signature(page)
    page.keyboard.press(key)
    return settle(page, before if expect_change else None)


# Problems with the slide shown, and the smallest text drawn. An element counts when it is drawn
# (a box, not hidden, not inside a visually-hidden screen-reader box) and has text or is a control or
# a picture. A scroll box (overflow auto or scroll) may cut what is inside it only when a visible
# .lecture-scroll-hint on it says so; every other box must lie inside the screen.
FIT_PROBLEMS = """() => {
    const W = innerWidth, H = innerHeight, problems = [], screen = {left: 0, top: 0, right: W, bottom: H};
    const cells = [...document.querySelectorAll('#rendered_cells .jp-Cell.lecture-current')];
    const status = document.getElementById('lecture-status');
    const statusBox = status && status.offsetParent !== null ? status.getBoundingClientRect() : null;
    const name = e => `${e.tagName.toLowerCase()}${e.className && typeof e.className === 'string' ?
        '.' + e.className.trim().split(/\\s+/)[0] : ''} "${(e.innerText || e.value || e.alt || e.textContent || '').trim()
        .replace(/\\s+/g, ' ').slice(0, 40)}"`;
    const hidden = e => {  // drawn nowhere: display none, invisible, or inside a 1-px screen-reader box
        for (let a = e; a && a.id !== 'rendered_cells'; a = a.parentElement) {
            const s = getComputedStyle(a), r = a.getBoundingClientRect();
            if (s.display === 'none' || s.visibility === 'hidden' || Number(s.opacity) === 0) return true;
            if (a !== e && (s.overflow !== 'visible' || s.clip !== 'auto') && (r.width <= 2 || r.height <= 2)) return true;
        }
        return false;
    };
    const scrollBoxes = e => {  // the boxes between e and the page that scroll
        const boxes = [];
        for (let a = e.parentElement; a && a.id !== 'rendered_cells'; a = a.parentElement) {
            const s = getComputedStyle(a);
            if (/(auto|scroll|hidden)/.test(s.overflowX + s.overflowY)) boxes.push(a);
        }
        return boxes;
    };
    const hinted = box => [box.previousElementSibling, box.nextElementSibling, ...box.querySelectorAll(".lecture-scroll-hint")].filter(h => h && h.classList.contains("lecture-scroll-hint"))
        .some(h => h.offsetParent && h.innerText.trim() && h.getBoundingClientRect().bottom <= H + 1 && h.getBoundingClientRect().right <= W + 1);
    let smallest = Infinity, smallestName = '', checked = 0;
    for (const cell of cells) for (const e of cell.querySelectorAll('*')) {
        if (e.closest('script, style, .celltag_notes')) continue;
        const r = e.getBoundingClientRect();
        if (r.width < 1 || r.height < 1) continue;
        const ownText = [...e.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
        const control = /^(INPUT|SELECT|TEXTAREA|BUTTON|IMG|CANVAS|svg)$/.test(e.tagName);
        if (!ownText && !control) continue;
        if (hidden(e)) continue;
        checked++;
        let size = parseFloat(getComputedStyle(e).fontSize);
        const matrix = e instanceof SVGGraphicsElement && e.getScreenCTM();  // a figure's text, as drawn
        if (matrix) size *= Math.hypot(matrix.a, matrix.b);
        if (ownText && size < smallest) { smallest = size; smallestName = name(e); }
        let limit = screen, cutBy = 'the screen';
        for (const box of scrollBoxes(e)) {
            const b = box.getBoundingClientRect(), s = getComputedStyle(box);
            const cuts = r.right > b.right + 1 || r.bottom > b.bottom + 1 || r.left < b.left - 1 || r.top < b.top - 1;
            if (!cuts) continue;
            if (/(auto|scroll)/.test(s.overflowX + s.overflowY) && hinted(box)) { limit = null; break; }
            limit = b; cutBy = `its box ${name(box).slice(0, 30)} (no scroll hint)`;
            break;
        }
        // (above the top of a scroll box is hidden too; above the screen's top only the title is checked)
        if (limit && (r.right > limit.right + 1 || r.bottom > limit.bottom + 1 || r.left < limit.left - 1 ||
                      (limit !== screen && r.top < limit.top - 1)))
            problems.push(`${name(e)} at [${[r.left, r.top, r.right, r.bottom].map(Math.round)}] crosses ${cutBy}`);
        if (statusBox && ownText && r.right > statusBox.left && r.left < statusBox.right &&
            r.bottom > statusBox.top && r.top < statusBox.bottom)
            problems.push(`the status line covers ${name(e)}`);
        if (/^(INPUT|SELECT|TEXTAREA)$/.test(e.tagName) && e.scrollWidth > e.clientWidth + 1)
            problems.push(`${name(e)} clips its value (${e.scrollWidth} > ${e.clientWidth} px)`);
        if (ownText && /widget-label|widget-readout|widget-button|widget-toggle-button/.test(e.className) &&
            e.scrollWidth > e.clientWidth + 1)
            problems.push(`${name(e)} clips its words (${e.scrollWidth} > ${e.clientWidth} px)`);
    }
    const title = cells.map(c => c.querySelector('h1, h2')).find(Boolean);
    if (title) {
        const t = title.getBoundingClientRect();
        if (t.top < -1 || t.bottom > H + 1) problems.push(`the title ${name(title)} is scrolled away (top ${Math.round(t.top)})`);
    }
    const hints = cells.flatMap(c => [...c.querySelectorAll('.lecture-scroll-hint')])
        .filter(h => h.offsetParent && h.innerText.trim()).map(h => h.innerText.trim());
    return {problems, smallest, smallestName, checked, hints, slide: window.lecturePresenter.state.current,
            title: title ? title.innerText.trim() : ''};
}"""


def fit(page) -> dict:
    return page.evaluate(FIT_PROBLEMS)


# ---------------------------------------------------------------------------------------------
# Walking every stage

SLIDE_STATE = """() => {
    const p = window.lecturePresenter, slide = p.state.slides[p.state.current];
    const next = p.button(slide, 'Next ▶'), back = p.button(slide, '◀ Previous');
    return {current: p.state.current, total: p.state.slides.length, more: Boolean(next && !next.disabled),
            less: Boolean(back && !back.disabled)};
}"""


class Walk:
    """Every stage seen at one size: per slide, the stages checked, the problems and the smallest text."""

    def __init__(self, page, width: int, height: int, shots: Path | None = None):
        self.page, self.size, self.shots = page, (width, height), shots
        self.slides: dict[int, dict] = {}

    def check(self, how: str) -> None:
        """Measure the slide shown, at this walk's size (the page must be at it)."""
        found = fit(self.page)
        slide = self.slides.setdefault(
            found["slide"], {"title": found["title"], "stages": 0, "problems": [], "smallest": float("inf")}
        )
        slide["stages"] += 1
        slide["scrolled"] = slide.get("scrolled", 0) + bool(found["hints"])  # a box that says it scrolls
        if found["checked"] and found["smallest"] < slide["smallest"]:
            slide["smallest"], slide["smallest_name"] = found["smallest"], found["smallestName"]
        where = f"{self.size[0]}×{self.size[1]}, slide {found['slide'] + 1} ({how})"
        slide["problems"] += [f"{where}: {problem}" for problem in found["problems"]]
        if self.shots is not None and (found["problems"] or os.environ.get("LECTURE_FIT_SHOTS") == "all"):
            self.shots.mkdir(parents=True, exist_ok=True)
            name = f"{self.size[0]}x{self.size[1]}_slide{found['slide'] + 1:02d}_{slide['stages']:02d}.png"
            self.page.screenshot(path=str(self.shots / name))


# The fit's own count of its runs (fit.js), to wait for the fit a resize asks for.
FIT_RUNS = "() => window.lectureFit ? window.lectureFit.runs : -1"
AT_SIZE = "([w, h, runs]) => innerWidth === w && innerHeight === h && window.lectureFit.runs > runs"


def resize(page, width: int, height: int) -> None:
    """The screen at ``width`` × ``height``, once the page has fitted the slide to it and gone quiet (states,
    not times: the window's size, the fit's run after it, then no change for a moment)."""
    if page.viewport_size == {"width": width, "height": height}:
        return
    runs = page.evaluate(FIT_RUNS)
    page.set_viewport_size({"width": width, "height": height})
    page.wait_for_function(AT_SIZE, arg=[width, height, runs], timeout=scaled_ms(30_000))
    wait_quiet(page, quiet_ms=150)  # the fit that waits for a resize has run: only its after-effects are left


class Walker:
    """One walk through the lecture, checked at every size at each stage: the stage is reached once and then
    the screen is resized to each size in turn (fit.js fits again on every resize, from scratch). The sizes
    take turns at being the one a stage is reached at (the first checked is the size the page is at, and the
    next stage is reached at the last), so each size also sees stages drawn while it was the screen's."""

    def __init__(self, page, sizes: list[tuple[int, int]], shots: Path | None = None):
        self.page, self.sizes = page, list(sizes)
        self.walks = {size: Walk(page, *size, shots) for size in self.sizes}
        self.at = self.sizes[0]
        resize(page, *self.at)

    def check(self, how: str) -> None:
        start = self.sizes.index(self.at)
        for size in self.sizes[start:] + self.sizes[:start]:
            if size != self.at:
                resize(self.page, *size)
                self.at = size
            self.walks[size].check(how)

    def state(self) -> dict:
        return self.page.evaluate(SLIDE_STATE)

    def by_keys(self, key: str, how: str, until) -> None:
        """Press ``key`` and check each state until ``until(state)``."""
        while not until(self.state()):
            press(self.page, key)
            self.check(how)


def walk_lecture(page, sizes: list[tuple[int, int]], shots: Path | None = None) -> dict[tuple[int, int], Walk]:
    """Every slide and stage by PageDown, back by PageUp; the step-through's stages for row 5 both ways and
    with "show all"; every "show every step" opened: each state checked at every size (``Walker``)."""
    walk = Walker(page, sizes, shots)
    page.evaluate("() => window.lecturePresenter.show(0)")
    settle(page)
    walk.check("first")
    walk.by_keys("PageDown", "PageDown", lambda s: s["current"] == s["total"] - 1 and not s["more"])
    walk.by_keys("PageUp", "PageUp", lambda s: s["current"] == 0)
    for slide in range(walk.state()["total"]):
        page.evaluate("(i) => window.lecturePresenter.show(i)", slide)
        settle(page)
        explorer = page.locator(".jp-Cell.lecture-current select").filter(has=page.locator("option", has_text="row 5"))
        if page.locator(".jp-Cell.lecture-current .layernorm-filled-steps").count() and explorer.count():
            before = signature(page)
            explorer.first.select_option(label="row 5")
            settle(page, before)
            page.evaluate("() => document.activeElement && document.activeElement.blur()")
            walk.check("row 5, stage 1")
            walk.by_keys("PageDown", "row 5, PageDown", lambda s: not s["more"])
            walk.by_keys("PageUp", "row 5, PageUp", lambda s: not s["less"])
            toggle(page, "show all")
            walk.check("row 5, show all")
            toggle(page, "step by step")  # once open, the toggle says what pressing it again does
            before = signature(page)
            explorer.first.select_option(label="row 1")
            settle(page, before)
        for label, open_label in (
            ("show every step", "show fewer steps"),
            ("show the later steps", "hide the later steps"),
        ):
            if visible_button(page, label).count():
                toggle(page, label)
                walk.check(f'"{label}" open')
                toggle(page, open_label)  # once open, the toggle says what pressing it again does
    return walk.walks


def visible_button(page, label: str):
    return page.locator(".jp-Cell.lecture-current button:visible", has_text=label)


def toggle(page, label: str) -> None:
    before = signature(page)
    visible_button(page, label).first.click()
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    settle(page, before)


def fit_table(walks: list[Walk]) -> str:
    """A Markdown table: per slide, at each size, the stages checked and whether everything fitted."""
    sizes = [f"{w.size[0]}×{w.size[1]}" for w in walks]
    lines = ["| slide | " + " | ".join(sizes) + " |", "|---|" + "---|" * len(walks)]
    for index in sorted(walks[0].slides):
        cells = []
        for w in walks:
            slide = w.slides.get(index, {"stages": 0, "problems": []})
            verdict = "fits" if not slide["problems"] else f"{len(slide['problems'])} problems"
            if slide.get("scrolled"):
                verdict += f" ({slide['scrolled']} with a scroll hint)"
            cells.append(f"{slide['stages']} stages, {verdict}")
        lines.append(f"| {index + 1}. {walks[0].slides[index]['title'][:40]} | " + " | ".join(cells) + " |")
    smallest = []
    for w in walks:
        size, name = min((s["smallest"], s.get("smallest_name", "")) for s in w.slides.values())
        smallest.append(f"{size:.1f} px")
    lines.append("| smallest text | " + " | ".join(smallest) + " |")
    lines.append(f"\nstages checked: {', '.join(str(sum(s['stages'] for s in w.slides.values())) for w in walks)}")
    return "\n".join(lines)
