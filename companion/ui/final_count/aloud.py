"""What Final Count says aloud: a roll and what its face means, the Hit Goal, the call
and the final round, whose turn it is, each hand's outcome (a goal hit is in it) with
who went bust, and the game's result with the standings::

    >>> from companion.games import new_match
    >>> match = new_match("final-count", ["Ann", "Bob"])
    >>> words = FinalCountWords()
    >>> before = words.facts(match)
    >>> match.apply({"type": "roll", "player": "Ann", "value": 3})
    >>> [said.text for said in words.said({"type": "roll", "player": "Ann", "value": 3},
    ...                                   before, match)]
    ['Ann, 3: draw a card for the Board', "Bob's turn"]
"""

from __future__ import annotations

from typing import Any

from companion.games import final_count as rules
from companion.lang import lazy, pgettext
from companion.ui.spoken import GameWords, Said, final_result, listed

#: What each face lets the roller do, as said at the table (the screen's are shorter).
SPOKEN_ACTIONS = {
    1: lazy("spoken", "draw a card for yourself"),
    2: lazy("spoken", "draw a card for an opponent"),
    3: lazy("spoken", "draw a card for the Board"),
    4: lazy("spoken", "swap a card with the draw pile"),
    5: lazy("spoken", "swap a card with an opponent"),
    6: lazy("spoken", "swap a card with the Board"),
}
#: A 1-4 on an empty draw pile (FC10).
SPOKEN_EMPTY_PILE = lazy("spoken", "the draw pile is empty: pass")


class FinalCountWords(GameWords):
    """Final Count's announcements (see the module docstring)."""

    def facts(self, match: Any) -> dict[str, Any]:
        return {**super().facts(match), "hands": len(match.hands)}

    def said(self, event: dict[str, Any], before: dict[str, Any] | None,
             match: Any) -> list[Said]:
        kind = event.get("type")
        said: list[Said] = []
        if kind == "roll" and match.rolls:
            said.append(Said("rolls", self.roll(match.rolls[-1])))
        elif kind == "goal" and match.goal is not None:
            said.append(Said("rolls", pgettext("spoken", "Hit Goal: {goal}").format(
                goal=match.goal)))
        elif kind == "call":
            said.append(Said("turns", pgettext("spoken", "{player} calls: final round")
                             .format(player=event.get("player"))))
        if before is not None and len(match.hands) > before.get("hands", len(match.hands)):
            said += self.results(match)
        return said + self.turn(before, match)

    def roll(self, roll: Any) -> str:
        """"Ann, 3: draw a card for the Board" (the face as a number: the voice says it in
        the table's language)."""
        empty = roll.action == rules.EMPTY_PILE_ACTION.message
        action = SPOKEN_EMPTY_PILE if empty else SPOKEN_ACTIONS[roll.value]
        return pgettext("spoken", "{player}, {face}: {action}").format(
            player=roll.player, face=roll.value, action=action)

    def results(self, match: Any) -> list[Said]:
        """The hand just settled: its outcome (a goal hit says so), who went bust over
        75 unless everyone did (the outcome says that), and the game's result when it
        was the last hand."""
        hand = match.hands[-1].record
        said = [Said("results", pgettext("spoken", "Hand {number}: {outcome}").format(
            number=hand["hand"], outcome=rules.hand_outcome(hand)))]
        bust = [(name, row["total"]) for name, row in hand["players"].items() if row["bust"]]
        if bust and hand["winners"]:
            said.append(Said("results", pgettext("spoken", "Bust: {players}").format(
                players=listed(bust))))
        if match.over:
            said.append(Said("results", game_result(match)))
        return said


def game_result(match: Any) -> str:
    """"Game over. Winner: Ann with 340 points. Standings: Ann 340, Bob 280, Cy 250"."""
    result = match.result()
    return final_result(result["totals"], result["winners"])
