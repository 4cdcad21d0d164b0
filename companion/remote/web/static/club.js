// The organiser's form on the club page: seat the night's next round (POST JSON).
"use strict";
(function () {
  const form = document.getElementById("seat-round");
  if (!form) return;
  const answer = document.getElementById("seat-answer");
  const say = window.companionSay;   // the page's words (site.js)
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    // Tonight's tables ticked by name, or (a club no table has reported to yet) a number.
    const ticks = Array.from(form.querySelectorAll('input[name="table"]'));
    const tables = ticks.length
      ? ticks.filter((box) => box.checked).map((box) => box.value)
      : parseInt(form.tables.value, 10) || 0;
    const body = { game: form.game.value, present: form.present.value, tables: tables };
    answer.textContent = say("seating");
    let reply, data = {};
    try {
      reply = await fetch("/api/club/seat", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      data = await reply.json();
    } catch (err) {
      answer.textContent = say("no_answer", { problem: err });
      return;
    }
    answer.textContent = reply.ok
      ? [say("seated", { round: data.round, seed: data.seed })].concat(data.notes || []).join(" ")
      : (data.error || say("refused"));
  });
})();
