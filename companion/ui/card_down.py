"""Final Card-Down at the table: the top card, whose turn, the stacked 2s, every hand's
count, the TRIO/DUO/UNO questions and call-outs, the end-of-game hands and the standings.

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
from companion.session import Session
from companion.ui.canvas import BODY_TOP, COLUMNS, LINE_H, WIDTH, Canvas, clip, fitting
from companion.ui.play import (
    GameOverScreen,
    GameScreen,
    ResultScreen,
    Row,
    SetupScreen,
    Standings,
    next_choice,
)
from companion.ui.screen import (
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
from companion.words import counted

#: Where text beside the big top-card value starts (17 characters fit there).
BESIDE_X = 24
#: The "games" option as the setup screen offers it (0: until the table stops).
GAME_COUNTS = (0, 1, 2, 3, 4, 5, 6, 8, 10)
#: Quick mode: the button (and long press) that names each special card, in the order
#: the chooser lists them.
SPECIAL_KEYS: tuple[tuple[str, bool, str], ...] = (
    ("up", False, rules.DRAW_TWO),
    ("down", False, rules.SKIP),
    ("ok", False, rules.REVERSE),
    ("roll", False, rules.ONE_MORE),
    ("ok", True, rules.NAME_COLOUR),
    ("roll", True, rules.NULL),
)


class CardDownSetup(SetupScreen):
    """Players, how many games, quick or exact entry; ROLL (or OK on Start) starts."""

    title = "Final Card-Down"
    game_id = "card-down"

    def __init__(self, parent: Screen | None, names: list[str] | None = None):
        super().__init__(parent, names)
        self.games = 0
        self.exact = False

    def option_rows(self) -> list[Row]:
        games = f"{self.games}" if self.games else "until you stop"
        return [
            (f"Games: {games}",
             lambda ctx: self.change(games=next_choice(GAME_COUNTS, self.games))),
            (f"Entry: {'exact' if self.exact else 'quick'}",
             lambda ctx: self.change(exact=not self.exact)),
        ]

    def start(self, ctx: Context) -> GameScreen:
        table = CardDownTable(self.new_session(ctx, {"games": self.games}), self.parent)
        table.exact = self.exact
        return table


class CardDownTable(GameScreen):
    """The game in play: the top card big, what it asks for, whose turn, every count."""

    roll_ready = True

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
            return Message("Draw pile empty", ["Turn the discard pile", "over, top card stays.",
                                               f"{rules.n_cards(turned)} to draw."], screen)
        return screen

    def undone(self, ctx: Context) -> None:
        self.results_seen = min(self.results_seen, len(self.match.games))

    def menu(self, ctx: Context) -> Screen:
        """The game menu with card entry (quick/exact) and the hands."""
        menu = super().menu(ctx)
        mode = "exact" if self.exact else "quick"
        menu.items.insert(1, MenuItem("Card entry", lambda ctx, menu: self._switch_entry(),
                                      note=mode))
        menu.items.insert(2, MenuItem("Cards in hand", lambda ctx, menu: self._hands(menu)))
        return menu

    def _switch_entry(self) -> Screen:
        self.exact = not self.exact
        if self.exact:
            lines = ["Exact: value, colour", "and suit of every", "card; wrong cards",
                     "are refused."]
        else:
            lines = ["Quick: OK plain card,", "DOWN special card,", "ROLL draw."]
        return Message("Card entry", lines, self)

    def _hands(self, parent: Screen) -> Screen:
        from companion.ui.screen import Lines

        state = self.match.state()
        lines = [f"{'>' if name == state['current'] else ' '}{clip(name, 14):<14}"
                 f"{count:>5}" for name, count in state["in_hand"].items()]
        lines.append(f" draw pile{state['draw_pile']:>10}")
        lines.append(f" discard pile{state['discard_pile']:>7}")
        return Lines("Cards in hand", lines, parent)

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
            f"{player}'s cards", rules.VALUES,
            lambda values: {"type": "hand", "player": player, "values": values},
            door, start="5", limits=(held, held),
            summary=lambda values: "=" + str(sum(map(rules.card_points, values))))

    # -- buttons ---------------------------------------------------------------------

    @property
    def hint(self) -> str:  # type: ignore[override]
        match = self.match
        if match.phase == rules.DEAL:
            # one space: "ROLL turned up DN end" is the whole line (21 columns)
            end = " DN end" if "end_match" in match.expecting().types else ""
            return ("ROLL card" if self.exact else "ROLL turned up") + end
        if match.phase != rules.PLAY:
            return ""
        if match.stacked:
            return f"OK a 2  ROLL draw {match.stacked}"
        # Quick entry: OK lays a plain card, DOWN one that acts (a 2, A-D): both lay a
        # card, in words that fit 21 columns.
        if match.follow_up == rules.AGAIN:
            return "OK card  ROLL no more" if self.exact else "OK/DN card ROLL done"
        return "OK card  ROLL draw" if self.exact else "OK/DN card ROLL draw"

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
            return CardPicker(self, "First card", None)
        if is_(press, "down") and "end_match" in self.match.expecting().types:
            return Confirm("End the match?", ["No more games: the", "lowest total wins."],
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
        return Menu(f"{player} calls:", [MenuItem(f"{offender}: {word}", call(offender, word))
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
        canvas.title(f"Game {state['game_number']}", f"pile {state['draw_pile']}")
        first = self.match.seats.left_of(state["dealer"])
        canvas.line(0, f"Dealer: {state['dealer']}")
        canvas.line(1, "7 each, turn one up")
        canvas.line(2, f"First: {first}")

    def _draw_turn(self, canvas: Canvas, state: dict) -> None:
        canvas.title(state["current"], f"pile {state['draw_pile']}")
        top = state["top"]
        canvas.big_text(1, BODY_TOP, top["value"] or "?")
        lines = [line for line in (_describe_top(top), _situation(state)) if line]
        lines += _who_next(state)
        # Three rows beside the value; a call-out pushes the card's words off first.
        for row, text in enumerate(lines[-3:]):
            canvas.text(BESIDE_X, BODY_TOP + row * LINE_H, text)
        canvas.line(3, _counts_line(state["in_hand"], state["current"], state["direction"],
                                    self.match.seats))


def _entered_exactly(events: list[dict]) -> bool:
    """True if the last card entered (played or turned up) was given exactly."""
    for event in reversed(events):
        if event.get("type") in ("play", "turn_up"):
            return len(event.get("card") or {}) == 3
    return False


def _describe_top(top: dict) -> str:
    """The top card beside its big value: colour and suit, or what its value does."""
    if top["colour"] is not None:
        return f"{top['colour']} {top['suit']}"
    if top["value"] is None:
        return "plain card"
    return rules.EFFECTS.get(top["value"], "plain card")


def _situation(state: dict) -> str:
    """What the top card asks of the player now: the 2s to draw, the named colour."""
    if state["stacked"]:
        return f"+{state['stacked']} to draw!"
    if state["declared"]:
        return f"now {state['declared'].upper()}"
    if state["follow_up"] == rules.AGAIN:
        return "one more card?"
    return ""


def _who_next(state: dict) -> list[str]:
    """Who plays next, or (a word was forgotten) the call-out UP makes."""
    calls = state["call_outs"]
    if calls:
        return [f"UP: call {calls[0]['word']}", f"on {calls[0]['offender']}"]
    return [f"next {state['next']}"]


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
        more = f" {len(order) - index - 1} more" if index < len(order) - 1 else ""
        if len(" ".join(shown + [f"{name[:3]}{in_hand[name]}"])) + len(more) > COLUMNS:
            return " ".join(shown) + f" {len(order) - index} more"
        shown.append(f"{name[:3]}{in_hand[name]}")
    return " ".join(shown)


class ToMenu(Screen):
    """Where BACK from a question leads: the game menu (undo, standings, leave)."""

    def __init__(self, table: CardDownTable):
        super().__init__(table)
        self.table = table

    def returned(self, ctx: Context) -> Screen:
        return self.table.menu(ctx)


class CardPicker(Screen):
    """One exact card: UP/DOWN change the value, colour or suit under the cursor, OK
    moves the cursor on, ROLL enters the card. It starts on the top card (or the 2 that
    a stack needs, or the named colour), so the card shown first always matches."""

    hint = "UP/DN OK> ROLL enter"
    roll_ready = True
    FIELDS = ("value", "colour", "suit")

    def __init__(self, table: CardDownTable, title: str, player: str | None):
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
        canvas.title(self.title, self.FIELDS[self.field])
        # (the title is the player's name, or "First card")
        value, colour, suit = self.choice
        canvas.big_text(3, BODY_TOP, value)
        if self.field == 0:
            canvas.underline(2, BODY_TOP + 22, 20)
        canvas.text(BESIDE_X + 4, BODY_TOP, colour, invert=self.field == 1)
        canvas.text(BESIDE_X + 4, BODY_TOP + LINE_H, suit, invert=self.field == 2)
        if self.player is not None:
            reason = self.table.match.why_not(self.card)
            canvas.text(BESIDE_X + 4, BODY_TOP + 2 * LINE_H, "matches" if reason is None
                        else "cannot go")
            canvas.line(3, clip(_on_top(self.table.match)))


def _on_top(match: rules.CardDown) -> str:
    """What the card goes on, for the picker's last line."""
    if match.stacked:
        return f"on 2s: +{match.stacked}, a 2 only"
    if match.declared:
        return f"on D: {match.declared} or a 0"
    return f"on {match.top}"


class SpecialCard(Screen):
    """Quick mode: which special card was played, one press each (held for D and 0)."""

    hint = "BACK cancel"

    def __init__(self, table: CardDownTable):
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
        canvas.title(f"{self.player} played a")
        canvas.paragraph(["UP:2 draw2  DN:A skip", "OK:B rev ROLL:C again",
                          "hold OK:   D colour", "hold ROLL: 0 null"])


class WordQuestion(Screen):
    """The player went down to 3, 2 or 1 card: did they say TRIO, DUO or UNO?"""

    hint = "OK said  DN forgot"
    roll_ready = True

    def __init__(self, table: CardDownTable):
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
            return self.table.menu(ctx)
        return self

    def _answer(self, ctx: Context, kind: str) -> Screen:
        return self.table.apply(ctx, {"type": kind, "player": self.player, "word": self.word})

    def draw(self, canvas: Canvas) -> None:
        held = self.table.match.in_hand[self.player]
        canvas.title(f"{self.player}: {rules.n_cards(held)}")
        canvas.centered(BODY_TOP + 1, self.word + "?", scale=3)
        question = f"Did {self.player} say it?"
        canvas.line(3, fitting(question, "Said it in time?"), center=True)


class ColourMenu(Menu):
    """After a D: the colour the player names (or none); BACK opens the game menu."""

    def __init__(self, table: CardDownTable):
        self.table = table
        player = table.match.current

        def name(colour: str | None) -> Callable[[Context, Screen], Screen]:
            event = ({"type": "colour", "player": player, "colour": colour} if colour
                     else {"type": "pass", "player": player})
            return lambda ctx, menu: table.apply(ctx, event)

        items = [MenuItem(colour.capitalize(), name(colour)) for colour in rules.COLOURS]
        items.append(MenuItem("No colour named", name(None)))
        super().__init__(f"{player} names:", items, table)
        top = table.match.top
        if top is not None and top.colour in rules.COLOURS:
            self.selected = rules.COLOURS.index(top.colour)
            self._scroll()

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "back"):
            return self.table.menu(ctx)
        return super().press(ctx, press)


class WentOut(Screen):
    """Someone discarded their last card: the game is over; values or sums next?"""

    hint = "OK values  DN sums"
    roll_ready = True

    def __init__(self, table: CardDownTable):
        super().__init__(table)
        self.table = table

    def press(self, ctx: Context, press: Press) -> Screen:
        if is_(press, "ok") or is_(press, "roll") or is_(press, "down"):
            self.table.by_sum = is_(press, "down")
            return self.table.route(ctx)
        if is_(press, "back"):
            return self.table.menu(ctx)
        return self

    def draw(self, canvas: Canvas) -> None:
        state = self.table.match.state()
        canvas.title(f"Game {state['game_number']} over")
        canvas.paragraph(wrap(f"{state['went_out']} went out!")
                         + ["Now enter each hand:", "values, or a sum"])


class SumPicker(Screen):
    """One hand's points as a single number: UP/DOWN 1 (held: 10), ROLL or OK enters."""

    hint = "UP/DN change ROLL ok"
    roll_ready = True

    def __init__(self, table: CardDownTable, player: str, held: int, parent: Screen):
        super().__init__(parent)
        self.table = table
        self.player = player
        self.held = held
        self.most = held * rules.card_points(rules.VALUES[-1])
        self.total = 0

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            step = (1 if press.button == "up" else -1) * (10 if press.long else 1)
            self.total = max(0, min(self.most, self.total + step))
            return self
        if is_(press, "ok") or is_(press, "roll"):
            return self.table.apply(ctx, {"type": "hand", "player": self.player,
                                          "sum": self.total}, after=self)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.player, f"0-{self.most}")
        canvas.text(1, BODY_TOP + 4, "Sum of")
        canvas.text(1, BODY_TOP + 14, rules.n_cards(self.held))
        canvas.big_text(WIDTH - 4, BODY_TOP + 4, str(self.total), right=True)


class GameResult(ResultScreen):
    """Each player's points for the game just ended, who went out first; UP/DOWN scroll."""

    hint = "OK standings"
    ROWS = 4

    def __init__(self, table: CardDownTable, index: int):
        super().__init__(table)
        self.game = table.match.result()["games"][index]
        self.top = 0

    def next_screen(self, ctx: Context) -> Screen:
        return Standings(self.table.match, self.table,
                         title=f"After game {self.game['game']}", high_wins=False)

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            step = 1 if press.button == "down" else -1
            count = len(self.game["players"])
            self.top = max(0, min(self.top + step, count - self.ROWS))
            return self
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        rows = sorted(self.game["players"].items(), key=lambda row: row[1]["points"])
        width = max(len(name) for name in self.game["players"])
        canvas.title(f"Game {self.game['game']} points",
                     f"{self.top + 1}/{len(rows)}" if len(rows) > self.ROWS else "")
        for row, (name, player) in enumerate(rows[self.top : self.top + self.ROWS]):
            mark = "OUT" if name == self.game["went_out"] else f"{player['cards']}c"
            canvas.line(row, f"{name:<{width}} {mark:>4} {player['points']:>{COLUMNS - width - 6}}",
                        invert=name == self.game["went_out"])


class MatchOver(GameOverScreen):
    """The lowest total wins the match: winner(s) and their total big; DOWN all totals."""

    hint = "DN all  OK end"
    heading = "Match over"

    def title_right(self, result: dict) -> str:
        return counted(len(result["games"]), "game")

    def extra_line(self, result: dict) -> str:
        return "lowest wins"
