"""What Final Card-Down says aloud: the top card and a colour named, a skip, a reverse,
a stack of 2s to draw, the C's one more card, a TRIO, DUO or UNO said and a call-out, a
player out of cards, each game's points and the match's result, the last game of a
match of so many, and whose turn it is::

    >>> from companion.games import new_match
    >>> match = new_match("card-down", ["Ann", "Bob", "Cy"])
    >>> words = CardDownWords()
    >>> match.apply({"type": "turn_up", "card": {"value": "7", "colour": "red",
    ...                                          "suit": "hearts"}})
    >>> before = words.facts(match)
    >>> event = {"type": "play", "player": "Ann",
    ...          "card": {"value": "A", "colour": "red", "suit": "clubs"}}
    >>> match.apply(event)
    >>> [said.text for said in words.said(event, before, match)]
    ['Top card: A red clubs', 'Skip: Bob', "Cy's turn"]

A TRIO, DUO or UNO forgotten is not said: catching it is the next player's part.
"""

from __future__ import annotations

from typing import Any

from companion.games import card_down as rules
from companion.lang import lazy, npgettext, pgettext
from companion.table.seats import LEFT
from companion.ui.spoken import GameWords, Said, final_result, ranked, standings, whose_turn

#: The colours and suits as said at the table (the events keep the English codes).
SPOKEN_COLOURS = {
    # Translators: a Final Card-Down colour, said alone ("Colour named: red") and in a
    # card's words ("{value} {colour} {suit}"): the form both take.
    "red": lazy("spoken", "red"),
    "blue": lazy("spoken", "blue"),
    "green": lazy("spoken", "green"),
    "yellow": lazy("spoken", "yellow"),
    "purple": lazy("spoken", "purple"),
}
SPOKEN_SUITS = {
    # Translators: a Final Card-Down suit, said only in a card's words ("{value} {colour}
    # {suit}"): in the form that sentence needs (a case, an article).
    "hearts": lazy("spoken", "hearts"),
    "diamonds": lazy("spoken", "diamonds"),
    "clubs": lazy("spoken", "clubs"),
    "spades": lazy("spoken", "spades"),
    # Translators: Final Card-Down's fifth suit, a question mark.
    "questions": lazy("spoken", "questions"),
}


def card_words(card: rules.Card) -> str:
    """A card as said: "A red clubs" (exact), "A" (its value only), "" (a plain card
    entered quickly: nothing to say)."""
    if card.exact:
        # Translators: a card said aloud: its value (0-9, A-F), colour and suit.
        return pgettext("spoken", "{value} {colour} {suit}").format(
            value=card.value, colour=SPOKEN_COLOURS[str(card.colour)],
            suit=SPOKEN_SUITS[str(card.suit)])
    return card.value or ""


class CardDownWords(GameWords):
    """Final Card-Down's announcements (see the module docstring)."""

    def facts(self, match: Any) -> dict[str, Any]:
        return {"turn": whose_turn(match), "games": len(match.games),
                "direction": match.direction, "stacked": match.stacked}

    def said(self, event: dict[str, Any], before: dict[str, Any] | None,
             match: Any) -> list[Said]:
        kind = event.get("type")
        player = event.get("player")
        said: list[Said] = []
        if kind == "turn_up":
            said += self.game_starts(match)
        elif kind == "play":
            said += self.played(player, before, match)
        elif kind == "said":
            said.append(Said("turns", pgettext("spoken", "{player}: {word}").format(
                player=player, word=event.get("word"))))
        elif kind == "colour":
            said.append(Said("turns", pgettext("spoken", "Colour named: {colour}").format(
                colour=SPOKEN_COLOURS.get(str(event.get("colour")), ""))))
        elif kind == "draw_stack" and before is not None:
            said.append(Said("turns", npgettext(
                "spoken", "{player} draws {n} card", "{player} draws {n} cards",
                before["stacked"]).format(player=player, n=before["stacked"])))
        elif kind == "call_out":
            said.append(Said("turns", npgettext(
                "spoken", "Caught: {player} draws {n} card", "Caught: {player} draws {n} cards",
                rules.CALL_OUT_CARDS).format(player=event.get("offender"),
                                             n=rules.CALL_OUT_CARDS)))
        if before is not None and len(match.games) > before["games"]:
            said += self.game_over(match)
        elif kind == "end_match" and match.over:
            said += self.match_over(match)
        return said + self.turn(before, match)

    def game_starts(self, match: Any) -> list[Said]:
        """The first card turned up: the last game when the match has so many."""
        said = []
        games = match.options["games"]
        if games > 1 and match.game_number == games:
            said.append(Said("turns", pgettext("spoken", "The last game")))
        top = card_words(match.top) if match.top is not None else ""
        if top:
            said.append(Said("turns", pgettext("spoken", "Top card: {card}").format(card=top)))
        return said

    def played(self, player: str, before: dict[str, Any] | None, match: Any) -> list[Said]:
        """A card discarded: out of cards, or the top card and what it does."""
        if match.went_out == player and match.phase == rules.HANDS:
            return [Said("results", pgettext("spoken", "{player} is out of cards")
                         .format(player=player))]
        card = match.top
        said = []
        top = card_words(card)
        if top:
            said.append(Said("turns", pgettext("spoken", "Top card: {card}").format(card=top)))
        effect = card.effect
        skips = effect == rules.SKIP or (effect == rules.REVERSE and len(match.players) == 2)
        if skips:
            skipped = match.seats.next_player(player, match.direction)
            said.append(Said("turns", pgettext("spoken", "Skip: {player}").format(
                player=skipped)))
        elif effect == rules.REVERSE:
            said.append(Said("turns", pgettext("spoken", "Reverse: now clockwise")
                             if match.direction == LEFT
                             else pgettext("spoken", "Reverse: now anticlockwise")))
        elif effect == rules.DRAW_TWO:
            said.append(Said("turns", npgettext(
                "spoken", "Stacked 2s: {n} card to draw", "Stacked 2s: {n} cards to draw",
                match.stacked).format(n=match.stacked)))
        elif effect == rules.ONE_MORE:
            said.append(Said("turns", pgettext("spoken", "{player}: one more card, or pass")
                             .format(player=player)))
        elif effect == rules.NAME_COLOUR:
            said.append(Said("turns", pgettext("spoken", "{player}: name a colour")
                             .format(player=player)))
        return said

    def game_over(self, match: Any) -> list[Said]:
        """Each game's points, the lowest first; the match's standings after it."""
        record = match.games[-1].record
        points = {name: row["points"] for name, row in record["players"].items()}
        said = [Said("results", pgettext("spoken", "Game {number}: {players}").format(
            number=record["game"], players=ranked(points, high_wins=False)))]
        if match.over:
            return said + self.match_over(match)
        if len(match.games) > 1:
            said.append(Said("results", standings(match.totals, high_wins=False)))
        return said

    def match_over(self, match: Any) -> list[Said]:
        """"Match over. Winner: Ann with 12 points. Standings: ...", the lowest first."""
        return [Said("results", final_result(match.totals, match.result()["winners"],
                                             high_wins=False, match=True))]
