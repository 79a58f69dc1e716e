"""axe-core in the browser tests: fetched once from npm (pinned, checked), loaded into the page from a local file.

axe-core (Deque's accessibility rules engine, the one browser audits use) is fetched with `npm pack`
by the same function that fetches the slides' reveal.js (tools/build/lecture_slides.py ``npm_tarball``),
into build/npm/, checked against its sha512 every time, and its ``axe.min.js`` copied to build/axe/.
No CDN: the page loads it from that file. :func:`axe_scan` runs it on the series' own content only.
"""

from __future__ import annotations

import importlib.util
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
AXE_VERSION = "4.10.3"
AXE_INTEGRITY = "sha512-Xm7bpRXnDSX2YE2YFfBk2FnF0ep6tmG7xPh8iHee8MIcrgq762Nkce856dYtJYLkuIoYZvGfTs/PbZhideTcEg=="
AXE_SCRIPT = ROOT / "build" / "axe" / f"axe-core-{AXE_VERSION}.min.js"
SERIOUS = ("serious", "critical")


def axe_script() -> Path:
    """build/axe/axe-core-VERSION.min.js, fetched and checked the first time. Raises with a plain reason."""
    if not AXE_SCRIPT.is_file():
        slides = importlib.import_module("tools.build.lecture_slides")
        tarball = slides.npm_tarball("axe-core", AXE_VERSION, AXE_INTEGRITY)
        with tarfile.open(tarball) as archive:
            script = archive.extractfile("package/axe.min.js").read()
        AXE_SCRIPT.parent.mkdir(parents=True, exist_ok=True)
        AXE_SCRIPT.write_bytes(script)
    return AXE_SCRIPT


SCAN = """async ([selector, disabled]) => {
    const nodes = [...document.querySelectorAll(selector)];
    if (!nodes.length) return {nodes: 0, violations: []};
    const rules = Object.fromEntries(disabled.map(id => [id, {enabled: false}]));
    const result = await window.axe.run({include: nodes}, {resultTypes: ['violations'], rules});
    // Beyond axe: each slider handle named by its description (axe passes a handle with any name at
    // all), and each drop-down marked so that JupyterLab leaves its arrow keys alone.
    const within = (selector) => nodes.flatMap(node => [...node.querySelectorAll(selector)]);
    const nameOf = (node) => (node.getAttribute('aria-labelledby') || '').split(/\\s+/).filter(Boolean)
        .map(id => (document.getElementById(id) || {textContent: ''}).textContent).join(' ').trim();
    const handles = within('.noUi-handle'), selects = within('.widget-dropdown select');
    const controls = {
        sliders: handles.length,
        unnamed: handles.filter(h => !nameOf(h)).map(h => h.outerHTML.slice(0, 160)),
        names: handles.map(nameOf),
        dropdowns: selects.length,
        arrowsTaken: selects.filter(s => !s.closest('[data-lm-suppress-shortcuts]')).length,
    };
    return {nodes: nodes.length, controls, violations: result.violations.map(v => ({
        id: v.id, impact: v.impact, help: v.help, count: v.nodes.length,
        where: v.nodes.slice(0, 3).map(n => n.html.slice(0, 160)),
        // every node of it is an image JupyterLab's own output renderer drew (it gives images no alt)
        hostImages: v.nodes.every(n => {
            const node = document.querySelector([n.target].flat(2)[0]);
            return Boolean(node && node.closest('.jp-RenderedImage'));
        }),
    }))};
}"""

# Rules about the page as a whole (landmarks, the page's own title and language): those are the
# host's (JupyterLab's, Voilà's) business, not the series' content, which is all that is scanned.
PAGE_RULES = (
    "region",
    "landmark-one-main",
    "page-has-heading-one",
    "document-title",
    "html-has-lang",
    "bypass",
    "landmark-complementary-is-top-level",
    "landmark-unique",
)


def axe_scan(page, selector: str) -> dict:
    """axe-core's violations inside the elements matching ``selector``: {"nodes", "violations": [{id,
    impact, help, count, where}]}, or {"error": reason} when axe-core cannot be had (no npm, offline)."""
    try:
        script = axe_script()
    except Exception as problem:  # noqa: BLE001 - said in the test's message instead
        return {"error": f"axe-core {AXE_VERSION} could not be fetched: {problem}"}
    if not page.evaluate("() => Boolean(window.axe)"):
        page.add_script_tag(path=str(script))
    from lab_driver import within  # axe's run is a promise: bounded, since evaluate has no time-out

    return within(page, SCAN, [selector, list(PAGE_RULES)], what="the accessibility scan", ms=120_000)


def serious(scan: dict) -> list[dict]:
    return [v for v in scan.get("violations", []) if v["impact"] in SERIOUS]


def counts(scan: dict) -> str:
    """'2 serious (color-contrast ×3), 1 moderate (…)': the numbers a report prints."""
    if "error" in scan:
        return scan["error"]
    by_impact: dict[str, list[str]] = {}
    for v in scan["violations"]:
        by_impact.setdefault(v["impact"] or "unknown", []).append(f"{v['id']} ×{v['count']}")
    if not by_impact:
        return f"no violations in {scan['nodes']} scanned element(s)"
    return "; ".join(f"{len(ids)} {impact} ({', '.join(ids)})" for impact, ids in sorted(by_impact.items()))
