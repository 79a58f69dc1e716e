/* The presenter view: S (or N) opens, or brings forward, a window of its own (static/presenter_window.html)
   with the current slide's speaker notes (the cells tagged "notes"), a timer against the plan's minutes
   (each slide's notes say "(N min)"), the step-through's stage and what the next click shows. It follows
   this window over a BroadcastChannel, and the keys pressed in it come back here and drive the lecture.
   The channel is named after this tab (sessionStorage): a TA's second tab is not driven, and a reload (F5)
   finds its presenter view again. */
(function () {
  "use strict";
  const ID_KEY = "layernorm-lecture-presenter-id";
  let channel = null;

  function tabId() {
    let id = sessionStorage.getItem(ID_KEY);
    if (!id) {
      id = Math.random().toString(36).slice(2, 10);
      sessionStorage.setItem(ID_KEY, id);
    }
    return id;
  }

  function baseUrl() {
    const config = document.getElementById("jupyter-config-data");
    try { return JSON.parse(config.textContent).baseUrl || "/"; } catch (error) { return "/"; }
  }

  function title(slide) {
    const heading = slide[0] && slide[0].querySelector(".jp-RenderedMarkdown h1, .jp-RenderedMarkdown h2");
    return heading ? heading.textContent.replace(/¶\s*$/, "").trim() : "";
  }

  function notes(slide) {
    return slide.filter(cell => cell.querySelector(".celltag_notes") || cell.classList.contains("celltag_notes"))
      .map(cell => cell.querySelector(".jp-RenderedMarkdown"))
      .filter(Boolean).map(markdown => markdown.innerHTML).join("\n");
  }

  function minutes(slide) {
    const text = slide.map(cell => cell.classList.contains("celltag_notes") || cell.querySelector(".celltag_notes")
      ? cell.textContent : "").join(" ");
    const found = /\((\d+(?:\.\d+)?)\s*min\)/.exec(text);
    return found ? Number(found[1]) : null;
  }

  function stage(slide) {  // the step-through's "step 4 of 9: variance", and whether Next ▶ has more
    const text = slide.map(cell => cell.innerText || "").join("\n");
    const found = /step (\d+) of (\d+): ([^\n(]+)/.exec(text);  // "step 2 of 9: mean (next: differences)"
    const next = window.lecturePresenter.button(slide, "Next ▶");
    const coming = /step \d+ of \d+: [^\n]*\(next: ([^)]+)\)/.exec(text);
    return { text: found ? found[0].trim() : "", name: found ? found[3].trim() : "",
             more: Boolean(next && !next.disabled), next: coming ? coming[1].trim() : "" };
  }

  function snapshot() {
    const { state } = window.lecturePresenter;
    const slides = state.slides.map(slide => ({ title: title(slide), notes: notes(slide), minutes: minutes(slide) }));
    return { type: "state", slides, current: state.current, stage: stage(state.slides[state.current]),
             black: state.black, presenting: document.body.classList.contains("lecture-presenting") };
  }

  let pending = null;
  function broadcast() {  // at most once a frame: a step sends several changes
    if (!channel || pending) return;
    pending = requestAnimationFrame(() => { pending = null; channel.postMessage(snapshot()); });
  }

  function open() {
    const url = `${baseUrl()}voila/static/presenter_window.html#${tabId()}`;
    const features = "popup,width=1000,height=720";
    // An open view is brought forward as it is (its timer runs on); only a new one loads the page.
    let view = window.open("", `layernorm-presenter-${tabId()}`, features);
    if (!view) {
      window.lecturePresenter.say("the presenter view was blocked: allow pop-ups for this page, then S again");
      return;
    }
    let blank = true;
    try { blank = view.location.href === "about:blank"; } catch (error) { blank = false; }
    if (blank) view.location.href = url;
    view.focus();
    broadcast();
  }

  window.addEventListener("lecture:ready", () => {
    channel = new BroadcastChannel(`layernorm-lecture-${tabId()}`);
    channel.onmessage = event => {
      const message = event.data || {};
      if (message.type === "hello") broadcast();
      else if (message.type === "key") window.lecturePresenter.act(message.key);
    };
    // The step-through's stage changes when the kernel answers: follow the slide's text too.
    const cells = document.getElementById("rendered_cells");
    if (cells) new MutationObserver(broadcast).observe(cells, { childList: true, subtree: true, characterData: true });
    window.addEventListener("lecture:changed", broadcast);
    broadcast();
  });
  window.lecturePresenterView = { open, snapshot, tabId };
})();
