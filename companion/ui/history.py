"""History on the device: each game's table (rating, wins), a player's card (their
figures per game), the finished games and each one's score table, over a period (all
time, this year, the last 30 days).

The figures come from :func:`companion.stats.cached_figures`, which keeps them per store
and period and folds in only what finished since, so opening History after a game
costs a few milliseconds however long the record is.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from companion import games, lang, stats
from companion.clock import said_when
from companion.lang import lazy, npgettext, number, pgettext
from companion.transcript import score_rows
from companion.ui.canvas import BODY_TOP, LINE_H, WIDTH, Canvas, clip, text_width
from companion.ui.keys import GO_BACK, OK_BACK, Key, Keys
from companion.ui.moves import describe
from companion.ui.roster import roster_menu
from companion.ui.screen import (
    MENU_ROWS,
    Context,
    Menu,
    MenuItem,
    Message,
    Press,
    Screen,
    folded,
    is_,
)

__all__ = ["GameTable", "HistoryMenu", "MatchMoves", "MatchSheet", "PlayerCard", "history_menu"]

#: How many finished games the list offers (newest first).
RECENT = 30

WallClock = Callable[[], float]


def history_menu(ctx: Context, parent: Screen, now: WallClock = time.time) -> Screen:
    """The History menu (needs the game log)."""
    if ctx.store is None:
        return Message(pgettext("screen 21", "History"), folded(pgettext(
            "screen 21x4", "No game log here:\nthe store could not\nbe opened.")), parent)
    return HistoryMenu(ctx, parent, now)


class HistoryMenu(Menu):
    """Each game played in the period (its table), Players (their cards), Finished
    games (their score tables), the period itself (OK changes it) and the roster."""

    def __init__(self, ctx: Context, parent: Screen, now: WallClock = time.time):
        super().__init__(lazy("screen 21", "History"), [], parent)
        self.now = now
        self.period = 0
        self.refresh(ctx)

    @property
    def since(self) -> float | None:
        return stats.period_start(stats.PERIODS[self.period][1], self.now())

    def figures(self, ctx: Context) -> dict[str, Any]:
        return stats.cached_figures(ctx.store, since=self.since)

    def refresh(self, ctx: Context) -> None:
        shown = self.figures(ctx)
        items = [MenuItem(game["title"], self._table(game_id), note=str(game["plays"]))
                 for game_id, game in shown["games"].items() if game["plays"]]
        items += [
            MenuItem(lazy("screen 21", "Players"), lambda ctx, menu: self._players(ctx)),
            MenuItem(lazy("screen 21", "Finished games"),
                     lambda ctx, menu: finished_games(ctx, menu)),
            # Translators: beside the period the figures cover ("This year").
            MenuItem(stats.PERIODS[self.period][0], lambda ctx, menu: self._next_period(ctx),
                     note=lazy("screen 6", "period")),
            MenuItem(lazy("screen 21", "Roster"), lambda ctx, menu: roster_menu(ctx, menu)),
        ]
        self.items = items
        self.selected = min(self.selected, len(items) - 1)
        self._scroll()

    def returned(self, ctx: Context) -> Screen:
        # A game may have finished (or been undone) since the menu was made.
        self.refresh(ctx)
        return self

    def _next_period(self, ctx: Context) -> Screen:
        self.period = (self.period + 1) % len(stats.PERIODS)
        self.refresh(ctx)
        # Keep the cursor on the period line, wherever the game lines moved it.
        self.selected = len(self.items) - 2  # the period line: last but one
        self._scroll()
        return self

    def _table(self, game_id: str):
        def open_table(ctx: Context, menu: Screen) -> Screen:
            game = self.figures(ctx)["games"].get(game_id)
            if game is None:
                return Message(games.title(game_id), folded(pgettext(
                    "screen 21x4", "Not played in\nthis period.")), self)
            return GameTable(game, self, self._card)
        return open_table

    def _players(self, ctx: Context) -> Screen:
        shown = self.figures(ctx)
        items = [MenuItem(name, lambda ctx, menu, name=name: self._card(ctx, name, menu),
                          note=f"{row['wins']}/{row['plays']}")
                 for name, row in shown["players"].items()]
        if not items:
            return Message(pgettext("screen 21", "Players"), _none_in_period(), self)
        return Menu(pgettext("screen 21", "Players"), items, self)

    def _card(self, ctx: Context, name: str, parent: Screen | None = None) -> Screen:
        return PlayerCard(name, stats.cached_figures(ctx.store, player=name, since=self.since),
                          parent or self)


class GameTable(Screen):
    """The top of a game's table: place, name and wins small, the rating big, two
    players a screen. UP/DOWN move, OK opens the player's card."""

    # Translators: a hint line (21 characters): the button names printed on the device
    # (UP, DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
    keys = Keys(lazy("screen 21", "A game's top players"),
                lazy("screen 21", "UP/DOWN move  OK card"),
                Key("UP/DOWN", lazy("screen 21xN", "The player above or below.")),
                Key("OK/ROLL", lazy("screen 21xN", "The player's card: their figures in every "
                                    "game.")), GO_BACK)
    ROWS = 2
    ROW_H = 21

    def __init__(self, game: Mapping[str, Any], parent: Screen,
                 card: Callable[[Context, str, Screen], Screen]):
        super().__init__(parent)
        self.title = game["title"]
        self.plays = game["plays"]
        self.rows = list(game["players"].items())
        self.card = card
        self.selected = 0

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down") and self.rows:
            step = 1 if press.button == "down" else -1
            self.selected = (self.selected + step) % len(self.rows)
            return self
        if (is_(press, "ok") or is_(press, "roll")) and self.rows:
            return self.card(ctx, self.rows[self.selected][0], self)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        # Translators: beside a game's title: how many times it was played.
        played = npgettext("screen 10", "{n} played", "{n} played", self.plays)
        canvas.title(self.title, played.format(n=self.plays))
        top = self.selected // self.ROWS * self.ROWS
        for slot, (name, row) in enumerate(self.rows[top : top + self.ROWS]):
            index = top + slot
            y = BODY_TOP + 1 + slot * self.ROW_H
            rating = "-" if row["rating"] is None else number(row["rating"])
            # The rating, big on the right, leaves the rest of the row to the words.
            room = (WIDTH - text_width(rating, 2) - 6) // text_width("x")
            canvas.text(1, y, clip(f"{index + 1}. {name}", room), invert=index == self.selected)
            won = pgettext("screen 12", "won {wins} of {plays}")
            canvas.text(1, y + LINE_H, clip(won.format(wins=row["wins"], plays=row["plays"]),
                                            room))
            canvas.big_text(WIDTH - 2, y + 2, rating, scale=2, right=True)


class PlayerCard(Screen):
    """A player's figures: all games together first, then one game a page (rating big).
    UP/DOWN turn the pages."""

    keys = Keys(lazy("screen 21", "A player's card"), lazy("screen 21", "UP/DOWN game  OK back"),
                Key("UP/DOWN", lazy("screen 21xN", "All games together, then one game a "
                                    "page.")), OK_BACK, GO_BACK)

    def __init__(self, name: str, shown: Mapping[str, Any], parent: Screen):
        super().__init__(parent)
        self.name = name
        self.pages: list[tuple[str, str, list[str]]] = []
        overall = next(iter(shown["players"].values()), None)
        if overall is not None:
            self.pages.append((lazy("screen 21", "All games"), "", _overall_lines(overall)))
        for game in shown["games"].values():
            for row in game["players"].values():
                rating = "-" if row["rating"] is None else number(row["rating"])
                self.pages.append((game["title"], rating, _game_lines(row, game["low_wins"])))
        self.page = 0

    @property
    def title(self) -> str:  # type: ignore[override]
        return self.name

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down") and self.pages:
            step = 1 if press.button == "down" else -1
            self.page = (self.page + step) % len(self.pages)
            return self
        if press.button in ("ok", "roll") and self.parent is not None:
            return self.parent.returned(ctx)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        where = f"{self.page + 1}/{len(self.pages)}" if len(self.pages) > 1 else ""
        canvas.title(self.name, where)
        if not self.pages:
            canvas.paragraph(_none_in_period())
            return
        heading, rating, lines = self.pages[self.page]
        if rating:
            canvas.big_text(WIDTH - 2, BODY_TOP, rating, scale=2, right=True)
            room = (WIDTH - text_width(rating, 2) - 6) // text_width("x")
            canvas.line(0, clip(heading, room))
            canvas.line(1, clip(lines[0], room))
            canvas.paragraph(lines[1:], first_row=2)
        else:
            canvas.paragraph([heading, *lines][:MENU_ROWS])


def _none_in_period() -> list[str]:
    return folded(pgettext("screen 21x4", "No finished games\nin this period."))


def _overall_lines(row: Mapping[str, Any]) -> list[str]:
    return [
        # Translators: {percent} is the share of games won, a whole number.
        pgettext("screen 21", "won {wins} of {plays} {percent}%").format(
            wins=row["wins"], plays=row["plays"], percent=f"{row['win_rate'] * 100:.0f}"),
        _place_line(row),
        # Translators: the time played in all, and the day of the last game.
        pgettext("screen 21", "{duration} last {day}").format(
            duration=_duration(row["seconds_played"]), day=_day(row["last_played"])),
    ]


def _game_lines(row: Mapping[str, Any], low_wins: bool) -> list[str]:
    average, score = _num(row["avg_score"]), _num(row["best_score"])
    # Translators: the average score, then the lowest (the best where low wins) or the
    # highest.
    scores = (pgettext("screen 21", "avg {average} low {score}") if low_wins
              else pgettext("screen 21", "avg {average} best {score}"))
    return [
        # Beside the big rating: 12 characters.
        pgettext("screen 12", "won {wins}/{plays}").format(wins=row["wins"], plays=row["plays"]),
        scores.format(average=average, score=score),
        _place_line(row),
    ]


def _place_line(row: Mapping[str, Any]) -> str:
    # Translators: the average finishing place and the longest run of wins.
    return pgettext("screen 21", "place {place} streak {streak}").format(
        place=_num(row["avg_place"]), streak=row["longest_streak"])


def _num(value: float | int | None) -> str:
    """An average or score: whole numbers without a point, others to one place, as
    the language writes them ("2,5" in German)."""
    if value is None:
        return "-"
    if not isinstance(value, float):
        return str(value)
    one_place = f"{value:.1f}"
    return one_place[:-2] if one_place.endswith(".0") else number(value, 1)


def _duration(seconds: float) -> str:
    minutes = int(seconds // 60)
    if minutes >= 60:
        return pgettext("screen 8", "{hours}h{minutes}").format(hours=minutes // 60,
                                                               minutes=f"{minutes % 60:02d}")
    return pgettext("screen 8", "{minutes} min").format(minutes=minutes)


def _day(when: float | None) -> str:
    """The day of a game, month and day as the language writes them short ("11-26");
    "-" for none, "?" for a time no calendar can show."""
    return said_when(when, lang.day_month)


# -- finished games and their score tables ---------------------------------------------------


def finished_games(ctx: Context, parent: Screen) -> Screen:
    """The last finished games, newest first: date, game, winner; OK opens its table."""
    items = []
    for record in ctx.store.history(limit=RECENT):
        between = pgettext("between names in a list", ", ")
        winners = between.join((record.result or {}).get("winners", [])) or "-"
        label = f"{_day(record.finished)} {games.title(record.game_id)}"
        items.append(MenuItem(label, lambda ctx, menu, record=record: MatchSheet(
            ctx, record, menu), note=clip(winners, 7)))
    if not items:
        return Message(pgettext("screen 21", "Finished games"),
                       folded(pgettext("screen 21x4", "No finished games\nyet.")), parent)
    return Menu(pgettext("screen 21", "Finished games"), items, parent)


SHEET_ROWS = Key("UP/DOWN", lazy("screen 21xN", "Scroll the rows: a hand or a round each; "
                                 "the totals stay on the last line."))
SHEET_MOVES = Key("ROLL", lazy("screen 21xN", "Every move of the game in order, the ones taken "
                               "back with undo struck through."))
# Translators: UP/DN scroll the rows, ROLL shows every move played.
SHEET_KEYS = Keys(lazy("screen 21", "A score table"), lazy("screen 21", "UP/DN rows ROLL moves"),
                  SHEET_ROWS, SHEET_MOVES, OK_BACK, GO_BACK)
# Translators: OK shows the next players' columns, ROLL every move played.
SHEET_WIDE_KEYS = Keys(lazy("screen 21", "A wide score table"),
                       lazy("screen 21", "OK more  ROLL moves"), SHEET_ROWS,
                       Key("OK", lazy("screen 21xN", "The next four players.")), SHEET_MOVES,
                       GO_BACK)


class MatchSheet(Screen):
    """A match's score table: a column per player (four at a time; OK shows the next
    four), a row per hand or round (UP/DOWN scroll), the totals always on the last line.
    ROLL shows its moves (:class:`MatchMoves`)."""

    COLUMNS = 4
    #: Pixels: the round number's column, then each player's (4 characters and a gap).
    LABEL_W = 14
    CELL_W = (WIDTH - LABEL_W) // COLUMNS

    def __init__(self, ctx: Context, record: Any, parent: Screen):
        super().__init__(parent)
        self.record = record
        self.title = f"{games.title(record.game_id)} {_day(record.finished)}"
        rows = score_rows(record, ctx.store.events(record.id)) or [
            ["round", *record.players], ["total", *([""] * len(record.players))]]
        self.players = rows[0][1:]
        self.rounds = rows[1:-1]
        self.totals = rows[-1][1:]
        self.first = 0  # first player column shown
        self.top = 0    # first round row shown

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        return SHEET_WIDE_KEYS if self.pages > 1 else SHEET_KEYS

    @property
    def pages(self) -> int:
        return -(-len(self.players) // self.COLUMNS)

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            last = max(0, len(self.rounds) - (MENU_ROWS - 2))
            step = 1 if press.button == "down" else -1
            self.top = max(0, min(last, self.top + step))
            return self
        if is_(press, "roll"):
            return MatchMoves(ctx, self.record, self)
        if is_(press, "ok"):
            if self.pages == 1:
                return self.parent.returned(ctx) if self.parent is not None else self
            self.first = (self.first + self.COLUMNS) % (self.pages * self.COLUMNS)
            return self
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        page = self.first // self.COLUMNS + 1
        canvas.title(self.title, f"{page}/{self.pages}" if self.pages > 1 else "")
        self._row(canvas, 0, "", self.players)
        shown = self.rounds[self.top : self.top + MENU_ROWS - 2]
        for line, cells in enumerate(shown, start=1):
            self._row(canvas, line, cells[0], cells[1:])
        y = BODY_TOP + (MENU_ROWS - 1) * LINE_H
        canvas.draw.line((0, y - 2, WIDTH - 1, y - 2), fill=1)  # the totals under a rule
        self._row(canvas, MENU_ROWS - 1, "", self.totals)

    def _row(self, canvas: Canvas, line: int, label: str, cells: list[str]) -> None:
        y = BODY_TOP + line * LINE_H
        canvas.text(1, y, label[:2])
        for column, cell in enumerate(cells[self.first : self.first + self.COLUMNS]):
            text = clip(cell, 4)
            right = self.LABEL_W + (column + 1) * self.CELL_W - 1
            canvas.text(right - text_width(text), y, text)


MOVES_KEYS = Keys(lazy("screen 21", "Every move of a game"),
                  lazy("screen 21", "UP/DOWN rows  OK back"),
                  Key("UP/DOWN", lazy("screen 21xN", "Scroll the moves (held: four at a time). "
                                      "A move struck through was taken back with undo.")),
                  OK_BACK, GO_BACK)


class MatchMoves(Screen):
    """Every move of a match as it was played, numbered by its place in the log; a move
    taken back by undo stays at the place it held, struck through (the title counts
    them), before the move that took its place. UP/DOWN scroll."""

    keys = MOVES_KEYS

    def __init__(self, ctx: Context, record: Any, parent: Screen):
        super().__init__(parent)
        self.moves = ctx.store.played(record.id)
        self.undone = sum(1 for move in self.moves if move.undone)
        self.top = 0  # first move shown

    @property
    def title(self) -> str:  # type: ignore[override]
        # Translators: the title over every move of a finished game.
        return pgettext("screen 12", "Moves")

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            last = max(0, len(self.moves) - MENU_ROWS)
            step = (1 if press.button == "down" else -1) * (MENU_ROWS if press.long else 1)
            self.top = max(0, min(last, self.top + step))
            return self
        if is_(press, "ok") or is_(press, "roll"):
            return self.parent.returned(ctx) if self.parent is not None else self
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        # Translators: how many moves of the game were taken back (9 characters), in
        # the title beside "Moves"; they are struck through below it.
        right = npgettext("screen 9", "{n} undone", "{n} undone", self.undone).format(
            n=self.undone) if self.undone else ""
        canvas.title(self.title, right)
        if not self.moves:
            canvas.line(0, pgettext("screen 21", "No moves."))
            return
        width = len(str(self.moves[-1].seq))
        for row, move in enumerate(self.moves[self.top : self.top + MENU_ROWS]):
            text = clip(f"{move.seq:>{width}} {describe(move.event)}")
            canvas.line(row, text)
            if move.undone:  # struck through, from the move's words to the line's end
                y = BODY_TOP + row * LINE_H + LINE_H // 2 - 2
                x = 1 + text_width(f"{move.seq:>{width}} ")
                canvas.draw.line((x, y, x + text_width(text[width + 1:]), y), fill=1)
