"""The lecture: its notebook, its offline slides, and the lecturer's answers to every exercise.

- lecture/layernorm_lecture.ipynb is stored clean (no outputs: Voilà and the slides export run it
  fresh), its prose quotes only computed numbers, and its list of steps matches the explorer's.
- The slides (tools/build/lecture_slides.py) are exported here: every stage of the walkthrough has its
  slide, with the right numbers in the stored widget state; the HTML names no network address; and
  in Chromium, with every network request blocked, the widgets render on every stage's slide.
- lecturer/exercises.md is up to date with the notebooks, and its answers agree with plain Python.
(The lecture presented live in Voilà is driven in tests/browser/test_lecture_presenter.py, and walked stage
by stage at three screen sizes in tests/browser/test_lecture_fit.py.)
"""

from __future__ import annotations

import html
import importlib.util
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from expected_numbers import WALKTHROUGH, X, by_hand, stage_result
from patience import scaled_ms

from browser_support import ARTIFACTS, chromium, missing_browser, offline_context, skip_or_fail

ROOT = Path(__file__).resolve().parents[2]
LECTURE = ROOT / "lecture" / "layernorm_lecture.ipynb"
EXERCISES = ROOT / "lecturer" / "exercises.md"


def _load_tool(name: str):
    return importlib.import_module(f"tools.build.{name}")


# ---------------------------------------------------------------------------------------------
# The lecture notebook


def test_lecture_notebook_is_stored_clean():
    nb = nbformat.read(LECTURE, as_version=4)
    nbformat.validate(nb)
    assert set(nb.metadata) <= {"kernelspec", "language_info"}, sorted(nb.metadata)
    for index, cell in enumerate(nb.cells):
        assert set(cell.metadata) <= {"tags", "slideshow"}, f"cell {index}: {sorted(cell.metadata)}"
        assert "slideshow" in cell.metadata, f"cell {index} says nothing about slides (slideshow.slide_type)"
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None, (
                f"cell {index} stores outputs; the lecture is run fresh by Voilà and by the slides export, so "
                "store it without (Kernel → Restart and Clear Outputs, then save)"
            )
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# "), "start with a title"


def test_lecture_quotes_only_computed_numbers():
    from test_prose_numbers import quoted_numbers

    from prose_facts import build_facts

    facts = build_facts()
    nb = nbformat.read(LECTURE, as_version=4)
    unknown = [
        f"cell {index}: {number}"
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "markdown"
        for number in quoted_numbers(cell.source)
        if facts.explain(number) is None
    ]
    assert not unknown, "numbers in the lecture's prose that no computation gives:\n" + "\n".join(unknown)


def test_lecture_lists_the_explorers_stages_in_order():
    from helpers.display import STAGE_LABELS
    from helpers.widgets import EXPLORER_STAGES

    slides = _load_tool("lecture_slides")
    listed = [stage for stage, _ in slides.stage_sentences(nbformat.read(LECTURE, as_version=4))]
    assert listed == [STAGE_LABELS[stage][0] for stage in EXPLORER_STAGES] == WALKTHROUGH


def _slide_titles(nb) -> list[str]:
    return [
        cell.source.splitlines()[0].lstrip("# ").strip()
        for cell in nb.cells
        if cell.cell_type == "markdown" and re.match(r"#{1,2} ", cell.source)
    ]


def test_lecture_plan_matches_the_speaker_notes_and_takes_50_minutes():
    nb = nbformat.read(LECTURE, as_version=4)
    notes = [cell for cell in nb.cells if cell.metadata.get("slideshow", {}).get("slide_type") == "notes"]
    assert all("notes" in cell.metadata.get("tags", []) for cell in notes), (
        "tag every notes cell 'notes' (Voilà hides them)"
    )
    timed = [re.search(r"\*\*[^*]+ \((\d+) min\)\.\*\*", cell.source) for cell in notes]
    assert all(timed), "every speaker note starts with '**Title (N min).**'"
    titles = _slide_titles(nb)
    assert len(timed) == len(titles), f"{len(titles)} slides but {len(timed)} timed speaker notes"
    plan = (ROOT / "lecturer" / "lecture_plan.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| ([^|]+) \|", plan, re.M)
    assert [title.strip() for _, title in rows] == titles, (
        f"the plan's slides {rows} differ from the lecture's {titles}"
    )
    assert [int(minutes) for minutes, _ in rows] == [int(match.group(1)) for match in timed]
    assert sum(int(minutes) for minutes, _ in rows) == 50


def test_lecture_explains_the_stages_only_after_the_step_through():
    nb = nbformat.read(LECTURE, as_version=4)
    tagged = {tag: index for index, cell in enumerate(nb.cells) for tag in cell.metadata.get("tags", [])}
    between = nb.cells[tagged["walkthrough"] + 1 : tagged["walkthrough-steps"]]
    slides_between = [cell for cell in between if cell.cell_type == "markdown" and re.match(r"#{1,2} ", cell.source)]
    assert len(slides_between) >= 2, "the nine stages in words sit right under the step-through: step 9 is given away"
    notes = nb.cells[tagged["walkthrough-notes"]]
    assert notes.metadata["slideshow"]["slide_type"] == "notes" and "notes" in notes.metadata["tags"]


def test_lecture_states_the_errata_from_the_data():
    nb = nbformat.read(LECTURE, as_version=4)
    prose = " ".join(cell.source for cell in nb.cells if cell.cell_type == "markdown").lower()
    for claim in ("four of its five", "two rules catch it", "without a computer:"):
        assert claim not in prose, f"the lecture claims {claim!r}; the count and the checks come from the data"
    (table,) = [cell for cell in nb.cells if "published-table" in cell.metadata.get("tags", [])]
    for attribute in ("matches", "sums_to_zero", "squares_within_n", "max_difference"):
        assert attribute in table.source, f"the published-table cell does not use RowCheck.{attribute}"


# ---------------------------------------------------------------------------------------------
# The offline slides


@pytest.fixture(scope="module")
def slides(tmp_path_factory):
    if shutil.which("npm") is None and not (ROOT / "build" / "npm").is_dir():
        skip_or_fail("exporting the slides needs npm once, to fetch reveal.js: apt-get install npm")
    tool = _load_tool("lecture_slides")
    try:
        path = tool.build(tmp_path_factory.mktemp("slides"))
    except tool.SlidesError as problem:
        pytest.fail(f"the slides could not be exported: {problem}")
    return path


def _slides(text: str) -> list[str]:
    """The HTML of each slide, in order (nbconvert nests each in two <section> elements)."""
    return re.findall(r"<section>(?!<section>)(.*?)</section>", text, re.S)


def _text(page_html: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", " ", page_html))


def test_every_stage_of_the_walkthrough_has_its_slide(slides):
    text = slides.read_text(encoding="utf-8")
    pages = _slides(text)
    hand = by_hand(X[0])
    for position, stage in enumerate(WALKTHROUGH, start=1):
        heading = f"Step {position} of {len(WALKTHROUGH)}: {stage}"
        matching = [page for page in pages if heading in _text(page)]
        assert len(matching) == 1, f"{len(matching)} slides are headed {heading!r}"
        shown = " ".join(_text(matching[0].split('<aside class="notes">')[0]).split())  # parts are spans
        result = " ".join(stage_result(stage, hand).split())
        assert result in shown, f"{heading}: {result!r} not in {shown!r}"
        later = WALKTHROUGH[position:]  # later stages are not given away on this stage's slide
        labels = re.findall(r"<th[^>]*>([^<]+)</th>", matching[0].split('<aside class="notes">')[0])
        assert not set(labels) & set(later), f"{heading} shows later stages: {set(labels) & set(later)}"
        assert '<aside class="notes">' in matching[0], f"{heading} has no speaker notes"


def test_handout_has_no_dead_controls_or_live_only_sentences(slides):
    text = slides.read_text(encoding="utf-8")
    body = text[text.index('<div class="slides">') :]
    for control in ("<button", "<input", "<select", "application/vnd.jupyter.widget-view+json", "widget-state"):
        assert control not in body, f"the handout has {control!r}: a control that does nothing on paper"
    lecture = nbformat.read(LECTURE, as_version=4)
    live_only = [cell.source for cell in lecture.cells if "live-only" in cell.metadata.get("tags", [])]
    assert live_only, "the lecture tags no live-only sentence (press Next, move the slider, ...)"
    shown = _text(body)
    for sentence in live_only:
        assert _text(sentence.split("\n")[0])[:40].replace("**", "") not in shown.replace("**", ""), sentence
    for words in ("Press Next", "Move the slider", "Type another"):
        assert words not in shown, f"the handout says {words!r}, but nothing on it moves"


def test_slides_count_the_published_tables_errors_from_the_data(slides):
    import helpers
    from helpers.core.published_table import check_published_output

    check = check_published_output(helpers.load_published_output(), helpers.load_residual())
    wrong = sum(not row.matches for row in check.rows)
    shown = " ".join(_text(slides.read_text(encoding="utf-8")).split())
    assert f"{wrong} of its {len(check.rows)} rows are wrong" in shown
    assert "two rules catch it without a computer" not in shown.lower()
    squares = [row.row for row in check.rows if not row.squares_within_n]
    assert f"the sum of squares catches rows {' and '.join(map(str, squares))}" in shown, shown[:2000]
    assert not [row.row for row in check.rows if not row.sums_to_zero] and "Row sums catch no row" in shown


def _without_comments(text: str) -> str:
    """The page without CSS, HTML and whole-line JavaScript comments (credits and links to docs live there)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$", " ", text)


XML_NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


def test_slides_name_no_network_address(slides):
    text = _without_comments(slides.read_text(encoding="utf-8"))
    addresses = set(re.findall(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"'<>)]*", text))
    # An inline SVG's xmlns names are identifiers of XML namespaces, never fetched by a browser.
    addresses = sorted(addresses - XML_NAMESPACES)
    assert not addresses, f"the slides name network addresses: {addresses[:10]}"
    local = re.findall(r'(?:src|href)="([^"#:]+)"', text)
    local += re.findall(r'"((?:vendor)/[^"]+\.js)"', text)
    missing = sorted({path for path in local if not (slides.parent / path).is_file()})
    assert local and not missing, f"the slides load files that are not beside them: {missing}"


# Every slide must fit these screens whole (a clicker cannot scroll), arriving by the arrow keys
# or by a link to it (…html#/13, or F5).
SCREENS = [(1280, 720), (1366, 768), (1024, 768), (1920, 1080)]
MAX_FRAGMENTS = 20  # PageDowns within one slide before the test gives up on reaching the next
CANVAS_FONT_FLOOR = 24  # px of the 1280 × 720 canvas: 24 px on a 1280 × 720 screen, scaled with it

# What is wrong with the slide shown: elements outside the window, and text below the floor.
SLIDE_PROBLEMS = """(floor) => {
    const slide = document.querySelector('.slides > section.present > section.present')
        || document.querySelector('.slides > section.present');
    const outside = [], small = [];
    for (const element of slide.querySelectorAll('*')) {
        if (element.closest('aside.notes, script, style')) continue;
        const box = element.getBoundingClientRect();
        if (box.width === 0 || box.height === 0) continue;
        const name = element.tagName + ' "' + (element.innerText || element.alt || '').trim().slice(0, 40) + '"';
        if (box.left < -1 || box.top < -1 || box.right > innerWidth + 1 || box.bottom > innerHeight + 1)
            outside.push(`${name} at ${[box.left, box.top, box.right, box.bottom].map(Math.round)}`);
        const ownText = [...element.childNodes].some(node => node.nodeType === 3 && node.textContent.trim());
        const size = parseFloat(getComputedStyle(element).fontSize);
        if (ownText && size < floor) small.push(`${name}: ${size}px`);
    }
    return {outside: outside.slice(0, 5), small: small.slice(0, 5), text: slide.innerText};
}"""


def _slide_problems(page, where: str) -> list[str]:
    found = page.evaluate(SLIDE_PROBLEMS, CANVAS_FONT_FLOOR)
    problems = [f"{where}: outside the window: {item}" for item in found["outside"]]
    problems += [f"{where}: text below {CANVAS_FONT_FLOOR}px of the canvas: {item}" for item in found["small"]]
    return problems


def test_slides_fit_every_screen_offline_both_ways_of_arriving(slides):
    reason = missing_browser()
    if reason:
        skip_or_fail(reason)
    tool = _load_tool("lecture_slides")
    assert tool.CANVAS[0] * 9 == tool.CANVAS[1] * 16, f"the canvas {tool.CANVAS} is not 16:9"
    hand = by_hand(X[0])
    problems, errors, outside_requests = [], [], []
    with chromium() as browser:
        for width, height in SCREENS:
            context = offline_context(browser, ("file://",), record_images=True)
            page = context.new_page()
            page.set_viewport_size({"width": width, "height": height})
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(slides.as_uri())
            page.wait_for_selector(".reveal.ready", timeout=scaled_ms(30_000))
            page.add_style_tag(content=".reveal .slides section { transition: none !important; }")
            total = page.evaluate("Reveal.getTotalSlides()")
            assert total >= len(WALKTHROUGH) + 5, total
            texts = []
            for index in range(total):  # by the keys a clicker sends: each fragment of a slide, then the next
                for _ in range(MAX_FRAGMENTS if index else 0):
                    page.keyboard.press("PageDown")  # reveal.js handles the key at once: its indices are current
                    at, fragment = page.evaluate("() => [Reveal.getIndices().h, Reveal.getIndices().f]")
                    if at == index:
                        break
                    where = f"{width}×{height}, slide {index} at its fragment {fragment} reached by PageDown"
                    problems += _slide_problems(page, where)
                page.wait_for_function("(i) => Reveal.getIndices().h === i", arg=index, timeout=scaled_ms(10_000))
                problems += _slide_problems(page, f"{width}×{height}, slide {index + 1} reached by PageDown")
                text = page.evaluate("() => document.querySelector('.slides > section.present').innerText")
                texts.append(" ".join(text.split()))  # an equation's parts are spans: compare the words
                if (width, height) == (1280, 720):
                    path = ARTIFACTS / "slides" / f"slide_{index + 1:02d}.png"
                    path.parent.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(path))
            for position, stage in enumerate(WALKTHROUGH, start=1):
                index = next(i for i, text in enumerate(texts) if f"Step {position} of " in text)
                assert " ".join(stage_result(stage, hand).split()) in texts[index], f"{stage}: {texts[index][:300]}"
            for index in range(total):  # by a link to the slide, loaded afresh as after F5
                page.goto(f"{slides.as_uri()}#/{index}")
                page.reload(wait_until="load")
                page.wait_for_selector(".reveal.ready", timeout=scaled_ms(30_000))
                page.wait_for_function("(i) => Reveal.getIndices().h === i", arg=index, timeout=scaled_ms(10_000))
                problems += _slide_problems(page, f"{width}×{height}, slide {index + 1} opened by its link")
            context.close()
            outside_requests += context.outside_requests
    assert not problems, f"{len(problems)} problems, first ones:\n" + "\n".join(problems[:12])
    assert not outside_requests, f"the slides asked the network for: {outside_requests}"
    assert not errors, f"the slides raised errors in the browser: {errors[:5]}"


# ---------------------------------------------------------------------------------------------
# The lecturer's answers


@pytest.mark.slow
def test_lecturer_exercises_are_up_to_date():
    tool = _load_tool("lecturer_exercises")
    current = EXERCISES.read_text(encoding="utf-8") if EXERCISES.is_file() else ""
    assert current == tool.exercises_markdown(), (
        "lecturer/exercises.md differs from what the notebooks ask; run: python tools/build/lecturer_exercises.py"
    )


QUESTION = re.compile(
    r"What is (?P<what>the mean|the variance|the standard deviation|the normalised value)"
    r"(?P<rest>[^\n]*?) of x = \((?P<row>[^)]*)\)(?: \(ε = (?P<eps>[^)]+)\))?\?"
    r"\n\n- \*\*Answer: (?P<answer>-?\d+\.\d+)\*\*"
)


def test_lecturer_answers_agree_with_plain_python():
    found = list(QUESTION.finditer(EXERCISES.read_text(encoding="utf-8")))
    assert len(found) >= 5, f"expected the notebooks' answer checkers in lecturer/exercises.md, found {len(found)}"
    for match in found:
        row = [float(v) for v in match["row"].split(",")]
        eps = float(match["eps"] or 1e-5)
        mean = sum(row) / len(row)
        variance = sum((v - mean) ** 2 for v in row) / len(row)
        std = math.sqrt(variance + eps)
        expected = {"the mean": mean, "the variance": variance, "the standard deviation": std}.get(match["what"])
        if expected is None:
            feature = int(re.search(r"for feature (\d+)", match["rest"]).group(1))
            expected = (row[feature - 1] - mean) / std
        assert float(match["answer"]) == pytest.approx(expected, abs=5e-6), match.group(0)


def _jacobian_top_left(row, eps=1e-5) -> float:
    """dy₁/dx₁ of LayerNorm (γ = 1): (1 − 1/n − x̂₁²/n) / σ."""
    n = len(row)
    mean = sum(row) / n
    std = math.sqrt(sum((v - mean) ** 2 for v in row) / n + eps)
    return (1 - 1 / n - ((row[0] - mean) / std) ** 2 / n) / std


# The number questions' answers, worked out here in plain Python (key: part of the question).
NUMBER_ANSWERS = {
    "For row 2, what is dy₁/dx₁, the top-left entry of its Jacobian": lambda: _jacobian_top_left(X[1]),
    # read x and dy, write dx: three arrays of 4-byte numbers
    "Backward pass, 1024 × 1024 float32": lambda: 3 * 1024 * 1024 * 4 / 1e6,
}


def test_lecturer_number_answers_agree_with_plain_python():
    text = EXERCISES.read_text(encoding="utf-8")
    checked = 0
    for fragment, answer in NUMBER_ANSWERS.items():
        found = re.search(re.escape(fragment) + r"[^\n]*\n\n- \*\*Answer: (-?\d+\.\d+)\*\*", text)
        if found is None:
            continue  # that question is no longer asked
        assert float(found.group(1)) == pytest.approx(answer(), abs=5e-6), fragment
        checked += 1
    assert checked == len(NUMBER_ANSWERS), "a number question checked here is no longer in lecturer/exercises.md"


def test_lecturer_answers_are_not_in_the_student_notebooks():
    text = EXERCISES.read_text(encoding="utf-8")
    answers = set(re.findall(r"\*\*Answer: (-?\d+\.\d{5})\*\*", text))
    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type == "code" and ("answer_checker(" in cell.source):
                stored = json.dumps(cell.get("outputs", []))
                leaked = [answer for answer in answers if answer in stored]
                assert not leaked, f"{path.name}: a check-your-answer cell shows its answer {leaked}"


def test_run_py_has_lecture_and_slides_commands():
    for command, expected in (("lecture", "voila"), ("slides", "offline")):
        result = subprocess.run(
            [sys.executable, str(ROOT / "run.py"), command, "--help"],
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=60,
        )
        assert result.returncode == 0, result.stderr
        assert expected in result.stdout.lower(), result.stdout


@pytest.mark.parametrize("npm_says", ["", "npm error code ENOTFOUND\nnpm error network request failed"])
def test_slides_without_the_registry_say_what_failed(npm_says, tmp_path, monkeypatch):
    tool = _load_tool("lecture_slides")
    fake = tmp_path / "bin" / "npm"
    fake.parent.mkdir()
    fake.write_text(f"#!/bin/sh\nprintf '%s' {npm_says!r} >&2\nexit 1\n", encoding="utf-8")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    monkeypatch.setattr(tool, "NPM_CACHE", tmp_path / "npm")
    name, (version, integrity, _) = next(iter(tool.VENDOR.items()))
    with pytest.raises(tool.SlidesError) as raised:
        tool.npm_tarball(name, version, integrity)
    message = str(raised.value)
    assert f"npm pack {name}@{version}" in message and "could not fetch" in message, message
    assert "needs network access once" in message, message
    assert ("network request failed" in message) if npm_says else ("npm gave no reason" in message), message
