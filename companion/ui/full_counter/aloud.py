"""What Full Counter says aloud: who leads a game, a burn (the same player again), a
pick-up, the direction and the order turning, who is out, the loser of each game (who
deals the next), the last game of a match of so many, the match's result, and whose
turn it is::

    >>> from companion.games import new_match
    >>> match = new_match("full-counter", ["Ann", "Bob", "Cy"], {"quick": True})
    >>> words = FullCounterWords()
    >>> match.apply({"type": "starter", "value": 2, "face_up": ["Ann"]})
    >>> before = words.facts(match)
    >>> event = {"type": "play", "player": "Ann", "effect": "black_market"}
    >>> match.apply(event)
    >>> [said.text for said in words.said(event, before, match)]
    ['Now anticlockwise', "Cy's turn"]

A play itself is not said (the table sees the cards); what it changes is.
"""

from __future__ import annotations

from typing import Any

from companion.lang import pgettext
from companion.table.seats import LEFT
from companion.ui.spoken import GameWords, Said, final_result, whose_turn

#: The events of a turn: after them the pile, the direction and the order may change.
TURN_EVENTS = ("play", "chain", "blind", "pickup", "out")


class FullCounterWords(GameWords):
    """Full Counter's announcements (see the module docstring)."""

    def facts(self, match: Any) -> dict[str, Any]:
        return {"turn": whose_turn(match), "games": len(match.games), "burns": match.burns,
                "direction": match.direction, "ascending": match.ascending,
                "out": len(match.out)}

    def said(self, event: dict[str, Any], before: dict[str, Any] | None,
             match: Any) -> list[Said]:
        kind = event.get("type")
        if kind == "starter" and match.current is not None:  # found: the first play
            return [Said("turns", pgettext("spoken", "{player} leads").format(
                player=match.current))]
        if before is None:  # the first event after a resume: what it changed is unknown
            return []
        said: list[Said] = []
        finished = len(match.games) > before["games"]
        if kind in TURN_EVENTS and not finished:
            said += self.turn_changes(event, before, match)
        if finished:
            said += self.game_over(match)
        elif kind == "end" and match.over:
            said.append(Said("results", match_result(match)))
        return said + self.turn(before, match)

    def turn_changes(self, event: dict[str, Any], before: dict[str, Any],
                     match: Any) -> list[Said]:
        """A burn or a pick-up, the direction or the order turned, who went out."""
        player = event.get("player")
        said: list[Said] = []
        if match.burns > before["burns"]:
            said.append(Said("turns", pgettext("spoken", "Burn: {player} plays again")
                             .format(player=player)))
        elif event.get("type") == "pickup" or (event.get("type") == "blind" and not match.pile):
            said.append(Said("turns", pgettext("spoken", "{player} picks up the pile")
                             .format(player=player)))
        if match.direction != before["direction"]:
            said.append(Said("turns", pgettext("spoken", "Now clockwise")
                             if match.direction == LEFT
                             else pgettext("spoken", "Now anticlockwise")))
        if match.ascending != before["ascending"]:
            said.append(Said("turns", pgettext("spoken", "Now going up") if match.ascending
                             else pgettext("spoken", "Now going down")))
        said += [Said("results", pgettext("spoken", "{player} is out").format(player=name))
                 for name in match.out[before["out"]:]]
        return said

    def game_over(self, match: Any) -> list[Said]:
        """The game just finished: its loser deals the next; the match's result when it
        was the last, or the last game's news when one more is left."""
        record = match.games[-1].record
        said = [Said("results", pgettext("spoken", "Game {number}: {loser} loses and deals "
                                         "next").format(number=record["game"],
                                                        loser=record["loser"]))]
        if match.over:
            said.append(Said("results", match_result(match)))
        elif match.options["games"] and len(match.games) == match.options["games"] - 1:
            said.append(Said("turns", pgettext("spoken", "The last game")))
        return said


def match_result(match: Any) -> str:
    """"Match over. Winner: Ann with 1 loss. Losses: Ann 1, Bob 2, Cy 3"."""
    result = match.result()
    return final_result(result["totals"], result["winners"], match=True, losses=True)
