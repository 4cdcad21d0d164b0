"""The scoreboard: the score sheet for any game the companion does not know.

Players (2-10) sit in the order entered. Each round every player gets one entry of
points (``points``, in any order; negative points and 0 are entries too). A round is
complete when every player has their entry; a second entry for the same player in an
unfinished round is refused, so a missed or doubled entry cannot slip through.

The game ends when a round is complete and someone's total has reached the target (if
there is one), or when the players say so (``end``, between rounds). The highest total
wins, or the lowest with ``low_wins``; equal best totals share the win. A target is
always reached from below, also when low wins (the game stops when someone climbs to
it, as in Hearts).

The sheet itself is :class:`companion.table.scores.Scoreboard`; this module adds the
rounds being entered and the rules of when the game ends. Pure: no I/O, no clock.
"""

from __future__ import annotations

from typing import Any

from companion.errors import BadSetup, IllegalEvent, written
from companion.games.base import Event, Expect, Match, check_fields
from companion.lang import _, lazy, pgettext
from companion.table.scores import Scoreboard as Sheet

#: Points in one entry are at most this far from 0 (a typo, not a score, beyond it).
POINTS_LIMIT = 9999
#: The largest target the setup accepts.
TARGET_LIMIT = 99999


class Scoreboard(Match):
    """Rounds of points for any game (see the module docstring)."""

    game_id = "scoreboard"
    title = lazy("screen 21", "Scoreboard")  # the device's tool: its name is translated
    min_players = 2
    max_players = 10
    #: ``target`` 0 means no target: the game runs until an ``end`` event.
    option_defaults = {"target": 0, "low_wins": False}

    def setup(self) -> None:
        target = self.options["target"]
        if not 0 <= target <= TARGET_LIMIT:
            raise BadSetup(pgettext("screen 21xN", "target is 0 (none) to {most}, not {value}")
                           .format(most=TARGET_LIMIT, value=target))
        self.low_wins: bool = self.options["low_wins"]
        self.high_wins = not self.low_wins
        self.sheet = Sheet(self.players, target=target or None, high_wins=not self.low_wins)
        #: The round being entered: player -> points, in the order entered.
        self.entries: dict[str, int] = {}
        self.ended = False

    # -- the sheet now -----------------------------------------------------------------

    @property
    def over(self) -> bool:
        return self.ended or self.sheet.over

    @property
    def round_number(self) -> int:
        """The round being entered (after the game: the last round played)."""
        done = len(self.sheet.rounds)
        return done if self.over else done + 1

    def waiting(self) -> tuple[str, ...]:
        """Players without an entry in the round being entered, in seat order."""
        if self.over:
            return ()
        return tuple(player for player in self.players if player not in self.entries)

    def rounds_entered(self) -> dict[str, int]:
        """Per player, how many rounds have their entry (a missed one shows as fewer)."""
        done = len(self.sheet.rounds)
        return {player: done + (player in self.entries) for player in self.players}

    # -- the events --------------------------------------------------------------------

    def on_points(self, event: Event) -> None:
        """One player's points for the round being entered."""
        check_fields(event, "points", ("player", "points"))
        player = self.player_field(event)
        points = event["points"]
        if isinstance(points, bool) or not isinstance(points, int):
            raise IllegalEvent(pgettext("screen 21xN", "points are a whole number, not {value}")
                               .format(value=written(points)))
        if abs(points) > POINTS_LIMIT:
            text = pgettext("screen 21xN", "points are -{most} to {most} per entry, not {value}")
            raise IllegalEvent(text.format(most=POINTS_LIMIT, value=points))
        if player in self.entries:
            text = pgettext("screen 21xN", "{name} already has {points} in round {value}; "
                            "waiting for {names} (undo to change it)")
            raise IllegalEvent(text.format(name=player, points=self.entries[player],
                                           value=self.round_number,
                                           names=", ".join(self.waiting())))
        self.entries[player] = points
        if len(self.entries) == len(self.players):
            # Seat order, whatever order the entries came in.
            self.sheet = self.sheet.add_round({p: self.entries[p] for p in self.players})
            self.entries = {}

    def on_end(self, event: Event) -> None:
        """The players stop here: the totals now are final."""
        check_fields(event, "end", ())
        if self.entries:
            text = pgettext("screen 21xN", "round {value} is half entered: waiting for "
                            "{names} (enter 0 for no points, or undo)")
            raise IllegalEvent(text.format(value=self.round_number,
                                           names=", ".join(self.waiting())))
        if not self.sheet.rounds:
            raise IllegalEvent(pgettext("screen 21xN",
                                        "nothing is scored yet: enter a round first"))
        self.ended = True

    # -- what the screens read ---------------------------------------------------------

    def expecting(self) -> Expect:
        """What comes next: ``player`` is the first in seat order still to enter this
        round; ``choices["player"]`` everyone still to enter. ``end`` is legal only
        between rounds, once a round is complete."""
        if self.over:
            return Expect((), None, {}, pgettext("turn prompt", "Game over: {names} won")
                          .format(names=" & ".join(self.sheet.winners())))
        waiting = self.waiting()
        types = ("points", "end") if not self.entries and self.sheet.rounds else ("points",)
        return Expect(types, waiting[0], {"player": waiting},
                      pgettext("turn prompt", "Round {value}: {name}'s points")
                      .format(value=self.round_number, name=waiting[0]))

    def result(self) -> dict[str, Any]:
        """The sheet: over, totals, winners ([] until over), how it ended, the rounds."""
        return {
            "game": self.game_id,
            "players": list(self.players),
            "over": self.over,
            "totals": self.sheet.totals,
            "winners": self.sheet.winners() if self.over else [],
            "low_wins": self.low_wins,
            "target": self.sheet.target,
            "ended_by": "end" if self.ended else "target" if self.sheet.over else None,
            "rounds": [
                {"round": number, "points": dict(points)}
                for number, points in enumerate(self.sheet.rounds, start=1)
            ],
        }

    def state(self) -> dict[str, Any]:
        """The sheet now, as JSON (docs/events.md lists every key)."""
        return {
            **self.result(),
            "options": dict(self.options),
            "round": self.round_number,
            "entered": dict(self.entries),
            "waiting": list(self.waiting()),
            "rounds_entered": self.rounds_entered(),
            "leaders": self.sheet.winners(),
            "standings": [list(row) for row in self.sheet.standings()],
            "can_end": "end" in self.expecting().types,
        }

    def table_facts(self) -> list[tuple[str, Any]]:
        """The round, the target, who has entered this round, how it ended."""
        state = self.state()
        target = None
        if state["target"] is not None:
            target = (_("{value} (lowest total wins)") if self.low_wins
                      else _("{value} (highest total wins)")).format(value=state["target"])
        return [
            (_("Round"), state["round"]),
            (_("Target"), target),
            (_("Entered"), ", ".join(f"{p} {n}" for p, n in state["entered"].items())),
        ]


MATCH = Scoreboard

