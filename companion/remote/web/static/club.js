// The organiser's form on the club page: seat the night's next round (POST JSON).
"use strict";
(function () {
  const form = document.getElementById("seat-round");
  if (!form) return;
  const answer = document.getElementById("seat-answer");
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    const body = {
      game: form.game.value, present: form.present.value,
      tables: parseInt(form.tables.value, 10) || 0,
    };
    answer.textContent = "Seating...";
    let reply, data = {};
    try {
      reply = await fetch("/api/club/seat", {
        method: "POST", credentials: "same-origin",
        headers: { "Content-Type": "application/json" }, body: JSON.stringify(body),
      });
      data = await reply.json();
    } catch (err) {
      answer.textContent = "The dashboard did not answer: " + err;
      return;
    }
    answer.textContent = reply.ok
      ? "Round " + data.round + " seated (draw seed " + data.seed + "); the dashboard sends it to the tables."
      : (data.error || "refused");
  });
})();
