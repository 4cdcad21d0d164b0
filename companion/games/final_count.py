"""Final Count: roll the die, change the cards, call, and get closest to 75 without going over.

How a hand goes at the table, and the event that tells the companion about each step
(docs/events.md has every field; RULINGS.md FC1-FC12 settle the unclear points):

1. The dealer deals 3 cards to each player and 2 to the Board; the rest is the draw
   pile. With the Hit Goal option the die is rolled twice first (``goal``).
2. Play starts left of the dealer. On their turn a player rolls the die (``roll``) and
   does what the face says, or calls (``call``). A player may also call right after
   their own roll, before the next player rolls.
3. Only the first call counts. After it every other player takes exactly one more
   turn, in seat order, and the hand is over.
4. The Board's cards are entered (``board``), then each player's cards (``hand``, any
   order). The last hand entered settles the hand: best totals, winners, points.
5. The deal passes left. The game ends after the hand in which someone's cumulative
   total reaches 300; the highest cumulative total wins.

The module is pure: no I/O, no clock, no random. The helpers at the top
(:func:`card_value`, :func:`best_total`, :func:`score_hand`, :data:`FACE_ACTIONS`) are
the rules themselves, for the screens as much as for the engine.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from companion.errors import IllegalEvent, written
from companion.games.base import (
    Chance,
    Event,
    Expect,
    Match,
    Said,
    check_fields,
    die_face,
    entered_field,
    n_cards,
)
from companion.lang import _, and_list, lazy, ngettext, pgettext
from companion.table import scores
from companion.table.seats import Seats

# -- the components ---------------------------------------------------------------

#: Card ranks as entered (suits do not matter in Final Count).
RANKS: tuple[str, ...] = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
#: The die's faces.
FACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
DECK_SIZE = 52
COPIES_OF_EACH_RANK = 4
DEALT_TO_EACH_PLAYER = 3
DEALT_TO_BOARD = 2

#: What each face lets the roller do, short enough for "N: text" on a 21-character line.
#: Each said in the language of the screen that looks it up (:class:`Said`); a roll
#: keeps the English (:meth:`Said.message`) and :meth:`FinalCount.state` says it.
FACE_ACTIONS: Said = Said({
    # Translators: what a die face lets the roller do; "Board" is the shared cards.
    1: lazy("screen 18", "draw for yourself"),
    2: lazy("screen 18", "draw for opponent"),
    3: lazy("screen 18", "draw for Board"),
    4: lazy("screen 18", "swap with pile"),
    5: lazy("screen 18", "swap with opponent"),
    6: lazy("screen 18", "swap with Board"),
})
#: Shown instead of the face's action when a 1-4 finds the draw pile empty (FC10).
EMPTY_PILE_ACTION = lazy("screen 18", "pile empty: pass")
#: Faces that take a card off the draw pile for good (played or discarded).
DRAWING_FACES = (1, 2, 3)
#: Faces that do nothing once the draw pile is empty (4 needs a card to look at).
PILE_FACES = (1, 2, 3, 4)

# -- the scoring rules --------------------------------------------------------------

BUST_ABOVE = 75
HIT_GOAL_POINTS = 75
CALLER_LOST_BONUS = 10
GAME_TARGET = 300

#: The phases of a hand, as state()["phase"] names them.
GOAL, PLAY, BOARD, HANDS, OVER = "goal", "play", "board", "hands", "over"


def card_value(rank: str) -> int:
    """A card's value with every ace counted as 1; :func:`best_total` lifts aces to 11.

    2-10 count their number, J, Q and K count 10 (FC2).
    """
    if rank == "A":
        return 1
    if rank in ("J", "Q", "K"):
        return 10
    if rank in RANKS:
        return int(rank)
    raise ValueError(f"{written(rank)} is not a card rank")


class Total(NamedTuple):
    """A player's best total for the hand (FC4)."""

    total: int
    bust: bool
    hit_goal: bool


def best_total(cards: Iterable[str], goal: int | None = None) -> Total:
    """The best total of ``cards`` (the player's cards and the Board's) for the hand.

    Each ace is 1 or 11, whichever helps (FC2). With a ``goal``: if some choice of aces
    makes exactly the goal, the player hit it. Otherwise the highest total not above
    75. If every choice is above 75 the player busts; the total shown is then the
    smallest one (all aces as 1), which is what put them over.
    """
    ranks = list(cards)
    lowest = sum(card_value(rank) for rank in ranks)
    # Each ace turned from 1 into 11 adds 10, so these are all the totals there are.
    possible = [lowest + 10 * lifted for lifted in range(ranks.count("A") + 1)]
    if goal is not None and goal in possible:
        return Total(goal, bust=False, hit_goal=True)
    fitting = [total for total in possible if total <= BUST_ABOVE]
    if fitting:
        return Total(max(fitting), bust=False, hit_goal=False)
    return Total(lowest, bust=True, hit_goal=False)


def goal_from_rolls(first: int, second: int) -> int:
    """The Hit Goal: the larger roll is the tens digit (4, 6 -> 64; 6, 4 -> 64) (FC5)."""
    return 10 * max(first, second) + min(first, second)


class HandScore(NamedTuple):
    """How a hand was won (FC6, FC7)."""

    winners: list[str]
    pot: int  # the winning total (75 for a hit goal) plus any bonus, before the split
    bonus: int  # 10 when someone called and no caller is among the winners
    split: int  # what each winner gets: the pot shared, rounded down
    points: dict[str, int]  # every player's points for the hand


def score_hand(totals: Mapping[str, Total], caller: str | None) -> HandScore:
    """Who wins the hand and how many points each player gets.

    Anyone who hit the goal wins; otherwise the highest total that did not bust. If
    everyone busts nobody scores. Tied winners share the points, rounded down, and if
    the caller is not among the winners the winners get 10 more (before sharing).
    """
    hit = [player for player, total in totals.items() if total.hit_goal]
    standing = {player: total.total for player, total in totals.items() if not total.bust}
    if hit:
        won, winning_total = hit, HIT_GOAL_POINTS
    elif standing:
        won = scores.winners(standing)
        winning_total = standing[won[0]]
    else:
        return HandScore([], 0, 0, 0, {player: 0 for player in totals})
    bonus = CALLER_LOST_BONUS if caller is not None and caller not in won else 0
    pot = winning_total + bonus
    split = scores.split_points(pot, len(won))
    points = {player: split if player in won else 0 for player in totals}
    return HandScore(won, pot, bonus, split, points)


class Roll(NamedTuple):
    """One roll of the die in this hand; FC12 counts the 1s, 2s and 3s that took a card."""

    player: str
    value: int
    took_card: bool  # False for a 4-6, and for a 1-3 on an empty draw pile
    action: str  # what the screen showed for it
    entered: bool = False  # typed in from a real die ([dice] physical), not rolled here

    def __deepcopy__(self, memo: dict[int, Any]) -> Roll:
        return self  # immutable, so Match.apply's safety copy may share it


class SettledHand:
    """The record of a finished hand (JSON, the shape result() shows).

    It never changes once made, so copies of the match share it: Match.apply copies the
    whole state before every event, and without this every event would copy the whole
    history of the game.
    """

    __slots__ = ("record",)

    def __init__(self, record: dict[str, Any]):
        self.record = record

    def __deepcopy__(self, memo: dict[int, Any]) -> SettledHand:
        return self


def hand_outcome(hand: Mapping[str, Any]) -> str:
    """How a settled hand was won, in words (FC6, FC7): "Ann wins with 49, +10 as Cy
    called and lost", "Ann and Bob share 71 (35 each)", "everyone bust: nobody scores"."""
    winners = hand["winners"]
    if not winners:
        return _("everyone bust: nobody scores")
    total = hand["players"][winners[0]]["total"]
    hit = hand["players"][winners[0]]["hit_goal"]
    if len(winners) == 1:
        words = (_("{name} wins with {total} (hit the goal)") if hit
                 else _("{name} wins with {total}")).format(name=winners[0], total=total)
    else:
        words = (_("{names} share {total} (hit the goal)") if hit
                 else _("{names} share {total}")).format(names=and_list(winners), total=total)
    if hand["bonus"]:
        # Translators: {outcome} is who won the hand ("Ann wins with 49").
        words = _("{outcome}, +{points} as {caller} called and lost").format(
            outcome=words, points=hand["bonus"], caller=hand["caller"])
    if len(winners) > 1:
        # Translators: {outcome} is who shared the hand; {points} what each gets.
        words = _("{outcome} ({points} each)").format(outcome=words, points=hand["split"])
    return words


def draw_pile_after_deal(players: int) -> int:
    """Cards left to draw from once 3 each and 2 for the Board are dealt (FC10)."""
    return DECK_SIZE - DEALT_TO_EACH_PLAYER * players - DEALT_TO_BOARD


# -- the match ------------------------------------------------------------------------


class FinalCount(Match):
    """A game of Final Count: hands until someone's total reaches 300."""

    game_id = "final-count"
    title = "Final Count"
    min_players = 2
    max_players = 4
    option_defaults = {"hit_goal": False}

    def setup(self) -> None:
        self.seats = Seats(self.players)
        self.totals: dict[str, int] = scores.zero_totals(self.players)
        self.hands: list[SettledHand] = []
        self.hand_number = 1
        self.dealer = self.seats.first_dealer
        self._start_hand()

    def _start_hand(self) -> None:
        """A fresh deal: full draw pile, no rolls, no call; the goal roll or play comes next."""
        self.draw_pile = draw_pile_after_deal(len(self.players))
        self.goal: int | None = None
        self.goal_rolls: list[int] = []
        self.goal_entered = False
        # Every roll of this hand: FC12 counts the 1s, 2s and 3s that took a card.
        self.rolls: list[Roll] = []
        # Who rolled last and may still call before the next player rolls.
        self.may_still_call: str | None = None
        self.caller: str | None = None
        self.final_round: list[str] = []
        self.board: list[str] | None = None
        self.entered: dict[str, list[str]] = {}
        self.current: str | None = None
        self.phase = GOAL
        if not self.options["hit_goal"]:
            self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY
        self.current = self.seats.left_of(self.dealer)

    @property
    def over(self) -> bool:
        return self.phase == OVER

    # -- events ---------------------------------------------------------------------

    def on_goal(self, event: Event) -> None:
        """The two rolls for the Hit Goal, once per hand before play (FC5)."""
        check_fields(event, "goal", ("rolls",), ("entered",))
        entered = entered_field(event)
        if not self.options["hit_goal"]:
            raise IllegalEvent(pgettext("screen 21xN",
                                        "the Hit Goal is not in play (option hit_goal is off)"))
        if self.phase != GOAL:
            text = pgettext("screen 21xN",
                            "the Hit Goal is rolled once per hand, before play ({now})")
            raise IllegalEvent(text.format(now=self._now()))
        rolls = event["rolls"]
        if not isinstance(rolls, list) or len(rolls) != 2:
            raise IllegalEvent(pgettext("screen 21xN", "the Hit Goal takes two rolls, like [4, 6]"))
        for value in rolls:
            die_face(value)
        self.goal_rolls = list(rolls)
        self.goal_entered = entered
        self.goal = goal_from_rolls(*rolls)
        self._start_play()

    def on_roll(self, event: Event) -> None:
        """The player whose turn it is rolled the die; their turn ends (FC8-FC10)."""
        check_fields(event, "roll", ("player", "value"), ("entered",))
        entered = entered_field(event)
        player = self.player_field(event)
        self._check_in_play()
        if player != self.current:
            raise IllegalEvent(pgettext("screen 21xN", "it is {name}'s turn, not {player}'s")
                               .format(name=self.current, player=player))
        value = die_face(event["value"])
        pile_was_empty = self.draw_pile == 0
        took_card = value in DRAWING_FACES and not pile_was_empty
        if took_card:
            self.draw_pile -= 1
        # The English message: the roll is said in the language of each screen showing it.
        action = (EMPTY_PILE_ACTION.message if pile_was_empty and value in PILE_FACES
                  else FACE_ACTIONS.message(value))
        self.rolls.append(Roll(player, value, took_card, action, entered))
        self._end_turn(player)
        # Before a call the roller may still call at the end of their own turn.
        self.may_still_call = player if self.caller is None else None

    def chance(self, event: Event) -> Chance | None:
        """A roll's ``"value"`` (one face) and the Hit Goal's two ``"rolls"``."""
        return {"roll": Chance("value", None), "goal": Chance("rolls", 2)}.get(event.get("type"))

    def note(self, event: Event) -> str:
        """A roll's meaning for the roller ("draw for Board", or "pile empty: pass");
        the hand's outcome after the hand that settles it ("Ann wins with 49, +10 as Cy
        called and lost")."""
        if event.get("type") == "roll" and self.rolls:
            return pgettext("screen 18", self.rolls[-1].action)
        if event.get("type") == "hand" and self.hands and (self.over or not self.entered):
            return hand_outcome(self.hands[-1].record)
        return ""

    def on_call(self, event: Event) -> None:
        """A player calls: at the start of their turn, or right after their own roll."""
        check_fields(event, "call", ("player",))
        player = self.player_field(event)
        self._check_in_play()
        if self.caller is not None:
            raise IllegalEvent(pgettext("screen 21xN",
                                        "{name} already called; only the first call counts")
                               .format(name=self.caller))
        if player not in self._callers():
            if self.may_still_call:
                text = pgettext("screen 21xN", "{player} cannot call now: it is {name}'s turn "
                                "({caller} may still call after their roll)")
            else:
                text = pgettext("screen 21xN", "{player} cannot call now: it is {name}'s turn")
            raise IllegalEvent(text.format(player=player, name=self.current,
                                           caller=self.may_still_call))
        self.caller = player
        self.may_still_call = None
        # The caller's turn is over; everyone else gets exactly one more (FC8).
        self.final_round = list(self.seats.others_after(player))
        self.current = self.final_round[0]

    def on_board(self, event: Event) -> None:
        """The Board's cards at the end of the hand (checked by FC12)."""
        check_fields(event, "board", ("cards",))
        if self.phase != BOARD:
            text = pgettext("screen 21xN",
                            "the Board is entered once, after the final round ({now})")
            raise IllegalEvent(text.format(now=self._now()))
        cards = card_list(event["cards"])
        low, high = self._board_limits()
        if len(cards) < low:
            # Translators: {cards} is a count of cards ("1 card").
            text = pgettext("screen 21xN", "the Board has {cards}; it keeps at least {low}")
            raise IllegalEvent(text.format(cards=n_cards(len(cards)), low=DEALT_TO_BOARD))
        if len(cards) > high:
            text = pgettext("screen 21xN", "the Board has {cards}; at most {high} this hand "
                            "({dealt} dealt + {drawn} drawn with a 3)")
            raise IllegalEvent(text.format(cards=n_cards(len(cards)), high=high,
                                           dealt=DEALT_TO_BOARD, drawn=high - DEALT_TO_BOARD))
        check_ranks([cards])
        self.board = cards
        self.phase = HANDS

    def on_hand(self, event: Event) -> None:
        """One player's cards (hand and table) at the end of the hand; the last settles it."""
        check_fields(event, "hand", ("player", "cards"))
        player = self.player_field(event)
        if self.phase != HANDS:
            when = (pgettext("screen 21xN", "enter the Board first") if self.phase == BOARD
                    else self._now())
            raise IllegalEvent(pgettext("screen 21xN", "hands are entered after the Board ({now})")
                               .format(now=when))
        if player in self.entered:
            raise IllegalEvent(pgettext("screen 21xN", "{name}'s cards are already entered")
                               .format(name=player))
        cards = card_list(event["cards"])
        self._check_hand_size(player, len(cards))
        check_ranks([self.board or [], *self.entered.values(), cards])
        self.entered[player] = cards
        if len(self.entered) == len(self.players):
            self._settle_hand()

    # -- turns ------------------------------------------------------------------------

    def _check_in_play(self) -> None:
        if self.phase != PLAY:
            raise IllegalEvent(pgettext("screen 21xN", "nobody is taking turns now ({now})")
                               .format(now=self._now()))

    def _callers(self) -> tuple[str, ...]:
        """Who may call now: the roller who just finished, and the player whose turn it is."""
        if self.phase != PLAY or self.caller is not None or self.current is None:
            return ()
        if self.may_still_call is not None:
            return (self.may_still_call, self.current)
        return (self.current,)

    def _end_turn(self, player: str) -> None:
        if self.caller is None:
            self.current = self.seats.left_of(player)
            return
        self.final_round.remove(player)
        if self.final_round:
            self.current = self.final_round[0]
        else:
            # Everyone has had their last turn: the cards go on the table.
            self.current = None
            self.phase = BOARD

    def _now(self) -> str:
        """What the match is waiting for, to explain a refusal (in its brackets)."""
        if self.phase == GOAL:
            return pgettext("screen 21xN", "roll for the Hit Goal first")
        if self.phase == PLAY:
            return pgettext("screen 21xN", "it is {name}'s turn").format(name=self.current)
        if self.phase == BOARD:
            return pgettext("screen 21xN", "enter the Board's cards")
        if self.phase == HANDS:
            return pgettext("screen 21xN", "enter the players' cards")
        return pgettext("screen 21xN", "the game is over")

    # -- what the cards can be (FC12) ---------------------------------------------------

    def _cards_drawn_by(self, faces: tuple[int, ...], by: Iterable[str]) -> int:
        rollers = set(by)
        return sum(
            1
            for roll in self.rolls
            if roll.took_card and roll.value in faces and roll.player in rollers
        )

    def _board_limits(self) -> tuple[int, int]:
        """Fewest and most cards the Board can hold: 2 dealt, +1 per 3 that drew."""
        return DEALT_TO_BOARD, DEALT_TO_BOARD + self._cards_drawn_by((3,), self.players)

    def _hand_limits(self, player: str) -> tuple[int, int, int, int]:
        """Fewest and most cards ``player`` can hold, and the 1s and 2s behind the most.

        Swaps are one for one, so only draws change how many cards someone holds: your
        own 1s, and the 2s the others rolled (each went to one opponent, or was thrown
        away). The most is lowered further so that everyone still to be entered can have
        their 3: no more cards can be out than were dealt plus drawn.
        """
        own_ones = self._cards_drawn_by((1,), (player,))
        others_twos = self._cards_drawn_by((2,), (p for p in self.players if p != player))
        most = DEALT_TO_EACH_PLAYER + own_ones + others_twos
        return DEALT_TO_EACH_PLAYER, min(most, self._room_for(player)), own_ones, others_twos

    def _cards_out(self) -> int:
        """How many cards can be on the table at most: dealt plus every card drawn."""
        dealt = DEALT_TO_EACH_PLAYER * len(self.players) + DEALT_TO_BOARD
        return dealt + sum(1 for roll in self.rolls if roll.took_card)

    def _room_for(self, player: str) -> int:
        entered = len(self.board or []) + sum(len(cards) for cards in self.entered.values())
        still_to_enter = sum(1 for other in self._not_entered() if other != player)
        return self._cards_out() - entered - DEALT_TO_EACH_PLAYER * still_to_enter

    def _check_hand_size(self, player: str, size: int) -> None:
        low, high, ones, twos = self._hand_limits(player)
        if size < low:
            text = pgettext("screen 21xN", "{name} has {cards}; everyone keeps at least {low}")
            raise IllegalEvent(text.format(name=player, cards=n_cards(size), low=low))
        own_most = DEALT_TO_EACH_PLAYER + ones + twos
        if size > own_most:
            text = pgettext("screen 21xN", "{name} has {cards}; at most {high} this hand "
                            "({dealt} dealt + {ones} from own 1s + {twos} from others' 2s)")
            raise IllegalEvent(text.format(name=player, cards=n_cards(size), high=own_most,
                                           dealt=DEALT_TO_EACH_PLAYER, ones=ones, twos=twos))
        if size > high:
            text = pgettext("screen 21xN", "{name} has {cards}; only {total} cards are out this "
                            "hand, which leaves {high} for {name}")
            raise IllegalEvent(text.format(name=player, cards=n_cards(size),
                                           total=self._cards_out(), high=high))

    # -- scoring ------------------------------------------------------------------------

    def _settle_hand(self) -> None:
        board = self.board or []
        totals = {
            player: best_total(self.entered[player] + board, self.goal) for player in self.players
        }
        score = score_hand(totals, self.caller)
        self.totals = scores.add_points(self.totals, score.points)
        self.hands.append(
            SettledHand(
                {
                    "hand": self.hand_number,
                    "dealer": self.dealer,
                    "goal": self.goal,
                    "caller": self.caller,
                    "board": board,
                    "players": {
                        player: {
                            "cards": self.entered[player],
                            "total": totals[player].total,
                            "bust": totals[player].bust,
                            "hit_goal": totals[player].hit_goal,
                            "points": score.points[player],
                        }
                        for player in self.players
                    },
                    "winners": score.winners,
                    "pot": score.pot,
                    "bonus": score.bonus,
                    "split": score.split,
                }
            )
        )
        if scores.target_reached(self.totals, GAME_TARGET):
            self.phase = OVER
            self.current = None
            return
        self.hand_number += 1
        self.dealer = self.seats.next_dealer(self.dealer)
        self._start_hand()

    # -- what the screens read ---------------------------------------------------------

    def expecting(self) -> Expect:
        """What comes next. Choices are keyed by event field, plus "caller":

        - ``goal``: ``{"rolls": FACES}`` (each of the two rolls), player None.
        - ``roll``/``call``: ``player`` is whose turn it is; ``{"value": FACES}`` is their
          roll; ``{"caller": (...)}`` lists who may send ``call`` now: the player whose
          turn it is and, right after a roll, the player who just rolled (first). In the
          final round only ``roll`` is legal and there is no "caller".
        - ``board``: ``{"cards": RANKS}``, player None.
        - ``hand``: ``{"player": players not entered yet, "cards": RANKS}``, player None.
        """
        if self.phase == GOAL:
            return Expect(("goal",), None, {"rolls": FACES},
                          pgettext("turn prompt", "Roll for the Hit Goal"))
        if self.phase == PLAY:
            if self.caller is not None:
                return Expect(("roll",), self.current, {"value": FACES},
                              pgettext("turn prompt", "{name}: last roll")
                              .format(name=self.current))
            return Expect(
                ("roll", "call"),
                self.current,
                {"value": FACES, "caller": self._callers()},
                pgettext("turn prompt", "{name}: roll or call").format(name=self.current),
            )
        if self.phase == BOARD:
            return Expect(("board",), None, {"cards": RANKS},
                          pgettext("turn prompt", "Enter the Board cards"))
        if self.phase == HANDS:
            waiting = self._not_entered()
            prompt = (pgettext("turn prompt", "Enter {name}'s cards").format(name=waiting[0])
                      if len(waiting) == 1 else pgettext("turn prompt", "Enter each hand"))
            return Expect(("hand",), None, {"player": waiting, "cards": RANKS}, prompt)
        leaders = scores.winners(self.totals)
        # Translators: {names} are the winners joined with " & ".
        return Expect((), None, {}, pgettext("turn prompt", "Game over: {names} won")
                      .format(names=" & ".join(leaders)))

    def _not_entered(self) -> tuple[str, ...]:
        return tuple(player for player in self.players if player not in self.entered)

    def result(self) -> dict[str, Any]:
        """The standings: over, totals, winners ([] until the game is over), hands."""
        return {
            "game": self.game_id,
            "players": list(self.players),
            "over": self.over,
            "totals": dict(self.totals),
            "winners": scores.winners(self.totals) if self.over else [],
            "hands": [_copy_hand(hand.record) for hand in self.hands],
        }

    def state(self) -> dict[str, Any]:
        """The table now, as JSON (docs/events.md lists every key)."""
        last = self.rolls[-1] if self.rolls else None
        return {
            **self.result(),
            "options": dict(self.options),
            "phase": self.phase,
            "hand": self.hand_number,
            "dealer": self.dealer,
            "current": self.current,
            "draw_pile": self.draw_pile,
            "goal": self.goal,
            "goal_rolls": list(self.goal_rolls),
            "goal_entered": self.goal_entered,
            "last_roll": None
            if last is None
            else {"player": last.player, "value": last.value,
                  "action": pgettext("screen 18", last.action), "entered": last.entered},
            "rolls": [{**roll._asdict(), "action": pgettext("screen 18", roll.action)}
                      for roll in self.rolls],
            "may_call": list(self._callers()),
            "caller": self.caller,
            "final_round": list(self.final_round),
            "entered": {
                "board": None if self.board is None else list(self.board),
                "hands": {player: list(cards) for player, cards in self.entered.items()},
            },
            "card_limits": self._card_limits(),
            "leaders": scores.winners(self.totals),
        }

    def table_facts(self) -> list[tuple[str, Any]]:
        """The hand, the dealer, the goal, the die just rolled and what it means, the
        draw pile, the call and who still plays, the Board once it is entered."""
        state = self.state()
        last = state["last_roll"]
        goal = state["goal"]
        rolls = state["goal_rolls"]
        goal_text = last_text = called = None
        if goal is not None:
            goal_text = (_("{goal} (entered {first} and {second})") if state["goal_entered"]
                         else _("{goal} (rolled {first} and {second})")).format(
                goal=goal, first=rolls[0], second=rolls[1])
        if last is not None:
            # Translators: {action} is what the face lets the roller do ("draw for Board").
            last_text = (_("{name} entered {value}: {action}") if last["entered"]
                         else _("{name} rolled {value}: {action}")).format(
                name=last["player"], value=last["value"], action=last["action"])
        if state["caller"] is not None:
            # Translators: who called, then who still takes a last turn ({names}).
            called = _("{name}; last turns: {names}").format(
                name=state["caller"], names=and_list(state["final_round"]) or _("none"))
        return [
            # Translators: the hand's number (a deal of the cards), a label.
            (_("Hand"), state["hand"]),
            (_("Dealer"), state["dealer"]),
            (_("Hit Goal"), goal_text),
            (_("Last roll"), last_text),
            # Translators: the draw pile (a label); its text is a count of cards.
            (_("Draw pile"), n_cards(state["draw_pile"])),
            (_("Called"), called),
            # Translators: the Board, the shared cards in the middle (a label).
            (_("Board"), " ".join(state["entered"]["board"] or []) or None),
        ]

    def outcome(self) -> str:
        """The winner, or a shared win (FC11: equal highest totals share it)."""
        count = len(self.hands)
        # Translators: {outcome} is who won ("Ann wins with 312").
        return ngettext("{outcome} after {n} hand", "{outcome} after {n} hands", count).format(
            outcome=super().outcome(), n=count)

    def _card_limits(self) -> dict[str, Any]:
        """[fewest, most] cards the Board and each player not yet entered may hold."""
        if self.phase not in (BOARD, HANDS):
            return {"board": None, "hands": {}}
        board = list(self._board_limits()) if self.phase == BOARD else None
        hands = {player: list(self._hand_limits(player)[:2]) for player in self._not_entered()}
        return {"board": board, "hands": hands}


MATCH = FinalCount


# -- checking event fields ----------------------------------------------------------------


def card_list(cards: object) -> list[str]:
    """``cards`` if it is a list of card ranks, else refused."""
    if not isinstance(cards, list):
        raise IllegalEvent(pgettext("screen 21xN",
                                    'cards are a list of ranks, like ["A", "10", "K"]'))
    for card in cards:
        if not isinstance(card, str) or card not in RANKS:
            text = pgettext("screen 21xN", "{value} is not a card rank (ranks: {ranks})")
            raise IllegalEvent(text.format(value=written(card), ranks=" ".join(RANKS)))
    return list(cards)


def check_ranks(piles: Iterable[Sequence[str]]) -> None:
    """Refuse cards that would need a fifth copy of a rank (one deck, FC12)."""
    seen: Counter[str] = Counter()
    for pile in piles:
        seen.update(pile)
    for rank in RANKS:
        if seen[rank] > COPIES_OF_EACH_RANK:
            text = pgettext("screen 21xN", "{n} cards of rank {rank} entered this hand; "
                            "a deck has only {most}")
            raise IllegalEvent(text.format(n=seen[rank], rank=rank, most=COPIES_OF_EACH_RANK))


def _copy_hand(hand: Mapping[str, Any]) -> dict[str, Any]:
    """A deep-enough copy so callers cannot change the match through result()."""
    return {
        **hand,
        "board": list(hand["board"]),
        "players": {
            player: {**row, "cards": list(row["cards"])} for player, row in hand["players"].items()
        },
        "winners": list(hand["winners"]),
    }
