"""Full Counter at the table: who starts, whose turn, the direction, ascending or
descending, the value to beat and how many of it are on top, who is out; plays entered
in a few presses; the loser of each game and the losses of the match.

A match that counts the cards (option ``zones``: every new one entered by values) shows
the pile and the deck, and once the player to play is past the hand, how many face-up
or face-down cards they have left; DOWN lists every player's cards. The zone of a play
is the engine's to know from the counts, so a face-up card is entered like any other,
and ROLL turns over a face-down card once only those are left: no press more than
before.

The screens follow the engine (:mod:`companion.games.full_counter`): what they offer is
what ``match.expecting()`` allows, and every outcome goes in as an event. In quick mode
the values are not entered: ROLL is a plain play, OK picks an ability or power.

This room holds the setup and the table. Who starts, the face-down card turned over and
every player's cards are in :mod:`companion.ui.full_counter.turns`; the loser of a game
and the match's end in :mod:`companion.ui.full_counter.results`; the deck's editor in
:mod:`companion.ui.full_counter.deck`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.errors import CompanionError
from companion.games import full_counter as rules
from companion.lang import lazy, npgettext, pgettext
from companion.session import Session
from companion.ui.canvas import BODY_TOP, CHAR_W, COLUMNS, WIDTH, Canvas, fitting
from companion.ui.full_counter.cards import card_of, label
from companion.ui.full_counter.deck import DECK_EDIT_KEYS, DECK_KEYS, DeckScreen
from companion.ui.full_counter.results import (
    LAST_LOSER_KEYS,
    LOSER_KEYS,
    MATCH_OVER_KEYS,
    GameResult,
    MatchOver,
)
from companion.ui.full_counter.turns import (
    BLIND_KEYS,
    CARDS_HELD_KEYS,
    STARTER_KEYS,
    BlindPicker,
    CardsHeld,
    StarterQuestion,
)
from companion.ui.keys import GAME_MENU, PICKER_KEYS, SETUP_KEYS, STANDINGS_KEYS, Key, Keys
from companion.ui.picker import ValuePicker
from companion.ui.play import GameScreen, Row, SetupScreen, Standings, next_choice
from companion.ui.screen import Confirm, Context, Menu, MenuItem, Message, Press, Screen, is_, wrap
from companion.ui.tools import ShuffleSetup

#: One word for what a card does, shown beside the cards entered (10 characters).
EFFECT_WORDS = {
    # Translators: Full Counter, what a Black Market card does: the order of play turns.
    rules.BLACK_MARKET: lazy("screen 10", "reverse"),
    # Translators: Full Counter, what a Back Stabber card does: the next player is skipped.
    rules.BACK_STABBER: lazy("screen 10", "skip"),
    # Translators: Full Counter, what Magnetic Rays do: ascending becomes descending.
    rules.MAGNETIC_RAYS: lazy("screen 10", "flip"),
    # Translators: Full Counter, what a Nuclear Blast does to the pile (not a burn).
    rules.NUCLEAR_BLAST: lazy("screen 10", "blast"),
    # Translators: Full Counter, what a Wildfire does: the pile played this round is
    # burnt (taken out of play).
    rules.WILDFIRE: lazy("screen 10", "burn"),
    # Translators: Full Counter, what a Dirty Mirror does: it copies the card under it.
    rules.MIRROR: lazy("screen 10", "mirror"),
}
#: The same words for several cards of an ability laid at once ("skip x2").
EFFECT_TIMES = {
    # Translators: Full Counter, {n} Black Market cards laid together ("x" = times).
    rules.BLACK_MARKET: lazy("screen 11", "reverse x{n}"),
    # Translators: Full Counter, {n} Back Stabber cards laid together ("x" = times).
    rules.BACK_STABBER: lazy("screen 11", "skip x{n}"),
    # Translators: Full Counter, {n} Magnetic Rays laid together ("x" = times).
    rules.MAGNETIC_RAYS: lazy("screen 11", "flip x{n}"),
}
CARDS = Key("DOWN", lazy("screen 21xN", "Every player's cards by count: in hand, face up, "
                        "face down (a match that counts the cards)."))
# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
PLAY_KEYS = Keys(lazy("screen 21", "A turn"), lazy("screen 21", "ROLL play  OK other"),
                 Key("ROLL", lazy("screen 21xN", "The play of the player whose turn it is: "
                                  "pick its cards, OK adds each, ROLL enters them.")),
                 Key("OK", lazy("screen 21xN", "Something else: a pick-up, a face-down card, "
                                "who is out.")), CARDS, GAME_MENU)
FLIP_KEYS = Keys(lazy("screen 21", "Face-down cards left"),
                 lazy("screen 21", "ROLL flip  OK other"),
                 Key("ROLL", lazy("screen 21xN", "The player turned over a face-down card: "
                                  "say which.")),
                 Key("OK", lazy("screen 21xN", "Something else: a pick-up, every player's "
                                "cards.")), CARDS, GAME_MENU)
QUICK_KEYS = Keys(lazy("screen 21", "A turn, quick mode"),
                  lazy("screen 21", "ROLL plain  OK power"),
                  Key("ROLL", lazy("screen 21xN", "A plain play by the player whose turn it "
                                   "is.")),
                  Key("OK", lazy("screen 21xN", "Something else: a power or an ability (and "
                                 "how many), four of a value burnt, a pick-up, who is out.")),
                  GAME_MENU)
#: How many games a match lasts, as the setup screen offers it (0: until ended).
GAME_COUNTS = (0, 1, 3, 5, 10)
#: The right-hand column of the table screen, and the characters that fit in it.
RIGHT_X = 50
RIGHT_COLUMNS = (WIDTH - RIGHT_X) // CHAR_W


def play_event(player: str, cards: list[rules.Card]) -> dict[str, Any]:
    """The event for cards entered in the picker: a set is a ``play``, consecutive
    numbers a ``chain``; anything else is refused (CompanionError says why)."""
    if all(card == cards[0] for card in cards):
        event: dict[str, Any] = {"type": "play", "player": player, "value": cards[0]}
        if len(cards) > 1:
            event["count"] = len(cards)
        return event
    numbers = [card for card in cards if isinstance(card, int)]
    steps = {b - a for a, b in zip(numbers, numbers[1:], strict=False)}
    if len(numbers) == len(cards) and steps in ({1}, {-1}):
        return {"type": "chain", "player": player, "first": cards[0], "last": cards[-1]}
    # Translators: Full Counter, why cards entered together were refused.
    raise CompanionError(pgettext(
        "screen 21x6", "a play is one value (as many cards of it as you lay) or a chain "
        "of consecutive values, like 5 6 7"))


class FullCounterSetup(SetupScreen):
    """Players, full or quick mode, how many games, the deck profile; ROLL starts."""

    title = "Full Counter"
    game_id = "full-counter"
    refusals = (CompanionError,)

    def __init__(self, parent: Screen | None, names: list[str] | None = None):
        super().__init__(parent, names)
        self.quick = False
        self.games = 0
        self.deck = dict(rules.DEFAULT_DECK)

    def option_rows(self) -> list[Row]:
        deck = rules.Deck.from_option(self.deck)
        if deck.profile() == rules.DEFAULT_DECK:
            # Translators: the setup row of the deck: FU1 is the rule sheet's name of the
            # standard deck (keep it), {n} how many cards it has.
            cards = npgettext("screen 21", "Deck: FU1, {n} card", "Deck: FU1, {n} cards",
                              deck.size)
        else:
            # Translators: the setup row of the deck: a deck of the table's own making.
            cards = npgettext("screen 21", "Deck: own, {n} card", "Deck: own, {n} cards",
                              deck.size)
        # Translators: the setup row of the mode: every card value entered and counted.
        mode = (pgettext("screen 21", "Mode: quick, no count") if self.quick
                else pgettext("screen 21", "Mode: full, counted"))
        # Translators: the setup row of how many games the match lasts.
        games = (pgettext("screen 21", "Games: {n}").format(n=self.games) if self.games
                 else pgettext("screen 21", "Games: until ended"))
        return [
            (mode, lambda ctx: self.change(quick=not self.quick)),
            (games, lambda ctx: self.change(games=next_choice(GAME_COUNTS, self.games))),
            (cards.format(n=deck.size), lambda ctx: DeckScreen(self)),
        ]

    @property
    def items(self) -> list[MenuItem]:
        """The rows as menu items, for whoever reads this setup as the menu it once was."""
        return [MenuItem(label, lambda ctx, menu, action=action: action(ctx))
                for label, action in self.rows]

    def start(self, ctx: Context) -> GameScreen:
        options = {"quick": self.quick, "games": self.games, "deck": dict(self.deck)}
        return FullCounterTable(self.new_session(ctx, options), self.parent)

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down") and press.long:
            # As in a menu, which this setup was: a long press jumps to the first or last row.
            self.move_to(0 if press.button == "up" else len(self.rows) - 1)
            return self
        return super().press(ctx, press)


class FullCounterTable(GameScreen):
    """The game in play: whose turn, the direction, ascending or descending, the value to
    beat and how many of it lie on top, the last play, who is out."""

    all_keys = (SETUP_KEYS, DECK_KEYS, DECK_EDIT_KEYS, STARTER_KEYS, PLAY_KEYS, PICKER_KEYS,
                FLIP_KEYS, BLIND_KEYS, QUICK_KEYS, CARDS_HELD_KEYS, LOSER_KEYS,
                LAST_LOSER_KEYS, STANDINGS_KEYS, MATCH_OVER_KEYS)

    def __init__(self, session: Session, home: Screen | None):
        super().__init__(session, home)
        self.results_seen = len(self.match.games)

    @property
    def deck(self) -> rules.Deck:
        return self.match.deck

    # -- routing ---------------------------------------------------------------------

    def route(self, ctx: Context) -> Screen:
        match = self.match
        if len(match.games) > self.results_seen:
            self.results_seen = len(match.games)
            return GameResult(self, len(match.games) - 1)
        if match.over:
            return MatchOver(self)
        if match.phase == rules.DEAL:
            return StarterQuestion(self, face_up=True)
        return self

    def undone(self, ctx: Context) -> None:
        self.results_seen = min(self.results_seen, len(self.match.games))

    def menu(self, ctx: Context, came_from: Screen | None = None) -> Screen:
        """The game menu, with losses for standings, the end of the match between games
        and the shuffle guide for the next deal."""
        menu = super().menu(ctx, came_from)
        items = []
        for item in menu.items:
            if _is_row(item, "Standings"):
                # Translators: the game menu row of the players' losses (fewest wins).
                item = MenuItem(pgettext("screen 21", "Losses"),
                                lambda ctx, m: self.losses(m))
            if _is_row(item, "Leave (kept)"):
                items.append(MenuItem(pgettext("screen 21", "Shuffle guide"),
                                      lambda ctx, m: self._shuffle(m)))
                if "end" in self.match.expecting().types:
                    items.append(MenuItem(pgettext("screen 21", "End the match"),
                                          lambda ctx, m: self.confirm_end(m)))
            items.append(item)
        menu.items = items
        return menu

    def losses(self, parent: Screen) -> Screen:
        # Translators: the title of every player's losses (fewest first).
        return Standings(self.match, parent, title=pgettext("screen 17", "Losses"),
                         high_wins=False)

    def _shuffle(self, parent: Screen) -> Screen:
        # The deal before game n of the match is a place of its own: the guide opened
        # again for that deal shows the same plan (a shuffle is not re-rolled either).
        guide = ShuffleSetup(parent, lambda: self.session.chances.at(
            "shuffle", "", len(self.match.games)))
        guide.cards = self.deck.size
        return guide

    def confirm_end(self, parent: Screen) -> Screen:
        return Confirm(pgettext("screen 21", "End the match?"),
                       [pgettext("screen 21", "Fewest losses wins."), *self._loss_lines()],
                       lambda ctx: self.apply(ctx, {"type": "end"}), parent)

    def _loss_lines(self) -> list[str]:
        """Who has the fewest losses now, in up to three lines."""
        losses = self.match.losses
        fewest = min(losses.values())
        leaders = [name for name, n in losses.items() if n == fewest]
        names = wrap(" & ".join(leaders))
        if len(names) > 2:
            names = [npgettext("screen 21", "{n} player", "{n} players", len(leaders))
                     .format(n=len(leaders))]
        # Translators: above the names of who has the fewest losses now; {n} is how many.
        return [pgettext("screen 21", "Fewest now, {n}:").format(n=fewest), *names]

    # -- buttons ---------------------------------------------------------------------

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        if self.match.quick:
            return QUICK_KEYS
        return FLIP_KEYS if self._blind_only() else PLAY_KEYS

    def _blind_only(self) -> bool:
        """Counted, and only face-down cards are left: ROLL turns one over."""
        types = self.match.expecting().types
        return "blind" in types and "play" not in types

    def press(self, ctx: Context, press: Press) -> Screen:
        match = self.match
        if match.phase != rules.PLAY:
            return super().press(ctx, press)
        if is_(press, "roll") and match.quick:
            return self.apply(ctx, {"type": "play", "player": match.current})
        if is_(press, "roll") and self._blind_only():
            return BlindPicker(self, match.current, self)
        if is_(press, "roll"):
            return self._play_picker()
        if is_(press, "ok"):
            return self._others(ctx)
        if is_(press, "down") and match.zones is not None:
            return CardsHeld(match, self)
        return super().press(ctx, press)

    def _play_picker(self) -> Screen:
        player = self.match.current
        beat = self.match.to_beat
        start = str(beat) if beat is not None else str(self.lowest_plain())
        # The name on the title, what may be played under it ("7 or higher"): built from
        # its parts, as every language writes the prompt its own way ("Ann : 7 ou plus").
        prompt = self.match.play_words()
        picker = ValuePicker(player, [label(card) for card in self.deck.cards()],
                             lambda ctx, entered: self._submit(ctx, player, entered, picker),
                             self, start=start, summary=self._effect_of, prompt=prompt)
        return picker

    def lowest_plain(self) -> int:
        return next((n for n in range(1, self.deck.numbers + 1) if not self.deck.is_power(n)), 1)

    def _effect_of(self, entered: list[str]) -> str:
        """What the entry will do, in a word ("skip x2", "chain", "burn")."""
        cards = [card_of(text) for text in entered]
        if len(set(cards)) > 1:
            # Translators: Full Counter, consecutive values laid at once (like 5 6 7).
            return pgettext("screen 10", "chain")
        role = self.deck.role(cards[0]) or ""
        if role in EFFECT_TIMES and len(cards) > 1:
            return str(EFFECT_TIMES[role]).format(n=len(cards))
        return str(EFFECT_WORDS.get(role, ""))

    def _submit(self, ctx: Context, player: str, entered: list[str],
                picker: Screen) -> Screen:
        if not entered:
            return self.route(ctx)
        try:
            event = play_event(player, [card_of(text) for text in entered])
        except CompanionError as err:
            return Message(pgettext("screen 21", "Not allowed"), wrap(str(err)), picker)
        return self.apply(ctx, event, after=picker)

    def _others(self, ctx: Context) -> Screen:
        """Everything but a plain play: pick-ups, blind cards, powers, players out."""
        match = self.match
        player = match.current
        items: list[MenuItem] = []
        if match.quick:
            items += self._quick_items(player)
        types = match.expecting().types
        if "pickup" in types:
            # Translators: the player could not beat the pile and took it into their hand
            # (the pile: the cards played this round, which a Wildfire burns).
            items.append(MenuItem(pgettext("screen 21", "Picked up the pile"),
                                  lambda ctx, menu: self.apply(
                                      ctx, {"type": "pickup", "player": player})))
        if "blind" in types:
            # Translators: the player turned over one of their face-down table cards.
            items.append(MenuItem(pgettext("screen 21", "Blind card flipped"),
                                  lambda ctx, menu: BlindPicker(self, player, menu)))
        if "out" in types:
            items += self._out_items()
        if match.zones is not None:  # out comes by itself: the counts instead
            # Translators: every player's cards by count: in hand, face up, face down.
            items.append(MenuItem(pgettext("screen 21", "Cards held"),
                                  lambda ctx, menu: CardsHeld(match, menu)))
        # Translators: the menu title of what else the player did than a plain play.
        # A long name is the title alone.
        return Menu(fitting(pgettext("screen 21 (if it fits)", "{name}: other").format(
            name=player), player), items, self)

    def _out_items(self) -> list[MenuItem]:
        """Going out by a press (a match that does not count the cards)."""
        match = self.match
        items = []
        last = (match.last or {}).get("player")
        if last in match.still_in:
            # Translators: the player has no cards left: out of this game.
            items.append(MenuItem(pgettext("screen 21", "{name} is out").format(name=last),
                                  lambda ctx, menu: self._out(ctx, last)))
        items.append(MenuItem(pgettext("screen 21", "Someone is out"),
                              lambda ctx, menu: Menu(pgettext("screen 21", "Who is out?"), [
                                  MenuItem(name, lambda ctx, m, name=name: self._out(ctx, name))
                                  for name in match.still_in], menu)))
        return items

    def _quick_items(self, player: str) -> list[MenuItem]:
        items = []
        for role in (rules.BLACK_MARKET, rules.BACK_STABBER, rules.MAGNETIC_RAYS):
            number = self.deck.number_of(role)
            if number is not None:
                items.append(MenuItem(str(rules.NAMES[role]), self._count_menu(player, role),
                                      note=str(number)))
        blast = self.deck.number_of(rules.NUCLEAR_BLAST)
        if blast is not None:
            # Translators: a Full Counter card's name as its cards print it (the number it
            # is in this deck stands beside it).
            name = pgettext("screen 18", "Nuclear Blast")
            items.append(self._quick_item(player, rules.NUCLEAR_BLAST, name)
                         ._replace(note=str(blast)))
        if self.deck.wildfire:
            # Translators: a Full Counter card's name as its cards print it.
            items.append(self._quick_item(player, rules.WILDFIRE,
                                          pgettext("screen 21", "Wildfire")))
        # Translators: Full Counter, four of a kind on top of the pile burnt it (the pile
        # is taken out of play).
        items.append(self._quick_item(player, rules.FOUR, pgettext("screen 21", "Four: burned")))
        return items

    def _quick_item(self, player: str, effect: str, words: str, count: int = 1) -> MenuItem:
        event: dict[str, Any] = {"type": "play", "player": player, "effect": effect}
        if effect in rules.ABILITIES:
            event["count"] = count
        return MenuItem(words, lambda ctx, menu: self.apply(ctx, event))

    def _count_menu(self, player: str, role: str) -> Callable[[Context, Screen], Screen]:
        def open_menu(ctx: Context, menu: Screen) -> Screen:
            # Translators: how many cards of that Full Counter card were laid at once.
            counts = [self._quick_item(player, role, npgettext(
                          "screen 21", "{n} card", "{n} cards", n).format(n=n), n)
                      for n in range(1, self.deck.copies + 1)]
            # Translators: the menu title of how many of a Full Counter card were laid.
            # (a long one is the card's name alone).
            power = rules.NAMES[role]
            title = fitting(pgettext("screen 21 (if it fits)", "{power} played").format(
                power=power), power)
            return Menu(title, counts, menu)
        return open_menu

    def _out(self, ctx: Context, player: str) -> Screen:
        return self.apply(ctx, {"type": "out", "player": player})

    # -- picture ---------------------------------------------------------------------

    def draw(self, canvas: Canvas) -> None:
        state = self.match.state()
        if state["phase"] != rules.PLAY:
            canvas.title(self.session.title)
            canvas.paragraph(wrap(self.match.expecting().prompt)[:4])  # the body's 4 lines
            return
        # Translators: whose turn it is, in the title beside the direction of play
        # (a long name is shown alone).
        turn = pgettext("screen 18 (if it fits)", "{name}'s turn").format(name=state["current"])
        arrow = ">>" if state["direction"] == "clockwise" else "<<"
        canvas.title(turn if len(turn) + 3 <= COLUMNS else state["current"], arrow)
        self._draw_to_beat(canvas, state)
        # The right column: the pile (and the deck, counted), what the player to play
        # has left face up or face down once past the hand, the last play, how many are
        # out (the direction is the title's arrow, ascending or descending the arrow by
        # the value).
        pile, deck = _pile_lines(state["pile"], state["deck"])
        held = _holding_line(state, state["current"]) if state["zones"] else ""
        # Translators: Full Counter's table screen, right column (13 characters): how
        # many players are out of this game (no cards left).
        out = (npgettext("screen 13", "{n} out", "{n} out", len(state["out"]))
               .format(n=len(state["out"])) if state["out"] else "")
        last = state["last"]
        said = [last["player"], *wrap(last["text"], RIGHT_COLUMNS)] if last else []
        if pile and out and len(said) > 2 and len(f"{pile}, {out}") <= RIGHT_COLUMNS:
            pile, out = f"{pile}, {out}", ""
        rows = [text for text in (pile, deck, held, *said, out) if text]
        # The last play is shown whole (a blind card's outcome is its last line): the
        # counts give way to it, the deck's own line and what the player holds first
        # (DOWN lists every count).
        for spare in (deck, held, out, pile):
            if len(rows) > 4 and spare in rows:
                rows.remove(spare)
        for row, text in enumerate(rows[:4]):
            canvas.text(RIGHT_X, BODY_TOP + row * 10, text)

    def _draw_to_beat(self, canvas: Canvas, state: dict) -> None:
        """The value to beat big, an arrow for up or down, and the run on top; "ANY"
        when any card goes. Quick mode knows no values: only the arrow."""
        if state["free"]:
            # Translators: Full Counter, where the value to beat stands when any card may
            # be played (the pile was burnt or is empty): up to 7 characters; 3 or fewer
            # are drawn twice the size.
            free = pgettext("screen 7", "ANY")
            canvas.text(4, BODY_TOP + 8, free, scale=2 if len(free) <= 3 else 1)
            return
        if state["to_beat"] is None:  # quick mode
            _arrow(canvas, 14, BODY_TOP + 3, 22, up=state["order"] == "ascending")
            return
        text = str(state["to_beat"])
        canvas.big_text(1, BODY_TOP + 2, text)
        _arrow(canvas, 2 + len(text) * 18, BODY_TOP + 8, 8, up=state["order"] == "ascending")
        run = state["top"]["run"]
        # Translators: Full Counter, under the value to beat (8 characters): how many
        # cards of that value lie on top of the pile, out of the four that burn it.
        canvas.text(1, BODY_TOP + 30, pgettext("screen 8", "x{n} of 4").format(n=run))


def _pile_lines(pile: int | None, deck: int | None) -> tuple[str, str]:
    """The right column's first lines: the cards in the pile and (a counted match)
    in the deck, on one line or two (the second gives way first); ("", "") in quick
    mode, which counts neither."""
    if pile is None:
        return "", ""
    # Translators: Full Counter's table screen, right column (13 characters): how many
    # cards lie in the pile played onto this round (the one a Wildfire burns).
    alone = pgettext("screen 13", "pile {n}").format(n=pile)
    if not deck:
        return alone, ""
    # Translators: Full Counter's table screen, right column: "pile" is how many cards
    # lie in the pile played onto this round (the one a Wildfire burns); "dk" is short
    # for deck, the face-down stack hands are refilled from. One line of 13 characters,
    # or two with a line break (\n) between the pile and the deck; tried first: when
    # the counts do not fit, the pile's alone (DOWN lists the deck too).
    both = pgettext("screen 13x2 (if it fits)", "pile {n} dk {cards}").format(
        n=pile, cards=deck).split("\n")
    if len(both) > 2 or any(len(line) > RIGHT_COLUMNS for line in both):
        return alone, ""
    return both[0], both[1] if len(both) == 2 else ""


#: Past the hand, what a player plays from, as the table screen says it.
ZONE_WORDS = {
    # Translators: Full Counter's table screen, right column (13 characters): how many
    # face-up table cards the player has left to play (their hand is used up).
    "face_up": lazy("screen 13", "face up {n}"),
    # Translators: Full Counter's table screen, right column (13 characters): how many
    # face-down table cards the player has left, played blind.
    "blind": lazy("screen 13", "face down {n}"),
}


def _holding_line(state: dict, player: str) -> str:
    """Once ``player`` is past the hand, what they play from and how many are left
    there: "face up 2", "face down 3"; "" while on the hand (the player sees it; the
    DOWN screen has every count)."""
    zone = state["playing_from"].get(player)
    if zone not in ZONE_WORDS:
        return ""
    return str(ZONE_WORDS[zone]).format(n=state["zones"][player][zone])


def _is_row(item: MenuItem, words: str) -> bool:
    """True if ``item`` is the shared game menu's row of ``words`` (English or as the
    menu says it now)."""
    return item.label in (words, pgettext("screen 21", words))


def _arrow(canvas: Canvas, x: int, y: int, size: int, up: bool) -> None:
    """A solid triangle ``size`` wide pointing up (ascending) or down (descending)."""
    half = size // 2
    if up:
        points = [(x, y + size), (x + size, y + size), (x + half, y)]
    else:
        points = [(x, y), (x + size, y), (x + half, y + size)]
    canvas.draw.polygon(points, fill=1)
