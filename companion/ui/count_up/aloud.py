"""What Count Up 21 says aloud: the trick's winner, who leads a new game, each game's
result with the match's score, and the match's result::

    >>> from companion.games import new_match
    >>> match = new_match("count-up-21", ["Ann", "Bob"])
    >>> words = CountUpWords()
    >>> for event in ({"type": "play", "player": "Ann", "card": 7},
    ...               {"type": "play", "player": "Bob", "card": 9}):
    ...     match.apply(event)
    >>> before = words.facts(match)
    >>> match.apply({"type": "pass", "player": "Ann"})
    >>> [said.text for said in words.said({"type": "pass", "player": "Ann"}, before, match)]
    ['Bob takes the trick and leads']

Two players take turns card by card: whose turn it is goes without saying, so only a
trick's new leader is said.
"""

from __future__ import annotations

from typing import Any

from companion.lang import npgettext, pgettext
from companion.ui.spoken import GameWords, Said, ranked


class CountUpWords(GameWords):
    """Count Up 21's announcements (see the module docstring)."""

    def facts(self, match: Any) -> dict[str, Any]:
        return {"games": len(match.games), "tricks": len(match.history)}

    def said(self, event: dict[str, Any], before: dict[str, Any] | None,
             match: Any) -> list[Said]:
        if before is None or event.get("type") != "pass":
            return []
        if len(match.games) > before["games"]:
            return self.game_over(match)
        winner = match.history[-1]["winner"]
        return [Said("results", pgettext("spoken", "{player} takes the trick and leads")
                     .format(player=winner))]

    def game_over(self, match: Any) -> list[Said]:
        """"Game 2: Ann, 5 tricks to 3" (and the last trick's tie-break), then the
        match's score and who leads the next game, or the match's result."""
        game = match.games[-1]
        winner = game["winner"]
        other = next(name for name in match.players if name != winner)
        won, lost = game["tricks"][winner], game["tricks"][other]
        if game["tie_break"]:
            text = npgettext("spoken", "Game {number}: {player}, {won} trick each and the last "
                             "trick", "Game {number}: {player}, {won} tricks each and the last "
                             "trick", won)
        else:
            text = npgettext("spoken", "Game {number}: {player}, {won} trick to {lost}",
                             "Game {number}: {player}, {won} tricks to {lost}", won)
        said = [Said("results", text.format(number=game["game"], player=winner, won=won,
                                            lost=lost))]
        if match.over:
            lost_games = match.totals[other]
            said.append(Said("results", npgettext(
                "spoken", "Match over. Winner: {player}, {won} game to {lost}",
                "Match over. Winner: {player}, {won} games to {lost}",
                match.totals[winner]).format(player=winner, won=match.totals[winner],
                                             lost=lost_games)))
        else:
            said.append(Said("results", pgettext("spoken", "Games: {players}").format(
                players=ranked(match.totals))))
            said.append(Said("turns", pgettext("spoken", "{player} leads").format(
                player=match.leader)))
        return said
