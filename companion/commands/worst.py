"""The worst real values the device allows: what ``companion lang-check`` fills a
message's placeholders with, and the names the screen inspector seats, so that a text
that fits here fits at any table.

A name is as long as the roster allows (:data:`companion.names.NAME_MAX`), written in the
widest letters of the table's own alphabet; a score, a count, a prize or a card's name
is the largest a game can show, each game saying its own in its screens package (the
``worst`` of its :class:`~companion.ui.games.GameScreens`, read from where the game
defines its limit)::

    >>> worst_values("ru")["name"] == widest_letters("ru")[0] * NAME_MAX
    True
    >>> worst_values("en")["prizes"]
    '99 99 99'

A placeholder is filled by its name wherever it stands, unless the one place that shows
it can only ever show less (:func:`narrower`, the games' ``narrower``): a prize space's
points are one prize's, not the three a hand can win::

    >>> worst_values("en")["points"], worst_values("en", "{points} pt")["points"]
    ('297', '99')

The font advances every letter by the same 6 pixels today (companion.ui.canvas), so any
letter takes as much room as any other; the letters are still chosen by the ink they
lay down, widest first (then darkest), so a font whose letters advance by their width
keeps this right. Only letters that keep within a capital's height are taken: the
accents and descenders of names are the font's packing of lines, not their length.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache

from companion import font, games
from companion.errors import BadName
from companion.lang import lazy, pgettext_in
from companion.names import NAME_MAX, check_players
from companion.table import dice, timer
from companion.ui.games import game_screens, has_screens

__all__ = ["ALPHABETS", "PEOPLE", "long_names", "narrower", "widest_letters",
           "worst_values", "filled_with"]

_LATIN = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
#: The letters a table of each language writes its players' names with.
ALPHABETS: dict[str, str] = {
    "en": _LATIN,
    "de": _LATIN + "ÄÖÜäöüß",
    "es": _LATIN + "ÁÉÍÑÓÚÜáéíñóúü",
    "fr": _LATIN + "ÀÂÆÇÈÉÊËÎÏÔŒÙÛÜŸàâæçèéêëîïôœùûüÿ",
    "it": _LATIN + "ÀÈÉÌÍÎÒÓÙÚàèéìíîòóùú",
    "pl": _LATIN + "ĄĆĘŁŃÓŚŹŻąćęłńóśźż",
    "ru": "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюя",
}

#: Placeholders that stand for a player's name (one person): filled with the longest
#: name. The gender check (companion.commands.langcheck) looks beside these.
PEOPLE = ("name", "player", "dealer", "winner", "loser", "caller", "leader", "who",
          "starter", "opponent", "giver", "taker", "holder", "offender")


def _ink(char: str) -> tuple[int, int]:
    """(width, pixels) of the ink ``char`` lays down in the device's font."""
    rows = font.glyph(char)
    columns = 0
    for row in rows:
        columns |= row
    lit = [x for x in range(font.CELL_W) if columns & (0x80 >> x)]
    width = lit[-1] - lit[0] + 1 if lit else 0
    return width, sum(bin(row).count("1") for row in rows)


def _in_the_line(char: str) -> bool:
    """Whether ``char``'s ink stays between the top and the foot of a capital: no
    accent above it, no descender under it. Lines pack at 10 pixels with the accent
    rows of one line in the descender rows of the line above (companion.ui.canvas):
    the names measure the room a line gives, not that packing."""
    capital = [y for y, row in enumerate(font.glyph("H")) if row]
    return all(not row for y, row in enumerate(font.glyph(char))
               if not capital[0] <= y <= capital[-1])


@cache
def widest_letters(code: str) -> str:
    """The letters of ``code``'s alphabet the font draws within a capital's height,
    widest ink first (then the darkest; the alphabet's order breaks a tie)."""
    alphabet = ALPHABETS.get(code, ALPHABETS["en"])  # a language being added: Latin
    letters = [char for char in alphabet if font.drawable(char) and _in_the_line(char)]
    return "".join(sorted(letters, key=lambda char: tuple(-size for size in _ink(char))))


@cache
def long_names(code: str, count: int = 10) -> tuple[str, ...]:
    """``count`` names of :data:`NAME_MAX` letters in ``code``'s widest letters that the
    name rule seats together: the widest letter over and over, told apart by the last
    (the widest letters that do not look like one another there)."""
    letters = widest_letters(code)
    stem = letters[0] * (NAME_MAX - 1)
    names: list[str] = []
    for last in letters:
        try:
            check_players([*names, stem + last])
        except BadName:  # drawn like a name already seated, or the same in capitals
            continue
        names.append(stem + last)
        if len(names) == count:
            return tuple(names)
    raise ValueError(f"{code}: only {len(names)} names of the widest letters tell apart")


def _longest_said(code: str, texts: Iterable[object]) -> str:
    """The longest of ``texts`` (lazy messages or fixed words) as ``code`` says them."""
    said = [pgettext_in(code, text.context, text.message) if isinstance(text, lazy)
            else str(text) for text in texts]
    return max(said, key=len)


def _largest_values(code: str) -> dict[str, str]:
    """The largest value each placeholder a game names can show at a table speaking
    ``code``: what every game's screens say (their ``worst``, words at their longest
    as ``code`` says them; two games naming one placeholder: the longer value), a
    game's name at its longest, and the dice, seconds and minutes of the table's own
    tools. A count (``n``,
    ``cards``: rounds, games, hands, players, cards in a hand or a pile) is filled with
    :data:`DEFAULT_VALUE`'s two digits like any field not named here; the screens that
    count past 99 (a draw pile of a big deck, the shuffle's 800 cards, a score sheet of
    many rounds) are drawn at their largest by the screen walk
    (companion.commands.inspect) and the tests."""
    largest: dict[str, str] = {}
    for screens in _every_games_screens():
        for name, value in screens.worst.items():
            value = value if isinstance(value, str) else _longest_said(code, value)
            if len(value) > len(largest.get(name, "")):
                largest[name] = value
    return {
        **largest,
        "game": _longest_said(code, (info.title for info in games.GAMES)),
        "dice": str(dice.DiceCup.MAX_DICE),
        "seconds": str(max(timer.CLOCK_CHOICES)),
        "minutes": str(max(timer.CLOCK_CHOICES) // 60),
    }


def narrower(message: str) -> dict[str, str]:
    """Placeholder -> the largest it shows in ``message`` (its English), where the one
    place that shows it can only ever show less than its worst elsewhere, as the
    game's screens say (their ``narrower``). A message renamed there is filled at the
    general worst again (too strict, never too lenient)."""
    found: dict[str, str] = {}
    if message == "Resume {game}, hand {n}?":  # only a game counted in hands has one
        hand_games = [str(info.title) for info in games.GAMES if info.unit == "hand"]
        if hand_games:
            found["game"] = max(hand_games, key=len)
    for screens in _every_games_screens():
        found.update(screens.narrower.get(message, {}))
    return found


def _every_games_screens() -> list:
    """The screens of every game the registry names that has them."""
    return [game_screens(info.game_id) for info in games.GAMES if has_screens(info.game_id)]


#: What any other placeholder is filled with: two digits.
DEFAULT_VALUE = "99"


def worst_values(code: str, message: str | None = None) -> dict[str, str]:
    """Placeholder -> the worst value it can take at a table speaking ``code``: the
    people named at the longest, the numbers at their largest, the card with the
    longest name; in ``message`` (its English), what its one place can show
    (:func:`narrower`). Any placeholder not here is filled with :data:`DEFAULT_VALUE`."""
    return {**_worst_values(code), **narrower(message or "")}


@cache
def _worst_values(code: str) -> dict[str, str]:
    names = long_names(code, 2)
    return {
        **dict.fromkeys(PEOPLE, names[0]),
        "other": names[1],
        "names": ", ".join(names),
        **_largest_values(code),
    }


def filled_with(fields: set[str], values: dict[str, str]) -> dict[str, str]:
    """The value of each of ``fields`` (:data:`DEFAULT_VALUE` for one not in ``values``)."""
    return {name: values.get(name, DEFAULT_VALUE) for name in fields}
