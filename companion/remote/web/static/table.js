// The table view beyond the live stream (site.js): the page title, the paired phone's
// entry pads (built from the "pads" the device sends with each view: one tap a card,
// a face, a player; steppers for numbers), Undo that says what it undoes, and a wake
// lock so a TV or a phone showing the table does not go to sleep.
"use strict";
(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  const live = $("#live");
  if (!live) return;
  const box = $("#controls");
  const pad = $("#pad");
  const say = window.companionSay;   // the page's words (site.js)

  // -- the chosen values of the pad on show ----------------------------------------------
  let chosen = {};       // field name -> value (one, number) or list (many)
  let current = null;    // the pad on show: {type, label, fields}

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) node.setAttribute(key, value);
    if (text != null) node.textContent = text;
    return node;
  }
  function shown(value) { return String(value).replace(/_/g, " "); }
  // A value as its button shows it: the field's name for it ("7 Back Stabber"), if any.
  function named(field, value) {
    const name = field.names && field.names[String(value)];
    return name || shown(value);
  }

  // A field narrowed to the player chosen (the dice Ann holds, the cards Ann may hold).
  function narrowed(field) {
    const only = field.by_player && field.by_player[chosen.player];
    return only ? Object.assign({}, field, only) : field;
  }

  function fieldBox(field) {
    const group = el("fieldset", { class: "field " + field.kind });
    group.append(el("legend", {}, field.label + (field.kind === "many" ? countText(field) : "")));
    if (field.kind === "one") {
      const buttons = el("div", { class: "keys" });
      for (const value of field.values) {
        const key = el("button", { type: "button", class: "key", "aria-pressed":
          String(chosen[field.name] === value) }, named(field, value));
        key.addEventListener("click", () => {
          chosen[field.name] = chosen[field.name] === value && field.optional ? undefined : value;
          render();
        });
        buttons.append(key);
      }
      group.append(buttons);
    } else if (field.kind === "many") {
      const list = chosen[field.name] || [];
      const picked = el("p", { class: "picked", "aria-live": "polite" });
      if (!list.length) picked.append(el("span", { class: "hint" }, say("tap_to_add")));
      list.forEach((value, index) => {
        const chip = el("button", { type: "button", class: "chip",
          "aria-label": say("take_out", { value: named(field, value) }) }, named(field, value) + " \u00d7");
        chip.addEventListener("click", () => { list.splice(index, 1); render(); });
        picked.append(chip);
      });
      group.append(picked);
      const buttons = el("div", { class: "keys" });
      for (const value of field.values) {
        const full = list.length >= field.max || (field.distinct && list.includes(value));
        const key = el("button", { type: "button", class: "key",
          "aria-label": say("add", { value: named(field, value) }) }, named(field, value));
        key.disabled = full;
        key.addEventListener("click", () => {
          chosen[field.name] = [...(chosen[field.name] || []), value];
          render();
        });
        buttons.append(key);
      }
      group.append(buttons);
    } else if (field.kind === "number") {
      const row = el("div", { class: "stepper" });
      const value = chosen[field.name];
      const step = (by) => () => {
        chosen[field.name] = Math.min(field.max, Math.max(field.min, (chosen[field.name] || 0) + by));
        render();
      };
      const input = el("input", { type: "number", inputmode: "numeric", min: field.min,
        max: field.max, value: value, "aria-label": field.label });
      input.addEventListener("change", () => {
        const typed = Math.round(Number(input.value));
        chosen[field.name] = Number.isFinite(typed)
          ? Math.min(field.max, Math.max(field.min, typed)) : 0;
      });
      const fewer = el("button", { type: "button", class: "key", "aria-label": say("minus_one", { label: field.label }) }, "\u2212");
      const more = el("button", { type: "button", class: "key", "aria-label": say("plus_one", { label: field.label }) }, "+");
      fewer.addEventListener("click", step(-1));
      more.addEventListener("click", step(1));
      row.append(fewer, input, more);
      group.append(row);
    }
    return group;
  }
  function countText(field) {
    const n = (chosen[field.name] || []).length;
    if (field.min === field.max) return say("picked_of", { n: n, max: field.max });
    return say("picked_range", { n: n, min: field.min, max: field.max });
  }

  function ready() {
    if (!current) return false;
    return current.fields.map(narrowed).every((field) => {
      const value = chosen[field.name];
      if (field.kind === "fixed" || field.optional) return true;
      if (field.kind === "many") {
        const n = (value || []).length;
        return n >= field.min && n <= field.max;
      }
      return value !== undefined && value !== null;
    });
  }
  function event() {
    const built = { type: current.type };
    for (const field of current.fields) {
      const value = field.kind === "fixed" ? field.value : chosen[field.name];
      if (value === undefined || value === null) continue;
      if (field.kind === "many" && field.optional && !value.length) continue;
      const path = field.name.split(".");
      let into = built;
      for (const part of path.slice(0, -1)) into = into[part] = into[part] || {};
      into[path[path.length - 1]] = value;
    }
    return built;
  }

  function choose(entry) {
    current = entry;
    chosen = {};
    for (const field of entry.fields) {
      if (field.kind === "many") chosen[field.name] = [];
      else if (field.value !== undefined && field.kind !== "fixed") chosen[field.name] = field.value;
      else if (field.kind === "one" && field.values.length === 1 && !field.optional) {
        chosen[field.name] = field.values[0];
      }
    }
    render();
  }

  let pads = [];
  function render() {
    if (!pad) return;
    pad.replaceChildren();
    if (!pads.length) return;
    if (pads.length > 1) {
      const tabs = el("div", { class: "tabs", role: "group", "aria-label": say("what_happened") });
      for (const entry of pads) {
        const tab = el("button", { type: "button", class: "tab",
          "aria-pressed": String(current && current.type === entry.type) }, entry.label);
        tab.addEventListener("click", () => choose(entry));
        tabs.append(tab);
      }
      pad.append(tabs);
    }
    const asked = current.fields.filter((field) => field.kind !== "fixed");
    for (const field of asked) pad.append(fieldBox(narrowed(field)));
    const send = el("button", { type: "button", class: "big send" },
      asked.length ? current.send : current.label);
    send.disabled = !ready();
    send.addEventListener("click", () => {
      window.companionAct("/api/events", { event: event() });
    });
    pad.append(send);
  }

  function follow(view) {
    document.title = view.title || document.title;
    if (!box) return;
    box.hidden = !view.game || view.over;
    box.dataset.last = view.last || "";
    const undo = $("#undo");
    undo.textContent = view.last ? say("undo_last", { last: view.last }) : say("undo");
    undo.disabled = !view.last;
    const key = JSON.stringify(view.pads || []);
    if (box.dataset.key === key) return;   // unchanged: keep what is being tapped in
    box.dataset.key = key;
    pads = view.pads || [];
    const same = current && pads.find((entry) => entry.type === current.type);
    if (pads.length) choose(same || pads[0]); else { current = null; render(); }
  }
  document.addEventListener("companion:view", (e) => follow(e.detail));
  if (box) {
    follow({ game: box.dataset.game || null, over: box.hidden, last: box.dataset.last,
      pads: JSON.parse(box.dataset.pads || "[]"), title: document.title });
    $("#undo").addEventListener("click", () => {
      const last = box.dataset.last;
      if (last && confirm(say("undo_ask", { last: last }))) window.companionAct("/api/undo", {});
    });
  }

  // -- the turn timer: counted down here between the device's views ------------------------
  // Each view brings the seconds left as the OLED showed them; the page counts on from
  // there (a pause, a new turn or the end comes as a new view).
  setInterval(() => {
    const timer = $("#timer");
    if (!timer || timer.dataset.paused) return;
    if (!timer.dataset.seen) timer.dataset.seen = String(Date.now());
    const gone = Math.floor((Date.now() - Number(timer.dataset.seen)) / 1000);
    const left = Math.max(0, Number(timer.dataset.left) - gone);
    const text = left ? Math.floor(left / 60) + ":" + String(left % 60).padStart(2, "0") : say("time_up");
    $(".left", timer).textContent = text;
    timer.classList.toggle("out", !left);
  }, 250);

  // -- speaking aloud: the device's announcements in this browser's own voice -------------
  // Off until a press on this page switches it on (browsers speak only after one); the
  // newest words cut the ones still being said, as on the device: the turn moved on.
  // The words of one moment ("Ann, 3: ...", "Bob's turn") share their "at": they follow
  // each other.
  const speak = $("#speak");
  const voice = window.speechSynthesis;
  let speaking = false;
  let moment = null;
  function utter(text, language, at) {
    const words = new SpeechSynthesisUtterance(text);
    words.lang = language || document.documentElement.lang;
    if (at === undefined || at !== moment) voice.cancel();
    moment = at;
    voice.speak(words);
  }
  if (speak && voice && window.SpeechSynthesisUtterance) {
    speak.hidden = false;
    speak.addEventListener("click", () => {
      speaking = !speaking;
      speak.setAttribute("aria-pressed", String(speaking));
      speak.textContent = speaking ? say("speaking") : say("speak");
      if (speaking) utter(say("speak_on")); else voice.cancel();
    });
    document.addEventListener("companion:say", (e) => {
      const said = e.detail || {};
      if (speaking && said.text) utter(said.text, said.language, said.at);
    });
  }

  // -- keep the screen on while the table is shown ---------------------------------------
  // The wake lock exists only in a secure context (https, or the device's own
  // localhost). Elsewhere the page says so once (per browser), and keeps the screen on
  // the other way some browsers allow: a silent, muted video of a blank canvas playing
  // (started by a tap, as browsers ask), which phones treat like a film being watched.
  let lock = null;
  let film = null;
  async function awake() {
    if (document.visibilityState !== "visible" || lock) return;
    if (!("wakeLock" in navigator)) { refused(); return; }
    try {
      lock = await navigator.wakeLock.request("screen");
      lock.addEventListener("release", () => { lock = null; });
      live.dataset.awake = "yes";
    } catch (err) {
      refused();   // battery saver, or no secure context
    }
  }
  function refused() {
    live.dataset.awake = film ? "video" : "no";
    if (!window.isSecureContext) sayOnce();
    if (!film) document.addEventListener("click", playFilm, { once: true });
  }
  function sayOnce() {
    const note = $("#awake-note");
    let said = false;
    try { said = localStorage.getItem("companion-awake-note") === "said"; } catch (err) { /* private mode */ }
    if (!note || said) return;
    note.hidden = false;
    $("#awake-ok").addEventListener("click", () => {
      note.hidden = true;
      try { localStorage.setItem("companion-awake-note", "said"); } catch (err) { /* private mode */ }
    });
  }
  function playFilm() {
    const canvas = document.createElement("canvas");
    if (film || !canvas.captureStream) return;
    canvas.width = canvas.height = 2;
    const video = el("video", { muted: "", playsinline: "", loop: "", "aria-hidden": "true",
      class: "awake-film" });
    video.muted = true;
    video.srcObject = canvas.captureStream(1);
    canvas.getContext("2d").fillRect(0, 0, 2, 2);   // a first frame, so it plays
    document.body.appendChild(video);
    video.play().then(() => { film = video; live.dataset.awake = "video"; },
      () => { video.remove(); });
  }
  document.addEventListener("visibilitychange", awake);
  awake();
})();
