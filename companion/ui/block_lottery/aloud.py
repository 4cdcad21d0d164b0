"""What Block Lottery says aloud: the pool as rolled (the last round says so), the end of
the round and who ended it, each re-roll, each lottery token drawn, the round's scores
with the standings, and the game's result::

    >>> from companion.games import new_match
    >>> match = new_match("block-lottery", ["Ann", "Bob"])
    >>> words = BlockLotteryWords()
    >>> before = words.facts(match)
    >>> event = {"type": "pool", "faces": [6, 1, 1, 4, 2, 2, 2, 5, 5, 3, 6, 6, 1, 4, 3]}
    >>> match.apply(event)
    >>> [said.text for said in words.said(event, before, match)]
    ['Round 1, the pool: 1 1 1, 2 2 2, 3 3, 4 4, 5 5, 6 6 6']

Everyone takes dice at once: nobody has a turn, so none is said; a die taken is not
said either (the table sees it), only the last one, which ends the round.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from companion.games import block_lottery as rules
from companion.lang import lazy, pgettext
from companion.ui.spoken import GameWords, Said, final_result, ranked, standings

#: The two tokens that are not a face, as said at the table.
SPOKEN_TOKENS = {
    rules.NONE: lazy("spoken", "NONE, no die scores"),
    rules.ALL: lazy("spoken", "ALL, every die scores"),
}


def faces_words(faces: Iterable[int]) -> str:
    """Dice as said, each face's dice together: "1 1, 3, 4 4 4"."""
    ordered = sorted(faces)
    groups = [" ".join(str(face) for face in ordered if face == shown)
              for shown in sorted(set(ordered))]
    return pgettext("between names in a list", ", ").join(groups)


class BlockLotteryWords(GameWords):
    """Block Lottery's announcements (see the module docstring)."""

    def facts(self, match: Any) -> dict[str, Any]:
        return {"rounds": len(match.rounds), "phase": match.phase}

    def said(self, event: dict[str, Any], before: dict[str, Any] | None,
             match: Any) -> list[Said]:
        kind = event.get("type")
        said: list[Said] = []
        if kind == "pool":
            if match.round_number == rules.ROUNDS:
                said.append(Said("turns", pgettext("spoken", "The last round")))
            said.append(Said("rolls", pgettext("spoken", "Round {number}, the pool: {faces}")
                             .format(number=match.round_number,
                                     faces=faces_words(match.rolled))))
        elif kind in ("take", "end") and match.phase == rules.FINALISE:
            said.append(Said("turns", pgettext("spoken", "Round over: {how}").format(
                how=rules.ended_words(match.ended_by, match.end_cause))))
        elif kind == "reroll" and event.get("player") in match.rerolls:
            player = event["player"]
            said.append(Said("rolls", pgettext("spoken", "{player} re-rolls: {faces}").format(
                player=player, faces=faces_words(match.rerolls[player]["to"]))))
        elif kind == "token" and match.tokens:
            token = match.tokens[-1]
            said.append(Said("rolls", pgettext("spoken", "Token {number}: {token}").format(
                number=len(match.tokens), token=SPOKEN_TOKENS.get(token, token))))
        if before is not None and len(match.rounds) > before["rounds"]:
            said += self.round_over(match)
        return said

    def round_over(self, match: Any) -> list[Said]:
        """The round's scores, best first; the standings, or the game's result."""
        record = match.rounds[-1]
        said = [Said("results", pgettext("spoken", "Round {number}: {players}").format(
            number=record["round"], players=ranked(record["points"])))]
        if match.over:  # a tie on totals went to the best last round: the outcome says how
            said.append(Said("results", final_result(
                match.totals, match.winners, how=match.outcome() if match.tie_break else "")))
        elif len(match.rounds) > 1:
            said.append(Said("results", standings(match.totals)))
        return said
