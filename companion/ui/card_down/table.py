"""Final Card-Down's setup and the table: the top card, whose turn, the stacked 2s,
every hand's count, the call-outs. The questions of a turn (the exact card picker, the
special cards, TRIO/DUO/UNO, the colour a D names) are in
:mod:`companion.ui.card_down.turns`; the end-of-game hands, the game's points and the
match's end in :mod:`companion.ui.card_down.hands`.

Turns are entered one of two ways, switched in the game menu ("Card entry"):

- **quick**: OK is "played a plain card", DOWN opens the special cards (2, A, B, C, D
  or a 0) where one more press says which; ROLL draws. A normal turn is one press (two
  when the player goes down to 3, 2 or 1 card and the device asks about the word).
- **exact**: OK opens a picker that starts on the top card (value, colour, suit all
  matching) and shows live whether the card may go; the match refuses an illegal card
  with the reason. ROLL draws.

The screens follow the engine (:mod:`companion.games.card_down`): what they offer is what
``match.expecting()`` allows, and every outcome goes in as an event.
"""

from __future__ import annotations

from collections.abc import Callable

from companion.games import card_down as rules
from companion.lang import lazy, npgettext, pgettext
from companion.session import Session
from companion.ui.canvas import BODY_TOP, COLUMNS, LINE_H, Canvas, clip, fitting
from companion.ui.card_down.hands import (
    MATCH_OVER_KEYS,
    POINTS_KEYS,
    SUM_KEYS,
    WENT_OUT_KEYS,
    GameResult,
    MatchOver,
    SumPicker,
    ToMenu,
    WentOut,
)
from companion.ui.card_down.turns import (
    CARD_KEYS,
    COLOUR_KEYS,
    SPECIAL_CARD_KEYS,
    WORD_KEYS,
    CardPicker,
    ColourMenu,
    SpecialCard,
    WordQuestion,
)
from companion.ui.card_down.words import BESIDE_X, colour_word, suit_word
from companion.ui.keys import GAME_MENU, PICKER_KEYS, SETUP_KEYS, STANDINGS_KEYS, Key, Keys
from companion.ui.naming import next_player
from companion.ui.play import GameScreen, Row, SetupScreen, next_choice
from companion.ui.screen import (
    Confirm,
    Context,
    Menu,
    MenuItem,
    Message,
    Press,
    Screen,
    folded,
    is_,
    wrap,
)

#: The "games" option as the setup screen offers it (0: until the table stops).
GAME_COUNTS = (0, 1, 2, 3, 4, 5, 6, 8, 10)

# What the table's buttons do, deal and turn, quick and exact entry.
END = Key("DOWN", lazy("screen 21xN", "End the match here (after asking): the lowest total "
                       "wins."))
FIRST_EXACT = Key("ROLL/OK", lazy("screen 21xN", "Enter the card turned up to start the "
                                  "discard pile: its value, colour and suit."))
FIRST_QUICK = Key("ROLL", lazy("screen 21xN", "The card turned up to start the discard pile "
                               "(OK: enter it exactly)."))
DRAW = Key("ROLL", lazy("screen 21xN", "The player draws a card; the turn passes."))
NO_MORE = Key("ROLL", lazy("screen 21xN", "No more card: the turn passes."))
LAY_EXACT = Key("OK", lazy("screen 21xN", "Enter the card laid: value, colour and suit."))
LAY_PLAIN = Key("OK", lazy("screen 21xN", "A plain card laid (no 2, A, B, C, D or 0)."))
LAY_SPECIAL = Key("DOWN", lazy("screen 21xN", "A special card laid: one more press says "
                               "which."))
HANDS = Key("DOWN", lazy("screen 21xN", "Every hand's count of cards and the piles."))
CALL_OUT = Key("UP", lazy("screen 21xN", "Call out a player who forgot TRIO, DUO or UNO (the "
                          "line says who); else every hand's count."))
# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
DEAL_EXACT_KEYS = Keys(lazy("screen 21", "The deal, exact"), lazy("screen 21", "ROLL card"),
                       FIRST_EXACT, GAME_MENU)
DEAL_QUICK_KEYS = Keys(lazy("screen 21", "The deal, quick"), lazy("screen 21", "ROLL turned up"),
                       FIRST_QUICK, GAME_MENU)
NEXT_EXACT_KEYS = Keys(lazy("screen 21", "The next deal, exact"),
                       lazy("screen 21", "ROLL card  DOWN end"), FIRST_EXACT, END, GAME_MENU)
NEXT_QUICK_KEYS = Keys(lazy("screen 21", "The next deal, quick"),
                       lazy("screen 21", "ROLL card  DOWN end"), FIRST_QUICK, END, GAME_MENU)
STACK_KEYS = Keys(lazy("screen 21", "2s stacked"), lazy("screen 21", "OK a 2  ROLL draw {n}"),
                  Key("OK", lazy("screen 21xN", "The player lays another 2: the next one draws "
                                 "2 more.")),
                  Key("ROLL", lazy("screen 21xN", "The player draws every stacked card; the "
                                   "turn passes.")), CALL_OUT, HANDS, GAME_MENU)
AGAIN_EXACT_KEYS = Keys(lazy("screen 21", "After a C, exact"),
                        lazy("screen 21", "OK card  ROLL no more"), LAY_EXACT, NO_MORE, CALL_OUT,
                        HANDS, GAME_MENU)
AGAIN_QUICK_KEYS = Keys(lazy("screen 21", "After a C, quick"),
                        lazy("screen 21", "OK/DOWN lay  ROLL end"), LAY_PLAIN, LAY_SPECIAL,
                        NO_MORE, CALL_OUT, GAME_MENU)
TURN_EXACT_KEYS = Keys(lazy("screen 21", "A turn, exact"), lazy("screen 21", "OK card  ROLL draw"),
                       LAY_EXACT, DRAW, CALL_OUT, HANDS, GAME_MENU)
TURN_QUICK_KEYS = Keys(lazy("screen 21", "A turn, quick"),
                       lazy("screen 21", "OK/DOWN lay ROLL draw"), LAY_PLAIN, LAY_SPECIAL, DRAW,
                       CALL_OUT, GAME_MENU)
WAIT_KEYS = Keys(lazy("screen 21", "Between games"), "", GAME_MENU)


class CardDownSetup(SetupScreen):
    """Players, how many games, quick or exact entry; ROLL (or OK on Start) starts."""

    title = "Final Card-Down"
    game_id = "card-down"

    def __init__(self, parent: Screen | None, names: list[str] | None = None):
        super().__init__(parent, names)
        self.games = 0
        self.exact = False

    def option_rows(self) -> list[Row]:
        # Translators: the setup row of how many games the match lasts.
        games = (pgettext("screen 21", "Games: {n}").format(n=self.games) if self.games
                 else pgettext("screen 21", "Games: until you stop"))
        # Translators: the setup row of how cards are entered: exact (value, colour and
        # suit) or quick (only the cards that act).
        entry = (pgettext("screen 21", "Entry: exact") if self.exact
                 else pgettext("screen 21", "Entry: quick"))
        return [
            (games, lambda ctx: self.change(games=next_choice(GAME_COUNTS, self.games))),
            (entry, lambda ctx: self.change(exact=not self.exact)),
        ]

    def start(self, ctx: Context) -> GameScreen:
        table = CardDownTable(self.new_session(ctx, {"games": self.games}), self.parent)
        table.exact = self.exact
        return table


class CardDownTable(GameScreen):
    """The game in play: the top card big, what it asks for, whose turn, every count."""

    roll_ready = True
    all_keys = (SETUP_KEYS, DEAL_QUICK_KEYS, DEAL_EXACT_KEYS, TURN_QUICK_KEYS, SPECIAL_CARD_KEYS,
                TURN_EXACT_KEYS, CARD_KEYS, STACK_KEYS, AGAIN_QUICK_KEYS, AGAIN_EXACT_KEYS,
                WORD_KEYS, COLOUR_KEYS, WENT_OUT_KEYS, PICKER_KEYS, SUM_KEYS, POINTS_KEYS,
                STANDINGS_KEYS, WAIT_KEYS, NEXT_QUICK_KEYS, NEXT_EXACT_KEYS, MATCH_OVER_KEYS)

    def __init__(self, session: Session, home: Screen | None):
        super().__init__(session, home)
        #: True: cards are entered exactly; False: quick. A resumed game carries on the
        #: way its last card was entered.
        self.exact = _entered_exactly(self.match.events)
        #: How the hands are entered after a game: None until the table chooses.
        self.by_sum: bool | None = None
        self.results_seen = len(self.match.games)

    # -- routing ---------------------------------------------------------------------

    def route(self, ctx: Context) -> Screen:
        match = self.match
        if len(match.games) > self.results_seen:
            self.results_seen = len(match.games)
            return GameResult(self, len(match.games) - 1)
        if match.over:
            return MatchOver(self)
        if match.phase == rules.HANDS:
            return self._hand_entry()
        self.by_sum = None
        if match.phase == rules.PLAY:
            kind = match.expecting().types[0]
            if kind == "said":
                return WordQuestion(self)
            if kind == "colour":
                return ColourMenu(self)
        return self

    def after_event(self, ctx: Context) -> Screen:
        screen = self.route(ctx)
        turned = self.match.state()["turned_over"]
        if turned:
            # Translators: the draw pile (the face-down stack players draw from) ran out:
            # the discard pile (the face-up pile cards are played onto) becomes the new
            # draw pile, all but its top card.
            lines = wrap(pgettext("screen 21x3", "Turn the discard pile over, top card stays."))
            # Translators: how many cards the new draw pile holds.
            lines.append(npgettext("screen 21", "{n} card to draw.", "{n} cards to draw.",
                                   turned).format(n=turned))
            # Translators: the title: the draw pile (the face-down stack) ran out.
            return Message(pgettext("screen 21", "Draw pile empty"), lines, screen)
        return screen

    def undone(self, ctx: Context) -> None:
        self.results_seen = min(self.results_seen, len(self.match.games))

    def menu(self, ctx: Context, came_from: Screen | None = None) -> Screen:
        """The game menu with card entry (quick/exact) and the hands."""
        menu = super().menu(ctx, came_from)
        # Translators: how cards are entered, beside "Card entry" in the game menu.
        mode = pgettext("screen 6", "exact") if self.exact else pgettext("screen 6", "quick")
        # Translators: the game menu row that switches how cards are entered (its mode
        # beside it).
        menu.items.insert(1, MenuItem(pgettext("screen 14", "Card entry"),
                                      lambda ctx, menu: self._switch_entry(), note=mode))
        # Translators: the game menu row that lists how many cards each player holds.
        menu.items.insert(2, MenuItem(pgettext("screen 21", "Cards in hand"),
                                      lambda ctx, menu: self._hands(menu)))
        return menu

    def _switch_entry(self) -> Screen:
        self.exact = not self.exact
        if self.exact:
            # Translators: lines of 21 characters, broken where the English breaks them
            # (break where your words fit; a longer line is folded).
            text = pgettext("screen 21x4", "Exact: value, colour\nand suit of every\n"
                            "card; wrong cards\nare refused.")
        else:
            # Translators: folded into lines of 21 characters.
            text = pgettext("screen 21x4", "Quick: OK plain card, DOWN special card, ROLL draw.")
        return Message(pgettext("screen 21", "Card entry"), folded(text), self)

    def _hands(self, parent: Screen) -> Screen:
        from companion.ui.screen import Lines

        state = self.match.state()
        lines = [f"{'>' if name == state['current'] else ' '}{clip(name, 14):<14}"
                 f"{count:>5}" for name, count in state["in_hand"].items()]
        # Translators: the face-down stack players draw from (its count beside it).
        lines.append(_count_row(pgettext("screen 15", "draw pile"), state["draw_pile"]))
        # Translators: the face-up pile cards are played onto, whose top card the next
        # must match (its count beside it).
        lines.append(_count_row(pgettext("screen 15", "discard pile"), state["discard_pile"]))
        # Translators: the title of every player's count of cards in hand.
        return Lines(pgettext("screen 15", "Cards in hand"), lines, parent)

    # -- entering the hands after a game ----------------------------------------------

    def _hand_entry(self) -> Screen:
        if self.by_sum is None:
            return WentOut(self)
        player = self.match.expecting().choices["player"][0]
        held = self.match.state()["in_hand"][player]
        door = ToMenu(self)
        if self.by_sum:
            return SumPicker(self, player, held, door)
        return self.entry_picker(
            # Translators: the title of the picker of the cards left in a player's hand
            # (a long name is the title alone).
            fitting(pgettext("screen 18 (if it fits)", "{name}'s cards").format(name=player),
                    player, room=18), rules.VALUES,
            lambda values: {"type": "hand", "player": player, "values": values},
            door, start="5", limits=(held, held),
            summary=lambda values: "=" + str(sum(map(rules.card_points, values))))

    # -- buttons ---------------------------------------------------------------------

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        match = self.match
        if match.phase == rules.DEAL:
            if "end_match" in match.expecting().types:
                return NEXT_EXACT_KEYS if self.exact else NEXT_QUICK_KEYS
            return DEAL_EXACT_KEYS if self.exact else DEAL_QUICK_KEYS
        if match.phase != rules.PLAY:
            return WAIT_KEYS
        if match.stacked:
            return STACK_KEYS
        # Quick entry: OK lays a plain card, DOWN one that acts (a 2, A-D): both lay a
        # card, in words that fit 21 columns.
        if match.follow_up == rules.AGAIN:
            return AGAIN_EXACT_KEYS if self.exact else AGAIN_QUICK_KEYS
        return TURN_EXACT_KEYS if self.exact else TURN_QUICK_KEYS

    def key_values(self) -> dict[str, object]:
        return {"n": self.match.stacked}

    def press(self, ctx: Context, press: Press) -> Screen:
        if self.match.phase == rules.DEAL:
            return self._press_deal(ctx, press)
        if self.match.phase == rules.PLAY:
            return self._press_turn(ctx, press)
        return super().press(ctx, press)

    def _press_deal(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "roll") and not self.exact:
            return self.apply(ctx, {"type": "turn_up"})
        if is_(press, "roll") or is_(press, "ok"):
            # Translators: the title of the picker of the card turned up at the deal.
            return CardPicker(self, pgettext("screen 14", "First card"), None)
        if is_(press, "down") and "end_match" in self.match.expecting().types:
            lines = wrap(pgettext("screen 21x4", "No more games: the lowest total wins."))
            return Confirm(pgettext("screen 21", "End the match?"), lines,
                           lambda ctx: self.apply(ctx, {"type": "end_match"}), self)
        return super().press(ctx, press)

    def _press_turn(self, ctx: Context, press: Press) -> Screen:
        match = self.match
        player = match.current
        if is_(press, "up"):
            claims = match.expecting().choices.get("call_out", ())
            return self._call_out(ctx, claims) if claims else self._hands(self)
        if is_(press, "roll"):
            kind = next(k for k in ("pass", "draw_stack", "draw") if k in match.expecting().types)
            return self.apply(ctx, {"type": kind, "player": player})
        if is_(press, "ok"):
            if self.exact:
                return CardPicker(self, player, player)
            card = {"card": {"value": rules.DRAW_TWO}} if match.stacked else {}
            return self.apply(ctx, {"type": "play", "player": player, **card})
        if is_(press, "down"):
            if self.exact or match.stacked:
                return self._hands(self)
            return SpecialCard(self)
        return super().press(ctx, press)

    def _call_out(self, ctx: Context, claims: tuple[tuple[str, str], ...]) -> Screen:
        """The player calls out a forgotten word: one press, or a choice if several."""
        player = self.match.current

        def call(offender: str, word: str) -> Callable[[Context, Screen], Screen]:
            return lambda ctx, menu: self.apply(ctx, {
                "type": "call_out", "player": player, "offender": offender, "word": word})

        if len(claims) == 1:
            return call(*claims[0])(ctx, self)
        # Translators: the title over the players {name} may call out for not saying
        # their word (TRIO, DUO or UNO).
        return Menu(fitting(pgettext("screen 21 (if it fits)", "{name} calls:").format(
                        name=player), player),
                    [MenuItem(f"{offender}: {word}", call(offender, word))
                     for offender, word in claims], self)

    # -- picture ---------------------------------------------------------------------

    def draw(self, canvas: Canvas) -> None:
        state = self.match.state()
        if state["phase"] == rules.DEAL:
            self._draw_deal(canvas, state)
        elif state["phase"] == rules.PLAY:
            self._draw_turn(canvas, state)
        else:
            canvas.title(self.session.title)

    def _draw_deal(self, canvas: Canvas, state: dict) -> None:
        # Translators: {n} is the game's number in the match (the draw pile's count on
        # the title's right).
        title = pgettext("screen 12", "Game {n}").format(n=state["game_number"])
        canvas.title(title, _draw_pile(state, room=COLUMNS - len(title) - 1))
        first = self.match.seats.left_of(state["dealer"])
        # Translators: who deals this game.
        canvas.line(0, pgettext("screen 21", "Dealer: {name}").format(name=state["dealer"]))
        # Translators: the deal: seven cards to each player, then one card turned face up
        # to start the discard pile.
        canvas.line(1, pgettext("screen 21", "7 each, turn one up"))
        # Translators: who plays first.
        canvas.line(2, pgettext("screen 21", "First: {name}").format(name=first))

    def _draw_turn(self, canvas: Canvas, state: dict) -> None:
        # The name whole: beside a long one the draw pile is its count alone.
        name = state["current"]
        canvas.title(name, _draw_pile(state, room=COLUMNS - len(name) - 1))
        top = state["top"]
        canvas.big_text(1, BODY_TOP, top["value"] or "?")
        lines = [line for line in (_describe_top(top), _situation(state)) if line]
        lines += _who_next(state)
        # Three rows beside the value; a call-out pushes the card's words off first.
        for row, text in enumerate(lines[-3:]):
            canvas.text(BESIDE_X, BODY_TOP + row * LINE_H, text)
        canvas.line(3, _counts_line(state["in_hand"], state["current"], state["direction"],
                                    self.match.seats))


def _draw_pile(state: dict, room: int) -> str:
    """The title's right: how many cards are left in the draw pile, in ``room``
    columns: said shorter beside a long name, at the last the count alone."""
    cards = state["draw_pile"]
    # Translators: the title's right: how many cards are left in the draw pile (the
    # face-down stack players draw from); tried first (any length), the 8 characters
    # after it when it does not fit.
    whole = pgettext("screen 10 (if it fits)", "pile {cards}").format(cards=cards)
    # Translators: the title's right (8 characters): the cards left in the draw pile,
    # beside a name of 12 letters.
    short = pgettext("screen 8", "pile {cards}").format(cards=cards)
    return fitting(whole, short, str(cards), room=room)


def _count_row(words: str, count: int) -> str:
    """A row of the hands' list: the words and, right-aligned, a count."""
    return f" {words}{count:>{max(1, 19 - len(words))}}"


def _entered_exactly(events: list[dict]) -> bool:
    """True if the last card entered (played or turned up) was given exactly."""
    for event in reversed(events):
        if event.get("type") in ("play", "turn_up"):
            return len(event.get("card") or {}) == 3
    return False


def _describe_top(top: dict) -> str:
    """The top card beside its big value: colour and suit, or what its value does."""
    if top["colour"] is not None:
        # Translators: the top card's colour and suit, beside its value (17 characters).
        return pgettext("screen 17", "{colour} {suit}").format(
            colour=colour_word(top["colour"]), suit=suit_word(top["suit"]))
    # Translators: the top card has no effect (beside its value, 17 characters).
    plain = pgettext("screen 17", "plain card")
    if top["value"] is None:
        return plain
    return str(rules.EFFECTS.get(top["value"], plain))


def _situation(state: dict) -> str:
    """What the top card asks of the player now: the 2s to draw, the named colour."""
    if state["stacked"]:
        # Translators: 2s are stacked on the discard pile: the player draws {n} cards
        # unless they lay another 2.
        return npgettext("screen 17", "+{n} to draw!", "+{n} to draw!",
                         state["stacked"]).format(n=state["stacked"])
    if state["declared"]:
        # Translators: a D named this colour: the next card must be of it.
        return pgettext("screen 17", "now {colour}").format(
            colour=colour_word(state["declared"]).upper())
    if state["follow_up"] == rules.AGAIN:
        # Translators: after a C the player may lay one more card.
        return pgettext("screen 17", "one more card?")
    return ""


def _who_next(state: dict) -> list[str]:
    """Who plays next, or (a word was forgotten) the call-out UP makes."""
    calls = state["call_outs"]
    if calls:
        # Translators: two lines of 17: UP calls out {name}, who did not say {word}
        # (TRIO, DUO or UNO) in time.
        text = pgettext("screen 17x2", "UP: call {word}\non {name}")
        return folded(text.format(word=calls[0]["word"], name=calls[0]["offender"]), 17)
    return [next_player(state["next"])]


def _counts_line(in_hand: dict[str, int], current: str, direction: str, seats) -> str:
    """">> Ann7 Bob5 Cy3": the direction of play, then every player's cards in turn
    order from the player whose turn it is, names as short as needed (3 letters at the
    least); players who do not fit are counted at the end ("4 more", not "+4", which
    would read like cards to draw: UP lists them all)."""
    step = 1 if direction == "left" else -1
    arrow = ">>" if step == 1 else "<<"
    order = seats.round_from(current, step)
    for length in (6, 5, 4, 3):
        text = " ".join([arrow, *(f"{name[:length]}{in_hand[name]}" for name in order)])
        if len(text) <= COLUMNS:
            return text
    shown = [arrow]
    for index, name in enumerate(order):
        more = f" {_more(len(order) - index - 1)}" if index < len(order) - 1 else ""
        if len(" ".join(shown + [f"{name[:3]}{in_hand[name]}"])) + len(more) > COLUMNS:
            return " ".join(shown) + f" {_more(len(order) - index)}"
        shown.append(f"{name[:3]}{in_hand[name]}")
    return " ".join(shown)


def _more(players: int) -> str:
    """How many players the counts line leaves out ("4 more")."""
    # Translators: at the end of the line of every player's cards: {n} players left out
    # for room (UP lists them all); not "+4", which would read like cards to draw.
    return npgettext("screen 8", "{n} more", "{n} more", players).format(n=players)
