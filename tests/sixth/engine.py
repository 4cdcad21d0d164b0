"""High Card: each round every player, in seat order, shows one card (1 to 13); the
highest alone scores a point (a tie for the highest scores nobody); the first to the
points agreed (3 by default) wins. Pure: no I/O, no clock, no randomness."""

from __future__ import annotations

from typing import Any

from companion.errors import BadSetup, IllegalEvent
from companion.games.base import Event, Expect, Match, check_fields
from companion.table import scores

#: The card values a player may show.
VALUES: tuple[int, ...] = tuple(range(1, 14))


class HighCard(Match):
    """A match of High Card rounds (see the module docstring)."""

    game_id = "high-card"
    title = "High Card"
    min_players = 2
    max_players = 4
    option_defaults = {"points": 3}

    def setup(self) -> None:
        self.points: int = self.options["points"]
        if not 1 <= self.points <= 9:
            raise BadSetup(f"points is 1 to 9, not {self.points}")
        self.totals: dict[str, int] = scores.zero_totals(self.players)
        #: The cards shown this round, in seat order.
        self.shown: dict[str, int] = {}
        #: Every round played: {"cards": {player: value}, "winner": player or None}.
        self.rounds: list[dict[str, Any]] = []

    @property
    def over(self) -> bool:
        return scores.target_reached(self.totals, self.points)

    @property
    def current(self) -> str | None:
        """Who shows a card next (None once the match is over)."""
        return None if self.over else self.players[len(self.shown)]

    def expecting(self) -> Expect:
        if self.over:
            return Expect()
        return Expect(types=("card",), player=self.current, choices={"value": VALUES},
                      prompt=f"{self.current}: show a card")

    def result(self) -> dict[str, Any]:
        winners = scores.winners(self.totals) if self.over else []
        return {"over": self.over, "totals": dict(self.totals), "winners": winners,
                "rounds": [dict(played) for played in self.rounds]}

    def on_card(self, event: Event) -> None:
        """The player on turn shows a card; the last card of a round scores it."""
        check_fields(event, "card", ("player", "value"))
        player = self.player_field(event)
        if player != self.current:
            raise IllegalEvent(f"it is {self.current}'s turn, not {player}'s")
        value = event["value"]
        if type(value) is not int or value not in VALUES:
            raise IllegalEvent(f"a card is 1 to 13, not {value!r}")
        self.shown[player] = value
        if len(self.shown) == len(self.players):
            best = max(self.shown.values())
            top = [name for name, shown in self.shown.items() if shown == best]
            winner = top[0] if len(top) == 1 else None
            if winner is not None:
                self.totals[winner] += 1
            self.rounds.append({"cards": dict(self.shown), "winner": winner})
            self.shown = {}


#: The engine, for its registry line.
MATCH = HighCard
