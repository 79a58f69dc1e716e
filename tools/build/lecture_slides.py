"""Export the lecture as offline slides: a handout that opens from disk with no network at all.

    python tools/build/lecture_slides.py                    # writes build/slides/
    python tools/build/lecture_slides.py --output DIR

Maintainers and lecturers run it as `python3 run.py slides`. It

1. fetches reveal.js, require.js, jQuery and the ipywidgets HTML renderer (@jupyter-widgets/html-manager)
   from the npm registry with `npm pack`, once, into build/npm/ (pinned versions, checked against
   their sha512), and copies the files the slides need into DIR/vendor/;
2. makes the handout notebook from lecture/layernorm_lecture.ipynb: the cell tagged ``walkthrough``
   (the step-through explorer, live in Voilà) becomes one slide per stage, each with the stages
   revealed so far, the stage's sentence (cell tagged ``walkthrough-steps``) and its speaker note
   (``walkthrough-notes``; press S); every cell tagged ``live`` shows its widget's result with no
   controls, and sentences about working a widget (``live-only``) are left out;
3. executes it in a fresh kernel (each live widget shows as its result: the slides need no widget state);
4. exports it with nbconvert's reveal.js template (tools/build/offline_slides/: no CDN, no MathJax),
   code hidden, to DIR/layernorm_lecture.slides.html.

Open the HTML file in a browser; arrow keys move between slides. Copy the whole folder to hand it out.
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LECTURE = ROOT / "lecture" / "layernorm_lecture.ipynb"
TEMPLATE_DIR = Path(__file__).resolve().parent / "offline_slides"
NPM_CACHE = ROOT / "build" / "npm"
DEFAULT_OUTPUT = ROOT / "build" / "slides"

# npm package -> (version, sha512 of its tarball, {file in the package: where it goes under vendor/}).
# The widget renderer must match ipywidgets 8 (html-manager 1.x); reveal.js 4.0.2 is what nbconvert's
# reveal template is written for.
VENDOR = {
    "reveal.js": (
        "4.0.2",
        "sha512-LWZSUenufF1gpD7npxJ7KfoQQFKgc1D6XrLTFgKlwWNP1BQ74hT48KONFWMAw+8R/QUeaScCLCLrBVHDfFIEiw==",
        {
            "dist/reveal.js": "reveal.js/dist/reveal.js",
            "dist/reveal.css": "reveal.js/dist/reveal.css",
            "dist/theme/white.css": "reveal.js/dist/theme/white.css",
            "dist/theme/fonts/source-sans-pro/": "reveal.js/dist/theme/fonts/source-sans-pro/",
            "plugin/notes/notes.js": "reveal.js/plugin/notes/notes.js",
            "LICENSE": "reveal.js/LICENSE",
        },
    ),
    "@jupyter-widgets/html-manager": (
        "1.0.15",
        "sha512-5thBIV6ymNgmPVOHvzx+gGy8ZSKmSazhtGw4/c4xJDVzRhG9PTeQsRjF3FUTopvFi//SABeNz1yp47bCrJ3CQA==",
        {
            "dist/embed-amd.js": "html-manager/embed-amd.js",
            "dist/*.woff2": "html-manager/",
            "dist/*.woff": "html-manager/",
            "dist/embed.js.LICENSE.txt": "html-manager/LICENSE.txt",
        },
    ),
    "requirejs": (
        "2.3.7",
        "sha512-DouTG8T1WanGok6Qjg2SXuCMzszOo0eHeH9hDZ5Y4x8Je+9JB38HdTLT4/VA8OaUhBa0JPVHJ0pyBkM1z+pDsw==",
        {"require.js": "require.js"},
    ),
    "jquery": (
        "3.7.1",
        "sha512-m4avr8yL8kmFN8psrbFFFmB/If14iN5o9nw/NgnnM+kybDJpRsAynV2BsfpTYrTRysYUdADVD7CkUUizgkpLfg==",
        {"dist/jquery.min.js": "jquery.min.js", "LICENSE.txt": "jquery.LICENSE.txt"},
    ),
}
# The slides' canvas: 16:9, so projectors and laptops show it whole; reveal.js scales it to the screen.
CANVAS = (1280, 720)
# Where the slides find them (relative to the HTML file).
URLS = {
    "reveal_url_prefix": "vendor/reveal.js",
    "require_js_url": "vendor/require.js",
    "jquery_url": "vendor/jquery.min.js",
    "widget_renderer_url": "vendor/html-manager/embed-amd.js",
}

WALKTHROUGH_TAG = "walkthrough"  # the step-through explorer: one slide per stage in the handout
STEPS_TAG = "walkthrough-steps"  # the stages in words: one sentence on each stage's slide
NOTES_TAG = "walkthrough-notes"  # speaker notes per stage: each on its stage's slide (press S)
LIVE_TAG = "live"  # a cell making a widget: the handout shows its result instead
LIVE_ONLY_TAG = "live-only"  # a sentence about working a widget ("press Next"): not in the handout
STEP_LINE = re.compile(r"^\s*[-*]\s+\*\*(?P<stage>[^*]+)\*\*\s*:?\s*(?P<text>.*)$")


NPM_TIMEOUT = 300  # seconds for one `npm pack`
NEEDS_NETWORK_ONCE = (
    "The first export needs network access once, to fetch reveal.js and its helpers into "
    "build/npm/; connect and run `python3 run.py slides` again (later exports work offline)."
)


class SlidesError(Exception):
    """Something a person can fix, said in plain words."""


# --------------------------------------------------------------------------------------------
# 1. reveal.js and the widget renderer, from the npm registry, checked


def _integrity(path: Path) -> str:
    return "sha512-" + base64.b64encode(hashlib.sha512(path.read_bytes()).digest()).decode()


def npm_tarball(name: str, version: str, integrity: str) -> Path:
    """The package's tarball in build/npm/, fetched with `npm pack` the first time, checked every time."""
    filename = f"{name.lstrip('@').replace('/', '-')}-{version}.tgz"
    path = NPM_CACHE / filename
    if not path.is_file():
        npm = shutil.which("npm")
        if npm is None:
            raise SlidesError(
                "npm (Node.js) is needed once, to fetch reveal.js and the widget renderer: "
                "install it (Debian/Ubuntu: `apt-get install npm`) and run this again."
            )
        NPM_CACHE.mkdir(parents=True, exist_ok=True)
        try:
            result = subprocess.run(
                [npm, "pack", f"{name}@{version}", "--pack-destination", str(NPM_CACHE), "--loglevel=error"],
                cwd=NPM_CACHE,
                capture_output=True,
                text=True,
                timeout=NPM_TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            raise SlidesError(
                f"fetching {name}@{version} from the npm registry took longer than {NPM_TIMEOUT} s. "
                + NEEDS_NETWORK_ONCE
            ) from None
        if result.returncode != 0 or not path.is_file():
            said = (result.stderr.strip() or result.stdout.strip()).splitlines()
            reason = f" npm said: {said[-1].strip()}" if said else " npm gave no reason."
            raise SlidesError(
                f"`npm pack {name}@{version}` could not fetch it from the npm registry (exit code "
                f"{result.returncode}).{reason} " + NEEDS_NETWORK_ONCE
            )
    if _integrity(path) != integrity:
        path.unlink()
        raise SlidesError(f"{filename} does not match its pinned sha512; it was removed, run this again.")
    return path


def vendor(output: Path) -> list[Path]:
    """Copy the files the slides load into ``output``/vendor/; return them."""
    target_root = output / "vendor"
    if target_root.exists():
        shutil.rmtree(target_root)
    written = []
    for name, (version, integrity, files) in VENDOR.items():
        with tarfile.open(npm_tarball(name, version, integrity)) as archive:
            members = {
                member.name.removeprefix("package/"): member for member in archive.getmembers() if member.isfile()
            }
            for source, destination in files.items():
                if source.endswith("/"):
                    chosen = [key for key in members if key.startswith(source)]
                elif "*" in source:
                    pattern = re.compile(re.escape(source).replace(r"\*", r"[^/]*") + "$")
                    chosen = [key for key in members if pattern.match(key)]
                else:
                    chosen = [source] if source in members else []
                if not chosen:
                    raise SlidesError(f"{name}@{version} has no {source}")
                for key in chosen:
                    relative = (
                        destination + key[len(source) :]
                        if source.endswith("/")
                        else (destination + Path(key).name if destination.endswith("/") else destination)
                    )
                    path = target_root / relative
                    path.parent.mkdir(parents=True, exist_ok=True)
                    path.write_bytes(archive.extractfile(members[key]).read())
                    written.append(path)
    return written


# --------------------------------------------------------------------------------------------
# 2. The handout notebook: one slide per stage of the walkthrough


def stage_sentences(nb) -> list[tuple[str, str]]:
    """[(stage label, sentence)] from the cell tagged walkthrough-steps, in order."""
    cells = [cell for cell in nb.cells if STEPS_TAG in cell.metadata.get("tags", [])]
    if len(cells) != 1:
        raise SlidesError(f"the lecture needs one markdown cell tagged {STEPS_TAG!r}; found {len(cells)}")
    steps = [(m["stage"].strip(), m["text"].strip()) for m in map(STEP_LINE.match, cells[0].source.splitlines()) if m]
    if not steps:
        raise SlidesError(f"the cell tagged {STEPS_TAG!r} has no lines like '- **mean**: ...'")
    return steps


# Defined in the handout's first hidden cell: each live widget becomes its result, as plain HTML
# (no buttons, sliders or text fields that would do nothing on a slide).
STATIC_VIEWS = """
from IPython.display import HTML as _HTML
import ipywidgets as _ipywidgets


def _static(widget):
    \"\"\"What a live widget shows, without its controls.\"\"\"
    from helpers.display import steps_html as _steps_html  # (helpers is importable after the set-up cell)

    if hasattr(widget, "stages_html"):  # the step-through explorer: the stages revealed so far
        return _HTML(widget.stages_html.value)
    if hasattr(widget, "output_html"):  # the matrix editor: LayerNorm of every row
        return _HTML(widget.output_html.value)
    if isinstance(getattr(widget, "focus", None), tuple):  # a row editor: the stages its slide shows
        return _HTML(_steps_html(widget.record, widget.focus, widget.shown_stages or ("input", *widget.focus)))
    parts, todo = [], [widget]
    while todo:
        current = todo.pop(0)
        if isinstance(current, _ipywidgets.HTML) and current.value.strip():
            parts.append(current.value)
        todo[0:0] = list(getattr(current, "children", ()))
    return _HTML("".join(parts))
"""


def stage_notes(nb) -> dict[str, str]:
    """{stage label: speaker note} from the cell tagged walkthrough-notes (may be absent)."""
    cells = [cell for cell in nb.cells if NOTES_TAG in cell.metadata.get("tags", [])]
    lines = (match for cell in cells for match in map(STEP_LINE.match, cell.source.splitlines()) if match)
    return {match["stage"].strip(): match["text"].strip() for match in lines}


def handout_notebook(lecture: Path = LECTURE):
    """The lecture as a handout: its live walkthrough unrolled into one slide per stage, every live
    widget replaced by its result (no dead controls), and the sentences that ask the audience to
    press, type or move something (cells tagged ``live-only``) left out."""
    import nbformat

    nb = nbformat.read(lecture, as_version=4)
    steps = stage_sentences(nb)
    notes = stage_notes(nb)
    walkthrough = [cell for cell in nb.cells if WALKTHROUGH_TAG in cell.metadata.get("tags", [])]
    if len(walkthrough) != 1 or walkthrough[0].cell_type != "code":
        raise SlidesError(f"the lecture needs one code cell tagged {WALKTHROUGH_TAG!r}")
    make_explorer = walkthrough[0].source.strip()
    cells = [nbformat.v4.new_code_cell(STATIC_VIEWS.strip(), metadata={"slideshow": {"slide_type": "skip"}})]
    for cell in nb.cells:
        tags = cell.metadata.get("tags", [])
        if STEPS_TAG in tags or NOTES_TAG in tags or LIVE_ONLY_TAG in tags:
            continue
        if LIVE_TAG in tags and cell.cell_type == "code":
            cell = nbformat.from_dict({**cell, "source": f"_static({cell.source.strip()})"})
        if WALKTHROUGH_TAG not in tags:
            cells.append(cell)
            continue
        for position, (stage, sentence) in enumerate(steps):
            heading = nbformat.v4.new_markdown_cell(
                f"### Step {position + 1} of {len(steps)}: {stage}\n\n{sentence}",
                metadata={"slideshow": {"slide_type": "slide"}, "tags": ["walkthrough-stage"]},
            )
            explorer = nbformat.v4.new_code_cell(
                f"walkthrough = {make_explorer}\n"
                + (f"for _ in range({position}):\n    walkthrough.next()\n" if position else "")
                + "_static(walkthrough)",
                metadata={"slideshow": {"slide_type": "-"}},
            )
            cells += [heading, explorer]
            if stage in notes:
                cells.append(
                    nbformat.v4.new_markdown_cell(notes[stage], metadata={"slideshow": {"slide_type": "notes"}})
                )
    nb.cells = cells
    for index, cell in enumerate(nb.cells):
        cell["id"] = f"handout-{index}"
    return nb


# --------------------------------------------------------------------------------------------
# 3 and 4. Execute, keeping the widgets, and export with no network address


def execute(nb, folder: Path, timeout: int = 120):
    from nbclient import NotebookClient

    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
        store_widget_state=False,
        record_timing=False,
        extra_arguments=["--IPKernelApp.log_level=ERROR"],
    )
    # (PYDEVD_DISABLE_FILE_VALIDATION quiets a notice every kernel prints at start.)
    client.execute(env={**os.environ, "PYDEVD_DISABLE_FILE_VALIDATION": "1"})
    problems = [
        f"cell {index}: {output.get('ename', 'stderr')}: {output.get('evalue', output.get('text', ''))}"
        for index, cell in enumerate(nb.cells)
        if cell.cell_type == "code"
        for output in cell.outputs
        if output.output_type == "error" or (output.output_type == "stream" and output.name == "stderr")
    ]
    if problems:
        raise SlidesError("the lecture printed errors while running:\n" + "\n".join(problems))
    return nb


def export(nb, html_path: Path) -> Path:
    from nbconvert import SlidesExporter

    exporter = SlidesExporter(
        extra_template_basedirs=[str(TEMPLATE_DIR.parent)],
        template_name=TEMPLATE_DIR.name,
        exclude_input=True,
        exclude_input_prompt=True,
        exclude_output_prompt=True,
        reveal_scroll=False,
        reveal_number="c/t",
        reveal_theme="white",
        reveal_width=str(CANVAS[0]),
        reveal_height=str(CANVAS[1]),
        **URLS,
    )
    body, _ = exporter.from_notebook_node(nb, resources={"metadata": {"name": "LayerNorm, step by step"}})
    html_path.parent.mkdir(parents=True, exist_ok=True)
    html_path.write_text(body, encoding="utf-8")
    return html_path


NETWORK_ADDRESS = re.compile(
    r"""(?:src|href)\s*=\s*["']?(?:https?:)?//|url\(\s*["']?(?:https?:)?//|"""
    r"""import\s[^;]*?from\s*["'](?:https?:)?//|\brequire\(\s*\[\s*["'](?:https?:)?//""",
    re.IGNORECASE,
)


def network_references(html: str) -> list[str]:
    """Every place where the page would load something from a network address."""
    return [html[max(0, m.start() - 60) : m.end() + 60] for m in NETWORK_ADDRESS.finditer(html)]


def build(output: Path = DEFAULT_OUTPUT, lecture: Path = LECTURE) -> Path:
    """The handout of ``lecture`` (the tests may export another copy of it) in ``output``."""
    output = output.resolve()
    vendor(output)
    nb = execute(handout_notebook(lecture), lecture.parent)
    html_path = export(nb, output / (lecture.stem + ".slides.html"))
    leaks = network_references(html_path.read_text(encoding="utf-8"))
    if leaks:
        raise SlidesError("the slides still load from the network:\n" + "\n".join(leaks[:5]))
    return html_path


def folder_size(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--output",
        type=Path,
        default=DEFAULT_OUTPUT,
        help=f"folder to write (default: {DEFAULT_OUTPUT.relative_to(ROOT)})",
    )
    args = parser.parse_args(argv)
    start = time.monotonic()
    try:
        html_path = build(args.output)
    except SlidesError as problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    size = folder_size(html_path.parent) / 1e6
    shown = html_path.relative_to(ROOT) if html_path.is_relative_to(ROOT) else html_path
    print(
        f"wrote {shown} ({size:.1f} MB with vendor/) in {time.monotonic() - start:.0f} s; "
        "open it in a browser, no network needed"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
