"""A fingerprint that could not be measured, in Jupyter (helpers/forensics/fingerprint_view.problem_html): one
sentence in a box shaded as a flagged row is, its name and its problem written as text, so that a lambda's
name "<lambda>" or an error quoting "<" and "&" show as typed, never as HTML."""

from __future__ import annotations

import html

from helpers.display.formatting import FLAG_STYLE
from helpers.forensics import fingerprint


def _refuses(x):
    raise ValueError("needs a < b & c")


def test_the_page_says_the_name_and_the_problem_as_text_in_a_flagged_box():
    found = fingerprint(_refuses, "<my norm>", time_limit=None)
    problem = "Calling it on a 7 × 4 float64 matrix raised ValueError: needs a < b & c"
    assert found.problem == problem
    page = found._repr_html_()
    assert page == (
        f'<div class="layernorm-forensics" style="{FLAG_STYLE};padding:4px">'
        "<b>Fingerprint of &lt;my norm&gt;</b>: could not be measured. "
        "Calling it on a 7 × 4 float64 matrix raised ValueError: needs a &lt; b &amp; c</div>"
    )
    assert str(found) == f"Fingerprint of <my norm>: could not be measured. {problem}"


def test_a_lambdas_name_shows_as_typed():
    found = fingerprint(lambda x: x[:, :1], time_limit=None)
    page = found._repr_html_()
    assert found.name == "<lambda>" and "<b>Fingerprint of &lt;lambda&gt;</b>" in page
    assert html.escape(found.problem) in page and "<lambda>" not in page
