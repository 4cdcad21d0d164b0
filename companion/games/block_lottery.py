"""Block Lottery: play blocks of cards, take dice from the pool, then hold the lottery.

How a round goes at the table, and the event that tells the companion about each step
(docs/events.md has every field; RULINGS.md BL1-BL9 settle the unclear points):

1. The dealer deals 6 cards each; the 15 dice are rolled into the pool (``pool``).
   Play starts left of the dealer. The companion does not follow the turns, only
   the dice.
2. Adding cards to someone else's block, or replacing a wild there, takes dice from
   the pool, one at a time, without turning them (``take``). Taking the last die ends
   the round at once.
3. A player may also end the round: they start their turn with no cards in hand and
   at least one die, or they cannot draw because the deck is empty (``end``). With the
   Long Game variant an empty hand does not end the round.
4. Finalising: each player may re-roll any of their dice, once (``reroll``). Then three
   of the eight tokens are drawn, one at a time, onto the prize card's lowest free
   space (``token``); the first token closes the re-rolls.
5. Each player's cards are counted (``score``): cards in blocks, cards still in hand
   and, with the Lucky Card Bonus, the natural cards in blocks that match the middle
   token. The last entry settles the round; whoever caused the end deals the next.
6. After three rounds the highest total wins; a tie goes to the best round-3 score,
   and is shared if that is tied too.

The module is pure: no I/O, no clock, no random. The helpers at the top
(:func:`lottery_by_space`, :func:`score_round`, :func:`final_winners`) are the scoring
rules themselves, for the screens as much as for the engine.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from companion.errors import BadSetup, IllegalEvent, written
from companion.games.base import (
    TOKENS,
    Chance,
    Event,
    Expect,
    Match,
    Said,
    check_fields,
    die_face,
    entered_field,
)
from companion.lang import _, and_list, lazy, ngettext, npgettext, pgettext
from companion.table import scores
from companion.table.bag import ALL, LOTTERY_TOKENS, NONE
from companion.table.dice import SIDES
from companion.table.seats import Seats

# -- the components (BL1, BL2) ----------------------------------------------------------

#: The faces of a die.
FACES: tuple[int, ...] = tuple(range(1, SIDES + 1))
#: Dice rolled into the pool at the start of every round.
POOL_SIZE = 15
#: Cards dealt to each player at the start of a round.
HAND_SIZE = 6
#: The numbers on the natural cards (a wild has none).
NUMBERS: tuple[int, ...] = tuple(range(1, 8))
#: The fewest cards a block can hold.
MIN_BLOCK = 3
ROUNDS = 3
#: Spaces on each prize card; the first token drawn goes on the lowest.
SPACES = 3
#: Printed prize values, lowest space first, one row per round (BL2). The companion only
#: uses them as the default: the printed cards may differ (option ``prizes``).
DEFAULT_PRIZES: tuple[tuple[int, ...], ...] = ((1, 2, 3), (2, 3, 4), (3, 4, 5))
#: The most a prize space may be set to.
MAX_PRIZE = 99

#: The phases of a round, as state()["phase"] names them.
POOL, PLAY, FINALISE, LOTTERY, SCORING, OVER = (
    "pool", "play", "finalise", "lottery", "scoring", "over"
)
#: Why a round ended, as the ``end`` event and the round record name it (BL4).
LAST_DIE, EMPTY_HAND, DECK_OUT = "last_die", "empty_hand", "deck_out"
#: What the screen says about each cause, after "<player> ..." ("Ann took the last die"),
#: in the language of the screen that looks it up (:class:`Said`). :func:`ended_words`
#: says the whole sentence.
CAUSE_WORDS: Said = Said({
    # Translators: said after a player's name: "Ann took the last die".
    LAST_DIE: lazy("screen 21xN", "took the last die"),
    EMPTY_HAND: lazy("screen 21xN", "had no cards in hand"),
    DECK_OUT: lazy("screen 21xN", "could not draw"),
})


def ended_words(player: str, cause: str) -> str:
    """Who ended the round and how, as one sentence: "Ann took the last die"."""
    if cause == LAST_DIE:
        return pgettext("screen 21xN", "{name} took the last die").format(name=player)
    if cause == EMPTY_HAND:
        return pgettext("screen 21xN", "{name} had no cards in hand").format(name=player)
    if cause == DECK_OUT:
        return pgettext("screen 21xN", "{name} could not draw").format(name=player)
    return f"{player} {cause}"  # a cause from a newer device: its code as it came


# -- the scoring rules (BL6-BL9) -----------------------------------------------------------


def token_scores(token: str, face: int) -> bool:
    """True if a die showing ``face`` scores on a space holding ``token`` (BL6)."""
    if token == ALL:
        return True
    if token == NONE:
        return False
    return token == str(face)


def lottery_by_space(
    dice: Sequence[int], tokens: Sequence[str], prizes: Sequence[int]
) -> list[int]:
    """The points ``dice`` win on each space drawn so far: its value per matching die.

    A die scores on every space it matches, so two spaces with the same face count the
    die twice (only ALL can repeat a face's win: the tokens are all different).
    """
    return [
        prize * sum(1 for face in dice if token_scores(token, face))
        for token, prize in zip(tokens, prizes, strict=False)
    ]


def lucky_number(tokens: Sequence[str]) -> int | None:
    """The card number the Lucky Card Bonus rewards: the middle token's face, if it is one.

    None before the middle token is drawn and when it is NONE or ALL (BL9).
    """
    if len(tokens) < 2 or tokens[1] in (NONE, ALL):
        return None
    return int(tokens[1])


def lucky_bonus_each(round_number: int) -> int:
    """Bonus points per lucky card: 1, 2, 3 in rounds 1, 2, 3 (BL9)."""
    return round_number


class RoundScore(NamedTuple):
    """Every part of one player's round score (BL7)."""

    cards: int  # cards in blocks, 1 point each
    dice: int  # dice owned, 1 point each
    lottery: int  # points the dice won on the prize card
    lucky: int  # Lucky Card Bonus points (0 without the variant)
    hand: int  # cards still in hand, 1 point off each
    raw: int  # the sum before the floor
    score: int  # never below 0


def score_round(
    blocks: int,
    hand: int,
    dice: Sequence[int],
    tokens: Sequence[str],
    prizes: Sequence[int],
    lucky: int = 0,
) -> RoundScore:
    """A player's round: ``blocks`` cards in blocks, ``hand`` cards in hand, their final
    ``dice``, the drawn ``tokens`` on spaces worth ``prizes``, and ``lucky`` bonus points.

    >>> score_round(9, 2, [4, 4, 1], ["4", "NONE", "ALL"], [1, 2, 3])
    RoundScore(cards=9, dice=3, lottery=11, lucky=0, hand=2, raw=21, score=21)
    """
    lottery = sum(lottery_by_space(dice, tokens, prizes))
    raw = blocks + len(dice) + lottery + lucky - hand
    return RoundScore(blocks, len(dice), lottery, lucky, hand, raw, max(0, raw))


def final_winners(
    totals: Mapping[str, int], last_round: Mapping[str, int]
) -> tuple[list[str], bool]:
    """Who won after the last round, and whether the round-3 tie-break decided it (BL8).

    The highest total wins; among tied totals the best ``last_round`` score wins; a tie
    there too is a shared win.

    >>> final_winners({"Ann": 30, "Bob": 30, "Cy": 12}, {"Ann": 8, "Bob": 11, "Cy": 5})
    (['Bob'], True)
    """
    leaders = scores.winners(totals)
    if len(leaders) == 1:
        return leaders, False
    best = scores.winners({player: last_round[player] for player in leaders})
    return best, len(best) < len(leaders)


# -- the match ------------------------------------------------------------------------------


class BlockLottery(Match):
    """A game of Block Lottery: three rounds of blocks, dice and the lottery."""

    game_id = "block-lottery"
    title = "Block Lottery"
    min_players = 2
    max_players = 6
    has_turns = False  # everyone takes from the pool at once: no turn timer
    option_defaults = {
        "prizes": [list(row) for row in DEFAULT_PRIZES],
        "lucky_card_bonus": False,
        "long_game": False,
        "cards_per_number": 7,
        "wilds": 3,
    }

    def setup(self) -> None:
        self.prizes = check_prizes(self.options["prizes"])
        self.deck_size = self._check_deck()
        self.seats = Seats(self.players)
        self.totals: dict[str, int] = scores.zero_totals(self.players)
        self.rounds: list[dict[str, Any]] = []
        self.round_number = 1
        # Not said by the rules: as in every game here, the last player entered deals
        # first, so the first player entered plays first.
        self.dealer = self.seats.first_dealer
        self.winners: list[str] = []
        self.tie_break = False
        self._start_round()

    def _check_deck(self) -> int:
        copies, wilds = self.options["cards_per_number"], self.options["wilds"]
        if not 1 <= copies <= 20:
            raise BadSetup(pgettext("screen 21xN", "cards_per_number is 1 to 20, not {value}")
                           .format(value=copies))
        if not 0 <= wilds <= 20:
            raise BadSetup(pgettext("screen 21xN", "wilds is 0 to 20, not {value}")
                           .format(value=wilds))
        size = copies * len(NUMBERS) + wilds
        if size <= HAND_SIZE * len(self.players):
            text = pgettext("screen 21xN", "a deck of {total} cards cannot deal {each} each to "
                            "{n} players and leave a deck")
            raise BadSetup(text.format(total=size, each=HAND_SIZE, n=len(self.players)))
        return size

    def _start_round(self) -> None:
        """A new deal: all dice back to the pool (to be rolled), all tokens in the tin."""
        self.phase = POOL
        self.rolled: list[int] = []
        self.pool_entered = False
        self.pool: Counter[int] = Counter()
        self.dice: dict[str, list[int]] = {player: [] for player in self.players}
        self.takes: list[tuple[str, int]] = []
        self.ended_by: str | None = None
        self.end_cause: str | None = None
        self.rerolls: dict[str, dict[str, list[int]]] = {}
        self.tokens: list[str] = []
        #: True once a token of this round was entered from the table's own tin.
        self.tokens_entered = False
        self.entered: dict[str, dict[str, int]] = {}

    @property
    def over(self) -> bool:
        return self.phase == OVER

    @property
    def first_player(self) -> str:
        """Who plays first this round: left of the dealer."""
        return self.seats.left_of(self.dealer)

    @property
    def round_prizes(self) -> list[int]:
        return list(self.prizes[self.round_number - 1])

    # -- events -----------------------------------------------------------------------------

    def on_pool(self, event: Event) -> None:
        """The 15 dice as rolled into the pool at the start of the round (BL3)."""
        check_fields(event, "pool", ("faces",), ("entered",))
        entered = entered_field(event)
        if self.phase != POOL:
            text = pgettext("screen 21xN",
                            "the pool is rolled once, at the start of a round ({now})")
            raise IllegalEvent(text.format(now=self._now()))
        faces = event["faces"]
        if not isinstance(faces, list) or len(faces) != POOL_SIZE:
            raise IllegalEvent(pgettext("screen 21xN", "the pool is {n} dice: a list of {n} faces")
                               .format(n=POOL_SIZE))
        for face in faces:
            die_face(face)
        self.rolled = list(faces)
        self.pool_entered = entered
        self.pool = Counter(faces)
        self.phase = PLAY

    def on_take(self, event: Event) -> None:
        """A player takes one die from the pool, face unchanged; the last one ends the round."""
        check_fields(event, "take", ("player", "face"))
        player = self.player_field(event)
        self._check_in_play(taking=True)
        face = die_face(event["face"])
        if self.pool[face] == 0:
            raise IllegalEvent(pgettext("screen 21xN", "there is no {value} in the pool (it "
                                                       "has {faces})")
                               .format(value=face, faces=self._pool_words()))
        self.pool[face] -= 1
        self.dice[player] = sorted(self.dice[player] + [face])
        self.takes.append((player, face))
        if self.pool_left == 0:
            self._end_round(player, LAST_DIE)

    def on_end(self, event: Event) -> None:
        """A player ends the round: empty hand at the start of their turn, or no card to draw."""
        check_fields(event, "end", ("player", "cause"))
        player = self.player_field(event)
        self._check_in_play(taking=False)
        cause = event["cause"]
        if cause not in self._declarable():
            if cause == EMPTY_HAND:
                raise IllegalEvent(pgettext("screen 21xN",
                                            "in the Long Game an empty hand does not end the "
                                            "round"))
            # Translators: {causes} are codes ('empty_hand' or 'deck_out'), left as they are.
            text = pgettext("screen 21xN", "a round ends with {causes}, not {value} "
                            "(the last die ends it by itself)")
            raise IllegalEvent(text.format(causes=" or ".join(map(written, self._declarable())),
                                           value=written(cause)))
        if cause == EMPTY_HAND and not self.dice[player]:
            text = pgettext("screen 21xN", "{name} has no dice: an empty hand ends the round "
                            "only for a player with at least one die")
            raise IllegalEvent(text.format(name=player))
        self._end_round(player, cause)

    def on_reroll(self, event: Event) -> None:
        """A player re-rolls some of their dice, once per round: the faces before and after."""
        check_fields(event, "reroll", ("player", "from", "to"), ("entered",))
        entered = entered_field(event)
        player = self.player_field(event)
        if self.phase != FINALISE:
            now = (pgettext("screen 21xN", "the lottery has started, dice are set")
                   if self.phase in (LOTTERY, SCORING) else self._now())
            raise IllegalEvent(pgettext("screen 21xN", "dice are re-rolled after the round "
                                                       "ends ({now})")
                               .format(now=now))
        if player in self.rerolls:
            raise IllegalEvent(pgettext("screen 21xN",
                                        "{name} has already re-rolled this round (once only)")
                               .format(name=player))
        before, after = event["from"], event["to"]
        if not isinstance(before, list) or not before:
            raise IllegalEvent(pgettext("screen 21xN",
                                        '"from" lists the faces of the dice picked up, like '
                                        '[2, 2, 5]'))
        if not isinstance(after, list) or len(after) != len(before):
            text = npgettext("screen 21xN", '"to" lists the {n} new face, one per die picked up',
                             '"to" lists the {n} new faces, one per die picked up', len(before))
            raise IllegalEvent(text.format(n=len(before)))
        for face in before + after:
            die_face(face)
        missing = Counter(before) - Counter(self.dice[player])
        if missing:
            owned = " ".join(map(str, self.dice[player])) or pgettext("screen 21xN", "none")
            text = pgettext("screen 21xN", "{name} has no {faces} to re-roll (their dice: {owned})")
            raise IllegalEvent(text.format(name=player, owned=owned,
                                           faces=" ".join(map(str, sorted(missing.elements())))))
        kept = Counter(self.dice[player]) - Counter(before)
        self.dice[player] = sorted(list(kept.elements()) + after)
        # "entered" only when typed in from real dice: older records stay as they were.
        self.rerolls[player] = {"from": list(before), "to": list(after),
                                **({"entered": True} if entered else {})}

    def chance(self, event: Event) -> Chance | None:
        """The pool's 15 ``"faces"``; a re-roll's ``"to"``, one per die in ``"from"``;
        a lottery ``"token"``, one of those in the tin."""
        kind = event.get("type")
        if kind == "pool":
            return Chance("faces", POOL_SIZE)
        if kind == "reroll":
            before = event.get("from")
            return Chance("to", len(before) if isinstance(before, list) else 0)
        if kind == "token":
            return Chance("token", None, TOKENS, tuple(self.tokens_left))
        return None

    def on_token(self, event: Event) -> None:
        """A lottery token drawn from the tin; it goes on the lowest free space (BL5)."""
        check_fields(event, "token", ("token",), ("entered",))
        entered = entered_field(event, TOKENS)
        if self.phase not in (FINALISE, LOTTERY):
            raise IllegalEvent(pgettext("screen 21xN", "tokens are drawn once the round has "
                                                       "ended ({now})")
                               .format(now=self._now()))
        token = event["token"]
        if token not in LOTTERY_TOKENS:
            raise IllegalEvent(pgettext("screen 21xN", "no token {value} (tokens: {tokens})")
                               .format(value=written(token), tokens=" ".join(LOTTERY_TOKENS)))
        if token in self.tokens:
            text = pgettext("screen 21xN",
                            "token {value} is already on the prize card (in the tin: {tokens})")
            raise IllegalEvent(text.format(value=token, tokens=" ".join(self.tokens_left)))
        self.tokens.append(token)
        self.tokens_entered = self.tokens_entered or entered
        self.phase = SCORING if len(self.tokens) == SPACES else LOTTERY

    def on_score(self, event: Event) -> None:
        """One player's cards at the end of the round; the last entry settles the round."""
        fields = ("player", "blocks", "hand") + (("lucky",) if "lucky" in event else ())
        check_fields(event, "score", fields)
        player = self.player_field(event)
        if self.phase != SCORING:
            raise IllegalEvent(pgettext("screen 21xN", "cards are counted after the lottery "
                                                       "({now})")
                               .format(now=self._now()))
        if player in self.entered:
            raise IllegalEvent(pgettext("screen 21xN", "{name}'s cards are already entered")
                               .format(name=player))
        blocks = self._count(event, "blocks")
        hand = self._count(event, "hand")
        lucky = self._lucky_field(event, blocks)
        self._check_blocks(player, blocks)
        self._check_hand(player, hand)
        self._check_card_totals(blocks, hand, lucky)
        self.entered[player] = {"blocks": blocks, "hand": hand, "lucky": lucky}
        if len(self.entered) == len(self.players):
            self._settle_round()

    # -- the round's end --------------------------------------------------------------------

    def _declarable(self) -> tuple[str, ...]:
        """The end causes a player may declare (the last die declares itself)."""
        return (DECK_OUT,) if self.options["long_game"] else (EMPTY_HAND, DECK_OUT)

    def _end_round(self, player: str, cause: str) -> None:
        # Turns stop at once; the player who caused it deals the next round (BL4).
        self.ended_by = player
        self.end_cause = cause
        self.phase = FINALISE

    def _check_in_play(self, taking: bool) -> None:
        """Refuse a take (``taking``) or an end of round outside play."""
        if self.phase != PLAY:
            text = (pgettext("screen 21xN", "dice are taken only while the round is played ({now})")
                    if taking else
                    pgettext("screen 21xN", "the round ends only while the round is played "
                                            "({now})"))
            raise IllegalEvent(text.format(now=self._now()))

    @property
    def pool_left(self) -> int:
        return sum(self.pool.values())

    def _pool_words(self) -> str:
        faces = sorted(self.pool.elements())
        return " ".join(map(str, faces)) if faces else pgettext("screen 21xN", "no dice")

    @property
    def tokens_left(self) -> list[str]:
        """The tokens still in the tin, in the order of LOTTERY_TOKENS."""
        return [token for token in LOTTERY_TOKENS if token not in self.tokens]

    def _now(self) -> str:
        """What the match is waiting for, to explain a refusal."""
        if self.phase == POOL:
            return (pgettext("screen 21xN", "roll the pool for round {value} first")
                    .format(value=self.round_number))
        return {
            PLAY: lambda: pgettext("screen 21xN", "the round is being played"),
            FINALISE: lambda: pgettext("screen 21xN", "the round is over: re-rolls, then the "
                                                      "lottery"),
            LOTTERY: lambda: pgettext("screen 21xN", "the lottery is being drawn"),
            SCORING: lambda: pgettext("screen 21xN", "the players' cards are being counted"),
            OVER: lambda: pgettext("screen 21xN", "the game is over"),
        }[self.phase]()

    # -- what the cards can be --------------------------------------------------------------

    def _count(self, event: Event, key: str) -> int:
        value = event[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            # Translators: {field} is a field name (blocks, hand, lucky), as is.
            text = pgettext("screen 21xN", '"{field}" is a number of cards, 0 or more, not {value}')
            raise IllegalEvent(text.format(field=key, value=written(value)))
        if value > self.deck_size:
            text = pgettext("screen 21xN", '"{field}": {value} cards, but the deck has {total}')
            raise IllegalEvent(text.format(field=key, value=value, total=self.deck_size))
        return value

    def _lucky_field(self, event: Event, blocks: int) -> int:
        """The natural cards in blocks matching the middle token, when the bonus is in play."""
        number = lucky_number(self.tokens)
        applies = self.options["lucky_card_bonus"] and number is not None
        if "lucky" not in event:
            if applies:
                text = pgettext("screen 21xN", 'with the Lucky Card Bonus a score needs "lucky": '
                                "the natural {value}s in the player's blocks")
                raise IllegalEvent(text.format(value=number))
            return 0
        if not self.options["lucky_card_bonus"]:
            raise IllegalEvent(pgettext("screen 21xN", '"lucky" is only for the Lucky Card Bonus '
                                        "(it is not in play)"))
        lucky = self._count(event, "lucky")
        if number is None and lucky:
            text = pgettext("screen 21xN", "the middle token is {value}: no lucky cards this round")
            raise IllegalEvent(text.format(value=self.tokens[1]))
        if lucky > blocks:
            text = npgettext("screen 21xN", "{n} lucky card but only {total} in blocks",
                             "{n} lucky cards but only {total} in blocks", lucky)
            raise IllegalEvent(text.format(n=lucky, total=blocks))
        return lucky

    def _check_blocks(self, player: str, blocks: int) -> None:
        if 0 < blocks < MIN_BLOCK:
            text = pgettext("screen 21xN", "a block is at least {least} cards: {name} has 0 or "
                            "{least} or more in blocks, not {value}")
            raise IllegalEvent(text.format(least=MIN_BLOCK, name=player, value=blocks))
        if self.dice[player] and blocks < MIN_BLOCK:
            text = pgettext("screen 21xN", "{name} took dice, so {name} played a block first: "
                            "at least {least} cards in blocks")
            raise IllegalEvent(text.format(name=player, least=MIN_BLOCK))

    def _check_hand(self, player: str, hand: int) -> None:
        if self.end_cause == EMPTY_HAND and player == self.ended_by and hand:
            text = pgettext("screen 21xN",
                            "{name} ended the round with an empty hand: 0 cards in hand")
            raise IllegalEvent(text.format(name=player))

    def _check_card_totals(self, blocks: int, hand: int, lucky: int) -> None:
        """Cards never leave play (no discards): together the players hold every card
        dealt and drawn, never more than the deck, and all of it once the deck is out."""
        entered = sum(row["blocks"] + row["hand"] for row in self.entered.values())
        total = entered + blocks + hand
        if total > self.deck_size:
            text = pgettext("screen 21xN", "{n} cards entered this round; the deck has only "
                                           "{total}")
            raise IllegalEvent(text.format(n=total, total=self.deck_size))
        lucky_total = sum(row["lucky"] for row in self.entered.values()) + lucky
        copies = self.options["cards_per_number"]
        if lucky_total > copies:
            text = pgettext("screen 21xN",
                            "{n} natural {value}s entered; the deck has only {total}")
            raise IllegalEvent(text.format(n=lucky_total, value=lucky_number(self.tokens),
                                           total=copies))
        if len(self.entered) + 1 < len(self.players):
            return
        dealt = HAND_SIZE * len(self.players)
        if total < dealt:
            text = npgettext("screen 21xN",
                             "only {n} card entered; {total} were dealt and none leave play",
                             "only {n} cards entered; {total} were dealt and none leave play",
                             total)
            raise IllegalEvent(text.format(n=total, total=dealt))
        if self.end_cause == DECK_OUT and total != self.deck_size:
            text = pgettext("screen 21xN", "the deck ran out, so all {total} cards are in blocks "
                            "and hands; {n} entered")
            raise IllegalEvent(text.format(total=self.deck_size, n=total))

    # -- scoring ----------------------------------------------------------------------------

    def _settle_round(self) -> None:
        prizes = self.round_prizes
        number = lucky_number(self.tokens) if self.options["lucky_card_bonus"] else None
        each = lucky_bonus_each(self.round_number)
        players: dict[str, dict[str, Any]] = {}
        for player in self.players:
            row = self.entered[player]
            part = score_round(row["blocks"], row["hand"], self.dice[player], self.tokens,
                               prizes, row["lucky"] * each)
            players[player] = {
                "faces": list(self.dice[player]),
                "rerolled": copy.deepcopy(self.rerolls.get(player)),
                "cards": part.cards,
                "dice": part.dice,
                "lottery": part.lottery,
                "lottery_by_space": lottery_by_space(self.dice[player], self.tokens, prizes),
                "lucky_cards": row["lucky"],
                "lucky": part.lucky,
                "hand": part.hand,
                "raw": part.raw,
                "score": part.score,
            }
        points = {player: row["score"] for player, row in players.items()}
        self.rounds.append(
            {
                "round": self.round_number,
                "dealer": self.dealer,
                "ended_by": self.ended_by,
                "end": self.end_cause,
                "pool": list(self.rolled),
                **({"pool_entered": True} if self.pool_entered else {}),
                "tokens": list(self.tokens),
                **({"tokens_entered": True} if self.tokens_entered else {}),
                "prizes": prizes,
                "lucky_number": number,
                "lucky_each": each if number is not None else 0,
                "players": players,
                "points": points,
            }
        )
        self.totals = scores.add_points(self.totals, points)
        if self.round_number == ROUNDS:
            self.winners, self.tie_break = final_winners(self.totals, points)
            self.phase = OVER
            return
        self.round_number += 1
        self.dealer = self.ended_by or self.dealer
        self._start_round()

    # -- what the screens read --------------------------------------------------------------

    def expecting(self) -> Expect:
        """What comes next. Choices are keyed by event field, plus "empty_hand":

        - ``pool``: ``{"faces": FACES}`` (each of the 15), player None.
        - ``take``/``end``: ``{"player": players, "face": faces in the pool,
          "cause": causes a player may declare, "empty_hand": players with a die}``.
        - ``reroll``/``token``: ``{"player": players who may still re-roll, "to": FACES,
          "token": tokens in the tin}``.
        - ``token``: ``{"token": tokens in the tin}``.
        - ``score``: ``{"player": players not entered yet}``.
        """
        n = self.round_number
        if self.phase == POOL:
            return Expect(("pool",), None, {"faces": FACES},
                          pgettext("turn prompt", "Round {value}: roll the pool").format(value=n))
        if self.phase == PLAY:
            choices = {
                "player": self.players,
                "face": tuple(face for face in FACES if self.pool[face]),
                "cause": self._declarable(),
                "empty_hand": tuple(p for p in self.players if self.dice[p])
                if EMPTY_HAND in self._declarable() else (),
            }
            return Expect(("take", "end"), None, choices,
                          pgettext("turn prompt", "Round {value}: take dice").format(value=n))
        if self.phase == FINALISE:
            choices = {"player": self._may_reroll(), "to": FACES,
                       "token": tuple(self.tokens_left)}
            return Expect(("reroll", "token"), None, choices,
                          pgettext("turn prompt", "Re-rolls, then the lottery"))
        if self.phase == LOTTERY:
            return Expect(("token",), None, {"token": tuple(self.tokens_left)},
                          pgettext("turn prompt", "Draw token {value}")
                          .format(value=len(self.tokens) + 1))
        if self.phase == SCORING:
            waiting = self._not_entered()
            return Expect(("score",), None, {"player": waiting},
                          pgettext("turn prompt", "Count {name}'s cards").format(name=waiting[0]))
        return Expect((), None, {}, pgettext("turn prompt", "Game over: {names} won")
                      .format(names=" & ".join(self.winners)))

    def _may_reroll(self) -> tuple[str, ...]:
        return tuple(p for p in self.players if self.dice[p] and p not in self.rerolls)

    def _not_entered(self) -> tuple[str, ...]:
        return tuple(player for player in self.players if player not in self.entered)

    def result(self) -> dict[str, Any]:
        """The standings: over, totals, winners ([] until over), tie_break, rounds."""
        return {
            "game": self.game_id,
            "players": list(self.players),
            "over": self.over,
            "totals": dict(self.totals),
            "winners": list(self.winners),
            "tie_break": self.tie_break,
            "rounds": copy.deepcopy(self.rounds),
        }

    def state(self) -> dict[str, Any]:
        """The table now, as JSON (docs/events.md lists every key)."""
        last = self.takes[-1] if self.takes else None
        number = lucky_number(self.tokens) if self.options["lucky_card_bonus"] else None
        return {
            **self.result(),
            "options": copy.deepcopy(self.options),
            "phase": self.phase,
            "round": self.round_number,
            "dealer": self.dealer,
            "first_player": self.first_player,
            "prizes": self.round_prizes,
            "rolled": list(self.rolled),
            "pool_entered": self.pool_entered,
            "pool": [self.pool[face] for face in FACES],
            "pool_left": self.pool_left,
            "dice": {player: list(faces) for player, faces in self.dice.items()},
            "last_take": None if last is None else {"player": last[0], "face": last[1]},
            "takes": len(self.takes),
            "ended_by": self.ended_by,
            "end": self.end_cause,
            "rerolled": copy.deepcopy(self.rerolls),
            "may_reroll": list(self._may_reroll()) if self.phase == FINALISE else [],
            "tokens": list(self.tokens),
            "tokens_entered": self.tokens_entered,
            "tokens_left": self.tokens_left,
            "lucky_number": number,
            "lucky_each": lucky_bonus_each(self.round_number) if number is not None else 0,
            "entered": copy.deepcopy(self.entered),
            "leaders": scores.winners(self.totals),
        }

    def table_facts(self) -> list[tuple[str, Any]]:
        """The round, the pool, each player's dice, the prize card and its tokens, the
        re-rolls, who ended the round."""
        state = self.state()
        pool = " ".join(str(face) for face, count in zip(FACES, state["pool"], strict=True)
                        for _ in range(count))
        prizes = state["prizes"]
        spaces = [f"{prizes[i]}: {state['tokens'][i] if i < len(state['tokens']) else '-'}"
                  for i in range(len(prizes))]
        card = " | ".join(spaces)
        if state["tokens_entered"]:
            # Translators: the prize card's tokens were drawn from the table's own tin.
            card = _("{card} (entered)").format(card=card)
        dice = state["pool_left"]
        # Translators: the dice left in the pool; {faces} lists them ("3 dice: 1 4 6").
        pool_text = (ngettext("{n} die: {faces}", "{n} dice: {faces}", dice) if pool
                     else ngettext("{n} die", "{n} dice", dice)).format(n=dice, faces=pool)
        if state["pool_entered"] and self.phase != POOL:
            # Translators: the pool's faces were typed in from real dice.
            pool_text = _("{pool} (entered)").format(pool=pool_text)
        return [
            (_("Round"), _("{value} of {total}").format(value=state["round"], total=ROUNDS)),
            (_("Dealer"), state["dealer"]),
            # Translators: the pool of dice in the middle of the table (a label).
            (_("Pool"), pool_text),
            *((_("{name}'s dice").format(name=name), " ".join(map(str, faces)) or _("none"))
              for name, faces in state["dice"].items() if self.phase != POOL),
            (_("Prize card"), card),
            (_("Round over"), None if state["ended_by"] is None
             else ended_words(state["ended_by"], state["end"])),
            (_("May re-roll"), and_list(state["may_reroll"])),
            (_("Lucky number"), state["lucky_number"]),
        ]

    def outcome(self) -> str:
        """A tie on totals goes to the best round-3 score (BL8): say so."""
        if not self.tie_break or not self.rounds:
            return super().outcome()
        winner = self.winners[0]
        last = self.rounds[-1]
        tied = [p for p in self.players if self.totals[p] == self.totals[winner]]
        # Translators: between two scores, "12 to 9".
        between = _(" to ")
        scores_3 = between.join(str(last["points"][p]) for p in
                                sorted(tied, key=lambda p: -last["points"][p]))
        return (_("{names} tie on {total}; {name} wins the tie on round {value} ({scores})")
                .format(names=and_list(tied), total=self.totals[winner], name=winner,
                        value=ROUNDS, scores=scores_3))


MATCH = BlockLottery


def check_prizes(prizes: object) -> list[list[int]]:
    """The prize option: one row of 3 space values per round, else BadSetup."""
    # The setup screen never makes a wrong prize table: this is said to the command
    # line and the page (no place on the screen).
    shape = _("prizes are 3 rows of 3 values, lowest space first, like "
              "[[1,2,3],[2,3,4],[3,4,5]]")
    if not isinstance(prizes, list) or len(prizes) != ROUNDS:
        raise BadSetup(shape)
    for row in prizes:
        if not isinstance(row, list) or len(row) != SPACES:
            raise BadSetup(shape)
        for value in row:
            if isinstance(value, bool) or not isinstance(value, int):
                raise BadSetup(pgettext("screen 21xN", "a prize is a whole number, not {value}")
                               .format(value=written(value)))
            if not 0 <= value <= MAX_PRIZE:
                raise BadSetup(pgettext("screen 21xN", "a prize is 0 to {most} points, not {value}")
                               .format(most=MAX_PRIZE, value=value))
    return [list(row) for row in prizes]
