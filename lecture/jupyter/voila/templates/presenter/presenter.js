/* Presenter mode for the lecture in Voilà: one slide at a time, moved by the keys a clicker sends.
   A slide starts at every markdown cell that opens with a heading (# or ##) and runs to the next.
   PageDown, →, ↓: the next stage of the step-through explorer on this slide (its "Next ▶"), or
   else the next slide. PageUp, ←, ↑: the same backwards ("◀ Previous"). Home / End: first / last
   slide. S or N: the presenter view, a window of its own with the notes, a timer and the next slide
   (presenter_view.js); the notes are never drawn on this, the projector's, window. B or ".": black
   screen, until B / "." again or any navigation key. P: the whole page (scroll) or one slide at a time.

   The clicker only navigates. Its keys never reach a widget: with the ε slider, a drop-down or a
   number box focused, PageDown moves on and the value stays. In a text field ← → Home End move the
   caret (the lecturer is typing); PageDown / PageUp / ↑ / ↓ leave it. A value typed but not yet
   committed (no Enter) is committed where the room can see it: the first PageDown applies it and
   stays on the slide, saying so on the status line; the next one moves on. Every other key typed
   into a field is the field's. The address keeps the slide (#slide-3); presenter_keep.js keeps the
   stage and the typed values over a reload (F5). */
(function () {
  "use strict";
  const NEXT = new Set(["PageDown", "ArrowRight", "ArrowDown"]);
  const PREVIOUS = new Set(["PageUp", "ArrowLeft", "ArrowUp"]);
  const NAVIGATION = new Set([...NEXT, ...PREVIOUS, "Home", "End"]);
  const CARET_KEYS = new Set(["ArrowLeft", "ArrowRight", "Home", "End"]);  // a text field's own
  const HELP = "PageDown / PageUp · S presenter view · B black · P whole page";
  const state = { slides: [], current: 0, black: false, message: "" };
  const committed = new WeakMap();  // a text field -> the value its widget holds (focus, Enter, change)

  function startsSlide(cell) {
    const markdown = cell.querySelector(".jp-RenderedMarkdown");
    const first = markdown && markdown.firstElementChild;
    return Boolean(first && /^H[12]$/.test(first.tagName));
  }

  function buildSlides() {
    const slides = [];
    for (const cell of document.querySelectorAll("#rendered_cells .jp-Cell")) {
      if (startsSlide(cell) || slides.length === 0) slides.push([]);
      slides[slides.length - 1].push(cell);
    }
    return slides;
  }

  function button(slide, label) {
    for (const cell of slide) {
      for (const candidate of cell.querySelectorAll("button")) {
        if (candidate.textContent.trim() === label) return candidate;
      }
    }
    return null;
  }

  function status() {
    let line = document.getElementById("lecture-status");
    if (!line) {
      line = document.createElement("div");
      line.id = "lecture-status";
      line.setAttribute("aria-live", "polite");
      document.body.appendChild(line);
    }
    const presenting = document.body.classList.contains("lecture-presenting");
    const where = presenting
      ? `slide ${state.current + 1} of ${state.slides.length} · ${HELP}`
      : "whole page · P: one slide at a time · S presenter view";
    line.textContent = state.message ? `${state.message} · ${where}` : where;
  }

  function say(message) {
    state.message = message;
    status();
  }

  function changed() {  // tell the presenter view and the reload keeper
    window.dispatchEvent(new CustomEvent("lecture:changed"));
  }

  function show(index) {
    state.current = Math.max(0, Math.min(index, state.slides.length - 1));
    state.slides.forEach((slide, position) => slide.forEach(cell =>
      cell.classList.toggle("lecture-current", position === state.current)));
    if (document.body.classList.contains("lecture-presenting")) {
      window.scrollTo(0, 0);
      const cells = document.getElementById("rendered_cells");  // Voilà scrolls this box, not the window
      if (cells) cells.scrollTop = 0;
      history.replaceState(null, "", `#slide-${state.current + 1}`);
    }
    status();
    // The first slide's time on screen, from navigation start (performance.now's origin): the tests report it.
    if (state.firstShownMs === undefined) state.firstShownMs = performance.now();
    window.dispatchEvent(new Event("resize"));  // widgets lay themselves out again at their new place
    changed();
  }

  function step(forward) {
    const slide = state.slides[state.current];
    const control = button(slide, forward ? "Next ▶" : "◀ Previous");
    if (control && !control.disabled) {
      const rows = () => slide.map(cell => [...cell.querySelectorAll(".layernorm-filled-steps tr")]).flat();
      const before = rows().length;
      control.click();
      let tries = 0;
      const reveal = () => {  // once the kernel has answered, bring the newest stage into view
        const now = rows();
        if (now.length !== before || ++tries > 20) {
          if (now.length) now[now.length - 1].scrollIntoView({ block: "nearest" });
          changed();
        } else setTimeout(reveal, 100);
      };
      setTimeout(reveal, 100);
      return;
    }
    show(state.current + (forward ? 1 : -1));
  }

  // --- Fields: which focused element a key belongs to, and what it holds.
  function textField(element) {  // a box the lecturer types into: a text or number input, a slider's readout
    if (!element || !element.closest) return null;
    return element.closest("input[type=text], input[type=number], input:not([type]), textarea, [contenteditable=true]");
  }

  function fieldValue(field) {
    return field.isContentEditable ? field.textContent : field.value;
  }

  function widgetControl(element) {  // any other control a key could change: slider, drop-down, box, button
    return Boolean(element && element.closest && element.closest("input, select, button, [role=slider], .widget-slider"));
  }

  function label(field) {
    const box = field.closest(".widget-inline-hbox, .widget-hslider, .widget-text, .widget-box") || field.parentElement;
    const name = box && box.querySelector(".widget-label, label");
    return (name && name.textContent.trim().replace(/:$/, "")) || "the value";
  }

  function rememberCommitted(event) {
    const field = textField(event.target);
    if (!field) return;
    if (event.type === "focusin" || event.type === "change" || (event.type === "keydown" && event.key === "Enter")) {
      // Enter commits after this handler runs: read the value it commits now.
      committed.set(field, fieldValue(field));
    }
  }

  // A value typed but not committed: commit it (leaving the field commits it, as Enter would) and stay.
  function commitTyped() {
    const field = textField(document.activeElement);
    if (!field) return false;
    const typed = fieldValue(field);
    const pending = committed.has(field) && typed !== committed.get(field);
    field.blur();
    if (!pending) return false;
    committed.set(field, typed);
    say(`${label(field)} = ${typed.trim()} applied: the numbers are for it; PageDown again to go on`);
    return true;
  }

  // --- Black screen.
  function black(on) {
    state.black = on;
    let cover = document.getElementById("lecture-black");
    if (!cover) {
      cover = document.createElement("div");
      cover.id = "lecture-black";
      cover.style.cssText = "position:fixed;inset:0;background:#000;z-index:2147483647;display:none;cursor:none";
      cover.setAttribute("aria-label", "screen blacked out: B or . to restore");
      document.body.appendChild(cover);
    }
    cover.style.display = on ? "block" : "none";
    changed();
  }

  // --- Keys. `act` is shared with the presenter view's window, whose keys arrive here by message.
  function act(key) {
    const presenting = document.body.classList.contains("lecture-presenting");
    if (key === "b" || key === "B" || key === ".") {
      black(!state.black);
      return true;
    }
    if (state.black && NAVIGATION.has(key)) {  // restore the room's screen; the next key moves on
      black(false);
      return true;
    }
    if (key === "s" || key === "S" || key === "n" || key === "N") {
      if (window.lecturePresenterView) window.lecturePresenterView.open();
      return true;
    }
    if (key === "p" || key === "P") {
      document.body.classList.toggle("lecture-presenting");
      show(state.current);
      return true;
    }
    if (!NAVIGATION.has(key)) return false;
    if (commitTyped()) return true;
    const control = document.activeElement;
    if (!presenting) {  // the whole page scrolls; a focused slider or drop-down is left, not changed
      if (!control || control === document.body || !widgetControl(control)) return false;
      control.blur();
      return true;
    }
    if (state.message) say("");
    if (control && control !== document.body && widgetControl(control)) control.blur();
    if (NEXT.has(key)) step(true);
    else if (PREVIOUS.has(key)) step(false);
    else if (key === "Home") show(0);
    else show(state.slides.length - 1);
    return true;
  }

  function onKey(event) {
    if (!state.slides.length || event.altKey || event.ctrlKey || event.metaKey) return;
    const field = textField(event.target);
    if (field) {
      // Typing is the field's; Escape leaves it; the clicker's keys (not the caret's) navigate.
      if (event.key === "Escape") { event.preventDefault(); commitTyped(); return; }
      if (!NAVIGATION.has(event.key) || CARET_KEYS.has(event.key)) return;
    }
    if (act(event.key)) {
      event.preventDefault();
      event.stopPropagation();  // never to the slider, drop-down or number box that has the focus
    }
  }

  function start() {
    state.slides = buildSlides();
    const wanted = /^#slide-(\d+)$/.exec(location.hash);
    if (!/[?&]page\b/.test(location.search)) document.body.classList.add("lecture-presenting");
    // On the window, capturing: before any widget's own key handler.
    window.addEventListener("keydown", onKey, true);
    for (const type of ["focusin", "change", "keydown"]) document.addEventListener(type, rememberCommitted, true);
    show(wanted ? Number(wanted[1]) - 1 : 0);
    window.lecturePresenter = { state, show, step, act, say, button, HELP };
    window.dispatchEvent(new CustomEvent("lecture:ready"));
  }

  // Voilà draws the widgets after showing the cells, each where its output's script was: mark those
  // places while the scripts are there, so that "every widget is drawn (and live)" can be known.
  const WIDGET_OUTPUT = 'script[type="application/vnd.voila.cell-output+json"]';
  function markWidgetPlaces() {
    for (const script of document.querySelectorAll(`#rendered_cells ${WIDGET_OUTPUT}`)) {
      if (script.textContent.includes("application/vnd.jupyter.widget-view+json") && script.parentElement) {
        script.parentElement.dataset.lectureWidget = "";
      }
    }
  }
  function widgetsDrawn() {
    return [...document.querySelectorAll("[data-lecture-widget]")]
      .every(place => place.querySelector(".jupyter-widgets"));  // not yet: "Loading widget..."
  }
  window.lectureWidgetsDrawn = widgetsDrawn;

  // Voilà shows the cells once every one has run; start then.
  function whenRendered() {
    const cells = document.getElementById("rendered_cells");
    if (cells && cells.style.display !== "none" && document.querySelector("#rendered_cells .jp-Cell")) start();
    else setTimeout(whenRendered, 200);
  }
  document.addEventListener("DOMContentLoaded", () => { markWidgetPlaces(); whenRendered(); });
})();
