// The organiser's form on the club page: seat the night's next round (POST JSON).
// Its words come translated in the form's data-* attributes ({name} fields filled here).
"use strict";
(function () {
  const form = document.getElementById("seat-round");
  if (!form) return;
  const words = (key, fields) => (form.dataset[key] || "").replace(
    /\{(\w+)\}/g, (whole, name) => (name in (fields || {}) ? String(fields[name]) : whole));
  const answer = document.getElementById("seat-answer");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = {
      game: form.game.value, present: form.present.value,
      tables: parseInt(form.tables.value, 10) || 0,
    };
    answer.textContent = words("seating");
    let reply, data = {};
    try {
      reply = await fetch("/api/club/seat", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      data = await reply.json();
    } catch (err) {
      answer.textContent = words("noAnswer", { error: err });
      return;
    }
    answer.textContent = reply.ok
      ? words("seated", { n: data.round, seed: data.seed })
      : (data.error || words("refused"));
  });
})();
