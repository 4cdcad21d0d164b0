"""Which language the program speaks from its start: ``[ui] language`` read before
anything is said, the one place the command line and the app switch to it, and
argparse's own words (``usage:``, ``options``, its errors) through the same catalog.

``companion --help`` is built before any command reads the configuration, so the
language is looked up first, cheaply: only the file's ``[ui] language``, with no check
of the rest (a bad configuration is the command's to report; the help is then English)::

    >>> configured_language([], env={"COMPANION_CONFIG": "/nonexistent"})
    'en'
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from companion import lang
from companion.config import CONFIG_MAX, config_path
from companion.errors import CompanionError, ConfigError, UnknownLanguage
from companion.lang import N_

#: argparse's own messages, exactly as argparse 3.11 writes them, marked here for the
#: catalog: argparse looks every one up through its module-level ``_``/``ngettext``
#: (``gettext.gettext`` of the "messages" domain, which has no catalog of ours), so
#: :func:`argparse_speaks` points those two names at companion.lang and these msgids
#: find their translations. The ``%s`` / ``%(name)s`` placeholders stay as they are:
#: argparse fills them in with ``%`` after the lookup, so a translation keeps them.
ARGPARSE_MESSAGES = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("show this help message and exit"),
    N_("show program's version number and exit"),
    N_("argument %(argument_name)s: %(message)s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("can't open '%(filename)s': %(error)s"),
    N_("unrecognized arguments: %s"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unexpected option string: %s"),
    N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("%(prog)s: error: %(message)s\n"),
)


def _argparse_ngettext(singular: str, plural: str, n: int) -> str:
    if singular == "expected %s argument":  # spelt out here so that it is extracted
        return lang.ngettext("expected %s argument", "expected %s arguments", n)
    return lang.ngettext(singular, plural, n)


def argparse_speaks() -> None:
    """Make argparse say its words in the current language (looked up each time, so a
    switch of language afterwards is followed too)."""
    argparse._ = lang.gettext  # type: ignore[attr-defined]
    argparse.ngettext = _argparse_ngettext  # type: ignore[attr-defined]


def speak(language: str, source: str | None = None) -> None:
    """Speak ``language`` from now on: the one place the command line and the app call
    :func:`companion.lang.use`. A language whose file is missing or damaged (a broken
    install, a torn write) is spoken in English, with one line in the log
    (:func:`companion.lang.unreadable` keeps it for the screen); a language the device
    does not know is a :class:`ConfigError`, one line, never a traceback."""
    try:
        lang.use(language)
    except UnknownLanguage as problem:
        where = f"{source}: " if source else ""
        raise ConfigError(f"{where}ui.language {problem}") from None


def _config_flag(argv: Sequence[str]) -> str | None:
    """The ``--config PATH`` (or ``--config=PATH``, or a prefix argparse would take for
    it, ``--conf``) among the arguments, as the subcommand's parser will read it."""
    found = None
    for at, word in enumerate(argv):
        if word == "--":
            break
        flag, equals, value = word.partition("=")
        if len(flag) < 4 or not "--config".startswith(flag):
            continue
        if equals:
            found = value
        elif at + 1 < len(argv):
            found = argv[at + 1]
    return found


def configured_language(argv: Sequence[str], env: dict[str, str] | None = None) -> str:
    """``[ui] language`` of the configuration the command will read (``--config``,
    ``$COMPANION_CONFIG``, the system or user file), or "en" when there is none, or it
    cannot be read, or its language is not one the device speaks: only that key is
    looked at, so this costs a TOML parse when a file exists and nothing otherwise."""
    env = os.environ if env is None else env
    try:
        path = config_path(_config_flag(argv), env)
        if path is None:
            return lang.DEFAULT
        from companion.files import read_text_file

        text = read_text_file(path, CONFIG_MAX, N_("the configuration"))
        import tomllib  # only when there is a file (as load_config does)

        language = tomllib.loads(text).get("ui", {}).get("language", lang.DEFAULT)
        return lang.check(language)
    except (CompanionError, OSError, ValueError, AttributeError, RecursionError):
        return lang.DEFAULT  # the command that reads the file says what is wrong
