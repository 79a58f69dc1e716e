/* The presenter view's window: draws what the lecture's window broadcasts (presenter_view.js) and sends
   its keys back. The timer lives here (sessionStorage: a reload of this window keeps it), from when the
   view was first opened, and per slide from when the slide was reached. */
(function () {
  "use strict";
  const id = location.hash.slice(1);
  const channel = new BroadcastChannel(`layernorm-lecture-${id}`);
  const KEYS = new Set(["PageDown", "PageUp", "ArrowRight", "ArrowLeft", "ArrowDown", "ArrowUp", "Home", "End",
                        "b", "B", ".", "p", "P"]);
  const $ = name => document.getElementById(name);
  let last = null;
  let heard = Date.now();

  function started() {
    let value = Number(sessionStorage.getItem("started"));
    if (!value) { value = Date.now(); sessionStorage.setItem("started", String(value)); }
    return value;
  }
  let slideSince = Number(sessionStorage.getItem("slideSince")) || Date.now();

  function clock(ms) {
    const seconds = Math.max(0, Math.floor(ms / 1000));
    const h = Math.floor(seconds / 3600), m = Math.floor(seconds / 60) % 60, s = seconds % 60;
    return (h ? `${h}:${String(m).padStart(2, "0")}` : `${m}`) + `:${String(s).padStart(2, "0")}`;
  }

  function tick() {
    const now = Date.now();
    $("elapsed").textContent = clock(now - started());
    $("on-slide").textContent = clock(now - slideSince);
    const slide = last && last.slides[last.current];
    $("on-slide").classList.toggle("over", Boolean(slide && slide.minutes && now - slideSince > slide.minutes * 60000));
    $("lost").style.display = now - heard > 15000 ? "block" : "none";
  }

  function draw(state) {
    if (!last || last.current !== state.current) {
      slideSince = Date.now();
      sessionStorage.setItem("slideSince", String(slideSince));
    }
    last = state;
    const slide = state.slides[state.current] || { title: "", notes: "", minutes: null };
    $("slide").textContent = `slide ${state.current + 1} of ${state.slides.length}: ${slide.title}`;
    $("stage").textContent = state.stage.text;
    $("black").classList.toggle("on", state.black);
    $("planned").textContent = slide.minutes ? ` of ${slide.minutes} min planned` : "";
    const before = state.slides.slice(0, state.current + 1).reduce((sum, s) => sum + (s.minutes || 0), 0);
    const total = state.slides.reduce((sum, s) => sum + (s.minutes || 0), 0);
    $("plan").textContent = `plan: ${before} of ${total} min by the end of this slide`;
    $("notes").innerHTML = slide.notes || "<p>(no notes for this slide)</p>";
    // The step-through's notes list its stages: mark the one on the screen.
    for (const item of $("notes").querySelectorAll("li")) {
      const name = item.querySelector("strong");
      item.classList.toggle("current", Boolean(state.stage.name && name && name.textContent.trim() === state.stage.name));
    }
    const following = state.slides[state.current + 1];
    $("next").textContent = state.stage.more
      ? `next click: this slide's next stage${state.stage.next ? `, ${state.stage.next}` : ""}`
      : following ? `next slide: ${following.title}` : "this is the last slide";
    tick();
  }

  channel.onmessage = event => {
    heard = Date.now();
    if (event.data && event.data.type === "state") draw(event.data);
  };
  document.addEventListener("keydown", event => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === "r" || event.key === "R") {
      sessionStorage.removeItem("started");
      slideSince = Date.now();
      sessionStorage.setItem("slideSince", String(slideSince));
      tick();
    } else if (KEYS.has(event.key)) {
      channel.postMessage({ type: "key", key: event.key });
    } else return;
    event.preventDefault();
  });
  setInterval(() => { tick(); if (Date.now() - heard > 5000) channel.postMessage({ type: "hello" }); }, 1000);
  channel.postMessage({ type: "hello" });
  window.presenterWindow = { get state() { return last; } };
})();
