"""The language the device speaks: one gettext catalog at a time, switched live.

Every sentence a person reads (the screen, the table and club pages, the command line)
goes through the functions here; what programs read (serial keywords and reply codes,
JSON keys, event types, error codes) never does. The catalogs are
``companion/locale/LANG/LC_MESSAGES/companion.po`` (kept in step by
``scripts/catalogs.py``) and their compiled ``.mo`` twins, which the tests check::

    >>> use("en"); _("Tools")
    'Tools'
    >>> ngettext("{n} die", "{n} dice", 3).format(n=3)
    '3 dice'

A message drawn on the 128x64 screen carries its place as a message context:
``pgettext("screen 21", "Draw pile")`` is drawn in at most 21 characters; "screen 21x4"
is folded into at most 4 lines of 21, "screen 21xN" into a box that scrolls, and
"screen 21 (if it fits)" is tried before a shorter message. ``companion lang-check``
draws every translation in its place with the device's font and lists what does not
fit, so a narrow place gets a short form a player would write (its own context), never
a cut.

The language is the device's, not a request's: the table page follows the buttons.
Switching (:func:`use`) changes what the next call returns, so every screen drawn after
it speaks the new language; texts kept in class attributes use :func:`lazy`.

A catalog that cannot be read (missing, or torn by a power cut while it was written)
never takes the device down: :func:`use` speaks English instead, logs one line, and
:func:`unreadable` keeps that line for the screens to show.
"""

from __future__ import annotations

import gettext as _gettext
import logging
import re
from collections import UserString
from pathlib import Path

from companion.errors import UnknownLanguage, speak_with

#: The languages the catalogs hold, English (the messages themselves) first; the
#: Settings > Language menu lists them in this order (Español above Français: the
#: cedilla would touch the tilde on the row under it).
LANGUAGES = ("en", "de", "es", "fr", "it", "pl", "ru")
#: Each language's own name for itself, as the Settings > Language menu lists it.
NAMES = {"en": "English", "de": "Deutsch", "es": "Español", "fr": "Français",
         "it": "Italiano", "pl": "Polski", "ru": "Русский"}
DEFAULT = "en"
DOMAIN = "companion"
LOCALE_DIR = Path(__file__).with_name("locale")

_NONE = _gettext.NullTranslations()
_loaded: dict[str, _gettext.NullTranslations] = {}
_current: list = [DEFAULT, _NONE]
#: The language whose catalog could not be read, while English stands in for it.
_unreadable: list[str] = []
log = logging.getLogger("companion")


def catalog_path(code: str) -> Path:
    """The compiled catalog of ``code``."""
    return LOCALE_DIR / code / "LC_MESSAGES" / f"{DOMAIN}.mo"


def _catalog(code: str) -> _gettext.NullTranslations:
    if code == DEFAULT:
        return _NONE
    if code not in _loaded:
        with open(catalog_path(code), "rb") as mo:
            translations = _gettext.GNUTranslations(mo)
        _check_plurals(translations)
        _loaded[code] = translations
    return _loaded[code]


#: The counts a catalog's plural rule is tried on when it is read: every count a
#: screen shows and a few far beyond.
_COUNTS_TRIED = (*range(1001), 10_001, 100_001, 1_000_001, 10**9 + 1)
_NPLURALS = re.compile(r"nplurals\s*=\s*(\d+)")


def _check_plurals(translations: _gettext.GNUTranslations) -> None:
    """ValueError when the catalog's plural rule cannot be trusted: it fails for a count
    (a bit flipped on the card makes "n % 10" "n % 00", a division by zero at every
    count said), picks a form its header does not have, or a message holds another
    number of forms than the header says. Such a catalog would fail or say the wrong
    form on a screen long after it was read; read, it is damaged like a torn one."""
    found = _NPLURALS.search(translations.info().get("plural-forms", ""))
    forms = int(found.group(1)) if found else 2
    for count in _COUNTS_TRIED:
        try:
            form = translations.plural(count)
        except Exception as problem:  # noqa: BLE001 - the rule is the file's own text
            raise ValueError(f"its plural rule fails for {count}: {problem}") from None
        if not isinstance(form, int) or not 0 <= form < forms:
            raise ValueError(f"its plural rule picks form {form!r} for {count}; "
                             f"it has {forms}")
    # The catalog's own table: a message with plural forms is (msgid, form) -> text.
    held: dict[str, set[int]] = {}
    for key in translations._catalog:  # noqa: SLF001 - gettext keeps no other view
        if isinstance(key, tuple):
            held.setdefault(key[0], set()).add(key[1])
    for message, indexes in held.items():
        if indexes != set(range(forms)):
            raise ValueError(f"{message[:40]!r} has {len(indexes)} plural forms; "
                             f"its header says {forms}")


def _reason(problem: BaseException) -> str:
    if isinstance(problem, FileNotFoundError):
        return gettext("missing")
    words = " ".join(str(problem).split())
    return words[:80] or type(problem).__name__


def check(code: object) -> str:
    """``code`` when it names a language the device speaks; :class:`UnknownLanguage`
    (whose text lists them) otherwise."""
    if not isinstance(code, str) or code not in LANGUAGES:
        shown = code if isinstance(code, str) else repr(code)
        raise UnknownLanguage(f"language {shown[:20]!r} is not one of "
                              + ", ".join(LANGUAGES))
    return code


def use(code: str) -> None:
    """Speak ``code`` from now on (every screen drawn after this, every page served).
    A catalog that cannot be read makes it English, with one line in the log and in
    :func:`unreadable`; :class:`UnknownLanguage` for a code that is not a language."""
    check(code)
    try:
        translations = _catalog(code)
    except Exception as problem:  # noqa: BLE001 - a torn file fails as its bytes happen to
        _current[:] = [DEFAULT, _NONE]
        _unreadable[:] = [code]
        # Translators: said in English (the language's own file cannot be read).
        log.warning("%s", gettext("the language file of {language} ({path}) cannot be read "
                                  "({reason}): English is spoken").format(
                                      language=code, path=catalog_path(code),
                                      reason=_reason(problem)))
        return
    _current[:] = [code, translations]
    _unreadable.clear()


def unreadable() -> str | None:
    """What the screen says while a language's catalog cannot be read and English stands
    in for it (the log has the file and why), or None when the language spoken is the
    one asked for."""
    if not _unreadable:
        return None
    return pgettext("screen 21xN", "The language file of {language} cannot be read: English "
                    "is spoken. Installing companion again brings it back.").format(
                        language=NAMES.get(_unreadable[0], _unreadable[0]))


def current() -> str:
    """The language spoken now ("en", "de", ...)."""
    return _current[0]


def gettext(message: str) -> str:
    """``message`` in the current language."""
    return _current[1].gettext(message)


_ = gettext


def ngettext(singular: str, plural: str, n: int) -> str:
    """The form of ``singular``/``plural`` the current language uses for ``n``."""
    return _current[1].ngettext(singular, plural, n)


def pgettext(context: str, message: str) -> str:
    """``message`` as said in ``context`` (a screen place such as "screen 21")."""
    return _current[1].pgettext(context, message)


def pgettext_in(code: str, context: str | None, message: str) -> str:
    """``message`` (in ``context``) as language ``code`` says it, whatever is spoken now:
    for what measures every language at once (companion.commands.worst). English where the
    language has no readable catalog."""
    if code not in LANGUAGES:
        return message
    try:
        catalog = _catalog(code)
    except Exception:  # noqa: BLE001 - a torn file: use() says so when it is spoken
        return message
    return catalog.pgettext(context, message) if context else catalog.gettext(message)


def npgettext(context: str, singular: str, plural: str, n: int) -> str:
    """:func:`ngettext` for a message with a context."""
    return _current[1].npgettext(context, singular, plural, n)


# The few messages companion.errors makes are said in this language too (it cannot
# import this module: this module raises its UnknownLanguage).
speak_with(gettext, pgettext)


class lazy(UserString):  # noqa: N801 - used like the function it stands in for
    """A message translated each time it is used, for texts fixed before any language
    is chosen (class attributes, module tables)::

        title = lazy("screen 21", "Dice")   # pgettext("screen 21", "Dice") when drawn

    A text with no place on the screen marks its message with :func:`N_` and is
    translated with :func:`gettext` where it is used.
    """

    def __init__(self, context: str, message: str | None = None):
        if message is None:
            # UserString's own methods (slicing, upper(), + ...) build their result by
            # calling the class with one string: that result is plain text, fixed.
            self.context, self.message = None, str(context)
        else:
            self.context, self.message = context, message

    @property
    def data(self) -> str:  # type: ignore[override]
        if self.context is None:
            return self.message
        return pgettext(self.context, self.message)

    def __format__(self, spec: str) -> str:
        return format(self.data, spec)

    def __reduce__(self):
        return (lazy, (self.context, self.message))


def N_(message: str) -> str:  # noqa: N802 - gettext's name for "mark, translate later"
    """Mark ``message`` for the catalog without translating it here (it is translated
    where it is shown, with :func:`gettext`)."""
    return message


def number(value: float, places: int | None = None) -> str:
    """``value`` as the current language writes numbers: "2.5" in English, "2,5" in
    German; ``places`` fixes the digits after the point."""
    text = f"{value:.{places}f}" if places is not None else f"{value:g}"
    point = pgettext("decimal separator", ".")
    return text.replace(".", point) if point != "." else text


def date(when) -> str:
    """A date (datetime or date) as the language writes it in digits: "2026-11-26" in
    English, "26.11.2026" in German."""
    return pgettext("a date in digits", "{year}-{month}-{day}").format(
        year=f"{when.year:04d}", month=f"{when.month:02d}", day=f"{when.day:02d}")


def day_month(when) -> str:
    """A day without its year, as the language writes it short: "11-26" in English,
    "26.11." in German (History's lists)."""
    return pgettext("a day and month in digits, no year", "{month}-{day}").format(
        month=f"{when.month:02d}", day=f"{when.day:02d}")


def date_time(when) -> str:
    """A date and time of day as the language writes them: "2026-11-26 14:05"."""
    return pgettext("a date and a time of day", "{date} {hour}:{minute}").format(
        date=date(when), hour=f"{when.hour:02d}", minute=f"{when.minute:02d}")


#: Day and month names for :func:`long_date_time`, translated where used.
_WEEKDAYS = (N_("Mon"), N_("Tue"), N_("Wed"), N_("Thu"), N_("Fri"), N_("Sat"), N_("Sun"))
_MONTHS = (N_("Jan"), N_("Feb"), N_("Mar"), N_("Apr"), N_("May"), N_("Jun"), N_("Jul"),
           N_("Aug"), N_("Sep"), N_("Oct"), N_("Nov"), N_("Dec"))


def long_date_time(when) -> str:
    """A day and time as the pages write it, names in the language: "Wed 25 Nov 2026
    18:05" in English, "Mi 25. Nov. 2026 18:05" in German."""
    # Translators: a date and time on the pages; {weekday} and {month} are the short
    # names translated above (Mon, Nov); put the fields in the language's order.
    return _("{weekday} {day} {month} {year} {hour}:{minute}").format(
        weekday=gettext(_WEEKDAYS[when.weekday()]), day=f"{when.day:02d}",
        month=gettext(_MONTHS[when.month - 1]), year=f"{when.year:04d}",
        hour=f"{when.hour:02d}", minute=f"{when.minute:02d}")


def and_list(names) -> str:
    """Names as a person lists them in the current language: "Ann, Bob and Cy"."""
    words = [str(name) for name in names]
    if len(words) <= 1:
        return "".join(words)
    separator = pgettext("between names in a list", ", ")
    return _("{names} and {last}").format(names=separator.join(words[:-1]), last=words[-1])
