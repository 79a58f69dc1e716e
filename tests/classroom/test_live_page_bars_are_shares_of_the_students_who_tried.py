"""Each bar of the live page is a share of the students who tried the exercise.

classroom/service/page.py's legend: "Each bar: how many of the students who tried the exercise passed it, or
made that mistake." The summary counts students (``tried``, ``passed``, each mistake's count) and, apart,
``attempts``, every check sent. The page's own script is run here in Node on one summary, with the few
browser objects it touches stood in for, and the bars it draws are read: their widths and their names for a
screen reader ("…: 3 of 4").
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from classroom.service import page

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs Node.js to run the page's script")

STAND_INS = """
const location = {search: ""};
const element = () => ({textContent: "", innerHTML: "", setAttribute() {}, addEventListener() {}});
const elements = {};
const document = {
  querySelector: () => ({content: "xsrf"}),
  getElementById: (id) => (elements[id] = elements[id] || element()),
};
function setTimeout() {}
function fetch() { return Promise.resolve({ok: true, json: () => Promise.resolve(SUMMARY)}); }
process.on("beforeExit", () => { console.log(JSON.stringify(elements.exercises.innerHTML)); process.exit(0); });
"""

SUMMARY = {
    "exercises": [
        {
            "notebook": "03",
            "step": "variance",
            "tried": 4,
            "passed": 1,
            "attempts": 10,  # four students, ten checks between them
            "mistakes": {"n-1": 3, "unnamed": 1},
        }
    ],
    "results": 10,
    "labels": {"n-1": "dividing by n − 1"},
}


def drawn(summary: dict) -> str:
    script = re.search(r"<script>(.*)</script>", page.render("xsrf"), re.S).group(1)
    program = STAND_INS.replace("SUMMARY", json.dumps(summary)) + script.replace('"use strict";', "", 1)
    done = subprocess.run([NODE, "-e", program], capture_output=True, text=True, timeout=30, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def bars(html: str) -> list[tuple[str, int]]:
    """(the bar's name for a screen reader, its width in %) for each bar, in order."""
    return [
        (label, int(width))
        for label, width in re.findall(r'aria-label="([^"]*)"><div class="bar[^"]*" style="width:(\d+)%"', html)
    ]


def test_every_bar_is_its_count_out_of_the_students_who_tried_not_out_of_the_checks_sent():
    assert bars(drawn(SUMMARY)) == [
        ("passed: 1 of 4", 25),
        ("dividing by n − 1: 3 of 4", 75),
        ("other (no named mistake): 1 of 4", 25),
    ]


def test_the_heading_line_gives_the_share_who_passed():
    assert "1 of 4 passed (25%)" in drawn(SUMMARY)
