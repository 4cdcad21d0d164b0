"""What every Block Lottery screen draws and says the same way: the six faces with a
count under each, a lottery token in its prize space, "1 die" / "15 dice", a token's
word, the round on a title's right, and the undo row's words for each event.

The setup, the table (:mod:`companion.ui.block_lottery.table`) and the end of a round
(:mod:`companion.ui.block_lottery.round_end`) all draw with these, so they live below them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from companion.games import block_lottery as rules
from companion.lang import lazy, npgettext, pgettext
from companion.ui.canvas import BODY_TOP, WIDTH, Canvas, text_width
from companion.ui.tools import token_word

#: Width of one face column when the six faces are drawn side by side.
COLUMN = 21
#: Die pictures: the pool and a player's dice (>= 16 px), the tokens on the prize card.
FACE_DIE, TOKEN_DIE = 16, 22


#: The columns of a player's dice count beside a name: a row holds a name of the
#: longest (12), a space and this.
DICE_COUNT_COLUMNS = 8


def dice_count(count: int) -> str:
    """"1 die", "15 dice" (8 characters)."""
    # Translators: how many dice a player has, beside the player's name (8 characters).
    return npgettext("screen 8", "{n} die", "{n} dice", count).format(n=count)


def _face_x(face: int) -> int:
    """Left edge of the column of ``face`` (1-6), the six centred across the screen."""
    return (WIDTH - COLUMN * len(rules.FACES)) // 2 + (face - 1) * COLUMN


def centred_x(left: int, width: int, text: str, scale: int) -> int:
    """Where ``text`` at ``scale`` starts to sit centred in ``width`` from ``left``."""
    return left + (width - text_width(text, scale) + scale) // 2


def draw_faces(canvas: Canvas, counts: Sequence[int], *, cursor: int | None = None,
               scale: int = 3, picked: Sequence[int] | None = None) -> None:
    """The six faces as dice with how many of each under them; the cursor's die is
    inverted; ``picked`` marks dice picked up for a re-roll (a small inverted count)."""
    top = BODY_TOP + 1
    for face in rules.FACES:
        x = _face_x(face)
        canvas.die(x + (COLUMN - FACE_DIE) // 2, top, FACE_DIE, face, held=face == cursor)
        count = str(counts[face - 1])
        # Picked-up marks need the row under the counts: the counts go small then.
        size = 1 if picked else scale if len(count) == 1 else min(scale, 2)
        canvas.text(centred_x(x, COLUMN, count, size), top + FACE_DIE + 3, count, scale=size)
        if picked and picked[face - 1]:
            mark = f"x{picked[face - 1]}"
            canvas.text(centred_x(x, COLUMN, mark, 1), top + FACE_DIE + 14, mark, invert=True)


def face_counts(faces: Sequence[int]) -> list[int]:
    tally = Counter(faces)
    return [tally[face] for face in rules.FACES]


def describe_event(event: dict, named: bool = True) -> str:
    """A short line for the undo item ("Ann took a 4"; unnamed: "take of a 4")."""
    # Translators: Block Lottery's undo row ("Undo " and these words, 16 characters):
    # the last thing entered, with the player's name (tried first: "if it fits") or
    # without it.
    kind, player = event.get("type"), event.get("player", "")
    if kind == "pool":
        # Translators: the roll of the dice pool (the 15 dice in the middle).
        return pgettext("screen 16", "pool roll")
    if kind == "token":
        # Translators: a lottery token drawn ({token}: a face, ALL or NONE).
        return pgettext("screen 16", "token {token}").format(
            token=token_word(str(event.get("token"))))
    if kind == "take":
        face = event.get("face")
        # Translators: a player took a die showing {face} from the pool.
        if named:
            return pgettext("screen 16 (if it fits)", "{name} took a {face}").format(
                name=player, face=face)
        return pgettext("screen 16", "take of a {face}").format(face=face)
    words = {"end": (lazy("screen 16 (if it fits)", "{name}: round end"),
                     lazy("screen 16", "round end")),
             "reroll": (lazy("screen 16 (if it fits)", "{name}'s re-roll"),
                        lazy("screen 16", "re-roll")),
             # Translators: the cards a player counted at the round's end.
             "score": (lazy("screen 16 (if it fits)", "{name}'s cards"),
                       lazy("screen 16", "card count")),
             }.get(str(kind))
    if words is None:
        return str(kind)
    return str(words[0]).format(name=player) if named else str(words[1])


def draw_token(canvas: Canvas, x: int, token: str, *, invert: bool = False) -> None:
    """One lottery token in the prize space whose box starts at ``x``: a die for a face,
    ALL in big letters, NONE as a crossed-out die."""
    left, top = x + (40 - TOKEN_DIE) // 2, BODY_TOP + 4
    if token == rules.ALL:
        # Big in its space when the word has 3 letters or fewer, else small (a space is
        # 40 pixels wide: 6 small letters).
        word = token_word(token)
        scale = 2 if len(word) <= 3 else 1
        canvas.text(centred_x(x, 40, word, scale), top + 6 + (0 if scale == 2 else 4), word,
                    scale=scale, invert=invert)
    elif token == rules.NONE:
        right, bottom = left + TOKEN_DIE - 1, top + TOKEN_DIE - 1
        canvas.draw.rounded_rectangle((left, top, right, bottom), radius=3, outline=1,
                                      fill=1 if invert else 0)
        ink = 0 if invert else 1
        canvas.draw.line((left + 3, top + 3, right - 3, bottom - 3), fill=ink, width=2)
        canvas.draw.line((left + 3, bottom - 3, right - 3, top + 3), fill=ink, width=2)
    else:
        canvas.die(left, top, TOKEN_DIE, int(token), held=invert)


def round_right(number: int) -> str:
    """The title's right: "round 2" (8 characters)."""
    # Translators: the title's right (8 characters): which round it is.
    return pgettext("screen 8", "round {n}").format(n=number)
