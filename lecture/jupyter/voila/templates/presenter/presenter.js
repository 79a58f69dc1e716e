/* Presenter mode for the lecture in Voilà: one slide at a time, moved by the keys a clicker sends.
   A slide starts at every markdown cell that opens with a heading (# or ##) and runs to the next.
   PageDown, →, ↓: the next stage of the step-through explorer on this slide (its "Next ▶"), or
   else the next slide. PageUp, ←, ↑: the same backwards ("◀ Previous"). Home / End: first / last
   slide. N: speaker notes on or off. P: the whole page (scroll) or one slide at a time.
   Keys typed into a text field, a drop-down or a slider are left alone, but Escape, PageDown and
   PageUp leave the field (a clicker keeps working after the lecturer typed). The address keeps the
   slide (#slide-3), so reloading the page (F5) comes back to it. */
(function () {
  "use strict";
  const NEXT = new Set(["PageDown", "ArrowRight", "ArrowDown"]);
  const PREVIOUS = new Set(["PageUp", "ArrowLeft", "ArrowUp"]);
  const state = { slides: [], current: 0 };

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
      document.body.appendChild(line);
    }
    const presenting = document.body.classList.contains("lecture-presenting");
    line.textContent = presenting
      ? `slide ${state.current + 1} of ${state.slides.length} · PageDown / PageUp · N notes · P whole page`
      : "whole page · P: one slide at a time";
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
    window.dispatchEvent(new Event("resize"));  // widgets lay themselves out again at their new place
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
        if (now.length !== before || ++tries > 20) { if (now.length) now[now.length - 1].scrollIntoView({ block: "nearest" }); }
        else setTimeout(reveal, 100);
      };
      setTimeout(reveal, 100);
      return;
    }
    show(state.current + (forward ? 1 : -1));
  }

  function typingInto(target) {
    return Boolean(target && target.closest &&
      target.closest("input, textarea, select, [contenteditable], .widget-slider, .slider, [role='slider']"));
  }

  function onKey(event) {
    if (!state.slides.length || event.altKey || event.ctrlKey || event.metaKey) return;
    if (typingInto(event.target)) {
      // Escape, or a clicker's PageDown / PageUp, leaves a field the lecturer typed into: the clicker
      // goes on working without a click. Other keys belong to the field.
      if (!["Escape", "PageDown", "PageUp"].includes(event.key)) return;
      event.target.blur();
      if (event.key === "Escape") { event.preventDefault(); return; }
    }
    const presenting = document.body.classList.contains("lecture-presenting");
    if (event.key === "p" || event.key === "P") {
      document.body.classList.toggle("lecture-presenting");
      show(state.current);
    } else if (event.key === "n" || event.key === "N") {
      document.body.classList.toggle("lecture-notes");
    } else if (presenting && NEXT.has(event.key)) {
      step(true);
    } else if (presenting && PREVIOUS.has(event.key)) {
      step(false);
    } else if (presenting && event.key === "Home") {
      show(0);
    } else if (presenting && event.key === "End") {
      show(state.slides.length - 1);
    } else {
      return;
    }
    event.preventDefault();
  }

  function start() {
    state.slides = buildSlides();
    const wanted = /^#slide-(\d+)$/.exec(location.hash);
    if (!/[?&]page\b/.test(location.search)) document.body.classList.add("lecture-presenting");
    document.addEventListener("keydown", onKey, true);
    show(wanted ? Number(wanted[1]) - 1 : 0);
    window.lecturePresenter = { state, show, step };
  }

  // Voilà shows the cells once every one has run; start then.
  function whenRendered() {
    const cells = document.getElementById("rendered_cells");
    if (cells && cells.style.display !== "none" && document.querySelector("#rendered_cells .jp-Cell")) start();
    else setTimeout(whenRendered, 200);
  }
  document.addEventListener("DOMContentLoaded", whenRendered);
})();
