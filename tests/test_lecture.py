"""The lecture: its notebook, its offline slides, and the lecturer's answers to every exercise.

- lecture/layernorm_lecture.ipynb is stored clean (no outputs: Voilà and the slides export run it
  fresh), its prose quotes only computed numbers, and its list of steps matches the explorer's.
- The slides (tools/lecture_slides.py) are exported here: every stage of the walkthrough has its
  slide, with the right numbers in the stored widget state; the HTML names no network address; and
  in Chromium, with every network request blocked, the widgets render on every stage's slide.
- lecturer/exercises.md is up to date with the notebooks, and its answers agree with plain Python.
(The lecture presented live in Voilà is driven in tests/test_browser.py.)
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

from browser_support import (
    ARTIFACTS,
    WALKTHROUGH,
    X,
    by_hand,
    chromium,
    missing_browser,
    offline_context,
    skip_or_fail,
    stage_result,
)

ROOT = Path(__file__).resolve().parent.parent
LECTURE = ROOT / "lecture" / "layernorm_lecture.ipynb"
EXERCISES = ROOT / "lecturer" / "exercises.md"


def _load_tool(name: str):
    spec = importlib.util.spec_from_file_location(f"tools_{name}", ROOT / "tools" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


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
                "store it without (Kernel → Restart and Clear Outputs, then save)")
    assert nb.cells[0].cell_type == "markdown" and nb.cells[0].source.startswith("# "), "start with a title"


def test_lecture_quotes_only_computed_numbers():
    from prose_facts import build_facts
    from test_prose_numbers import quoted_numbers

    facts = build_facts()
    nb = nbformat.read(LECTURE, as_version=4)
    unknown = [f"cell {index}: {number}" for index, cell in enumerate(nb.cells) if cell.cell_type == "markdown"
               for number in quoted_numbers(cell.source) if facts.explain(number) is None]
    assert not unknown, "numbers in the lecture's prose that no computation gives:\n" + "\n".join(unknown)


def test_lecture_lists_the_explorers_stages_in_order():
    from helpers.display import STAGE_LABELS
    from helpers.widgets import EXPLORER_STAGES

    slides = _load_tool("lecture_slides")
    listed = [stage for stage, _ in slides.stage_sentences(nbformat.read(LECTURE, as_version=4))]
    assert listed == [STAGE_LABELS[stage][0] for stage in EXPLORER_STAGES] == WALKTHROUGH


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


def _widget_state(text: str) -> dict:
    found = re.search(r'<script type="application/vnd.jupyter.widget-state\+json">(.*?)</script>', text, re.S)
    assert found, "the slides store no widget state, so no widget can render"
    return json.loads(found.group(1))["state"]


def _shown_texts(state: dict, model_id: str) -> list[str]:
    """The values of every Label and HTML widget inside the widget ``model_id``."""
    texts, todo, seen = [], [model_id], set()
    while todo:
        current = todo.pop()
        if current in seen or current not in state:
            continue
        seen.add(current)
        model = state[current]["state"]
        if isinstance(model.get("value"), str):
            texts.append(html.unescape(re.sub(r"<[^>]+>", " ", model["value"])))
        todo += [child.removeprefix("IPY_MODEL_") for child in model.get("children", [])]
    return texts


def test_every_stage_of_the_walkthrough_has_its_slide(slides):
    text = slides.read_text(encoding="utf-8")
    state = _widget_state(text)
    pages = _slides(text)
    hand = by_hand(X[0])
    for position, stage in enumerate(WALKTHROUGH, start=1):
        heading = f"Step {position} of {len(WALKTHROUGH)}: {stage}"
        matching = [page for page in pages if heading in html.unescape(page)]
        assert len(matching) == 1, f"{len(matching)} slides are headed {heading!r}"
        views = re.findall(r'<script type="application/vnd.jupyter.widget-view\+json">(.*?)</script>', matching[0], re.S)
        assert len(views) == 1, f"the slide {heading!r} has {len(views)} widgets, expected the explorer"
        shown = " ".join(_shown_texts(state, json.loads(views[0])["model_id"]))
        assert f"step {position} of {len(WALKTHROUGH)}: {stage}" in shown, shown[:300]
        assert stage_result(stage, hand) in shown, f"{heading}: {stage_result(stage, hand)!r} not in {shown!r}"


def _without_comments(text: str) -> str:
    """The page without CSS, HTML and whole-line JavaScript comments (credits and links to docs live there)."""
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    return re.sub(r"(?m)^\s*//.*$", " ", text)


def test_slides_name_no_network_address(slides):
    text = _without_comments(slides.read_text(encoding="utf-8"))
    addresses = sorted(set(re.findall(r"(?:https?:)?//[A-Za-z0-9.-]+\.[A-Za-z]{2,}[^\s\"'<>)]*", text)))
    assert not addresses, f"the slides name network addresses: {addresses[:10]}"
    local = re.findall(r'(?:src|href)="([^"#:]+)"', text)
    local += re.findall(r'"((?:vendor)/[^"]+\.js)"', text)
    missing = sorted({path for path in local if not (slides.parent / path).is_file()})
    assert local and not missing, f"the slides load files that are not beside them: {missing}"


def test_slides_work_offline_in_chromium(slides):
    reason = missing_browser()
    if reason:
        skip_or_fail(reason)
    pages = _slides(slides.read_text(encoding="utf-8"))
    hand = by_hand(X[0])
    with chromium() as browser:
        context = offline_context(browser, ("file://",), record_images=True)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(slides.as_uri())
        page.wait_for_selector(".reveal.ready", timeout=30_000)
        page.add_style_tag(content=".reveal .slides section { transition: none !important; }")  # still screenshots
        views = len(re.findall(r'<script type="application/vnd.jupyter.widget-view\+json">', slides.read_text(encoding="utf-8")))
        page.wait_for_function("""(count) => [...document.querySelectorAll(
            'script[type="application/vnd.jupyter.widget-view+json"]')]
            .filter(script => script.parentElement.querySelector('.lm-Widget')).length >= count""",
                               arg=views, timeout=30_000)
        for position, stage in enumerate(WALKTHROUGH, start=1):
            index = next(i for i, p in enumerate(pages) if f"Step {position} of " in p)
            page.evaluate(f"location.hash = '#/{index}'")
            present = page.locator("section.present section.present, section.present:not(:has(section))").last
            page.wait_for_function("([text]) => { const s = document.querySelector('section.present section.present')"
                                   " || document.querySelector('section.present'); return s && s.innerText.includes(text); }",
                                   arg=[stage_result(stage, hand)], timeout=10_000)
            assert f"step {position} of {len(WALKTHROUGH)}: {stage}" in present.inner_text()
            if position in (1, 2, len(WALKTHROUGH)):
                path = ARTIFACTS / "slides" / f"step_{position}.png"
                path.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(path))
        context.close()
    assert not context.outside_requests, f"the slides asked the network for: {context.outside_requests}"
    assert not errors, f"the slides raised errors in the browser: {errors[:5]}"


# ---------------------------------------------------------------------------------------------
# The lecturer's answers


def test_lecturer_exercises_are_up_to_date():
    tool = _load_tool("lecturer_exercises")
    current = EXERCISES.read_text(encoding="utf-8") if EXERCISES.is_file() else ""
    assert current == tool.exercises_markdown(), (
        "lecturer/exercises.md differs from what the notebooks ask; run: python tools/lecturer_exercises.py")


QUESTION = re.compile(r"What is (?P<what>the mean|the variance|the standard deviation|the normalised value)"
                      r"(?P<rest>[^\n]*?) of x = \((?P<row>[^)]*)\)(?: \(ε = (?P<eps>[^)]+)\))?\?"
                      r"\n\n- \*\*Answer: (?P<answer>-?\d+\.\d+)\*\*")


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
    "top-left entry of the Jacobian": lambda: _jacobian_top_left(X[0]),
    "1024 × 1024 float32 matrix": lambda: 2 * 1024 * 1024 * 4 / 1e6,  # read once, written once, 4 bytes each
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
    assert checked, "none of the number questions checked here is in lecturer/exercises.md any more"


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
        result = subprocess.run([sys.executable, str(ROOT / "run.py"), command, "--help"], capture_output=True,
                                text=True, cwd=ROOT, timeout=60)
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
