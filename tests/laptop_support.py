"""What a laptop shows: the checks tests/browser/test_laptop_stages.py runs at every stage in JupyterLab.

OVERFLOWS finds, in every output of the open notebook, anything that reaches past its cell's right edge
without a box that scrolls sideways, and fixed-width boxes that cut their own text off (a clipped
"▶ row 5"). OPEN_SIDEBAR opens the file browser, as JupyterLab does on a laptop by default.
"""

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

OPEN_SIDEBAR = """async () => {
    const app = window.jupyterapp;
    await app.commands.execute('filebrowser:activate');  // the file browser, as JupyterLab opens by default
    if (app.shell.leftCollapsed) await app.commands.execute('application:toggle-left-area');
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
