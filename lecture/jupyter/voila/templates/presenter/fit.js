/* Fitting the slide shown to the screen at every stage, where presenter.css alone cannot.
   Run whenever the slide, its stage or the screen changes (lecture:changed, a widget redrawn, resize):
   - a field narrower than its value or label grows to fit it (widgets give fields pixel widths made
     for 24 px type; at 1920 × 1080 the type is 36 px);
   - a table wider than its box first lets its cells wrap at their spaces (numbers never break);
     if it is still too wide, a "scroll →" hint under it says so;
   - a slide taller than the screen (above the status line) first drops its live-only instructions
     ("Press Next ▶ …": the lecturer's clicker does it), then lets its tallest table scroll inside
     a box of the height left, with a hint saying where the rest is. The box is kept scrolled to its
     foot, where the newest stage and the output are; the title stays on screen (the page itself is
     never scrolled).
   Text is never made smaller: presenter.css's 24 px floor holds. */
(function () {
  "use strict";
  const HINT = "lecture-scroll-hint";
  let pending = false;

  function presenting() {
    return document.body.classList.contains("lecture-presenting");
  }

  function currentCells() {
    return [...document.querySelectorAll("#rendered_cells .jp-Cell.lecture-current")];
  }

  function drawn(element) {
    return element.offsetParent !== null && element.getBoundingClientRect().height > 0;
  }

  function hint(box, text, where) {
    const line = document.createElement("div");
    line.className = HINT;
    line.setAttribute("aria-hidden", "true");  // the box says it scrolls to a screen reader already
    line.textContent = text;
    box.insertAdjacentElement(where, line);
    return line;
  }

  function reset(cells) {
    for (const cell of cells) {
      cell.querySelectorAll("." + HINT).forEach(line => line.remove());
      cell.querySelectorAll(".lecture-fit-tall").forEach(box => {
        box.classList.remove("lecture-fit-tall");
        box.style.maxHeight = "";
      });
      cell.classList.remove("lecture-fit-dropped");
      cell.querySelectorAll(".lecture-fit-wrap").forEach(box => box.classList.remove("lecture-fit-wrap"));
      cell.querySelectorAll("[data-lecture-fit-style]").forEach(element => {
        Object.assign(element.style, JSON.parse(element.dataset.lectureFitStyle));
        delete element.dataset.lectureFitStyle;
      });
    }
  }

  function restyle(element, change) {  // change inline styles, keeping the widget's own values for reset()
    const saved = JSON.parse(element.dataset.lectureFitStyle || "{}");
    for (const property of Object.keys(change)) if (!(property in saved)) saved[property] = element.style[property];
    element.dataset.lectureFitStyle = JSON.stringify(saved);
    Object.assign(element.style, change);
  }

  function widenFields(cells) {
    for (const cell of cells) {
      // A widget's pixel width (its Layout) is made for 24 px type: let a box that cuts its own label,
      // field or check box be as wide as they are.
      for (const field of cell.querySelectorAll("input[type=text], input[type=number], input:not([type]), select")) {
        // (a number field's scroll width grows with it by its spinner: try a few times, no more)
        for (let tries = 0; tries < 3 && drawn(field) && field.scrollWidth > field.clientWidth + 1; tries++) {
          restyle(field, { minWidth: `${field.getBoundingClientRect().width + field.scrollWidth - field.clientWidth + 8}px` });
        }
      }
      for (const label of cell.querySelectorAll(".widget-label, .widget-readout")) {
        if (drawn(label) && label.getBoundingClientRect().width >= 2 && label.scrollWidth > label.clientWidth + 1) {
          restyle(label, { minWidth: `${label.scrollWidth + 2}px` });
        }
      }
      for (const box of cell.querySelectorAll(".widget-inline-hbox")) {
        if (!drawn(box) || box.closest(".layernorm-cell")) continue;  // the matrix grid keeps its columns
        if (box.scrollWidth > box.clientWidth + 1 || [...box.children].some(child => drawn(child) &&
            child.getBoundingClientRect().right > box.getBoundingClientRect().right + 1)) {
          restyle(box, { width: `${box.scrollWidth + 2}px` });  // as wide as its parts, and no wider
        }
      }
    }
  }

  function fitWidths(cells) {
    for (const cell of cells) {
      for (const box of cell.querySelectorAll(".layernorm-scroll, .jp-OutputArea-output, .widget-html-content")) {
        if (!drawn(box) || box.scrollWidth <= box.clientWidth + 1) continue;
        box.classList.add("lecture-fit-wrap");
        if (box.scrollWidth > box.clientWidth + 1 && !box.querySelector("." + HINT)) {
          const inner = box.querySelector(".layernorm-scroll") || box;
          if (inner.scrollWidth > inner.clientWidth + 1 && !(inner.nextElementSibling || {}).classList?.contains(HINT)) {
            hint(inner, "scroll → for the rest of the table", "afterend");
          }
        }
      }
    }
  }

  function room() {  // the lowest y a slide may use: the status line sits under it
    const status = document.getElementById("lecture-status");
    const top = status && drawn(status) ? status.getBoundingClientRect().top : innerHeight;
    return Math.min(innerHeight, top) - 4;
  }

  function bottom(cells) {  // the lowest edge drawn: a widget's box may reach past its cell's
    let lowest = 0;
    for (const cell of cells) {
      if (!drawn(cell)) continue;
      lowest = Math.max(lowest, cell.getBoundingClientRect().bottom);
      for (const part of cell.querySelectorAll(".lm-Widget, table, p, li, pre, img")) {
        if (!drawn(part) || part.parentElement.closest(".lecture-fit-tall")) continue;  // clipped by its box
        lowest = Math.max(lowest, part.getBoundingClientRect().bottom);
      }
    }
    return lowest;
  }

  function fitHeight(cells) {
    const page = document.getElementById("rendered_cells");
    if (page) page.scrollTop = 0;
    if (bottom(cells) <= room()) return;
    const instructions = cells.filter(cell => cell.querySelector(".celltag_live-only") && drawn(cell));
    instructions.forEach(cell => cell.classList.add("lecture-fit-dropped"));
    if (bottom(cells) <= room()) return;
    // The box that scrolls: the slide's last table, when it can give up the height and keep two lines
    // (on "All five rows" that is the row worked out underneath, and all five rows stay in view);
    // else the tallest.
    const boxes = cells.flatMap(cell => [...cell.querySelectorAll(".layernorm-scroll, pre")]).filter(drawn);
    if (!boxes.length) return;
    const over = bottom(cells) - room(), lines = 2 * 1.35 * parseFloat(getComputedStyle(boxes[0]).fontSize);
    const last = boxes[boxes.length - 1];
    const tallest = last.getBoundingClientRect().height - over >= lines ? last
      : boxes.sort((a, b) => b.getBoundingClientRect().height - a.getBoundingClientRect().height)[0];
    // Results are at the foot of every table (the newest stage, the output, the last row): keep the
    // foot in view and say that the rest is above.
    const earlier = tallest.closest(".layernorm-filled-steps, .layernorm-steps") ? "the earlier steps" : "the rest";
    const line = hint(tallest, `↑ scroll up for ${earlier}`, "beforebegin");
    tallest.classList.add("lecture-fit-tall");
    const least = 3 * parseFloat(getComputedStyle(tallest).fontSize);
    for (let tries = 0; tries < 4; tries++) {  // a box's height and the slide's foot move together, nearly
      const over = bottom(cells) - room();
      if (over <= 0) break;
      const height = tallest.getBoundingClientRect().height - over;
      tallest.style.maxHeight = `${Math.floor(Math.max(height, least))}px`;
      if (height < least) break;
    }
    tallest.scrollTop = tallest.scrollHeight;
    const words = () => {
      const above = tallest.scrollTop > 1, below = tallest.scrollTop + tallest.clientHeight < tallest.scrollHeight - 1;
      line.textContent = above && below ? "↕ scroll for the rest" : above ? `↑ scroll up for ${earlier}`
        : below ? "↓ scroll down for the rest" : "";
    };
    words();
    tallest.onscroll = words;
  }

  let observed = null;

  let runs = 0;  // how often the slide was fitted: lets a test wait for the fit a change asks for

  function fitSlide() {
    pending = false;
    runs += 1;
    const cells = currentCells();
    reset(cells);
    if (presenting() && cells.length) {
      widenFields(cells);
      fitWidths(cells);
      fitHeight(cells);
    }
    if (observed) observed.takeRecords();  // this function's own changes are not a reason to fit again
  }

  function later() {
    if (pending) return;
    pending = true;
    requestAnimationFrame(() => requestAnimationFrame(fitSlide));
  }

  function watch() {
    // A widget redraws itself when the kernel answers (a new stage, a new row, a column shown by its
    // layout's style): fit again then.
    if (observed) return;
    const cells = document.getElementById("rendered_cells");
    if (!cells) return;
    const ours = record => (record.target.closest && record.target.closest("." + HINT)) ||
      (record.target.parentElement && record.target.parentElement.closest("." + HINT)) ||
      (record.type === "childList" && [...record.addedNodes, ...record.removedNodes]
        .every(node => node.classList && node.classList.contains(HINT)));
    observed = new MutationObserver(records => { if (!records.every(ours)) later(); });  // a hint's words: not
    observed.observe(cells, { subtree: true, childList: true, characterData: true, attributes: true,
                              attributeFilter: ["style", "class", "disabled"] });
  }

  window.addEventListener("lecture:changed", () => { watch(); later(); });
  window.addEventListener("lecture:ready", () => { watch(); later(); });
  window.addEventListener("resize", later);
  window.lectureFit = { fit: fitSlide, get runs() { return runs; } };
})();
