"""A player's name where the room is short: the words around it when they fit beside
it, a shorter form when they do not; never a name cut (a title falls back to the name
alone: ``fitting(long_form, name)``).

A name takes up to :data:`companion.names.NAME_MAX` letters, and a place on the screen
often has little more: "next {name}" beside Card-Down's card has 17 columns, so a
language whose word for "next" is longer than four letters needs a shorter form for a
long name::

    >>> next_player("Ann"), next_player("Bartholomeus")
    ('next Ann', 'next Bartholomeus')
    >>> next_player("Bartholomeus", room=14)
    '> Bartholomeus'
"""

from __future__ import annotations

from companion.lang import pgettext
from companion.ui.canvas import fitting

__all__ = ["next_player"]


def next_player(name: str, room: int = 17) -> str:
    """Who plays after the player on turn, in ``room`` columns ("next Ann")."""
    # Translators: who plays after the player whose turn it is, beside the card or die
    # (17 characters; the shorter form below is shown when a long name leaves no room).
    long = pgettext("screen 17 (if it fits)", "next {name}").format(name=name)
    # Translators: who plays next, short: at most 4 characters beside a name of 12 (an
    # arrow, or a word of 2 letters), for when the longer form does not fit.
    return fitting(long, pgettext("screen 16", "> {name}").format(name=name), room=room)
