"""The live page asks for student names only with ?names=1 (or after "Show names" is pressed).

classroom/service/page.py's docstring: "No student names unless the lecturer presses "Show names" (or opens
the page with ?names=1): a projector is safe by default." The page's own script is run here in Node, with
the few browser objects it touches stood in for, and the first request it makes for the summary is read:
that request is what decides whether names come back (the summary sends names only for ?names=1).
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
const location = {search: SEARCH};
const element = () => ({textContent: "", innerHTML: "", setAttribute() {}, addEventListener() {}});
const elements = {};
const document = {
  querySelector: () => ({content: "xsrf"}),
  getElementById: (id) => (elements[id] = elements[id] || element()),
};
function setTimeout() {}
function fetch(url) { console.log(JSON.stringify(url)); process.exit(0); }
"""


def first_request(search: str) -> str:
    script = re.search(r"<script>(.*)</script>", page.render("xsrf"), re.S).group(1)
    program = STAND_INS.replace("SEARCH", json.dumps(search)) + script.replace('"use strict";', "", 1)
    done = subprocess.run([NODE, "-e", program], capture_output=True, text=True, timeout=30, check=True)
    return json.loads(done.stdout.strip().splitlines()[0])


@pytest.mark.parametrize("search", ["", "?notebook=03", "?names=0", "?names=", "?names=yes", "?names=true"])
def test_without_names_1_the_page_asks_for_the_summary_without_names(search):
    assert first_request(search) == "api/summary"


@pytest.mark.parametrize("search", ["?names=1", "?notebook=03&names=1"])
def test_with_names_1_the_page_asks_for_names(search):
    assert first_request(search) == "api/summary?names=1"
