"""What the lecturer's live page (classroom/service/page.py) draws from the summary, and how it keeps asking.

From the page's docstring and its own words: it "asks the summary every second"; "?notebook=03 shows one
notebook's exercises only"; no names unless "Show names" is pressed (the button then reads "Hide names");
a check-your-answer box's step ("answer-mean") is headed "check your answer: mean"; each bar is named by the
catalogue's words for its mistake (a key without words by the key itself, "unnamed" as "other (no named
mistake)"), and the students who made it are listed under that bar and no other; an empty class says "No
checks yet."; a refusal or a silent service is said in the status line, and the page goes on asking.

The page's own script runs in Node, each scenario in a fresh ``vm`` context with the few browser objects it
touches stood in for (one Node process for the whole file). The stand-in ``setTimeout`` records its delay and
runs nothing by itself: a scenario's "tick" runs the next poll.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess

import pytest

from classroom.service import page

NODE = shutil.which("node")
pytestmark = [pytest.mark.slow, pytest.mark.skipif(NODE is None, reason="needs Node.js to run the page's script")]

DRIVER = r"""
const vm = require("vm");
const input = JSON.parse(require("fs").readFileSync(0, "utf8"));
const settle = () => new Promise(resolve => setImmediate(resolve));

async function run(scenario) {
  const elements = {};
  const element = id => ({id, textContent: "", innerHTML: "", attributes: {}, listeners: {},
    setAttribute(name, value) { this.attributes[name] = value; },
    addEventListener(type, handler) { this.listeners[type] = handler; }});
  const get = id => (elements[id] = elements[id] || element(id));
  const pending = [], delays = [], requests = [];
  const answers = scenario.answers.slice();
  const context = {
    location: {search: scenario.search || ""},
    document: {querySelector: () => ({content: input.xsrf}), getElementById: get},
    setTimeout: (callback, ms) => { pending.push(callback); delays.push(ms); },
    fetch: (url, options) => {
      requests.push({url, options});
      const answer = answers.length ? answers.shift() : answers_last(scenario);
      if (answer === "down") return Promise.reject(new TypeError("Failed to fetch"));
      return Promise.resolve({ok: answer.status === 200, status: answer.status,
                              json: () => Promise.resolve(answer.body)});
    },
    URLSearchParams, Date, Math, String, Object, Promise,
  };
  vm.createContext(context);
  vm.runInContext(input.script, context);
  const snap = () => ({exercises: get("exercises").innerHTML, status: get("status").textContent,
                       button: get("names").textContent, pressed: get("names").attributes["aria-pressed"]});
  for (let i = 0; i < 5; i++) await settle();
  const seen = [snap()];
  for (const step of scenario.then || []) {
    if (step === "click") get("names").listeners.click();
    if (step === "tick" && pending.length) pending.shift()();  // nothing pending: the page stopped asking
    for (let i = 0; i < 5; i++) await settle();
    seen.push(snap());
  }
  return {seen, delays, requests};
}
function answers_last(scenario) { return scenario.answers[scenario.answers.length - 1]; }

(async () => {
  const out = {};
  for (const [name, scenario] of Object.entries(input.scenarios)) out[name] = await run(scenario);
  console.log(JSON.stringify(out));
})();
"""

XSRF = "xsrf-of-the-hub"


def exercise(notebook, step, tried, passed, mistakes, names=None):
    found = {"notebook": notebook, "step": step, "tried": tried, "passed": passed, "attempts": tried,
             "mistakes": mistakes}  # fmt: skip
    if names is not None:
        found["names"] = names
    return found


def summary(*exercises, results=None, labels=None):
    return {"exercises": list(exercises), "results": 7 if results is None else results,
            "labels": {"n-1": "dividing by n − 1"} if labels is None else labels}  # fmt: skip


def ok(body):
    return {"status": 200, "body": body}


VARIANCE = exercise("03", "variance", 3, 2, {"n-1": 1})
MEAN = exercise("02", "mean", 2, 2, {})
NAMED = exercise(
    "03", "variance", 4, 1, {"n-1": 2, "no-eps": 1},
    names={"passed": ["dan"], "mistakes": {"n-1": ["ann", "bob"], "no-eps": ["cat"]}},
)  # fmt: skip
NOBODY_PASSED = exercise(
    "03", "variance", 2, 0, {"n-1": 2}, names={"passed": [], "mistakes": {"n-1": ["ann", "bob"]}}
)  # fmt: skip
SCENARIOS = {
    "named, nobody passed": {"answers": [ok(summary(NOBODY_PASSED))]},
    "answer box": {"answers": [ok(summary(exercise("03", "answer-mean", 1, 1, {}), VARIANCE))]},
    "one notebook": {"search": "?notebook=03", "answers": [ok(summary(MEAN, VARIANCE))]},
    "every notebook": {"answers": [ok(summary(MEAN, VARIANCE))]},
    "empty": {"answers": [ok(summary(results=0))]},
    "named": {"answers": [ok(summary(NAMED, labels={"n-1": "dividing by n − 1", "no-eps": "no ε"}))]},
    "no words": {"answers": [ok(summary(exercise("03", "variance", 2, 0, {"made-up": 1, "unnamed": 1}), labels={}))]},
    "escaped": {"answers": [ok(summary(VARIANCE, labels={"n-1": "<b>n</b> & 'n − 1'"}))]},
    "refused": {"answers": [{"status": 403, "body": None}], "then": ["tick"]},
    "down then up": {"answers": ["down", ok(summary(VARIANCE))], "then": ["tick"]},
    "button": {"answers": [ok(summary(VARIANCE))], "then": ["click", "tick", "click", "tick"]},
    "asked for names": {"search": "?names=1", "answers": [ok(summary(VARIANCE))], "then": ["click", "tick"]},
    "redraw": {"answers": [ok(summary(VARIANCE, results=3)), ok(summary(MEAN, results=5))], "then": ["tick"]},
}


@pytest.fixture(scope="module")
def runs() -> dict:
    script = re.search(r"<script>(.*)</script>", page.render(XSRF), re.S).group(1)
    given = json.dumps({"script": script, "xsrf": XSRF, "scenarios": SCENARIOS})
    done = subprocess.run([NODE, "-e", DRIVER], input=given, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def headings(html: str) -> list[str]:
    return re.findall(r"<h2>(.*?)</h2>", html)


def rows(html: str) -> list[tuple[str, str, int, str, str]]:
    """Each bar in order: (its label, its screen-reader name, its count, the names listed under it, or "")."""
    found = re.findall(
        r'<div class="row"><span>(.*?)</span><div class="track" role="img" aria-label="(.*?)">.*?'
        r'<span class="count">(\d+)</span></div>(?:<p class="names">(.*?)</p>)?',
        html,
    )
    return [(label, name, int(count), listed) for label, name, count, listed in found]


def test_a_check_your_answer_step_is_headed_as_one(runs):
    assert headings(runs["answer box"]["seen"][0]["exercises"]) == ["03 · check your answer: mean", "03 · variance"]


def test_notebook_03_in_the_address_shows_only_notebook_03(runs):
    assert headings(runs["one notebook"]["seen"][0]["exercises"]) == ["03 · variance"]
    assert headings(runs["every notebook"]["seen"][0]["exercises"]) == ["02 · mean", "03 · variance"]


def test_the_share_who_passed_is_rounded_to_the_nearest_percent(runs):
    html = runs["every notebook"]["seen"][0]["exercises"]
    assert '<p class="passed">2 of 3 passed (67%)</p>' in html  # 66.7 %
    assert '<p class="passed">2 of 2 passed (100%)</p>' in html
    assert 'aria-label="passed: 2 of 3"><div class="bar ok" style="width:67%">' in html
    assert 'aria-label="dividing by n − 1: 1 of 3"><div class="bar" style="width:33%">' in html


def test_an_empty_class_says_no_checks_yet_and_counts_none(runs):
    [seen] = runs["empty"]["seen"]
    assert seen["exercises"] == '<p class="empty">No checks yet.</p>'
    assert seen["status"].startswith("0 checks · updated ")


def test_the_status_line_counts_the_checks_the_summary_gives(runs):
    assert runs["every notebook"]["seen"][0]["status"].startswith("7 checks · updated ")


def test_the_names_sit_under_their_own_bar_only(runs):
    html = runs["named"]["seen"][0]["exercises"]
    assert rows(html) == [
        ("passed", "passed: 1 of 4", 1, "dan"),
        ("dividing by n − 1", "dividing by n − 1: 2 of 4", 2, "ann, bob"),
        ("no ε", "no ε: 1 of 4", 1, "cat"),
    ]


def test_a_bar_nobody_is_named_under_has_no_list_under_it(runs):
    html = runs["named, nobody passed"]["seen"][0]["exercises"]
    assert rows(html) == [
        ("passed", "passed: 0 of 2", 0, ""),
        ("dividing by n − 1", "dividing by n − 1: 2 of 2", 2, "ann, bob"),
    ]
    assert html.count('<p class="names">') == 1


def test_without_names_no_bar_lists_anyone(runs):
    html = runs["every notebook"]["seen"][0]["exercises"]
    assert 'class="names"' not in html
    assert [listed for *_, listed in rows(html)] == ["", "", ""]


def test_a_key_without_words_is_shown_as_itself_and_unnamed_as_other(runs):
    html = runs["no words"]["seen"][0]["exercises"]
    assert [label for label, *_ in rows(html)] == ["passed", "made-up", "other (no named mistake)"]


def test_a_labels_words_are_shown_as_text_not_markup(runs):
    html = runs["escaped"]["seen"][0]["exercises"]
    assert "<span>&lt;b&gt;n&lt;/b&gt; &amp; &#39;n − 1&#39;</span>" in html
    assert "<b>" not in html


def test_a_refusal_is_said_and_the_page_goes_on_asking(runs):
    run = runs["refused"]
    assert run["seen"][0]["status"] == "the service answered 403; reload the page"
    assert run["seen"][0]["exercises"] == ""  # nothing drawn from a refusal
    assert [request["url"] for request in run["requests"]] == ["api/summary", "api/summary"]


def test_a_silent_service_is_said_and_the_next_answer_is_drawn(runs):
    first, second = runs["down then up"]["seen"]
    assert first["status"] == "the service is not answering; retrying…"
    assert headings(second["exercises"]) == ["03 · variance"] and second["status"].startswith("7 checks · updated ")


def test_the_page_asks_again_one_second_after_each_answer(runs):
    assert runs["redraw"]["delays"] == [1000, 1000]
    assert runs["refused"]["delays"] == [1000, 1000]
    assert runs["down then up"]["delays"] == [1000, 1000]


def test_each_answer_replaces_what_the_last_one_drew(runs):
    first, second = runs["redraw"]["seen"]
    assert headings(first["exercises"]) == ["03 · variance"] and first["status"].startswith("3 checks · ")
    assert headings(second["exercises"]) == ["02 · mean"] and second["status"].startswith("5 checks · ")


def test_every_request_carries_the_hubs_xsrf_token_and_the_login_cookie_and_skips_caches(runs):
    for run in runs.values():
        for request in run["requests"]:
            assert request["options"] == {
                "credentials": "same-origin",
                "cache": "no-store",
                "headers": {"X-XSRFToken": XSRF},
            }


def test_show_names_toggles_the_button_and_the_next_request(runs):
    run = runs["button"]
    assert [(seen["button"], seen["pressed"]) for seen in run["seen"]] == [
        ("Show names", "false"),
        ("Hide names", "true"),  # pressed
        ("Hide names", "true"),  # the next poll
        ("Show names", "false"),  # pressed again
        ("Show names", "false"),
    ]
    assert [request["url"] for request in run["requests"]] == ["api/summary", "api/summary?names=1", "api/summary"]


def test_a_page_opened_with_names_says_hide_names_and_a_press_hides_them(runs):
    run = runs["asked for names"]
    assert [(seen["button"], seen["pressed"]) for seen in run["seen"]] == [
        ("Hide names", "true"),
        ("Show names", "false"),
        ("Show names", "false"),
    ]
    assert [request["url"] for request in run["requests"]] == ["api/summary?names=1", "api/summary"]
