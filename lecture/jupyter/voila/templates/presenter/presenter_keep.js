/* A reload (F5) keeps what the room sees: the slide (the address has it too), the step-through's stage, and
   every value the lecturer typed, picked or switched in a widget. They are kept in this tab's sessionStorage
   as the page is left; after Voilà has rendered and the widgets are live (a new kernel, at its defaults),
   they are put back one at a time in the order they were made, each waiting for the kernel's answer, so
   the numbers shown are those for the kept values. body[data-lecture-restored] says when it is done
   (every widget drawn, and everything kept put back). */
(function () {
  "use strict";
  const KEY = `layernorm-lecture-kept:${location.pathname}`;
  const QUIET_MS = 250;  // the slide has not changed for this long: the kernel has answered
  const WAIT_MS = 8000;  // a widget that does not answer in this time is left as it is
  const touched = new Map();  // widget key -> order of the lecturer's last change to it
  let order = 0;

  // Each widget is named by its slide, its kind and its place among the slide's widgets of that kind.
  const KINDS = {
    text: "input[type=text], input[type=number], input:not([type]), textarea",
    select: "select",
    check: "input[type=checkbox]",
    toggle: "button.widget-toggle-button",
    slider: ".widget-hslider, .widget-vslider",
  };

  function slides() { return window.lecturePresenter.state.slides; }

  function keyOf(element) {
    for (const [kind, selector] of Object.entries(KINDS)) {
      const widget = element.closest(selector);
      if (!widget) continue;
      const slide = slides().findIndex(cells => cells.some(cell => cell.contains(widget)));
      if (slide < 0) return null;
      const all = slides()[slide].flatMap(cell => [...cell.querySelectorAll(selector)]);
      return `${slide}/${kind}/${all.indexOf(widget)}`;
    }
    return null;
  }

  function find(key) {
    const [slide, kind, place] = key.split("/");
    const cells = slides()[Number(slide)];
    return cells ? cells.flatMap(cell => [...cell.querySelectorAll(KINDS[kind])])[Number(place)] || null : null;
  }

  function sliderValue(widget) {  // a log slider's handle holds the exponent, its readout the value
    const handle = widget.querySelector("[role=slider]");
    const readout = widget.querySelector(".widget-readout");
    const now = handle ? Number(handle.getAttribute("aria-valuenow")) : NaN;
    const shown = readout ? Number(readout.textContent) : NaN;
    if (Number.isFinite(now) && Number.isFinite(shown) && shown > 0 && Math.abs(Math.log10(shown) - now) < 0.06
        && Math.abs(shown - now) > 1e-9) return String(Number((10 ** now).toPrecision(12)));
    return Number.isFinite(now) ? String(now) : readout ? readout.textContent : "";
  }

  function read(key) {
    const element = find(key);
    if (!element) return undefined;
    const kind = key.split("/")[1];
    if (kind === "check") return element.checked;
    if (kind === "toggle") return element.classList.contains("mod-active");
    if (kind === "slider") return sliderValue(element);
    return element.value;
  }

  function touch(event) {
    if (!window.lecturePresenter || !event.target.closest) return;
    // A key changes only what is typed into (the clicker's keys never reach a slider or a drop-down):
    // a key on a slider's handle must not make a reload put the slider's rounded value over an exact ε.
    if (event.type === "keydown" && !event.target.closest("input, textarea, [contenteditable=true]")) return;
    const key = keyOf(event.target);
    if (key) touched.set(key, ++order);
  }

  function save() {
    if (!window.lecturePresenter) return;
    const { state } = window.lecturePresenter;
    const values = [...touched].sort((a, b) => a[1] - b[1]).map(([key]) => [key, read(key)])
      .filter(([, value]) => value !== undefined);
    const stages = {};
    slides().forEach((cells, index) => {
      const stage = stageOf(cells);
      if (stage > 1) stages[index] = stage;
    });
    sessionStorage.setItem(KEY, JSON.stringify({ slide: state.current, values, stages }));
  }

  // The stage (1 = the first) of a slide's stepping widget: the step-through's "step 4 of 9", or which
  // of a reveal's stages (a question, then its answers; helpers/widgets/reveal.py) is not hidden.
  function stageOf(cells) {
    const found = /step (\d+) of \d+/.exec(cells.map(cell => cell.innerText || "").join("\n"));
    if (found) return Number(found[1]);
    const stages = cells.flatMap(cell => [...cell.querySelectorAll(".layernorm-reveal-stage")]);
    const hidden = stage => {
      for (let element = stage; element && !element.classList.contains("jp-Cell"); element = element.parentElement) {
        if (element.style && element.style.display === "none") return true;
      }
      return false;
    };
    const shown = stages.findIndex(stage => !hidden(stage));
    return shown >= 0 ? shown + 1 : null;
  }

  function quiet(cells, ms = WAIT_MS) {  // resolves once the kernel's answer has been drawn (or after ms)
    return new Promise(resolve => {
      let timer = null;
      let changed = false;
      const done = () => { observer.disconnect(); clearTimeout(timer); clearTimeout(limit); resolve(changed); };
      const observer = new MutationObserver(() => { changed = true; clearTimeout(timer); timer = setTimeout(done, QUIET_MS); });
      cells.forEach(cell => observer.observe(cell, { childList: true, subtree: true, characterData: true, attributes: true }));
      const limit = setTimeout(done, ms);
    });
  }

  function put(key, value) {  // set a widget as the lecturer did: through its own events, so the kernel hears
    const element = find(key);
    if (!element) return false;
    const kind = key.split("/")[1];
    if (kind === "check" || kind === "toggle") {
      const now = kind === "check" ? element.checked : element.classList.contains("mod-active");
      if (now === value) return false;
      element.click();
      return true;
    }
    if (kind === "slider") {
      const readout = element.querySelector(".widget-readout");
      if (!readout || sliderValue(element) === value) return false;
      readout.textContent = value;
      readout.dispatchEvent(new KeyboardEvent("keydown", { key: "Enter", keyCode: 13, which: 13, bubbles: true }));
      readout.blur();
      return true;
    }
    if (element.value === value) return false;
    element.value = value;
    element.dispatchEvent(new Event("input", { bubbles: true }));
    element.dispatchEvent(new Event("change", { bubbles: true }));
    return true;
  }

  async function drawn(key, ms = 30000) {  // Voilà draws the widgets after the cells: wait for this one
    const until = Date.now() + ms;
    while (!find(key) && Date.now() < until) await new Promise(resolve => setTimeout(resolve, 100));
    return Boolean(find(key));
  }

  async function restore(kept) {
    for (const [key, value] of kept.values || []) {
      if (!(await drawn(key))) continue;
      const cells = slides()[Number(key.split("/")[0])] || [];
      const answered = quiet(cells);
      if (put(key, value)) await answered;
      touched.set(key, ++order);
    }
    for (const [slide, wanted] of Object.entries(kept.stages || {})) {
      const cells = slides()[Number(slide)] || [];
      for (let tries = 0; tries < 20; tries++) {
        const next = window.lecturePresenter.button(cells, "Next ▶");
        if (!(stageOf(cells) < wanted) || !next || next.disabled) break;
        const answered = quiet(cells);
        next.click();
        await answered;
      }
    }
  }

  async function live(ms = 120000) {  // every widget drawn: its model came from the kernel, so it answers
    const until = Date.now() + ms;
    while (window.lectureWidgetsDrawn && !window.lectureWidgetsDrawn() && Date.now() < until) {
      await new Promise(resolve => setTimeout(resolve, 100));
    }
  }

  window.addEventListener("lecture:ready", async () => {
    await live();
    let kept = null;
    try { kept = JSON.parse(sessionStorage.getItem(KEY) || "null"); } catch (error) { kept = null; }
    if (kept && (kept.values || []).length + Object.keys(kept.stages || {}).length) {
      window.lecturePresenter.say("putting back the values typed before the reload…");
      await restore(kept);
      window.lecturePresenter.say("");
      window.dispatchEvent(new CustomEvent("lecture:changed"));
    }
    document.body.dataset.lectureRestored = "done";
    for (const type of ["change", "click", "keydown", "pointerdown"]) document.addEventListener(type, touch, true);
    window.addEventListener("pagehide", save);
    window.addEventListener("lecture:changed", save);
  });
})();
