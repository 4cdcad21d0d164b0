// The table page's only script: the live stream, the theme, and the paired phone's forms.
"use strict";
(function () {
  const $ = (sel, root) => (root || document).querySelector(sel);
  const root = document.documentElement;

  // -- theme: dark or light, remembered on this browser --------------------------------
  const saved = localStorage.getItem("theme");
  if (saved) root.dataset.theme = saved;
  document.addEventListener("click", (e) => {
    if (!e.target.closest("#theme")) return;
    const dark = root.dataset.theme ? root.dataset.theme === "dark"
      : matchMedia("(prefers-color-scheme: dark)").matches;
    root.dataset.theme = dark ? "light" : "dark";
    localStorage.setItem("theme", root.dataset.theme);
  });

  // -- words: the page brings them in the device's language (base.html, the body's
  // data-words) -- say("rename", {name: "Ann"}) is the sentence, its {fields} filled in.
  let words = {};
  try { words = JSON.parse(document.body.dataset.words || "{}"); } catch (err) { words = {}; }
  function say(key, fields) {
    return String(words[key] || key).replace(/\{(\w+)\}/g,
      (whole, name) => (fields && name in fields ? String(fields[name]) : whole));
  }
  window.companionSay = say;

  // -- messages ----------------------------------------------------------------------------
  let toastTimer = 0;
  function toast(text, bad) {
    const box = $("#toast");
    if (!box) return;
    box.textContent = text;
    box.className = bad ? "toast bad" : "toast";
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(() => { box.hidden = true; }, bad ? 6000 : 2500);
  }

  async function post(url, body) {
    const reply = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json" }, body: JSON.stringify(body || {}),
    });
    let data = {};
    try { data = await reply.json(); } catch (err) { data = { error: reply.statusText }; }
    return { ok: reply.ok, status: reply.status, data: data };
  }
  async function act(url, body, done) {
    const reply = await post(url, body);
    if (!reply.ok) { toast(reply.data.error || say("refused"), true); return reply; }
    if (done) done(reply.data);
    return reply;
  }

  // -- the live table ------------------------------------------------------------------------
  const live = $("#live");
  window.companionViews = [];
  let lastView = null;   // what a tab that opens later is given first
  function show(view) {
    lastView = view;
    live.innerHTML = view.html;
    live.dataset.seq = view.seq;
    live.dataset.match = view.match_id == null ? "" : view.match_id;
    window.companionViews.push(performance.timeOrigin + performance.now());
    document.dispatchEvent(new CustomEvent("companion:view", { detail: view }));
  }
  let stream = null;
  window.companionStreams = 0;   // streams this tab opened (the tests count them)
  function again() { return "?match=" + live.dataset.match + "&last=" + live.dataset.seq; }
  function connect(query) {
    const link = $("#link");
    window.companionStreams += 1;
    stream = new EventSource(live.dataset.stream + query);
    const current = stream;
    stream.addEventListener("view", (e) => {
      const view = JSON.parse(e.data);
      if (view.keepalive) keepalive({ every: view.keepalive }); else heard();
      show(view);
      share.send({ kind: "view", view: view });
    });
    stream.addEventListener("keepalive", (e) => { keepalive(JSON.parse(e.data)); });
    stream.addEventListener("say", (e) => {
      const said = JSON.parse(e.data);
      heard();
      announce(said);
      share.send({ kind: "say", said: said });
    });
    stream.onmessage = (e) => { heard(); live.dataset.event = e.lastEventId; };
    stream.onopen = () => { linkShown(false); heard(); };
    stream.onerror = () => {
      linkShown(true);
      if (current === stream && stream.readyState === EventSource.CLOSED) {
        // The browser gave up (the device answered oddly while restarting): start again
        // from what this page has seen.
        setTimeout(() => { if (current === stream) connect(again()); }, 2000);
      }
    };
  }
  // What the device announces: table.js speaks it when this page was asked to.
  function announce(said) {
    document.dispatchEvent(new CustomEvent("companion:say", { detail: said }));
  }
  function linkShown(lost) {
    $("#link").hidden = !lost;
    share.send({ kind: "link", lost: lost });
  }

  // -- a link that went quiet: the connection is open but nothing comes ------------------
  // The device sends a keepalive every `every` seconds when nothing else happens; after
  // 2.5 times that with nothing at all, this page says so and opens a new stream.
  let quietEvery = 0, quietTimer = 0;
  function keepalive(data) {
    quietEvery = Number(data.every) > 0 ? Number(data.every) : 0;
    heard();
  }
  function heard() {
    clearTimeout(quietTimer);
    share.renew();
    if (quietEvery) quietTimer = setTimeout(wentQuiet, quietEvery * 2500);
  }
  function wentQuiet() {
    linkShown(true);
    stream.close();
    connect(again());
    heard();  // and again, if the new one stays quiet too
  }

  // -- one stream for all of a browser's tabs ------------------------------------------------
  // A browser opens at most six connections to one host over HTTP/1.1, and each open
  // stream holds one: the seventh tab of the club page would never load. So the tabs
  // showing the same stream elect one of them (a lease in localStorage, renewed while
  // its stream lives) to hold the stream and pass every view to the others over a
  // BroadcastChannel. When it closes it lets go, and the next tab takes the stream up
  // from what it has already shown. Without BroadcastChannel each tab has its own.
  const share = (function () {
    const alone = { send() {}, renew() {}, start() { connect(first()); } };
    if (!live || !("BroadcastChannel" in window)) return alone;
    let store;
    try { store = window.localStorage; store.getItem(""); } catch (err) { return alone; }
    const key = "companion-stream:" + live.dataset.stream;
    const me = Math.random().toString(36).slice(2) + Date.now().toString(36);
    const channel = new BroadcastChannel(key);
    // Renewed every CHECK ms and at every message of the stream (a keepalive comes at
    // least every 20 s, even where a hidden tab's timers are slowed to once a minute).
    const LEASE = 30000, CHECK = 3000;
    let leading = false;
    function lease() {
      try { return JSON.parse(store.getItem(key) || "null"); } catch (err) { return null; }
    }
    function claim() { store.setItem(key, JSON.stringify({ id: me, until: Date.now() + LEASE })); }
    function lead(query) {
      leading = true;
      claim();
      connect(query);
    }
    function follow() {
      leading = false;
      clearTimeout(quietTimer);
      if (stream) { stream.close(); stream = null; }
    }
    function check(query) {
      const held = lease();
      const current = held && held.until > Date.now();
      if (leading) {
        if (current && held.id !== me) follow();   // another tab took over: one stream
        else claim();
        return;
      }
      if (current) return;
      // Claim it, then look again: of two tabs claiming at once the last write stands.
      claim();
      setTimeout(() => {
        const now = lease();
        if (!leading && now && now.id === me) lead(query || again());
      }, 150);
    }
    channel.onmessage = (e) => {
      const data = e.data || {};
      if (leading) {
        if (data.kind === "hello" && lastView) channel.postMessage({ kind: "view", view: lastView });
        return;
      }
      if (data.kind === "view") show(data.view);
      else if (data.kind === "say") announce(data.said);
      else if (data.kind === "link") $("#link").hidden = !data.lost;
      else if (data.kind === "bye") setTimeout(check, Math.random() * 200);
    };
    window.addEventListener("pagehide", () => {
      // A tab that goes while it holds the lease (or has just claimed it) lets go at
      // once, so the next one takes the stream up without waiting for it to run out.
      follow();
      const held = lease();
      if (held && held.id === me) {
        store.removeItem(key);
        channel.postMessage({ kind: "bye" });
      }
    });
    window.addEventListener("pageshow", (e) => { if (e.persisted) check(); });
    setInterval(check, CHECK);
    return {
      send(data) { if (leading) channel.postMessage(data); },
      renew() { if (leading) claim(); },
      start() { check(first()); channel.postMessage({ kind: "hello" }); },
    };
  })();
  function first() { return live.dataset.match ? "?match=" + live.dataset.match : ""; }
  if (live) share.start();

  // A paired phone's pads and the page title follow each view (static/table.js).
  document.addEventListener("click", (e) => {
    const button = e.target.closest("[data-post]");
    if (button) act(button.dataset.post, {});
  });
  window.companionAct = act;
  window.companionToast = toast;

  // -- pairing ----------------------------------------------------------------------------------
  const pair = $("#pair");
  if (pair) pair.addEventListener("submit", (e) => {
    e.preventDefault();
    act("/api/pair", { code: $("#code").value.trim() }, () => { location.href = "/"; });
  });
  // Opened from the QR code on the device (/pair?code=...): pair in one step.
  if (pair && pair.dataset.auto === "yes") pair.requestSubmit();

  // -- players ------------------------------------------------------------------------------------
  const add = $("#add-player");
  if (add) add.addEventListener("submit", (e) => {
    e.preventDefault();
    act("/api/players", { name: $("#new-name").value }, () => location.reload());
  });
  document.addEventListener("click", (e) => {
    const rename = e.target.closest("[data-rename]");
    if (rename) {
      const to = prompt(say("rename", { name: rename.dataset.rename }), rename.dataset.rename);
      if (to) act("/api/players/rename", { name: rename.dataset.rename, to: to }, () => location.reload());
    }
    const remove = e.target.closest("[data-remove]");
    if (remove && confirm(say("remove", { name: remove.dataset.remove }))) {
      act("/api/players/remove", { name: remove.dataset.remove }, () => location.reload());
    }
    const pick = e.target.closest("[data-pick]");
    if (pick) {
      const input = $("#players");
      input.value = (input.value.trim() ? input.value.replace(/[ ,]+$/, "") + ", " : "") + pick.dataset.pick;
    }
  });

  // -- a new game ---------------------------------------------------------------------------------
  const game = $("#new-game");
  if (game) {
    const games = JSON.parse(game.dataset.games);
    const options = () => {
      const chosen = games.find((g) => g.id === $("#game").value) || { options: {} };
      const box = $("#options");
      box.replaceChildren(box.firstElementChild);
      for (const [name, value] of Object.entries(chosen.options)) {
        const label = document.createElement("label");
        const input = document.createElement("input");
        input.name = name;
        input.dataset.kind = typeof value;
        if (typeof value === "boolean") { input.type = "checkbox"; input.checked = value; }
        else { input.value = value; if (typeof value === "number") input.inputMode = "numeric"; }
        label.append(input, " " + name.replace(/_/g, " "));
        box.append(label);
      }
    };
    $("#game").addEventListener("change", options);
    options();
    const start = async (force) => {
      const chosen = {};
      for (const input of $("#options").querySelectorAll("input")) {
        const kind = input.dataset.kind;
        chosen[input.name] = kind === "boolean" ? input.checked
          : kind === "number" ? Number(input.value) : input.value;
      }
      const body = { game: $("#game").value, options: chosen, force: force,
        players: $("#players").value.split(",").map((n) => n.trim()).filter(Boolean) };
      const reply = await post("/api/matches", body);
      if (reply.ok) { location.href = "/"; return; }
      if (reply.status === 409 && reply.data.code === "OPEN" && !force &&
          confirm((game.dataset.open || reply.data.error) + "\n\n" + say("start_anyway"))) {
        start(true); return;
      }
      toast(reply.data.error || say("refused"), true);
    };
    game.addEventListener("submit", (e) => { e.preventDefault(); start(false); });
  }
})();
