"""The one rule for player names, whichever way a name comes in: the buttons' letter ring,
the command line (``sim --new --players``, ``replay --players``), the serial console
(``ADD PLAYER``, ``NEW``), the store, the web page, imported files.

A name is 1 to :data:`NAME_MAX` characters after trimming, with no control or format
characters (bidi marks, zero-width joiners) and no comma (player lists are written
comma-separated); the screen must have a glyph for every character (Latin, Greek and
Cyrillic letters: see :mod:`companion.font`); and it must not look like another player's
name. "Looks like" is the same pixels on the screen, ignoring case, wherever the
screen draws the name (in the title bar, up to a lone pixel). Cyrillic А is drawn with
Latin A's pixels, so "Аnn" is refused seated beside "Ann" (one player twice); the title
bar (at the panel's top edge) does not show the accent rows above the capitals, so
"Ànn" is too, and "Éric" beside "Eric" (what is left of É there is one pixel)::

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

A new match seats its players by :func:`seat_players`, whichever way they come in: a
name with the :func:`player_key` of a roster name is that roster player, written as the
roster writes it (typing "Kate" seats the roster's Greek "ΚΑΤΕ": it is never refused as
a lookalike of itself), and only a name new to the roster is held against the roster's
names::

    >>> seat_players(["Kate", "Bob"], roster=["ΚΑΤΕ"])
    ['ΚΑΤΕ', 'Bob']

So is a name in an event from afar: :func:`seated_spellings` writes it as the seat.

Refusals are :class:`BadName` (a :class:`~companion.errors.BadSetup`, so the serial
console answers ``ERR BADARG`` and the command line prints one line), whose message says
what to change.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache, wraps
from typing import Any, TypeVar

from companion import font
from companion.errors import BadName
from companion.lang import pgettext

__all__ = ["NAME_MAX", "BadName", "check_name", "check_players", "looks_like",
           "placeholder_seats", "player_key", "roster_name", "seat_checked", "seat_players",
           "seated_spellings",
           "split_players"]

#: Longest name: the 128x64 screen shows a name beside a score.
NAME_MAX = 12

# Control, format (bidi marks, zero-width), line/paragraph separators, surrogates,
# private use and unassigned code points: nothing a person means as part of a name.
_HIDDEN = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"))

_Answer = TypeVar("_Answer")


#: Names this long or shorter have what is worked out from them kept (names come again
#: and again: an import checks every match's names against each other and the
#: roster's, the figures key every player of every match); a longer string (a query
#: from the network) is worked out each time.
_KEPT_UP_TO = 64


def _kept_for_names(most: int) -> Callable[[Callable[..., _Answer]], Callable[..., _Answer]]:
    """A function ``work(name, ...)`` with its answers kept for the ``most`` names (and
    further arguments) used last, up to :data:`_KEPT_UP_TO` characters each: ``work`` is
    a function of them alone (the font and the rule do not change while it runs)."""

    def keeping(work: Callable[..., _Answer]) -> Callable[..., _Answer]:
        kept = lru_cache(maxsize=most)(work)

        @wraps(work)
        def answer(name: Any, *args: Any) -> _Answer:
            if isinstance(name, str) and len(name) <= _KEPT_UP_TO:
                return kept(name, *args)
            return work(name, *args)

        return answer

    return keeping


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


@_kept_for_names(most=4096)
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
    than "one player" can be (it is not transitive: "ànn" is not "ann");
    :func:`seat_players` seats a roster player's other spelling as that player. A name
    and its case fold are one key ("Ə" and "ə", "İ" and "i̇")::

        >>> player_key("Ə") == player_key("ə"), player_key("İ") == player_key("I")
        (True, False)
    """
    # Folded first, then each character as its class: a name and its case-folded
    # spelling are one key by construction ("Ə" and "ə", "İ" and "i̇", "ß" and "ss").
    same_as = _same_pixels()
    folded = unicodedata.normalize("NFC", _shown(name).casefold())
    return "".join(same_as.get(char, char) for char in folded)


@_kept_for_names(most=4096)
def _shown(name: str) -> str:
    """``name`` as its cells show it: NFC, without cells that draw nothing (controls,
    zero-width marks, blank glyphs), trimmed, each run of spaces one space."""
    if not isinstance(name, str):
        return ""
    kept = (char for char in unicodedata.normalize("NFC", name)
            if unicodedata.category(char) not in _HIDDEN
            and (char.isspace() or not font.blank(char)))
    return " ".join("".join(kept).split())


@lru_cache(maxsize=1)
def _same_pixels() -> dict[str, str]:
    """Each character a folded name can hold -> the first of its class (drawable
    characters in the font's order, so Latin first; small letters before capitals; a
    fold the screen cannot draw, like ə, last): characters drawn with the same pixels,
    each letter's other case and its case fold are one class (В is drawn as B, so в,
    В, b and B are one; Ə is drawn as Cyrillic Ә and folds to Latin ə, so Ə, Ә, ә and
    ə are one)."""
    chars = [char for char in font.chars() if font.drawable(char)]
    folds = {char: unicodedata.normalize("NFC", char.casefold()) for char in chars}
    undrawn = [fold for fold in dict.fromkeys(folds.values())
               if len(fold) == 1 and fold not in folds]
    order = {char: (index >= len(chars), char != char.casefold(), index)
             for index, char in enumerate(chars + undrawn)}
    first = {char: char for char in order}

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
        for other in (char.lower(), char.upper(), folds[char]):
            if other in first:  # one character, drawn or the fold of one drawn
                join(char, other)
    return {char: find(char) for char in order}


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


def roster_name(name: str, roster: Iterable[str]) -> str | None:
    """The roster's spelling of the player ``name`` is, or None for a player new to it:
    the name spelled exactly so, else in other capitals, else the first with its
    :func:`player_key` (a roster written before one key may hold two spellings of one
    player: the exact one is taken first). Any spelling of a roster player finds it,
    and the roster's own spelling finds itself::

        >>> roster_name("Kate", ["Bob", "ΚΑΤΕ"]), roster_name("ΚΑΤΕ", ["Bob", "ΚΑΤΕ"])
        ('ΚΑΤΕ', 'ΚΑΤΕ')
        >>> roster_name("Kat", ["Bob", "ΚΑΤΕ"]) is None
        True
    """
    known = [spelled for spelled in roster if isinstance(spelled, str)]
    if name in known:
        return name
    wanted = name.casefold()
    found = next((spelled for spelled in known if spelled.casefold() == wanted), None)
    if found is None:
        key = player_key(name)
        found = next((spelled for spelled in known if player_key(spelled) == key), None)
    return found


def seat_players(names: object, roster: Iterable[str] = ()) -> list[str]:
    """A new match's seats by the one name rule, whichever way the names come in (the
    letter picker, NEW from the serial console or the page, ``sim --new --players``, a
    club round): every name checked and none like another seated one
    (:func:`check_players`); a name with a roster player's key is that player, written
    as the roster writes it ("Kate" is the roster's "ΚΑΤΕ", never refused as a
    lookalike of itself); a new name must not look like a roster name ("Ànn" beside
    "Ann": :func:`check_name`)::

        >>> seat_players(["Kate", "Bob"], ["ΚΑΤΕ"])
        ['ΚΑΤΕ', 'Bob']
        >>> try:
        ...     seat_players(["Kate", "ΚΑΤΕ"], ["ΚΑΤΕ"])
        ... except BadName as refused:
        ...     print(refused)
        ΚΑΤΕ would look like Kate on the screen

    Resolving twice changes nothing: the roster's spelling is its own. A roster name
    the rule refuses today (stored before it) is never a seat's spelling: a name with
    its key stays as typed, and is still that player.
    """
    return seat_checked(check_players(names), roster)


def seat_checked(typed: list[str], roster: Iterable[str] = ()) -> list[str]:
    """:func:`seat_players` for seats just as :func:`check_players` gave them back (an
    import checks a match's names first, to say which one is written otherwise, and
    need not check every name twice)."""
    roster = [spelled for spelled in roster if isinstance(spelled, str)]
    spellings: dict[str, list[str]] = {}  # key -> the roster's spellings of that player
    for spelled in roster:
        spellings.setdefault(player_key(spelled), []).append(spelled)
    seats = []
    for name in typed:
        same = spellings.get(player_key(name))
        if not same:
            seats.append(check_name(name, roster))
        elif name in same:  # the roster's own spelling (and clean: it was just checked)
            seats.append(name)
        else:
            seats.append(roster_name(name, filter(_follows_the_rule, same)) or name)
    # Respelled seats are checked again: two roster spellings seated together may be
    # drawn alike where the typed ones were not.
    return seats if seats == typed else check_players(seats)


def seated_spellings(event: Mapping[str, Any], fields: Iterable[str],
                     seated: Sequence[str]) -> dict[str, Any]:
    """``event`` (a copy) with each name in ``fields`` (a field holds a name or a list
    of names) that is a seated player in another spelling written as the seat writes
    it, as :func:`seat_players` writes a roster player: "kate" or "Kate" is the seated
    "ΚΑΤΕ", a name typed decomposed (a phone's "Zoë") is the seat's. A name that is no
    one seated, and every other field, stay as typed (the game refuses what it must)::

        >>> seated_spellings({"type": "call", "player": "kate"}, ["player"], ["ΚΑΤΕ", "Bob"])
        {'type': 'call', 'player': 'ΚΑΤΕ'}
    """
    def seat(name: Any) -> Any:
        if not isinstance(name, str) or name in seated or len(name) > NAME_MAX * 4:
            return name
        return roster_name(name, seated) or name

    fields = set(fields)
    return {key: ([seat(name) for name in value] if isinstance(value, list) else seat(value))
            if key in fields else value for key, value in event.items()}


def _follows_the_rule(name: str) -> bool:
    """Whether :func:`check_name` takes ``name`` exactly as it is spelled."""
    try:
        return check_name(name) == name
    except BadName:
        return False


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
        total += (int.from_bytes(cell, "big") ^ int.from_bytes(other, "big")).bit_count()
        if total > near:
            break
    return total



@_kept_for_names(most=2048)  # a few hundred bytes each: a picture per name and case
def _pixels(name: str, case: str | None, hidden_rows: int = 0) -> tuple[bytes, ...]:
    """``name``'s cells as drawn (``case``: with every letter in "lower" or "upper"
    case), without the top ``hidden_rows``."""
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
