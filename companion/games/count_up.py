"""Count Up 21: two players count up from any card, three at most at a time; whoever
cannot or will not follow passes, and the other takes the trick.

How a game goes at the table, and the event that tells the companion about each step
(docs/events.md has every field; RULINGS.md CU1-CU5 settle the unclear points):

1. The 21 cards are shuffled, 5 are set aside unseen, and each player gets 8 (CU1).
2. The leader plays any card (``play``). Then the players take turns: each plays a card
   from the highest card in play +1 to +3, never above 21 (``play``), or passes
   (``pass``). A player with no cards left must pass (CU2).
3. A pass ends the trick: the other player, the last to play, wins it and leads next.
4. When a trick ends and either player has no cards, the game is over (CU3). More
   tricks wins; equal tricks, the winner of the last trick wins (CU4).
5. The first player to win 3 games wins the match; the first leader alternates from
   game to game, starting with the first player entered (CU5).

A number is on one card only, so a number already played this game cannot be played
again. The module is pure: no I/O, no clock, no random.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from companion.errors import BadSetup, IllegalEvent, written
from companion.games.base import Event, Expect, Match, check_fields
from companion.lang import _, pgettext
from companion.table import scores
from companion.table.seats import Seats

# -- the components ---------------------------------------------------------------

LOWEST_CARD, HIGHEST_CARD = 1, 21
#: Every card in the deck, 1 to 21.
CARDS: tuple[int, ...] = tuple(range(LOWEST_CARD, HIGHEST_CARD + 1))
SET_ASIDE = 5
DEALT_TO_EACH_PLAYER = 8
#: A follow may count up by 1, 2 or 3 from the highest card in play.
MOST_COUNTED_UP = 3
GAMES_TO_WIN = 3
#: The most games a match may be played to (the setup offers 1 to 5).
MAX_GAMES_TO_WIN = 9


def follows(highest: int) -> tuple[int, ...]:
    """The numbers that may follow ``highest``: +1 to +3, never above 21 (CU2)."""
    return tuple(range(highest + 1, min(highest + MOST_COUNTED_UP, HIGHEST_CARD) + 1))


def or_list(items: Sequence[object]) -> str:
    """"8, 9 or 10" (one item: "8")."""
    words = [str(item) for item in items]
    if len(words) <= 1:
        return "".join(words)
    separator = pgettext("between names in a list", ", ")
    # Translators: choices, "8, 9 or 10": {items} are all but the last.
    return _("{items} or {last}").format(items=separator.join(words[:-1]), last=words[-1])


def game_winner(tricks: dict[str, int], last_trick: str) -> tuple[str, bool]:
    """Who wins a game: more tricks; equal tricks, the last trick's winner (CU4).

    Returns (winner, True if the last trick broke a tie).
    """
    best = scores.winners(tricks)
    if len(best) == 1:
        return best[0], False
    return last_trick, True


class CountUp(Match):
    """A match of Count Up 21 games between two players (see the module docstring)."""

    game_id = "count-up-21"
    title = "Count Up 21"
    min_players = 2
    max_players = 2
    option_defaults = {"games_to_win": GAMES_TO_WIN}

    def setup(self) -> None:
        self.games_to_win: int = self.options["games_to_win"]
        if not 1 <= self.games_to_win <= MAX_GAMES_TO_WIN:
            raise BadSetup(pgettext("screen 21xN", "games_to_win is 1 to 9, not {value}")
                           .format(value=self.games_to_win))
        self.seats = Seats(self.players)
        #: Games won, per player: the match score.
        self.totals: dict[str, int] = scores.zero_totals(self.players)
        #: The finished games, as result()["games"] shows them.
        self.games: list[dict[str, Any]] = []
        self._start_game(first_leader=self.players[0])

    def _start_game(self, first_leader: str) -> None:
        self.game_number = len(self.games) + 1
        self.first_leader = first_leader
        self.cards_left: dict[str, int] = {p: DEALT_TO_EACH_PLAYER for p in self.players}
        self.tricks: dict[str, int] = scores.zero_totals(self.players)
        #: Every number played this game, in the order played.
        self.played: list[int] = []
        #: The tricks finished this game: {"leader", "cards", "winner"}.
        self.history: list[dict[str, Any]] = []
        self._start_trick(first_leader)

    def _start_trick(self, leader: str) -> None:
        self.leader = leader
        self.current: str | None = leader
        #: The cards of the trick in play, in the order played (leader first).
        self.trick: list[int] = []

    # -- the table now -------------------------------------------------------------

    @property
    def over(self) -> bool:
        return scores.target_reached(self.totals, self.games_to_win)

    @property
    def highest(self) -> int | None:
        """The highest card in play: the last one played, since each counts up."""
        return self.trick[-1] if self.trick else None

    def legal_cards(self) -> tuple[int, ...]:
        """The numbers the player on turn may play now (a leader: any not yet played)."""
        if self.current is None or self.cards_left[self.current] == 0:
            return ()
        allowed = CARDS if self.highest is None else follows(self.highest)
        return tuple(card for card in allowed if card not in self.played)

    def _other(self, player: str) -> str:
        return self.seats.left_of(player)

    # -- the events ----------------------------------------------------------------

    def on_play(self, event: Event) -> None:
        """The player on turn plays a card: the lead, or a follow of +1 to +3."""
        check_fields(event, "play", ("player", "card"))
        player = self._player_on_turn(event)
        card = event["card"]
        if self.cards_left[player] == 0:
            raise IllegalEvent(pgettext("screen 21xN", "{name} has no cards left and must pass")
                               .format(name=player))
        if isinstance(card, bool) or not isinstance(card, int) or card not in CARDS:
            text = pgettext("screen 21xN", "cards are numbered {low} to {high}, not {value}")
            raise IllegalEvent(text.format(low=LOWEST_CARD, high=HIGHEST_CARD,
                                           value=written(card)))
        if self.highest is not None and card not in follows(self.highest):
            # Translators: {may} is what the player may do ("play 8, 9 or 10, or pass").
            text = pgettext("screen 21xN", "{card} cannot follow {highest}: {may}")
            raise IllegalEvent(text.format(card=card, highest=self.highest,
                                           may=self._what_may_follow()))
        if card in self.played:
            raise IllegalEvent(
                pgettext("screen 21xN", "{card} was already played this game; {name} may {may}")
                .format(card=card, name=player, may=self._what_may_follow())
            )
        self.trick.append(card)
        self.played.append(card)
        self.cards_left[player] -= 1
        self.current = self._other(player)

    def on_pass(self, event: Event) -> None:
        """The player on turn passes: the other player wins the trick (CU2)."""
        check_fields(event, "pass", ("player",))
        player = self._player_on_turn(event)
        if not self.trick:
            text = pgettext("screen 21xN", "{name} leads this trick and must play a card")
            raise IllegalEvent(text.format(name=player))
        winner = self._other(player)
        self.tricks[winner] += 1
        self.history.append({"leader": self.leader, "cards": list(self.trick), "winner": winner})
        if min(self.cards_left.values()) == 0:
            self._end_game(last_trick=winner)
        else:
            self._start_trick(winner)

    def _player_on_turn(self, event: Event) -> str:
        player = self.player_field(event)
        if player != self.current:
            raise IllegalEvent(pgettext("screen 21xN", "it is {name}'s turn, not {player}'s")
                               .format(name=self.current, player=player))
        return player

    def _what_may_follow(self) -> str:
        """What the player on turn may do, as words: "play 8, 9 or 10, or pass"."""
        cards = self.legal_cards()
        # Translators: what a player may do; the refusals and the page put it after
        # "{name} may" or a colon.
        if not cards:
            return pgettext("turn prompt", "pass")
        if self.highest is None:
            return pgettext("turn prompt", "lead any card not played yet")
        return pgettext("turn prompt", "play {cards}, or pass").format(cards=or_list(cards))

    def _end_game(self, last_trick: str) -> None:
        winner, tie_break = game_winner(self.tricks, last_trick)
        self.totals[winner] += 1
        self.games.append(
            {
                "game": self.game_number,
                "first_leader": self.first_leader,
                "tricks": dict(self.tricks),
                "last_trick": last_trick,
                "tie_break": tie_break,
                "winner": winner,
                "history": [dict(trick, cards=list(trick["cards"])) for trick in self.history],
            }
        )
        if self.over:
            # The last trick is over and nobody is on turn any more.
            self.trick = []
            self.current = None
            return
        self._start_game(first_leader=self._other(self.first_leader))

    # -- what the screens read ---------------------------------------------------------

    def expecting(self) -> Expect:
        """What comes next: ``player`` is on turn; ``choices["card"]`` the numbers they
        may play (absent when they must pass).

        - a lead: ``("play",)``, every number not played yet this game;
        - a follow: ``("play", "pass")``, highest+1..+3 not played yet;
        - no cards left, or nothing may follow: ``("pass",)``.
        """
        if self.over:
            leader = scores.winners(self.totals)[0]
            won = scores.tally(self.totals, leader)
            # Translators: {score} is games won to games lost, "3-1".
            return Expect((), None, {}, pgettext("turn prompt", "Match over: {name} won {score}")
                          .format(name=leader, score=won))
        player = self.current
        cards = self.legal_cards()
        if not self.trick:
            return Expect(("play",), player, {"card": cards},
                          pgettext("turn prompt", "{name} leads: any card").format(name=player))
        if not cards:
            prompt = (pgettext("turn prompt", "{name} has no cards: pass")
                      if self.cards_left[player] == 0
                      else pgettext("turn prompt", "{name} cannot follow: pass"))
            return Expect(("pass",), player, {}, prompt.format(name=player))
        return Expect(("play", "pass"), player, {"card": cards},
                      pgettext("turn prompt", "{name}: {may}").format(
                          name=player, may=self._what_may_follow()))

    def result(self) -> dict[str, Any]:
        """The match: over, totals (games won), winners ([] until over), games."""
        return {
            "game": self.game_id,
            "players": list(self.players),
            "over": self.over,
            "totals": dict(self.totals),
            "winners": scores.winners(self.totals) if self.over else [],
            "games_to_win": self.games_to_win,
            "games": [_copy_game(game) for game in self.games],
        }

    def state(self) -> dict[str, Any]:
        """The table now, as JSON (docs/events.md lists every key)."""
        last = self.history[-1] if self.history else None
        return {
            **self.result(),
            "options": dict(self.options),
            "game_number": self.game_number,
            "first_leader": self.first_leader,
            "leader": self.leader,
            "current": self.current,
            "trick": list(self.trick),
            "highest": self.highest,
            "may_play": list(self.legal_cards()),
            "cards_left": dict(self.cards_left),
            "tricks": dict(self.tricks),
            "tricks_played": len(self.history),
            "played": sorted(self.played),
            "last_trick": None if last is None else dict(last, cards=list(last["cards"])),
        }

    def table_facts(self) -> list[tuple[str, Any]]:
        """The game, the leader, the trick on the table and what may follow, tricks won
        and cards left; the last trick."""
        state = self.state()
        last = state["last_trick"]
        return [
            # Translators: labels of the page; "Game" is the game's number in the match.
            (pgettext("game in a match", "Game"),
             _("{value} (first to {n})").format(value=state["game_number"],
                                               n=self.games_to_win)),
            (_("Leads"), state["leader"]),
            (_("Trick"), " ".join(map(str, state["trick"])) or _("none yet")),
            (_("May follow"), None if self.over else self._what_may_follow()),
            (_("Tricks"), ", ".join(f"{p} {n}" for p, n in state["tricks"].items())),
            (_("Cards left"), ", ".join(f"{p} {n}" for p, n in state["cards_left"].items())),
            (_("Last trick"), None if last is None else
             _("{name} took {cards}").format(name=last.get("winner", "?"),
                                            cards=" ".join(map(str, last["cards"])))),
        ] + [(_("Game {value}").format(value=game["game"]),
              _("{name} won the tie with the last trick").format(name=game["winner"]))
             for game in state["games"] if game["tie_break"]]


MATCH = CountUp


def _copy_game(game: dict[str, Any]) -> dict[str, Any]:
    """A deep-enough copy so callers cannot change the match through result()."""
    return {
        **game,
        "tricks": dict(game["tricks"]),
        "history": [dict(trick, cards=list(trick["cards"])) for trick in game["history"]],
    }
