"""The lecturer's live page: per exercise, the share of students who passed and a bar per named mistake.

Plain HTML, CSS and a few lines of JavaScript, all inline: nothing is fetched from the internet,
so it works on a lecture-hall network that blocks everything but the hub. It asks the summary
every second, so a check in a kernel shows within about a second and a half. Large type (28 px,
nothing under 24 px) for a 1280×720 projector. No student names unless the lecturer presses
"Show names" (or opens the page with ?names=1): a projector is safe by default.
?notebook=03 shows one notebook's exercises only.
"""

import html


def render(xsrf_token: str) -> str:
    """The page, with the hub's XSRF token that its requests for the summary must send."""
    return HTML.replace("__XSRF__", html.escape(xsrf_token))


HTML = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="xsrf" content="__XSRF__">
<title>The class's checks, live</title>
<style>
  body { font: 28px/1.3 system-ui, sans-serif; margin: 0; padding: 16px 28px; color: #111; background: #fff; }
  header { display: flex; align-items: baseline; gap: 24px; flex-wrap: wrap; }
  h1 { font-size: 36px; margin: 0 0 8px; }
  #status { color: #444; font-size: 24px; }
  button, a.button { font: inherit; font-size: 24px; padding: 4px 14px; border: 2px solid #333; border-radius: 6px;
    background: #f4f4f4; color: #111; cursor: pointer; text-decoration: none; }
  #exercises { display: grid; grid-template-columns: repeat(auto-fit, minmax(580px, 1fr)); gap: 14px 28px; }
  section { border-top: 3px solid #333; padding-top: 6px; }
  h2 { font-size: 30px; margin: 0; }
  .passed { font-size: 26px; margin: 2px 0 6px; }
  .row { display: grid; grid-template-columns: 11em 1fr 2.5em; align-items: center; gap: 10px; font-size: 24px; }
  .track { background: #e6e6e6; height: 30px; border-radius: 4px; overflow: hidden; }
  .bar { height: 100%; background: #b3261e; }
  .bar.ok { background: #1a7f37; }
  .count { text-align: right; font-variant-numeric: tabular-nums; }
  .names { font-size: 24px; color: #333; margin: 0 0 4px 1em; }
  .empty { color: #444; }
  #legend { font-size: 24px; color: #333; margin: 0 0 8px; }
</style>
</head>
<body>
<header>
  <h1>The class's checks, live</h1>
  <span id="status">waiting for the first result…</span>
  <button id="names" type="button" aria-pressed="false">Show names</button>
  <a class="button" href="api/results.csv">CSV</a>
</header>
<p id="legend">Each bar: how many of the students who tried the exercise passed it, or made that mistake.</p>
<main id="exercises" aria-live="polite"></main>
<script>
"use strict";
const query = new URLSearchParams(location.search);
let names = query.get("names") === "1";
const only = query.get("notebook");
const button = document.getElementById("names");
// The hub's check against cross-site requests: a script's request with the login cookie must carry it.
const xsrf = document.querySelector('meta[name="xsrf"]').content;
function esc(text) {
  return String(text).replace(/[&<>"']/g, c => ({"&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"})[c]);
}
function bar(label, count, total, ok, who) {
  const width = total ? Math.round(100 * count / total) : 0;
  return `<div class="row"><span>${esc(label)}</span>` +
    `<div class="track" role="img" aria-label="${esc(label)}: ${count} of ${total}">` +
    `<div class="bar${ok ? " ok" : ""}" style="width:${width}%"></div></div><span class="count">${count}</span></div>` +
    (who && who.length ? `<p class="names">${who.map(esc).join(", ")}</p>` : "");
}
function draw(data) {
  const shown = data.exercises.filter(e => !only || e.notebook === only);
  const html = shown.map(e => {
    const share = e.tried ? Math.round(100 * e.passed / e.tried) : 0;
    const listed = e.names || {passed: [], mistakes: {}};
    const mistakes = Object.entries(e.mistakes).map(([key, n]) =>
      bar(data.labels[key] || (key === "unnamed" ? "other (no named mistake)" : key), n, e.tried, false,
          listed.mistakes[key])).join("");
    const title = e.step.startsWith("answer-") ? `check your answer: ${e.step.slice(7)}` : e.step;
    return `<section><h2>${esc(e.notebook)} · ${esc(title)}</h2>` +
      `<p class="passed">${e.passed} of ${e.tried} passed (${share}%)</p>` +
      bar("passed", e.passed, e.tried, true, listed.passed) + mistakes + `</section>`;
  }).join("");
  document.getElementById("exercises").innerHTML = html || '<p class="empty">No checks yet.</p>';
  const time = new Date().toLocaleTimeString();
  document.getElementById("status").textContent = `${data.results} checks · updated ${time}`;
}
async function poll() {
  try {
    const answer = await fetch("api/summary" + (names ? "?names=1" : ""),
      {credentials: "same-origin", cache: "no-store", headers: {"X-XSRFToken": xsrf}});
    if (answer.ok) draw(await answer.json());
    else document.getElementById("status").textContent = `the service answered ${answer.status}; reload the page`;
  } catch (error) {
    document.getElementById("status").textContent = "the service is not answering; retrying…";
  }
  setTimeout(poll, 1000);
}
function label() {
  button.textContent = names ? "Hide names" : "Show names";
  button.setAttribute("aria-pressed", String(names));
}
button.addEventListener("click", () => { names = !names; label(); });
label();
poll();
</script>
</body>
</html>
"""
