"""Help on the device: what a game (or Tools, or Settings) is, what each button does on
the screen Help was opened from, and how a turn goes in; the same sections the table
page's help pages show (``/help``).

Help only reads: it never changes the game it was opened from. UP/DOWN scroll (a long
press jumps to the section above or below), OK, ROLL or BACK go back where Help was
opened. The words come from two places, each written once: the games' texts in
:mod:`companion.ui.guides` and the buttons in each screen's own keys
(:mod:`companion.ui.keys`), so a screen's Help always says what its hint says.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from companion.lang import lazy, pgettext
from companion.ui.canvas import BODY_TOP, LINE_H, WIDTH, Canvas, text_width
from companion.ui.games import game_screens
from companion.ui.guides import BUTTON_BASICS, SETTINGS, TOOLS, Topic
from companion.ui.keys import ANY_BACK, Key, Keys
from companion.ui.screen import MENU_ROWS, Context, Press, Screen, folded

#: Lines a short UP/DOWN moves Help by: a screenful less one, so a line read last is
#: still there to read on from.
STEP = MENU_ROWS - 1


class Section(NamedTuple):
    """A part of Help: its heading, its paragraphs and (button, sentence) pairs."""

    heading: str
    texts: tuple[str, ...] = ()
    keys: tuple[tuple[str, str], ...] = ()


def keys_section(keys: Keys, heading: str | None = None) -> Section:
    """The buttons of ``keys`` as a section (its place as the heading, unless given)."""
    return Section(keys.heading() if heading is None else heading, (), tuple(keys.said()))


def here(keys: Keys) -> list[Section]:
    """"This screen": the buttons of the screen Help was opened from (none: nothing)."""
    if not keys.keys:
        return []
    # Translators: Help's heading over the buttons of the screen it was opened from.
    return [keys_section(keys, pgettext("screen 21", "This screen"))]


def game_sections(game_id: str, screens: Sequence[Keys] = ()) -> list[Section]:
    """A game's help: what it is, how a turn goes in, then each of its screens'
    buttons (``screens``: the game's keys, in the order a game meets them). The words
    are the game's own guide (its screens package's); a game without one has only its
    buttons."""
    guide = game_screens(game_id).guide
    # Translators: Help's headings: what the game is, how a turn is entered.
    sections = [] if guide is None else [
        Section(pgettext("screen 21", "The game"), tuple(map(str, guide.about))),
        Section(pgettext("screen 21", "Entering a turn"), tuple(map(str, guide.turn)))]
    return sections + [keys_section(keys) for keys in _once(screens)] + [basics()]


def topic_sections(topics: Sequence[Topic], screens: Sequence[Sequence[Keys]] = ()
                   ) -> list[Section]:
    """Tools' or Settings' help: each thing they offer and its screens' buttons."""
    sections = []
    for index, topic in enumerate(topics):
        sections.append(Section(str(topic.name), (str(topic.about),)))
        if index < len(screens):
            sections += [keys_section(keys) for keys in _once(screens[index])]
    return sections


def tools_sections(screens: Sequence[Sequence[Keys]]) -> list[Section]:
    """The Tools' help: each tool, what it is for and its screens' buttons."""
    return topic_sections(TOOLS, screens)


def settings_sections() -> list[Section]:
    """The Settings' help: each row, then how the five buttons work everywhere."""
    return [*topic_sections(SETTINGS), basics()]


def basics() -> Section:
    """How the five buttons work on every screen."""
    # Translators: Help's heading over how the five buttons work everywhere.
    return Section(pgettext("screen 21", "The buttons"), tuple(map(str, BUTTON_BASICS)))


def _once(screens: Sequence[Keys]) -> list[Keys]:
    """``screens`` with buttons, each place once (a screen whose hint changes with what
    fits has several keys for one place, all with the same buttons)."""
    seen: dict[str, Keys] = {}
    for keys in screens:
        if keys.keys:
            seen.setdefault(keys.heading(), keys)
    return list(seen.values())


# -- the screen ---------------------------------------------------------------------------

HELP_KEYS = Keys(lazy("screen 21", "Help"), lazy("screen 21", "UP/DOWN more  OK back"),
                 Key("UP/DOWN", lazy("screen 21xN", "Scroll the help.")),
                 Key("UP/DOWN", lazy("screen 21xN", "Jump to the part above or below."),
                     long=True),
                 ANY_BACK)


class Line(NamedTuple):
    text: str
    heading: bool = False


class HelpScreen(Screen):
    """Help's sections as lines of 21 that scroll; it changes nothing, and any of OK,
    ROLL or BACK goes back to the screen it was opened from."""

    keys = HELP_KEYS
    stays_open = True

    def __init__(self, title: str, sections: Sequence[Section], parent: Screen):
        super().__init__(parent)
        self.title = title
        self.lines = lines_of(sections)
        self.top = 0

    @property
    def last_top(self) -> int:
        return max(0, len(self.lines) - MENU_ROWS)

    def press(self, ctx: Context, press: Press) -> Screen:
        if press.button in ("up", "down"):
            down = press.button == "down"
            if press.long:
                self.top = self._next_heading() if down else self._heading_above()
            else:
                self.top += STEP if down else -STEP
            self.top = max(0, min(self.top, self.last_top))
            return self
        if press.button in ("ok", "roll", "back") and self.parent is not None:
            return self.parent.returned(ctx)
        return self

    def _headings(self) -> list[int]:
        return [row for row, line in enumerate(self.lines) if line.heading]

    def _next_heading(self) -> int:
        return next((row for row in self._headings() if row > self.top), self.last_top)

    def _heading_above(self) -> int:
        return next((row for row in reversed(self._headings()) if row < self.top), 0)

    def draw(self, canvas: Canvas) -> None:
        where = f"{self.top + 1}/{self.last_top + 1}" if self.last_top else ""
        canvas.title(self.title, where, right_gives_way=True)
        for row, line in enumerate(self.lines[self.top : self.top + MENU_ROWS]):
            canvas.line(row, line.text)
            if line.heading:  # a rule on to the right edge marks a heading
                y = BODY_TOP + row * LINE_H + 3
                x = 1 + text_width(line.text) + 3
                if x < WIDTH - 2:
                    canvas.draw.line((x, y, WIDTH - 2, y), fill=1)


def lines_of(sections: Sequence[Section]) -> list[Line]:
    """Every section as lines of 21: its heading, its paragraphs folded, each button's
    sentence folded after the button's name ("ROLL: roll the die..."); a blank line
    between sections."""
    lines: list[Line] = []
    for section in sections:
        if lines:
            lines.append(Line(""))
        lines.append(Line(section.heading, heading=True))
        for text in section.texts:
            lines += [Line(line) for line in folded(text)]
        for button, does in section.keys:
            lines += [Line(line) for line in folded(f"{button}: {does}")]
    return lines


def game_help(game_id: str, came_from: Screen, parent: Screen) -> Screen:
    """Help for a game, opened from ``came_from`` (its setup, its table, a result...):
    that screen's buttons, then the game and its turn (every other screen's buttons are
    on the table page's help: on 21 columns they would bury the rest). BACK goes to
    ``parent``; the game is as it was."""
    return HelpScreen(help_title(), here(came_from.keys) + game_sections(game_id), parent)


def help_title() -> str:
    """Help's title bar."""
    return pgettext("screen 15", "Help")


__all__ = ["HELP_KEYS", "HelpScreen", "Section", "game_help", "game_sections", "help_title",
           "here",
           "keys_section", "settings_sections", "tools_sections"]
