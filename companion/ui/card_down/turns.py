"""Final Card-Down's questions during a turn: the exact card picker (value, colour,
suit, live whether the card may go), quick mode's special cards, the TRIO/DUO/UNO word
question and the colour a D names.

Each goes back to the table that opened it (:mod:`companion.ui.card_down.table`), and what it
offers is what the engine's ``match.expecting()`` allows.
"""

from __future__ import annotations

from collections.abc import Callable

from companion.games import card_down as rules
from companion.lang import lazy, npgettext, pgettext
from companion.ui.canvas import BODY_TOP, LINE_H, Canvas, clip, fitting
from companion.ui.card_down.words import BESIDE_X, FIELD_WORDS, SPECIAL_KEYS, colour_word, suit_word
from companion.ui.keys import GAME_MENU, Key, Keys
from companion.ui.play import GameScreen
from companion.ui.screen import Context, Menu, MenuItem, Press, Screen, is_

# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
CARD_KEYS = Keys(lazy("screen 21", "Entering a card"), lazy("screen 21", "OK next  ROLL enter"),
                 Key("UP/DOWN", lazy("screen 21xN", "Change the part marked: the value, the "
                                     "colour or the suit (held: four at a time).")),
                 Key("OK", lazy("screen 21xN", "Mark the next part.")),
                 Key("ROLL", lazy("screen 21xN", "Enter the card; one that cannot go is "
                                  "refused with the reason.")),
                 Key("BACK", lazy("screen 21xN", "Go back without a card.")))
SPECIAL_CARD_KEYS = Keys(
    lazy("screen 21", "A special card"), lazy("screen 21", "BACK cancel"),
    Key("UP", lazy("screen 21xN", "A 2: the next player draws 2 or lays a 2.")),
    Key("DOWN", lazy("screen 21xN", "An A: the next player is skipped.")),
    Key("OK", lazy("screen 21xN", "A B: the order of play turns round.")),
    Key("ROLL", lazy("screen 21xN", "A C: the player may lay one more card.")),
    Key("OK", lazy("screen 21xN", "A D: the player names a colour."), long=True),
    Key("ROLL", lazy("screen 21xN", "A 0 (NULL), which goes on anything."), long=True),
    Key("BACK", lazy("screen 21xN", "Cancel: no card was laid.")))
WORD_KEYS = Keys(lazy("screen 21", "TRIO, DUO or UNO?"), lazy("screen 21", "OK said  DOWN forgot"),
                 Key("OK/ROLL", lazy("screen 21xN", "The player said the word in time.")),
                 Key("DOWN", lazy("screen 21xN", "The player forgot it: the next player may "
                                  "call it out and make them draw 2.")), GAME_MENU)
COLOUR_KEYS = Keys(lazy("screen 21", "A colour named"), lazy("screen 21", "UP/DOWN move  OK pick"),
                   Key("UP/DOWN", lazy("screen 21xN", "Move to the colour the player named.")),
                   Key("OK/ROLL", lazy("screen 21xN", "That colour (or none named).")),
                   GAME_MENU)


class CardPicker(Screen):
    """One exact card: UP/DOWN change the value, colour or suit under the cursor, OK
    moves the cursor on, ROLL enters the card. It starts on the top card (or the 2 that
    a stack needs, or the named colour), so the card shown first always matches."""

    roll_ready = True
    FIELDS = ("value", "colour", "suit")

    keys = CARD_KEYS

    def __init__(self, table: GameScreen, title: str, player: str | None):
        super().__init__(table)
        self.table = table
        self.title = title
        self.player = player  # None: the first card of a game
        match = table.match
        top = match.top or rules.Card()
        value = rules.DRAW_TWO if match.stacked else top.value or rules.NULL
        colour = match.declared or top.colour or rules.COLOURS[0]
        self.choice = [value, colour, top.suit or rules.SUITS[0]]
        self.field = 0

    @property
    def card(self) -> rules.Card:
        return rules.Card(*self.choice)

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            options = (rules.VALUES, rules.COLOURS, rules.SUITS)[self.field]
            step = (1 if press.button == "down" else -1) * (4 if press.long else 1)
            at = options.index(self.choice[self.field])
            self.choice[self.field] = options[(at + step) % len(options)]
        elif is_(press, "ok"):
            self.field = (self.field + 1) % len(self.FIELDS)
        elif is_(press, "roll"):
            return self._enter(ctx)
        else:
            return super().press(ctx, press)
        return self

    def _enter(self, ctx: Context) -> Screen:
        card = self.card.as_json()
        if self.player is None:
            return self.table.apply(ctx, {"type": "turn_up", "card": card}, after=self)
        return self.table.apply(ctx, {"type": "play", "player": self.player, "card": card},
                                after=self)

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title, str(FIELD_WORDS[self.FIELDS[self.field]]))
        # (the title is the player's name, or "First card")
        value, colour, suit = self.choice
        canvas.big_text(3, BODY_TOP, value)
        if self.field == 0:
            canvas.underline(2, BODY_TOP + 22, 20)
        canvas.text(BESIDE_X + 4, BODY_TOP, colour_word(colour), invert=self.field == 1)
        canvas.text(BESIDE_X + 4, BODY_TOP + LINE_H, suit_word(suit), invert=self.field == 2)
        if self.player is not None:
            reason = self.table.match.why_not(self.card)
            # Translators: whether the card picked may be laid on the discard pile now.
            canvas.text(BESIDE_X + 4, BODY_TOP + 2 * LINE_H,
                        pgettext("screen 16", "matches") if reason is None
                        else pgettext("screen 16", "cannot go"))
            canvas.line(3, clip(_on_top(self.table.match)))


def _on_top(match: rules.CardDown) -> str:
    """What the card goes on, for the picker's last line."""
    if match.stacked:
        # Translators: what the card goes on: stacked 2s ({n} cards to draw so far),
        # only another 2 may go.
        return pgettext("screen 21", "on 2s: +{n}, a 2 only").format(n=match.stacked)
    if match.declared:
        # Translators: what the card goes on: a D that named {colour}; that colour or
        # a 0 may go.
        return pgettext("screen 21", "on D: {colour} or a 0").format(
            colour=colour_word(match.declared))
    return _on_card(match.top)


def _on_card(card: rules.Card | None) -> str:
    """"on 7 red hearts", "on an A", "on a plain card": the top card, for the picker."""
    if card is not None and card.exact:
        # Translators: what the card goes on: the top card's value, colour and suit;
        # tried first (any length): the card alone ("7 red hearts") follows it where
        # the longest colour and suit leave no room.
        whole = pgettext("screen 21 (if it fits)", "on {value} {colour} {suit}").format(
            value=card.value, colour=colour_word(card.colour), suit=suit_word(card.suit))
        return fitting(whole, rules.card_words(card.value, card.colour, card.suit))
    if card is not None and card.value is not None and card.value in "8AEF":
        # Translators: what the card goes on: a card known by its value only ("an" as
        # English says 8, A, E and F).
        return pgettext("screen 21", "on an {value}").format(value=card.value)
    if card is not None and card.value is not None:
        # Translators: what the card goes on: a card known by its value only.
        return pgettext("screen 21", "on a {value}").format(value=card.value)
    # Translators: what the card goes on: a card entered without its value.
    return pgettext("screen 21", "on a plain card")


class SpecialCard(Screen):
    """Quick mode: which special card was played, one press each (held for D and 0)."""

    keys = SPECIAL_CARD_KEYS

    def __init__(self, table: GameScreen):
        super().__init__(table)
        self.table = table
        self.player = table.match.current

    def press(self, ctx: Context, press: Press) -> Screen:
        for button, long, value in SPECIAL_KEYS:
            if is_(press, button, long):
                return self.table.apply(ctx, {"type": "play", "player": self.player,
                                              "card": {"value": value}}, after=self.table)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        # Translators: the title over the special cards, one of which the player laid
        # ("Ann played a" ... 2, A, B, C, D or 0: the lines under it; a long name is
        # the title alone).
        canvas.title(fitting(pgettext("screen 21 (if it fits)", "{name} played a").format(
            name=self.player), self.player))
        # Translators: which button names which special card, and what it does: 2 the
        # next draws 2, A skips the next, B reverses, C one card again, D names a colour,
        # 0 goes on anything ("hold": a long press). Keep the columns lined up.
        canvas.paragraph([pgettext("screen 21", "UP:2 draw2  DN:A skip"),
                          pgettext("screen 21", "OK:B rev ROLL:C again"),
                          pgettext("screen 21", "hold OK:   D colour"),
                          pgettext("screen 21", "hold ROLL: 0 null")])


class WordQuestion(Screen):
    """The player went down to 3, 2 or 1 card: did they say TRIO, DUO or UNO?"""

    roll_ready = True

    keys = WORD_KEYS

    def __init__(self, table: GameScreen):
        super().__init__(table)
        self.table = table
        expect = table.match.expecting()
        self.player = expect.player
        self.word = expect.choices["word"][0]

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "ok") or is_(press, "roll"):
            return self._answer(ctx, "said")
        if is_(press, "down"):
            return self._answer(ctx, "forgot")
        if is_(press, "back"):
            return self.table.menu(ctx, self)
        return self

    def _answer(self, ctx: Context, kind: str) -> Screen:
        return self.table.apply(ctx, {"type": kind, "player": self.player, "word": self.word})

    def draw(self, canvas: Canvas) -> None:
        held = self.table.match.in_hand[self.player]
        # Translators: the player and how many cards they hold now (a long name is the
        # title alone: the word asked for says how many).
        canvas.title(fitting(npgettext("screen 21 (if it fits)", "{name}: {n} card",
                                       "{name}: {n} cards", held).format(name=self.player, n=held),
                             self.player))
        # Translators: the word the player had to say (TRIO, DUO or UNO: keep it), asked
        # as a question, drawn big (7 characters).
        canvas.centered(BODY_TOP + 1, pgettext("screen 7", "{word}?").format(word=self.word),
                        scale=3)
        # Translators: did the player say the word ({word}: TRIO, DUO or UNO) in time? (The
        # shorter form is shown when the name is long.)
        question = pgettext("screen 21 (if it fits)", "Did {name} say {word}?")
        canvas.line(3, fitting(question.format(name=self.player, word=self.word),
                               pgettext("screen 21", "Said {word} in time?").format(
                                   word=self.word)), center=True)


class ColourMenu(Menu):
    """After a D: the colour the player names (or none); BACK opens the game menu."""

    keys = COLOUR_KEYS

    def __init__(self, table: GameScreen):
        self.table = table
        player = table.match.current

        def name(colour: str | None) -> Callable[[Context, Screen], Screen]:
            event = ({"type": "colour", "player": player, "colour": colour} if colour
                     else {"type": "pass", "player": player})
            return lambda ctx, menu: table.apply(ctx, event)

        items = [MenuItem(colour_word(colour).capitalize(), name(colour))
                 for colour in rules.COLOURS]
        # Translators: after a D, the player named no colour (passed).
        items.append(MenuItem(pgettext("screen 21", "No colour named"), name(None)))
        # Translators: the title over the colours the player may name after a D.
        super().__init__(fitting(pgettext("screen 21 (if it fits)", "{name} names:").format(
            name=player), player), items, table)
        top = table.match.top
        if top is not None and top.colour in rules.COLOURS:
            self.selected = rules.COLOURS.index(top.colour)
            self._scroll()

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "back"):
            return self.table.menu(ctx, self)
        return super().press(ctx, press)
