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
    if (!reply.ok) { toast(reply.data.error || "refused", true); return reply; }
    if (done) done(reply.data);
    return reply;
  }

  // -- the live table ------------------------------------------------------------------------
  const live = $("#live");
  window.companionViews = [];
  function show(view) {
    live.innerHTML = view.html;
    live.dataset.seq = view.seq;
    live.dataset.match = view.match_id == null ? "" : view.match_id;
    window.companionViews.push(performance.timeOrigin + performance.now());
    document.dispatchEvent(new CustomEvent("companion:view", { detail: view }));
  }
  let stream = null;
  function again() { return "?match=" + live.dataset.match + "&last=" + live.dataset.seq; }
  function connect(query) {
    const link = $("#link");
    stream = new EventSource(live.dataset.stream + query);
    const current = stream;
    stream.addEventListener("view", (e) => {
      const view = JSON.parse(e.data);
      if (view.keepalive) keepalive({ every: view.keepalive }); else heard();
      show(view);
    });
    stream.addEventListener("keepalive", (e) => { keepalive(JSON.parse(e.data)); });
    stream.onmessage = (e) => { heard(); live.dataset.event = e.lastEventId; };
    stream.onopen = () => { link.hidden = true; heard(); };
    stream.onerror = () => {
      link.hidden = false;
      if (current === stream && stream.readyState === EventSource.CLOSED) {
        // The browser gave up (the device answered oddly while restarting): start again
        // from what this page has seen.
        setTimeout(() => { if (current === stream) connect(again()); }, 2000);
      }
    };
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
    if (quietEvery) quietTimer = setTimeout(wentQuiet, quietEvery * 2500);
  }
  function wentQuiet() {
    $("#link").hidden = false;
    stream.close();
    connect(again());
    heard();  // and again, if the new one stays quiet too
  }
  if (live) connect(live.dataset.match ? "?match=" + live.dataset.match : "");

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
      const to = prompt("New name for " + rename.dataset.rename, rename.dataset.rename);
      if (to) act("/api/players/rename", { name: rename.dataset.rename, to: to }, () => location.reload());
    }
    const remove = e.target.closest("[data-remove]");
    if (remove && confirm("Remove " + remove.dataset.remove + " from the roster?")) {
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
          confirm((game.dataset.open || reply.data.error) + "\n\nStart the new game anyway?")) {
        start(true); return;
      }
      toast(reply.data.error || "refused", true);
    };
    game.addEventListener("submit", (e) => { e.preventDefault(); start(false); });
  }
})();
