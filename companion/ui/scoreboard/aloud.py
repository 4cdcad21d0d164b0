"""What the Scoreboard says aloud: each entry's points, whose entry is next, the target
reached (the round being entered is then the last), the standings after every round,
and the result::

    >>> from companion.games import new_match
    >>> match = new_match("scoreboard", ["Ann", "Bob"])
    >>> words = ScoreboardWords()
    >>> before = words.facts(match)
    >>> event = {"type": "points", "player": "Ann", "points": -5}
    >>> match.apply(event)
    >>> [said.text for said in words.said(event, before, match)]
    ['Ann: -5', "Bob's turn"]
"""

from __future__ import annotations

from typing import Any

from companion.lang import pgettext
from companion.ui.spoken import GameWords, Said, final_result, ranked, whose_turn


def reached(match: Any) -> list[str]:
    """Who has reached the target with the entries of the round being entered."""
    target = match.sheet.target
    if target is None:
        return []
    totals = match.sheet.totals
    return [name for name in match.players
            if totals[name] + match.entries.get(name, 0) >= target]


class ScoreboardWords(GameWords):
    """The Scoreboard's announcements (see the module docstring)."""

    def facts(self, match: Any) -> dict[str, Any]:
        return {"turn": whose_turn(match), "rounds": len(match.sheet.rounds),
                "reached": bool(reached(match))}

    def said(self, event: dict[str, Any], before: dict[str, Any] | None,
             match: Any) -> list[Said]:
        said: list[Said] = []
        kind = event.get("type")
        rounds = match.sheet.rounds
        if kind == "points":
            said.append(Said("results", pgettext("spoken", "{player}: {points}").format(
                player=event.get("player"), points=event.get("points"))))
            now = reached(match)
            if now and before is not None and not before["reached"] and match.entries:
                said.append(Said("turns", pgettext(
                    "spoken", "{player} reaches the target: this round is the last").format(
                        player=now[0])))
        if before is not None and len(rounds) > before["rounds"] and not match.over:
            said.append(Said("results", pgettext("spoken", "After round {number}: {players}")
                             .format(number=len(rounds),
                                     players=ranked(match.sheet.totals, match.high_wins))))
        if match.over and kind in ("points", "end"):
            said.append(Said("results", self.result(match)))
        return said + self.turn(before, match)

    @staticmethod
    def result(match: Any) -> str:
        """"Game over. Winner: Ann with 512 points. Standings: ...", best first."""
        return final_result(match.sheet.totals, match.sheet.winners(), high_wins=match.high_wins)
