"""The worst real values the device allows: what ``companion lang-check`` fills a
message's placeholders with, and the names the screen inspector seats, so that a text
that fits here fits at any table.

A name is as long as the roster allows (:data:`companion.names.NAME_MAX`), written in the
widest letters of the table's own alphabet; a score, a count or a prize is the largest a
game can reach, read from where the game defines its limit; a card is the longest name
a Full Counter deck profile can give one::

    >>> worst_values("ru")["name"] == widest_letters("ru")[0] * NAME_MAX
    True
    >>> worst_values("en")["prizes"]
    '99 99 99'

A placeholder is filled by its name wherever it stands, unless the one place that shows
it can only ever show less (:data:`NARROWER`): a prize space's points are one prize's,
not the three a hand can win::

    >>> worst_values("en")["points"], worst_values("en", "{points} pt")["points"]
    ('297', '99')

The font advances every letter by the same 6 pixels today (companion.ui.canvas), so any
letter takes as much room as any other; the letters are still chosen by the ink they
lay down, widest first (then darkest), so a font whose letters advance by their width
keeps this right. Only letters that keep within a capital's height are taken: the
accents and descenders of names are the font's packing of lines, not their length.
"""

from __future__ import annotations

from functools import cache

from companion import font
from companion.errors import BadName
from companion.games import block_lottery, count_up, scoreboard
from companion.games.final_count import goal_from_rolls
from companion.games.full_counter_cards import NAMES as CARD_NAMES
from companion.games.full_counter_cards import PROFILE_LIMITS
from companion.names import NAME_MAX, check_players
from companion.table import dice, timer

__all__ = ["ALPHABETS", "NARROWER", "PEOPLE", "long_names", "widest_letters",
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
          "starter", "opponent", "giver", "taker", "holder")


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


def _longest_card() -> str:
    """The longest name a Full Counter card can have: its largest number with the
    longest role name ("20 Magnetic Rays", as Deck.name says it)."""
    largest = PROFILE_LIMITS["numbers"][1]
    return max((f"{largest} {name}" for name in CARD_NAMES.values()), key=len)


def _largest_numbers() -> dict[str, str]:
    """The largest number each numeric placeholder can show, from the games' limits.
    A count (``n``, ``cards``: rounds, games, hands, players, cards in a hand or a
    pile) is filled with :data:`DEFAULT_VALUE`'s two digits like any field not named
    here; the screens that count past 99 (a draw pile of a big deck, the shuffle's
    800 cards, a Scoreboard of many rounds) are drawn at their largest by the screen
    walk (companion.commands.inspect) and the tests."""
    prize = str(block_lottery.MAX_PRIZE)
    return {
        # A Scoreboard total at its largest target.
        **dict.fromkeys(("score", "best", "sum", "total", "after", "average", "target"),
                        str(scoreboard.TARGET_LIMIT)),
        # What one hand or round scores: Block Lottery's three prizes won at once.
        "points": str(block_lottery.MAX_PRIZE * block_lottery.SPACES),
        "goal": str(goal_from_rolls(dice.SIDES, dice.SIDES)),  # Final Count's Hit Goal
        "prizes": " ".join([prize] * block_lottery.SPACES),
        "dice": str(dice.DiceCup.MAX_DICE),
        "seconds": str(max(timer.CLOCK_CHOICES)),
        "minutes": str(max(timer.CLOCK_CHOICES) // 60),
    }


#: What any other placeholder is filled with: two digits.
DEFAULT_VALUE = "99"

#: The messages (by their English) whose place shows a placeholder at less than its
#: worst elsewhere, read from the game's limit: placeholder -> the largest it shows
#: there. A message renamed here is filled at the general worst again (too strict,
#: never too lenient).
NARROWER: dict[str, dict[str, str]] = {
    # A prize space's points: one prize, not three prizes won at once.
    "{points} pt": {"points": str(block_lottery.MAX_PRIZE)},
    # Count Up 21's match score: each player's games won, up to the games a match is
    # played to.
    "games {first}-{second}": dict.fromkeys(("first", "second"),
                                            str(count_up.MAX_GAMES_TO_WIN)),
}


def worst_values(code: str, message: str | None = None) -> dict[str, str]:
    """Placeholder -> the worst value it can take at a table speaking ``code``: the
    people named at the longest, the numbers at their largest, the card with the
    longest name; in ``message`` (its English), what its one place can show
    (:data:`NARROWER`). Any placeholder not here is filled with :data:`DEFAULT_VALUE`."""
    return {**_worst_values(code), **NARROWER.get(message or "", {})}


@cache
def _worst_values(code: str) -> dict[str, str]:
    names = long_names(code, 2)
    return {
        **dict.fromkeys(PEOPLE, names[0]),
        "other": names[1],
        "names": ", ".join(names),
        "card": _longest_card(),
        "power": max(CARD_NAMES.values(), key=len),
        **_largest_numbers(),
    }


def filled_with(fields: set[str], values: dict[str, str]) -> dict[str, str]:
    """The value of each of ``fields`` (:data:`DEFAULT_VALUE` for one not in ``values``)."""
    return {name: values.get(name, DEFAULT_VALUE) for name in fields}
