"""The one rule for player names, whichever way a name comes in: the buttons' letter ring,
the command line (``sim --new --players``, ``replay --players``), the serial console
(``ADD PLAYER``, ``NEW``), the store, the web page, imported files.

A name is 1 to :data:`NAME_MAX` characters after trimming, with no control or format
characters (bidi marks, zero-width joiners) and no comma (player lists are written
comma-separated); the screen must have a glyph for every character (Latin, Greek and
Cyrillic letters: see :mod:`companion.font`); and it must not look like another player's
name. "Looks like" is the same pixels on the screen, ignoring case, wherever the
screen draws the name (in the title bar, up to a lone pixel). Cyrillic А is drawn with
Latin A's pixels, so "Аnn" is refused beside "Ann"; the title bar (at the panel's top
edge) does not show the accent rows above the capitals, so "Ànn" is too, and "Éric"
beside "Eric" (what is left of É there is one pixel)::

    >>> check_name("  Zoë ")
    'Zoë'
    >>> try:
    ...     check_name("Аnn", others=["Ann"])
    ... except BadName as refused:
    ...     print(refused)
    Аnn would look like Ann on the screen
    >>> looks_like("Ànn", "Ann"), looks_like("Ánn", "Ann"), looks_like("Änn", "Ann")
    (True, True, True)
    >>> looks_like("Ann", "Anna"), looks_like("Éric", "Eric")  # the title bar: 1 pixel
    (False, True)
    >>> split_players("Ann, Bob,Cy")
    ['Ann', 'Bob', 'Cy']

Refusals are :class:`BadName` (a :class:`~companion.errors.BadSetup`, so the serial
console answers ``ERR BADARG`` and the command line prints one line), whose message says
what to change.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache
from typing import Any

from companion import font
from companion.errors import BadSetup
from companion.lang import pgettext

__all__ = ["NAME_MAX", "BadName", "check_name", "check_players", "looks_like",
           "placeholder_seats", "player_key", "split_players"]

#: Longest name: the 128x64 screen shows a name beside a score.
NAME_MAX = 12

# Control, format (bidi marks, zero-width), line/paragraph separators, surrogates,
# private use and unassigned code points: nothing a person means as part of a name.
_HIDDEN = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"))


class BadName(BadSetup):
    """A name is refused; the message is one line saying why ("a name cannot contain a
    comma", "the screen cannot draw '中' (U+4E2D)")."""


def check_name(name: object, others: Iterable[str] = ()) -> str:
    """``name`` cleaned (NFC, trimmed, each run of spaces one space), or :class:`BadName`.

    ``others`` are the names it must not look like: the roster when adding to it, the
    players seated so far when seating.
    """
    if not isinstance(name, str):
        raise BadName(pgettext("screen 21xN", "a name is text"))
    name = unicodedata.normalize("NFC", name)
    if any(unicodedata.category(char) in _HIDDEN for char in name):
        raise BadName(pgettext("screen 21xN", "a name cannot contain control characters"))
    clean = " ".join(name.split())  # trimmed, each run of spaces (any kind) one space
    if not clean:
        raise BadName(pgettext("screen 21xN", "a player needs a name"))
    if len(clean) > NAME_MAX:
        text = pgettext("screen 21xN", "a name has at most {most} characters (the screen is small)")
        raise BadName(text.format(most=NAME_MAX))
    if "," in clean:
        raise BadName(pgettext("screen 21xN", "a name cannot contain a comma"))
    for char in clean:
        if not font.drawable(char):
            text = pgettext("screen 21xN", "the screen cannot draw '{char}' ({code})")
            raise BadName(text.format(char=char, code=f"U+{ord(char):04X}"))
    key = player_key(clean)
    for other in others:
        if clean.casefold() == _shown(other).casefold():
            text = pgettext("screen 21xN", "{name} is the same name as {player}")
            raise BadName(text.format(name=clean, player=other))
        if key == player_key(other) or looks_like(clean, other):
            text = pgettext("screen 21xN", "{name} would look like {player} on the screen")
            raise BadName(text.format(name=clean, player=other))
    return clean


def player_key(name: str) -> str:
    """What makes two names one player, everywhere names are compared (the roster,
    import's duplicate check, the figures, the club's league and seasons, the Players
    pages): the name as the screen shows it, case-folded, with every letter the screen
    draws with another's pixels written as that one (Cyrillic а and Greek α as a).
    Cells that draw nothing but a space (a control code or zero-width mark in a name
    stored before the rule refused them) are left out::

        >>> player_key("Ann") == player_key(" ann ") == player_key("Аnn") == "ann"
        True
        >>> player_key("Вob") == player_key("BOB"), player_key("Zoë") == player_key("Zoe")
        (True, False)

    A name is stored as typed and shown so; two names with one key are one player.
    :func:`check_name` refuses a name with another's key, and also one that only the
    title bar draws alike (:func:`looks_like`: "Ànn" beside "Ann"), which is stricter
    than "one player" can be (it is not transitive: "ànn" is not "ann").
    """
    if isinstance(name, str) and len(name) <= _KEYS_KEPT_UP_TO:
        return _kept_key(name)
    return _key(name)


#: Names this long or shorter have their keys kept (names repeat: an import compares
#: every match's with the roster); a longer string (a query from the network) is not.
_KEYS_KEPT_UP_TO = 64


@lru_cache(maxsize=4096)
def _kept_key(name: str) -> str:
    return _key(name)


def _key(name: str) -> str:
    same_as = _same_pixels()
    key = []
    for char in _shown(name):
        folded = unicodedata.normalize("NFC", char.casefold())
        if char in same_as and (len(folded) == 1 or not all(c in same_as for c in folded)):
            key.append(same_as[char])  # Ə is Ә's class, though it folds to an undrawn ə
        else:  # ß as ss; an undrawable character as it folds
            key.extend(same_as.get(part, part) for part in folded)
    return "".join(key)


def _shown(name: str) -> str:
    """``name`` as its cells show it: NFC, without cells that draw nothing (controls,
    zero-width marks, blank glyphs), trimmed, each run of spaces one space."""
    if not isinstance(name, str):
        return ""
    if len(name) <= _KEYS_KEPT_UP_TO:  # seating 200 names compares each with the rest
        return _kept_shown(name)
    return _show(name)


@lru_cache(maxsize=4096)
def _kept_shown(name: str) -> str:
    return _show(name)


def _show(name: str) -> str:
    kept = (char for char in unicodedata.normalize("NFC", name)
            if unicodedata.category(char) not in _HIDDEN
            and (char.isspace() or not font.blank(char)))
    return " ".join("".join(kept).split())


@lru_cache(maxsize=1)
def _same_pixels() -> dict[str, str]:
    """Each drawable character -> the first of its class (in the font's order, so Latin
    first; small letters before capitals): characters drawn with the same pixels, and
    each letter's other case, are one class (В is drawn as B, so в, В, b and B are
    one)."""
    chars = [char for char in font.chars() if font.drawable(char)]
    order = {char: (char != char.casefold(), index) for index, char in enumerate(chars)}
    first = {char: char for char in chars}

    def find(char: str) -> str:
        while first[char] != char:
            char = first[char]
        return char

    def join(one: str, two: str) -> None:
        one, two = find(one), find(two)
        if one != two:
            keep, drop = sorted((one, two), key=order.__getitem__)
            first[drop] = keep

    drawn: dict[bytes, str] = {}
    for char in chars:
        join(char, drawn.setdefault(font.glyph(char), char))
        for other in (char.lower(), char.upper(), char.casefold()):
            if other in first:  # one character, and one the screen draws
                join(char, other)
    return {char: find(char) for char in chars}


def check_players(names: object) -> list[str]:
    """A seat list: every name checked and cleaned, none like another (BadName if not).
    How many players a game takes is the game's rule, not this one."""
    if isinstance(names, str) or not isinstance(names, Iterable):
        raise BadName(pgettext("screen 21xN", "players are a list of names"))
    seated: list[str] = []
    near = _Near()
    for name in names:
        clean = check_name(name)
        # Compared only with the seated names it may look like (the same first one
        # check_name would find among them all): a club night seats 200 at once.
        seated.append(check_name(clean, near.like(clean)))
        near.add(clean)
    return seated


def placeholder_seats(players: Iterable[str]) -> bool:
    """Whether ``players`` are the names a set-up shows and plays under while nobody is
    seated (P1, P2, P3 in seat order: ``SetupScreen.default_names`` in
    :mod:`companion.ui.play`): seats, not players. Such a match joins no one to the
    roster, and its seats are no one in the figures and the club's seasons::

        >>> placeholder_seats(["P1", "P2", "P3"]), placeholder_seats(["P1", "Ann"])
        (True, False)
    """
    seats = list(players)
    return bool(seats) and seats == [f"P{seat}" for seat in range(1, len(seats) + 1)]


def split_players(text: str) -> list[str]:
    """Comma-separated names, as ``--players`` and the serial console write them, checked
    by :func:`check_players` ("Ann,,Bob" is refused: an empty name)."""
    return check_players(text.split(","))


def looks_like(name: str, other: str) -> bool:
    """Whether the two names show as the same pixels somewhere on the screen, ignoring
    case: cell by cell as drawn (in the title bar, up to :data:`TITLE_NEAR` pixels
    apart), or with every letter in lower case, or in upper case.

    Every place draws every row of a cell but the title bar, which leaves out the
    accent rows (:data:`companion.font.ACCENT_ROWS`): names the same there are the same
    everywhere else too, so as drawn that is the picture compared."""
    if len(name) != len(other):
        return name.casefold() == other.casefold()
    if _apart(_pixels(name, None, font.ACCENT_ROWS),
              _pixels(other, None, font.ACCENT_ROWS), TITLE_NEAR) <= TITLE_NEAR:
        return True
    return any(_pixels(name, case) == _pixels(other, case) for case in ("lower", "upper"))


#: Pixels two names may differ by in the title bar and still read as one: what is left
#: there of an accent is at most a lone pixel (É, È, Ê, Ë and Ё keep one pixel of their
#: Latin-1 body beside E's, è and é one of the mark), so "Éric's cards" read "Eric's
#: cards" there.
TITLE_NEAR = 1
#: More pixels than a cell has: "nothing alike".
CELL_PIXELS = font.CELL_W * font.CELL_H + 1


def _apart(cells: Sequence[bytes], others: Sequence[bytes], near: int = CELL_PIXELS) -> int:
    """How many pixels two names' cells differ by (an undrawable character's cell
    differs from everything but itself by more than any tolerance); counting stops past
    ``near`` (more than that is all a caller asks)."""
    total = 0
    for cell, other in zip(cells, others, strict=True):
        if cell == other:
            continue
        if len(cell) != len(other) or len(cell) <= 4:  # an undrawable's UTF-8, not a glyph
            return CELL_PIXELS
        total += (int.from_bytes(cell) ^ int.from_bytes(other)).bit_count()
        if total > near:
            break
    return total



def _pixels(name: str, case: str | None, hidden_rows: int = 0) -> tuple[bytes, ...]:
    """Each cell of ``name`` as drawn (``case``: every letter lower or upper first),
    without its top ``hidden_rows``; kept for short names, since checking a seat list
    draws each name once against every other (200 names: 20,000 pairs)."""
    if len(name) <= _KEYS_KEPT_UP_TO:
        return _kept_pixels(name, case, hidden_rows)
    return _draw(name, case, hidden_rows)


@lru_cache(maxsize=8192)
def _kept_pixels(name: str, case: str | None, hidden_rows: int) -> tuple[bytes, ...]:
    return _draw(name, case, hidden_rows)


def _draw(name: str, case: str | None, hidden_rows: int) -> tuple[bytes, ...]:
    cells = []
    for char in name:
        if case is not None:
            changed = getattr(char, case)()
            # Only one-for-one case changes: "ß".upper() is "SS", two cells.
            char = changed if len(changed) == 1 else char
        # An undrawable character (in an old name) stands for itself, not for '?'.
        cells.append(font.glyph(char)[hidden_rows:] if font.drawable(char)
                     else char.encode())
    return tuple(cells)


def as_seats(value: Any, seated: Sequence[str]) -> Any:
    """``value`` (an event, the options) with each string naming a seated player (in
    any spelling of theirs) written as that player's seat (a tuple: no JSON value is
    one), so two spellings of one match compare equal: the game log's duplicate check
    and the club's both read a match this way."""
    seats = {player_key(name): ("seat", index) for index, name in enumerate(seated)}

    def written(part: Any) -> Any:
        if isinstance(part, str):
            return seats.get(player_key(part), part) if len(part) <= NAME_MAX * 4 else part
        if isinstance(part, list):
            return [written(item) for item in part]
        if isinstance(part, dict):
            return {written(key): written(item) for key, item in part.items()}
        return part

    return written(value)


class _Near:
    """The names seated so far, indexed by everything :func:`check_name` compares, so a
    new name is compared only with those that share one of its marks: the same shown
    name or player key, the same letters ignoring case, the same pixels in lower or
    upper case, or, as the title bar draws them, the same pixels in every cell but one
    (two names at most :data:`TITLE_NEAR` pixel apart differ in one cell at most)."""

    def __init__(self) -> None:
        self.names: list[str] = []
        self._index: dict[tuple[Any, ...], list[int]] = {}

    @staticmethod
    def _marks(name: str) -> list[tuple[Any, ...]]:
        title = _pixels(name, None, font.ACCENT_ROWS)
        return [("shown", _shown(name).casefold()), ("key", player_key(name)),
                ("fold", name.casefold()), ("lower", _pixels(name, "lower")),
                ("upper", _pixels(name, "upper")),
                *(("title", cell, title[:cell] + title[cell + 1:])
                  for cell in range(len(title)))]

    def like(self, name: str) -> list[str]:
        """The seated names ``name`` may look like, in seat order."""
        found = {index for mark in self._marks(name) for index in self._index.get(mark, ())}
        return [self.names[index] for index in sorted(found)]

    def add(self, name: str) -> None:
        for mark in self._marks(name):
            self._index.setdefault(mark, []).append(len(self.names))
        self.names.append(name)
