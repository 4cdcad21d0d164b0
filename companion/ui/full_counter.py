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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from companion.errors import CompanionError
from companion.games import full_counter as rules
from companion.session import Session
from companion.ui.canvas import BODY_TOP, CHAR_W, COLUMNS, WIDTH, Canvas, clip
from companion.ui.full_counter_deck import DeckScreen
from companion.ui.play import (
    GameOverScreen,
    GameScreen,
    ResultScreen,
    Row,
    SetupScreen,
    Standings,
    ValuePicker,
    next_choice,
)
from companion.ui.screen import (
    MENU_ROWS,
    Confirm,
    Context,
    Menu,
    MenuItem,
    Message,
    Press,
    Screen,
    is_,
    wrap,
)
from companion.ui.tools import ShuffleSetup

#: Picker labels of the two powers without a number.
POWER_LABELS = {rules.WILDFIRE: "W", rules.MIRROR: "M"}
#: One word for what a card does, shown while a play is entered.
EFFECT_WORDS = {
    rules.BLACK_MARKET: "reverse",
    rules.BACK_STABBER: "skip",
    rules.MAGNETIC_RAYS: "flip",
    rules.NUCLEAR_BLAST: "blast",
    rules.WILDFIRE: "burn",
    rules.MIRROR: "mirror",
}
#: How many games a match lasts, as the setup screen offers it (0: until ended).
GAME_COUNTS = (0, 1, 3, 5, 10)
#: The right-hand column of the table screen, and the characters that fit in it.
RIGHT_X = 50
RIGHT_COLUMNS = (WIDTH - RIGHT_X) // CHAR_W


def label(card: rules.Card) -> str:
    """A card as the picker shows it: its number, or W / M."""
    return POWER_LABELS.get(card, str(card))  # type: ignore[arg-type]


def card_of(text: str) -> rules.Card:
    """The card behind a picker label."""
    for card, shown in POWER_LABELS.items():
        if text == shown:
            return card
    return int(text)


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
    raise CompanionError("a play is one value (as many cards of it as you lay) or a chain "
                         "of consecutive values, like 5 6 7")


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
        which = "FU1" if deck.profile() == rules.DEFAULT_DECK else "own"
        return [
            (f"Mode: {'quick, no count' if self.quick else 'full, counted'}",
             lambda ctx: self.change(quick=not self.quick)),
            (f"Games: {self.games or 'until ended'}",
             lambda ctx: self.change(games=next_choice(GAME_COUNTS, self.games))),
            (f"Deck: {which}, {deck.size} cards", lambda ctx: DeckScreen(self)),
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

    def menu(self, ctx: Context) -> Screen:
        """The game menu, with losses for standings, the end of the match between games
        and the shuffle guide for the next deal."""
        menu = super().menu(ctx)
        items = []
        for item in menu.items:
            if item.label == "Standings":
                item = MenuItem("Losses", lambda ctx, m: self.losses(m))
            if item.label.startswith("Leave"):
                items.append(MenuItem("Shuffle guide", lambda ctx, m: self._shuffle(m)))
                if "end" in self.match.expecting().types:
                    items.append(MenuItem("End the match",
                                          lambda ctx, m: self._confirm_end(m)))
            items.append(item)
        menu.items = items
        return menu

    def losses(self, parent: Screen) -> Screen:
        return Standings(self.match, parent, title="Losses", high_wins=False)

    def _shuffle(self, parent: Screen) -> Screen:
        guide = ShuffleSetup(parent)
        guide.cards = self.deck.size
        return guide

    def _confirm_end(self, parent: Screen) -> Screen:
        return Confirm("End the match?", ["Fewest losses wins.", *self._loss_lines()],
                       lambda ctx: self.apply(ctx, {"type": "end"}), parent)

    def _loss_lines(self) -> list[str]:
        """Who has the fewest losses now, in up to three lines."""
        losses = self.match.losses
        fewest = min(losses.values())
        leaders = [name for name, n in losses.items() if n == fewest]
        names = wrap(" & ".join(leaders))
        if len(names) > 2:
            names = [f"{len(leaders)} players"]
        return [f"Fewest now, {fewest}:", *names]

    # -- buttons ---------------------------------------------------------------------

    @property
    def hint(self) -> str:  # type: ignore[override]
        if self.match.quick:
            return "ROLL plain  OK power"
        return "ROLL flip  OK other" if self._blind_only() else "ROLL play  OK other"

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
        start = str(beat) if beat is not None else str(self._lowest_plain())
        # The prompt is "Ann: 7 or higher": the name on the title, the rest under it.
        prompt = self.match.expecting().prompt.removeprefix(f"{player}: ")
        picker = ValuePicker(player, [label(card) for card in self.deck.cards()],
                             lambda ctx, entered: self._submit(ctx, player, entered, picker),
                             self, start=start, summary=self._effect_of, prompt=prompt)
        return picker

    def _lowest_plain(self) -> int:
        return next((n for n in range(1, self.deck.numbers + 1) if not self.deck.is_power(n)), 1)

    def _effect_of(self, entered: list[str]) -> str:
        """What the entry will do, in a word ("skip x2", "chain", "burn")."""
        cards = [card_of(text) for text in entered]
        if len(set(cards)) > 1:
            return "chain"
        word = EFFECT_WORDS.get(self.deck.role(cards[0]) or "", "")
        ability = self.deck.role(cards[0]) in rules.ABILITIES
        return f"{word} x{len(cards)}" if word and ability and len(cards) > 1 else word

    def _submit(self, ctx: Context, player: str, entered: list[str],
                picker: Screen) -> Screen:
        if not entered:
            return self.route(ctx)
        try:
            event = play_event(player, [card_of(text) for text in entered])
        except CompanionError as err:
            return Message("Not allowed", wrap(str(err)), picker)
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
            items.append(MenuItem("Picked up the pile", lambda ctx, menu: self.apply(
                ctx, {"type": "pickup", "player": player})))
        if "blind" in types:
            items.append(MenuItem("Blind card flipped", lambda ctx, menu: BlindPicker(
                self, player, menu)))
        if "out" in types:
            items += self._out_items()
        if match.zones is not None:  # out comes by itself: the counts instead
            items.append(MenuItem("Cards held", lambda ctx, menu: CardsHeld(match, menu)))
        return Menu(f"{player}: other", items, self)

    def _out_items(self) -> list[MenuItem]:
        """Going out by a press (a match that does not count the cards)."""
        match = self.match
        items = []
        last = (match.last or {}).get("player")
        if last in match.still_in:
            items.append(MenuItem(f"{last} is out", lambda ctx, menu: self._out(ctx, last)))
        items.append(MenuItem("Someone is out", lambda ctx, menu: Menu("Who is out?", [
            MenuItem(name, lambda ctx, m, name=name: self._out(ctx, name))
            for name in match.still_in], menu)))
        return items

    def _quick_items(self, player: str) -> list[MenuItem]:
        items = []
        for role in (rules.BLACK_MARKET, rules.BACK_STABBER, rules.MAGNETIC_RAYS):
            number = self.deck.number_of(role)
            if number is not None:
                items.append(MenuItem(rules.NAMES[role], self._count_menu(player, role),
                                      note=str(number)))
        blast = self.deck.number_of(rules.NUCLEAR_BLAST)
        if blast is not None:
            items.append(self._quick_item(player, rules.NUCLEAR_BLAST, "Nuclear Blast")
                         ._replace(note=str(blast)))
        if self.deck.wildfire:
            items.append(self._quick_item(player, rules.WILDFIRE, "Wildfire"))
        items.append(self._quick_item(player, rules.FOUR, "Four: burned"))
        return items

    def _quick_item(self, player: str, effect: str, words: str, count: int = 1) -> MenuItem:
        event: dict[str, Any] = {"type": "play", "player": player, "effect": effect}
        if effect in rules.ABILITIES:
            event["count"] = count
        return MenuItem(words, lambda ctx, menu: self.apply(ctx, event))

    def _count_menu(self, player: str, role: str) -> Callable[[Context, Screen], Screen]:
        def open_menu(ctx: Context, menu: Screen) -> Screen:
            counts = [self._quick_item(player, role, f"{n} card{'s' if n > 1 else ''}", n)
                      for n in range(1, self.deck.copies + 1)]
            return Menu(f"{rules.NAMES[role]} played", counts, menu)
        return open_menu

    def _out(self, ctx: Context, player: str) -> Screen:
        return self.apply(ctx, {"type": "out", "player": player})

    # -- picture ---------------------------------------------------------------------

    def draw(self, canvas: Canvas) -> None:
        state = self.match.state()
        if state["phase"] != rules.PLAY:
            canvas.title(self.session.title)
            canvas.line(0, clip(self.match.expecting().prompt))
            return
        turn = f"{state['current']}'s turn"
        arrow = ">>" if state["direction"] == "clockwise" else "<<"
        canvas.title(turn if len(turn) + 3 <= COLUMNS else state["current"], arrow)
        self._draw_to_beat(canvas, state)
        # The right column: the pile (and the deck, counted), what the player to play
        # has left face up or face down once past the hand, the last play, how many are
        # out (the direction is the title's arrow, ascending or descending the arrow by
        # the value).
        pile = "" if state["pile"] is None else f"pile {state['pile']}"
        if state["deck"]:
            pile += f" dk {state['deck']}"
        held = _holding_line(state, state["current"]) if state["zones"] else ""
        out = f"{len(state['out'])} out" if state["out"] else ""
        last = state["last"]
        said = [last["player"], *wrap(last["text"], RIGHT_COLUMNS)] if last else []
        if pile and out and len(said) > 2 and len(f"{pile}, {out}") <= RIGHT_COLUMNS:
            pile, out = f"{pile}, {out}", ""
        rows = [text for text in (pile, held, *said, out) if text]
        for row, text in enumerate(rows[:4]):
            canvas.text(RIGHT_X, BODY_TOP + row * 10, text)

    def _draw_to_beat(self, canvas: Canvas, state: dict) -> None:
        """The value to beat big, an arrow for up or down, and the run on top; "ANY"
        when any card goes. Quick mode knows no values: only the arrow."""
        if state["free"]:
            canvas.text(4, BODY_TOP + 8, "ANY", scale=2)
            return
        if state["to_beat"] is None:  # quick mode
            _arrow(canvas, 14, BODY_TOP + 3, 22, up=state["order"] == "ascending")
            return
        text = str(state["to_beat"])
        canvas.big_text(1, BODY_TOP + 2, text)
        _arrow(canvas, 2 + len(text) * 18, BODY_TOP + 8, 8, up=state["order"] == "ascending")
        run = state["top"]["run"]
        canvas.text(1, BODY_TOP + 30, f"x{run} of {rules.FOUR_OF_A_KIND}")


#: Past the hand, what a player plays from, as the table screen says it.
ZONE_WORDS = {"face_up": "face up", "blind": "face down"}


def _holding_line(state: dict, player: str) -> str:
    """Once ``player`` is past the hand, what they play from and how many are left
    there: "face up 2", "face down 3"; "" while on the hand (the player sees it; the
    DOWN screen has every count)."""
    zone = state["playing_from"].get(player)
    return f"{ZONE_WORDS[zone]} {state['zones'][player][zone]}" if zone in ZONE_WORDS else ""


class CardsHeld(Screen):
    """Every player's cards by count, the deck and the pile (a counted match): one row
    a player, hand / face-up / face-down, "out" for who is out. UP/DOWN scroll (five
    players need six rows), any other button goes back."""

    hint = "UP/DN more  OK back"

    def __init__(self, match: Any, parent: Screen):
        super().__init__(parent)
        self.match = match
        self.top = 0

    def rows(self) -> list[str]:
        """The deck and the pile, then a row a player: the name (up to 12 characters)
        and the cards in hand, face up and face down, under the title's words."""
        state = self.match.state()
        rows = [f"deck {state['deck']}, pile {state['pile']}"]
        for name in self.match.players:
            held = state["zones"][name]
            counts = ("out" if name in state["out"] else
                      f"{held['hand']:>3}{held['face_up']:>3}{held['blind']:>3}")
            rows.append(f"{name:<12}{counts:>9}")
        return rows

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            last_top = max(0, len(self.rows()) - MENU_ROWS)
            self.top = max(0, min(last_top, self.top + (1 if press.button == "down" else -1)))
            return self
        return self.parent.returned(ctx)

    def draw(self, canvas: Canvas) -> None:
        canvas.title("Cards: hand up down")
        for row, text in enumerate(self.rows()[self.top:self.top + MENU_ROWS]):
            canvas.line(row, text)


def _arrow(canvas: Canvas, x: int, y: int, size: int, up: bool) -> None:
    """A solid triangle ``size`` wide pointing up (ascending) or down (descending)."""
    half = size // 2
    if up:
        points = [(x, y + size), (x + size, y + size), (x + half, y)]
    else:
        points = [(x, y), (x + size, y), (x + half, y + size)]
    canvas.draw.polygon(points, fill=1)


class BlindPicker(ValuePicker):
    """The face-down card that was turned over: UP/DOWN to it, OK enters it."""

    hint = "OK this card"

    def __init__(self, table: FullCounterTable, player: str, parent: Screen):
        deck = table.deck
        super().__init__(f"{player}'s blind", [label(card) for card in deck.cards()],
                         self._flipped, parent, start=str(table._lowest_plain()))
        self.table = table
        self.player = player

    def _flipped(self, ctx: Context, entered: list[str]) -> Screen:
        event = {"type": "blind", "player": self.player, "value": card_of(entered[-1])}
        return self.table.apply(ctx, event, after=self)

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "ok") or is_(press, "roll"):  # one card: no list to finish
            return self._flipped(ctx, [self.values[self.cursor]])
        return super().press(ctx, press)


class StarterQuestion(Menu):
    """FU2 as questions: who has a face-up Gold Bar (first from the dealer's left)?
    Nobody: who has one in hand? Nobody again: the same for the next value."""

    hint = "OK pick  BACK menu"

    def __init__(self, table: FullCounterTable, face_up: bool):
        match = table.match
        self.table = table
        self.face_up = face_up
        self.value = match.asking_value
        if match.deck.role(self.value) == rules.GOLD_BAR:
            title = "Face-up Gold Bar?" if face_up else "Gold Bar in hand?"
        else:
            where = f"a face-up {self.value}" if face_up else f"a {self.value} in hand"
            title = f"Who has {where}?"
        items = [MenuItem(name, lambda ctx, menu, name=name: self._holder(ctx, name),
                          note="deals" if name == match.dealer else "")
                 for name in match.from_dealers_left]
        items.append(MenuItem("Nobody", lambda ctx, menu: self._nobody(ctx)))
        super().__init__(title, items, table)

    def _holder(self, ctx: Context, name: str) -> Screen:
        event: dict[str, Any] = {"type": "starter", "value": self.value,
                                 "face_up": [name] if self.face_up else []}
        if not self.face_up:
            event["in_hand"] = [name]
        return self.table.apply(ctx, event, after=self)

    def _nobody(self, ctx: Context) -> Screen:
        if self.face_up:
            return StarterQuestion(self.table, face_up=False)
        event = {"type": "starter", "value": self.value, "face_up": [], "in_hand": []}
        return self.table.apply(ctx, event, after=self)

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "back"):
            return self.table.menu(ctx) if self.face_up else StarterQuestion(self.table, True)
        return super().press(ctx, press)


class GameResult(ResultScreen):
    """The loser of the game, big; they deal the next. OK: next game; DOWN: end."""

    def __init__(self, table: FullCounterTable, index: int):
        super().__init__(table)
        self.record = table.match.result()["games"][index]

    @property
    def hint(self) -> str:  # type: ignore[override]
        return "OK on  UP losses" if self.table.match.over else "OK next  DN end match"

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "up"):
            return self.table.losses(self)
        if is_(press, "down") and "end" in self.table.match.expecting().types:
            return self.table._confirm_end(self)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        record = self.record
        canvas.title(f"Game {record['game']} over")
        canvas.line(0, "Last one left loses:")
        loser = record["loser"]
        scale = 2 if len(loser) <= 10 else 1
        canvas.text(1, BODY_TOP + 12, clip(loser, 21 // scale), scale=scale)
        canvas.line(3, "and deals the next")


class MatchOver(GameOverScreen):
    """The match's winners (fewest losses) big; DOWN every player's losses."""

    hint = "DN losses  OK end"
    heading = "Match over"

    def title_right(self, result: dict) -> str:
        games = len(result["games"])
        return f"{games} game{'s' if games != 1 else ''}"

    def down_screen(self) -> Screen:
        return self.table.losses(self)

    def draw_result(self, canvas: Canvas, result: dict) -> None:
        winners = result["winners"]
        fewest = result["totals"][winners[0]]
        canvas.text(1, BODY_TOP + 1, "Won with" if len(winners) == 1 else "Shared win,")
        canvas.text(1, BODY_TOP + 11, f"{'loss' if fewest == 1 else 'losses'}:")
        canvas.big_text(WIDTH - 2, BODY_TOP + 1, str(fewest), right=True)
        names = " & ".join(winners)
        if len(names) <= 10:
            canvas.text(1, BODY_TOP + 26, names, scale=2)
        else:
            canvas.paragraph(wrap(names)[:2], first_row=2)
