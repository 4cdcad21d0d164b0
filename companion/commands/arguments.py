"""What each kind of command-line argument may be, as argparse types: one rule per kind
(a number in a range, a HOST:PORT, a broker URL, a directory, a path, a match), so a bad
argument of any kind is one line and exit status 2 before anything starts::

    >>> number(int, 2, 800)("52")
    52
    >>> try:
    ...     number(int, 2, 800)("1")
    ... except argparse.ArgumentTypeError as refused:
    ...     print(refused)
    must be from 2 to 800, not '1'
"""

from __future__ import annotations

import argparse
import math
import os
from collections.abc import Callable
from typing import Any

from companion.lang import _, ngettext


def number(kind: type, low: float, high: float | None = None) -> Callable[[str], Any]:
    """An argparse type: a number of ``kind`` from ``low`` to ``high`` (a bad one is a
    usage error, exit status 2, like every other bad argument)."""
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                (_("must be a whole number, not {value}") if kind is int
                 else _("must be a number, not {value}")).format(value=repr(text))
            ) from None
        if not (math.isfinite(value) and value >= low and (high is None or value <= high)):
            refused = _("must be from {low} to {high}, not {value}") if high is not None \
                else _("must be at least {low}, not {value}")
            raise argparse.ArgumentTypeError(refused.format(
                low=f"{low:n}", high=f"{high:n}" if high is not None else "",
                value=repr(text)))
        return value
    return parse


def listen(text: str) -> str:
    """An argparse type: ``HOST:PORT`` for a web page ("" = off)."""
    from companion.config import parse_listen

    if text:
        try:
            parse_listen(text)
        except ValueError as problem:
            raise argparse.ArgumentTypeError(str(problem)) from None
    return text


def serial_url(text: str) -> str:
    """An argparse type: a serial port's path or pyserial URL, by the rule
    ``[serial] url`` follows (a port that is not there yet is fine: it is retried)."""
    from companion.config import check_serial_url

    try:
        return check_serial_url(text)
    except ValueError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None


def broker(text: str) -> str:
    """An argparse type: an MQTT broker URL, by the rule ``[club] broker`` follows."""
    from companion.config import check_broker

    try:
        return check_broker(text)
    except ValueError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None


def directory(text: str) -> str:
    """An argparse type: a state directory (it may not exist yet; a file is refused)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(_("needs a directory"))
    if os.path.exists(text) and not os.path.isdir(text):
        raise argparse.ArgumentTypeError(
            _("{path} is a file, not a directory").format(path=text))
    return text


def writable_directory(text: str) -> str:
    """An argparse type: a directory this program can write files in (it may not exist
    yet: then the folder it would be made in must take it). Asked by writing and
    removing a scratch file, not by the permission bits, which say yes to root on a
    read-only card or in /proc; nothing is left behind and nothing is made yet."""
    import tempfile

    text = directory(text)
    target = os.path.abspath(text)
    while not os.path.exists(target):  # the folder it would be made in
        target = os.path.dirname(target)
    if not os.path.isdir(target):
        raise argparse.ArgumentTypeError(
            _("{path} is inside a file, {file}").format(path=text, file=target))
    try:
        with tempfile.TemporaryFile(dir=target):
            pass
    except OSError as problem:
        raise argparse.ArgumentTypeError(_("cannot write in {path}: {problem}").format(
            path=target, problem=problem.strerror or problem)) from None
    return text


def path(text: str) -> str:
    """An argparse type: a path (a file or a directory; "" names nothing)."""
    if not text.strip():
        raise argparse.ArgumentTypeError(_("needs a path"))
    return text


def new_file(text: str) -> str:
    """An argparse type: a file to write (a speech log, a WAV): not a directory, in a
    directory that is there (its own folder is not made)."""
    text = path(text)
    if os.path.isdir(text):
        raise argparse.ArgumentTypeError(
            _("{path} is a directory, not a file").format(path=text))
    folder = os.path.dirname(os.path.abspath(text))
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(_("no directory {path}").format(path=folder))
    return text


def wav_file(text: str) -> str:
    """An argparse type: a WAV file to write (:func:`new_file`), a new or a regular
    one: espeak-ng goes back to fill in the header, which a pipe (it would wait for a
    reader) or a device cannot take."""
    text = new_file(text)
    if os.path.exists(text) and not os.path.isfile(text):
        raise argparse.ArgumentTypeError(
            _("{path} is not a regular file (a device, a pipe)").format(path=text))
    return text


def speech_text(text: str) -> str:
    """An argparse type: words to say (1 to 2000 characters, spaces for line breaks),
    as text: bytes the terminal sent that are not UTF-8 are refused."""
    from companion.voices import TEXT_MAX

    if any("\udc80" <= c <= "\udcff" for c in text):  # how Python keeps such bytes
        raise argparse.ArgumentTypeError(_("must be text: some of its bytes are not UTF-8"))
    said = " ".join(text.split())
    if not said or len(said) > TEXT_MAX:
        raise argparse.ArgumentTypeError(
            ngettext("must be 1 to {n} character of words, not {count}",
                     "must be 1 to {n} characters of words, not {count}", TEXT_MAX).format(
                n=TEXT_MAX, count=len(said)))
    return said


def match_ref(text: str) -> str:
    """An argparse type: ``current``, ``last`` or a match number."""
    ref = text.strip().lower()
    if ref not in ("current", "last") and not (ref.isascii() and ref.isdigit()):
        raise argparse.ArgumentTypeError(
            # Translators: current and last are typed as they are (English words).
            _("is current, last or a match number, not {value}").format(value=repr(text)))
    return ref


def match_uid(text: str) -> str:
    """An argparse type: a match's uid (1 to 64 characters, no spaces, no '/', '+', '#':
    it is a topic level in club mode)."""
    if not 1 <= len(text) <= 64 or not text.isprintable() or \
            any(c.isspace() or c in "/+#" for c in text):
        raise argparse.ArgumentTypeError(
            _("is a match uid (up to 64 letters and digits), not {value}").format(
                value=repr(text[:80])))
    return text


def device_id(text: str) -> str:
    """An argparse type: a device's id as a club dashboard knows it: the 16 hex digits
    its match uids begin with (or more of its id; the first 16 count)."""
    from companion.store import UID_DEVICE_DIGITS

    if not UID_DEVICE_DIGITS <= len(text) <= 64 or \
            any(c not in "0123456789abcdefABCDEF" for c in text):
        raise argparse.ArgumentTypeError(
            _("is a device id ({low} to 64 hex digits), not {value}").format(
                low=UID_DEVICE_DIGITS, value=repr(text[:80])))
    return text.lower()


def season_name(text: str) -> str:
    """An argparse type: a season's name as ``[club] seasons`` or ``--season`` gives it."""
    name = text.strip()
    if not name or len(name) > 40 or not name.isprintable():
        raise argparse.ArgumentTypeError(
            _("is a season's name, not {value}").format(value=repr(text[:80])))
    return name


def table(text: str) -> str:
    """An argparse type: a club table's name, by the rule ``[club] table`` follows."""
    from companion.config import TABLE_NAME, valid_table_name

    if not valid_table_name(text):
        raise argparse.ArgumentTypeError(_("is a club table's name ({rule}), not {value}").format(
            rule=_(TABLE_NAME), value=repr(text)))
    return text


def tables(text: str) -> int | tuple[str, ...]:
    """An argparse type: a club night's tables, a number (1 to 500: that many of the
    tables online now) or comma-separated table names (exactly those)."""
    text = text.strip()
    if text.isascii() and text.isdigit():
        return int(number(int, 1, 500)(text))
    # A comma at the end makes a list of one: "7," is the table named 7, "7" is seven.
    listed = text[:-1] if text.endswith(",") and text[:-1].strip() else text
    names = tuple(name.strip() for name in listed.split(","))
    for name in names:
        table(name)
    if len(set(names)) != len(names):
        raise argparse.ArgumentTypeError(_("names a table twice: {value}").format(
            value=repr(text[:200])))
    if len(names) > 500:
        raise argparse.ArgumentTypeError(_("names at most 500 tables"))
    return names


def season(text: str) -> str:
    """An argparse type: one or more seasons, ``NAME: YYYY-MM-DD..YYYY-MM-DD``."""
    from companion.errors import SeasonError
    from companion.seasons import parse_seasons

    try:
        parse_seasons(text)
    except SeasonError as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None
    return text


def game(text: str) -> str:
    """An argparse type: a game's id (``final-count``)."""
    from companion.games import GAMES, available

    if not any(info.game_id == text and available(text) for info in GAMES):
        known = ", ".join(info.game_id for info in GAMES if available(info.game_id))
        raise argparse.ArgumentTypeError(
            _("is a game ({games}), not {value}").format(games=known, value=repr(text)))
    return text


def players(text: str) -> list[str]:
    """An argparse type: comma-separated player names, by the one rule for names."""
    from companion.errors import BadName
    from companion.names import split_players

    try:
        return split_players(text)
    except BadName as problem:
        raise argparse.ArgumentTypeError(str(problem)) from None
