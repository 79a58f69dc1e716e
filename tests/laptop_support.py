"""What a laptop shows: the checks tests/browser/test_laptop_stages.py runs at every stage in JupyterLab.

OVERFLOWS finds, in every output of the open notebook, anything that reaches past its cell's right edge
without a box that scrolls sideways, and fixed-width boxes that cut their own text off (a clipped
"▶ row 5"). :func:`walk_and_look` walks an open notebook's every stage and looks at each at every laptop size: the
body of tests/browser/test_laptop_stages.py, run once per notebook by tests/notebook_runs.py.
"""

from __future__ import annotations

import json

from patience import scaled_ms

from browser_support import ARTIFACTS
from lab_driver import LAPTOP, within

# For every output: things that reach past its right edge with no sideways-scrolling box between,
# and boxes that hide part of their own text. Returns one line per problem.
OVERFLOWS = """() => {
    const problems = [];
    const scrolls = node => ['auto', 'scroll'].includes(getComputedStyle(node).overflowX);
    const panel = window.testPanel;
    panel.content.widgets.forEach((cell, i) => {
        if (cell.model.type !== 'code') return;
        cell.outputArea.node.querySelectorAll('.jp-OutputArea-output').forEach(output => {
            const edge = output.getBoundingClientRect().right + 1;
            for (const node of output.querySelectorAll('*')) {
                const box = node.getBoundingClientRect();
                if (!box.width || !box.height) continue;
                let inside = false;
                for (let up = node.parentElement; up && up !== output; up = up.parentElement)
                    if (scrolls(up)) { inside = true; break; }
                if (!inside && box.right > edge) {
                    problems.push(`cell ${i}: <${node.tagName.toLowerCase()} class="${node.className}"> ends at `
                        + `${Math.round(box.right)} px, past the output's edge at ${Math.round(edge)} px: `
                        + JSON.stringify(node.textContent.trim().slice(0, 60)));
                    break;
                }
                const style = getComputedStyle(node);
                const clips = style.overflowX === 'hidden' || style.textOverflow === 'ellipsis';
                if (clips && node.children.length === 0 && node.scrollWidth > node.clientWidth + 1
                        && node.textContent.trim()) {
                    problems.push(`cell ${i}: ${JSON.stringify(node.textContent.trim().slice(0, 60))} is cut off `
                        + `(${node.scrollWidth} px of text in a ${node.clientWidth} px box)`);
                    break;
                }
            }
        });
    });
    return problems;
}"""

# The column that says what a wide table concludes ("verdict", "= PyTorch?") must be in sight as the table is first
# drawn: first, pinned to the box's right edge, or a table narrow enough. Returns one line per key column hidden.
KEY_COLUMN_NAMES = ["verdict", "= PyTorch?"]
KEY_COLUMNS_HIDDEN = """(names) => {
    const problems = [];
    window.testPanel.content.widgets.forEach((cell, i) => {
        if (cell.model.type !== 'code') return;
        cell.outputArea.node.querySelectorAll('.layernorm-scroll').forEach(box => {
            const area = box.getBoundingClientRect();
            if (!area.width) return;  // folded away
            for (const th of box.querySelectorAll('th')) {
                if (!names.includes(th.textContent.trim())) continue;
                const seen = th.getBoundingClientRect();
                if (seen.right > area.right + 1 || seen.left < area.left - 1)
                    problems.push(`cell ${i}: the key column "${th.textContent.trim()}" is out of sight `
                        + `(${Math.round(seen.left)}–${Math.round(seen.right)} px, box ${Math.round(area.left)}–`
                        + `${Math.round(area.right)} px)`);
            }
        });
    });
    return problems;
}"""

SIZES = {"1024": LAPTOP, "1366": {"width": 1366, "height": 768}}  # a laptop's window, the same page resized

# Boxes that scroll: how much of each is out of sight, whether the line above says so, and whether it is one of
# the step-through's equations (which must never scroll).
KEY_COLUMNS = ["= PyTorch?"]  # a table's verdict column: in sight at 1024 px, however wide the table (issue 33)
SCROLLERS = """() => {
    const KEY_COLUMNS = KEY_COLUMNS_JSON;
    const found = [];
    window.testPanel.content.widgets.forEach((cell, i) => {
        if (cell.model.type !== 'code') return;
        cell.outputArea.node.querySelectorAll('.layernorm-scroll').forEach(box => {
            if (!box.getBoundingClientRect().width) return;  // folded away
            const hidden = box.scrollWidth - box.clientWidth;
            const before = box.previousElementSibling;
            const hint = before && before.classList.contains('layernorm-scroll-hint')
                && before.getBoundingClientRect().height > 0 ? before.textContent : '';
            // the column that matters (notebook 13's "= PyTorch?") must be in sight without scrolling
            const right = box.getBoundingClientRect().right;
            const key = [...box.querySelectorAll('th')].find(th => KEY_COLUMNS.includes(th.textContent.trim()));
            const keyHidden = key ? Math.max(0, Math.round(key.getBoundingClientRect().right - right)) : 0;
            if (hidden <= 1 && !hint) return;
            found.push({cell: i, hidden, width: box.scrollWidth, box: box.clientWidth, hint, keyHidden,
                        equations: !!box.closest('.layernorm-filled-steps'),
                        text: box.textContent.trim().slice(0, 50)});
        });
    });
    return found;
}""".replace("KEY_COLUMNS_JSON", json.dumps(KEY_COLUMNS))

# Buttons that open a fold or reveal the next stage, in the order a learner meets them.
FOLDS = ["show the later steps", "show every step", "show all"]


def walk_stages(page):
    """Yield once per stage: first as run, then after each Next of every step-through, then with every fold open."""
    yield "as run"
    panel = page.locator(".jp-NotebookPanel:visible")
    nexts = panel.locator("button", has_text="Next ▶")
    for k in range(nexts.count()):
        button = nexts.nth(k)
        stage = 1
        while button.is_enabled():
            before = button.locator("xpath=../..").text_content()
            button.click()
            page.wait_for_function(
                "([node, before]) => node.textContent !== before",
                arg=[button.locator("xpath=../..").element_handle(), before],
                timeout=scaled_ms(20_000),
                polling=50,
            )
            stage += 1
            yield f"step-through {k + 1}, stage {stage}"
    for words in FOLDS:
        # Handles, not a locator by text: an open toggle's label changes ("hide the later steps").
        toggles = panel.locator("button", has_text=words).element_handles()
        for k, toggle in enumerate(toggles):
            if not toggle.is_visible():  # a fold with nothing folded: its line is hidden
                continue
            toggle.scroll_into_view_if_needed()
            node = toggle.evaluate_handle("(button) => button.parentElement.parentElement.parentElement")
            before = node.evaluate("(node) => node.textContent")
            toggle.click()
            page.wait_for_function(
                "([node, before]) => node.textContent !== before",
                arg=[node, before],
                timeout=scaled_ms(20_000),
                polling=50,
            )
            yield f"“{words}” {k + 1} open"


def shoot(page, name: str) -> None:
    """Screenshots of every widget's output, and of every table that says it scrolls, as they are now."""
    folder = ARTIFACTS / "laptop-stages"
    folder.mkdir(parents=True, exist_ok=True)
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in name)
    panel = ".jp-NotebookPanel:visible .jp-OutputArea-output"
    outputs = page.locator(f"{panel}:has(.jupyter-widgets), {panel}:has(.layernorm-scroll-hint)")
    for k in range(min(outputs.count(), 10)):
        outputs.nth(k).screenshot(path=str(folder / f"{safe}-{k + 1}.png"))


def resize(page, size: str) -> None:
    """The window at ``size``, laid out again: JupyterLab lays out on the resize event's next frames."""
    width = SIZES[size]["width"]
    page.set_viewport_size(SIZES[size])
    page.wait_for_function("width => window.innerWidth === width", arg=width, timeout=scaled_ms(20_000))
    within(
        page,
        "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(done))))",
        what=f"three frames drawn at {size}",
        ms=10_000,
    )


def look(page, stage: str, size: str, problems: list, figures: dict, spare: set) -> None:
    """What a learner sees at this stage at this size: overflows, and boxes that scroll unannounced."""
    problems += [f"{size}×768, {stage}: {line}" for line in page.evaluate(OVERFLOWS)]
    problems += [f"{size}×768, {stage}: {line}" for line in page.evaluate(KEY_COLUMNS_HIDDEN, KEY_COLUMN_NAMES)]
    for box in page.evaluate(SCROLLERS):
        if box["hidden"] <= 1:  # a hint above a table that fits: harmless, counted for the report
            spare.add(f"cell {box['cell']} ({box['width']} px in {box['box']})")
            continue
        figures[size].append(f"{stage}: cell {box['cell']}: {box['hidden']} px of {box['width']} hidden")
        where = f"{size}×768, {stage}: cell {box['cell']}: {box['text']!r} ({box['hidden']} px of {box['width']} cut)"
        if box["keyHidden"]:
            problems.append(f"{where}: its verdict column is {box['keyHidden']} px out of sight")
        if box["equations"]:
            problems.append(f"{where}: the step-through's equations scroll instead of breaking")
        elif not box["hint"]:
            problems.append(f"{where}: scrolls with nothing above it saying so")


def walk_and_look(page, name: str) -> dict:
    """Walk the open notebook ``name`` (run, with the file browser open) through every stage, looking at each at
    every size: {"problems": [...], "figures": {size: [...]}, "spare": [...], "stages": n}; screenshots as it goes."""
    problems, figures, spare = [], {size: [] for size in SIZES}, set()
    stages = 0
    for stage in walk_stages(page):
        stages += 1
        for size in SIZES:
            resize(page, size)
            look(page, stage, size, problems, figures, spare)
            if stage == "as run" and size == "1024":
                shot = ARTIFACTS / "laptop" / f"{name}.png"
                shot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(shot))
            if stage.startswith("step-through") or stage.startswith("“"):
                shoot(page, f"{name}-{size}-{stage}")
    for size in SIZES:
        resize(page, size)
        shoot(page, f"{name}-{size}-end")
    return {"problems": problems, "figures": figures, "spare": sorted(spare), "stages": stages}
