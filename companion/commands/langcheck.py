"""``companion lang-check``: every translation drawn in its place, every screen of
every game walked in every language, and what does not fit.

A message drawn on the 128x64 screen names its place in its context ("screen 21": one
line of at most 21 characters; "screen 21x4": folded into at most 4 such lines). For
each catalog this draws every translation in its place with the device's font, its
placeholders filled with the worst values the device allows (:mod:`companion.commands.worst`:
names of the roster's longest in the language's widest letters, the largest scores,
the longest card name), and lists each problem: a text wider or taller than its place,
a letter the font cannot draw, a message left untranslated or fuzzy, placeholders that
differ from the English (a translation naming a field the code does not fill would fail
where it is shown), plural forms glued into one by hand (``|||``), and a form that makes
a player's gender up (:mod:`companion.commands.agreement`)::

    >>> report = check_language("de")  # doctest: +SKIP
    >>> report["filled"]["name"]         # doctest: +SKIP
    'HHHHHHHHHHHH'

Then it walks every screen of every game in the language, seated with names of the
longest (:func:`companion.commands.inspect.walk_everything`), and counts what the drawing
cuts (``~``), what runs off the panel and what touches or overlaps. The English of a
screen message must fit too: it is checked as the language "en".
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from companion import font, lang, po
from companion.commands import agreement
from companion.commands.inspect import walk_everything
from companion.commands.worst import filled_with, worst_values
from companion.lang import LANGUAGES, LOCALE_DIR
from companion.ui.canvas import CHAR_W, WIDTH, text_width
from companion.ui.screen import folded, words

TEMPLATE = LOCALE_DIR / "companion.pot"
#: How a translator glues plural forms into one message the code does not count.
GLUE = "|||"
#: Presses per game of the screen walk, unless ``--steps`` says otherwise.
WALK_STEPS = 1000
_PLACE = re.compile(r"^screen (\d+)(?:x(\d+|N))?( \(if it fits\))?$")

@dataclass(frozen=True)
class Place:
    """Where a message is drawn: ``columns`` characters wide, ``lines`` lines tall
    (None: folded into as many lines as it takes, in a box that scrolls). A place
    ``tried`` first ("screen 21 (if it fits)") shows the text only when it fits and a
    shorter message otherwise (ui.canvas.fitting): it never overflows."""

    columns: int
    lines: int | None = 1
    tried: bool = False

    @classmethod
    def of(cls, context: str | None) -> Place | None:
        """The place a message context names (None: not drawn on the screen)."""
        found = _PLACE.match(context or "")
        if found is None:
            return None
        lines = found.group(2) or "1"
        return cls(int(found.group(1)), None if lines == "N" else int(lines),
                   bool(found.group(3)))

    def overflow(self, text: str) -> str | None:
        """Why ``text`` does not fit this place (None when it does), drawn as the screens
        draw it: one line, or its own lines each folded at spaces (ui.screen.folded)."""
        if self.tried:
            return None
        if self.lines == 1:
            if "\n" in text:
                return "a line break in a one-line place"
            width = text_width(text)
            if width > self.columns * CHAR_W:
                return f"{len(text)} characters; the place has {self.columns}"
            return None
        long_words = [word for word in words(text) if len(word) > self.columns]
        if long_words:
            return f"the word {long_words[0]!r} is longer than a line of {self.columns}"
        # The screens keep a text's own line breaks and fold each line still too long.
        lines = folded(text, self.columns)
        if self.lines is not None and len(lines) > self.lines:
            return f"{len(lines)} lines of {self.columns}; the place has {self.lines}"
        return None


def fields(text: str) -> set[str] | None:
    """The named ``{fields}`` of a str.format text (None: the braces are broken)."""
    try:
        parsed = list(string.Formatter().parse(text))
    except ValueError:
        return None
    return {name.split(".")[0].split("[")[0] for _, name, _, _ in parsed if name}


def filled(text: str, code: str = "en", message: str | None = None) -> str:
    """``text`` with each placeholder replaced by its worst value at a table speaking
    ``code`` (:func:`companion.commands.worst.worst_values`; ``message``: the English whose
    translation ``text`` is, where its place shows less than the worst)."""
    values = filled_with(fields(text) or set(), worst_values(code, message))
    try:
        return text.format(**values)
    except (KeyError, IndexError, ValueError):
        return text


def undrawable(text: str) -> list[str]:
    """The letters of ``text`` the device's font has no picture for (or a blank one)."""
    return sorted({char for char in text if char not in font.SPACES + "\n"
                   and (not font.drawable(char) or font.blank(char))})


def _problem(entry: po.Entry, kind: str, detail: str, text: str = "") -> dict[str, Any]:
    return {"message": entry.msgid, "context": entry.context, "translation": text,
            "problem": kind, "detail": detail, "where": entry.places}


def _form_problems(entry: po.Entry, text: str, english: str, lone: bool,
                   code: str) -> list[dict]:
    """The problems of one translated form ``text`` of ``entry`` (``english``: the
    English it stands for; ``lone``: a form for exactly one, which may say "one"
    instead of the number)."""
    found: list[dict] = []
    wanted, got = fields(english) or set(), fields(text)
    if got is None:
        found.append(_problem(entry, "placeholders", "unbalanced { or }", text))
    elif got - (fields(entry.msgid) or set()) - (fields(entry.msgid_plural or "") or set()):
        extra = sorted(got - wanted)
        found.append(_problem(entry, "placeholders", f"unknown field {{{extra[0]}}}", text))
    elif wanted - got and not (lone and wanted - got <= {"n"}):
        missing = sorted(wanted - got)
        found.append(_problem(entry, "placeholders", f"leaves out {{{missing[0]}}}", text))
    if GLUE in text:
        found.append(_problem(entry, "plurals", f"plural forms glued with {GLUE} in one "
                              "translation: the code must count it with ngettext", text))
    forms = agreement.gendered(code, text, entry.msgid)
    if forms:
        found.append(_problem(entry, "gender", ", ".join(map(repr, forms)) + " make(s) the "
                              "player's gender up: phrase around it", text))
    place = Place.of(entry.context)
    if place is None:
        return found
    missing_letters = undrawable(text)
    if missing_letters:
        found.append(_problem(entry, "letters", "the font cannot draw "
                              + " ".join(missing_letters), text))
    why = place.overflow(filled(text, code, entry.msgid))
    if why:
        found.append(_problem(entry, "overflow", why, text))
    return found


def template() -> list[po.Entry]:
    """The template's messages (the header left out)."""
    return [entry for entry in po.read(TEMPLATE) if entry.msgid]


def catalog_file(code: str) -> Path:
    return LOCALE_DIR / code / "LC_MESSAGES" / "companion.po"


def check_language(code: str) -> dict[str, Any]:
    """The fit check of one catalog ("en": the English itself, drawn the same way)."""
    messages = template()
    if code == "en":
        translations = {entry.key: _english(entry) for entry in messages}
        plural_forms, lone = 2, {0}
    elif not catalog_file(code).exists():
        entries = []
        translations = {}
        plural_forms, lone = 1, set()
    else:
        entries = po.read(catalog_file(code))
        translations = {entry.key: entry for entry in entries if entry.msgid}
        plural_forms, lone = po.plural_count(entries), po.lone_forms(entries)
    report = {"messages": len(messages), "untranslated": 0, "fuzzy": 0, "overflows": 0,
              "gender": 0, "filled": _filled(messages, code), "problems": []}
    problems: list[dict] = report["problems"]
    for message in messages:
        entry = translations.get(message.key)
        if entry is None or not entry.translated:
            report["untranslated"] += 1
            problems.append(_problem(message, "untranslated", "no translation"))
            continue
        if entry.fuzzy:
            report["fuzzy"] += 1
            problems.append(_problem(message, "fuzzy", "marked fuzzy", entry.strings[0]))
        entry.places = message.places
        problems.extend(_entry_problems(entry, plural_forms, code, lone))
    report["overflows"] = sum(1 for problem in problems if problem["problem"] == "overflow")
    report["gender"] = sum(1 for problem in problems if problem["problem"] == "gender")
    return report


def _filled(messages: list[po.Entry], code: str) -> dict[str, str]:
    """What each placeholder of the screen's messages is filled with in ``code``."""
    names: set[str] = set()
    for entry in messages:
        if Place.of(entry.context) is not None:
            names |= (fields(entry.msgid) or set()) | (fields(entry.msgid_plural or "") or set())
    return dict(sorted(filled_with(names, worst_values(code)).items()))


def _english(entry: po.Entry) -> po.Entry:
    strings = [entry.msgid] + ([entry.msgid_plural] if entry.msgid_plural else [])
    return po.Entry(entry.context, entry.msgid, entry.msgid_plural, strings, set(),
                    entry.places)


def _entry_problems(entry: po.Entry, plural_forms: int, code: str,
                    lone: set[int]) -> list[dict]:
    """The problems of one entry (``lone``: the plural forms said for 1 alone, which
    may say "one" in words: :func:`companion.po.lone_forms`)."""
    if entry.msgid_plural is None:
        return _form_problems(entry, entry.strings[0], entry.msgid, lone=False, code=code)
    found: list[dict] = []
    if len(entry.strings) != plural_forms:
        found.append(_problem(entry, "plurals", f"{len(entry.strings)} forms; the language "
                              f"has {plural_forms}", entry.strings[0]))
    for index, text in enumerate(entry.strings):
        english = entry.msgid if index == 0 else entry.msgid_plural
        found.extend(_form_problems(entry, text, english, lone=index in lone, code=code))
    return found


def check(codes: tuple[str, ...] | None = None, steps: int = WALK_STEPS) -> dict[str, Any]:
    """The fit check of every catalog (or of ``codes``), English first, and the screen
    walk of each (``steps`` presses a game; 0: no walk):
    ``{"languages": {LANG: {"messages": N, ..., "problems": [...]}}}``."""
    languages = {code: check_language(code) for code in codes or LANGUAGES}
    if "en" in languages:
        places = _place_problems()
        languages["en"]["problems"][:0] = places
    if steps:
        for code, report in languages.items():
            _add_walk(report, code, steps)
    return {"languages": languages}


def _add_walk(report: dict[str, Any], code: str, steps: int) -> None:
    """The screen walk's cuts, overflows and overlaps in ``code``, into its report."""
    spoken = lang.current()
    lang.use(code)
    try:
        found = walk_everything(steps)
    finally:
        lang.use(spoken)
    counts = {"cut": 0, "overflow": 0, "overlap": 0, "plural": 0}
    for screen, problems in sorted(found.items()):
        for problem in problems:
            counts[problem.kind] += 1
            report["problems"].append({"message": problem.detail, "context": None,
                                       "translation": "", "problem": problem.kind,
                                       "detail": f"drawn on {screen}", "where": [screen]})
    report["cuts"], report["overlaps"] = counts["cut"], counts["overlap"]
    report["overflows"] += counts["overflow"]


def _place_problems() -> list[dict[str, Any]]:
    """Screen contexts the check cannot read, or wider than the screen."""
    found = []
    for entry in template():
        context = entry.context or ""
        if not context.startswith("screen"):
            continue
        place = Place.of(context)
        if place is None or not 1 <= place.columns <= MAX_COLUMNS or place.lines == 0:
            found.append(_problem(entry, "place", f"{context!r} is not a place on the "
                                  'screen ("screen W", "screen WxL" or "screen WxN", W up '
                                  f"to {MAX_COLUMNS})"))
    return found


def run(as_json: bool, out: Any, codes: tuple[str, ...] | None = None,
        steps: int = WALK_STEPS) -> int:
    """``companion lang-check [--json] [--language XX] [--steps N]``: print the report;
    1 when anything is wrong, 2 where the catalogs' sources are not installed (the
    device carries the compiled ones only: run it in a checkout)."""
    import json

    if not TEMPLATE.exists():
        out.write(lang.gettext("companion lang-check: {path} is not here: the catalogs' "
                               "sources come with a checkout of the code, not with the "
                               "installed package").format(path=TEMPLATE) + "\n")
        return 2
    report = check(codes, steps)
    bad = any(language["problems"] for language in report["languages"].values())
    if as_json:
        out.write(json.dumps(report, ensure_ascii=False) + "\n")
        return 1 if bad else 0
    for code, language in report["languages"].items():
        for problem in language["problems"]:
            out.write(describe(code, problem) + "\n")
        name = language["filled"].get("name")
        if name:
            out.write(f"{code}: a name filled as {name!r} ({len(name)} letters)\n")
        walked = (f", {language['cuts']} cuts, {language['overlaps']} overlaps"
                  if "cuts" in language else "")
        out.write(f"{code}: {language['messages']} messages, {language['untranslated']} "
                  f"untranslated, {language['fuzzy']} fuzzy, {language['overflows']} "
                  f"overflows{walked}, {language['gender']} gender, "
                  f"{len(language['problems'])} problems\n")
    return 1 if bad else 0


def describe(code: str, problem: dict[str, Any]) -> str:
    """One line a person reads for ``problem`` in language ``code``."""
    where = ", ".join(problem["where"][:2]) or "?"
    place = f" ({problem['context']})" if problem["context"] else ""
    shown = f" -> {problem['translation']!r}" if problem["translation"] else ""
    return (f"{code}: {problem['message']!r}{place}{shown}: {problem['problem']}: "
            f"{problem['detail']} [{where}]")


#: The widest a place can be: anything more is a mistake in the code's context.
MAX_COLUMNS = WIDTH // CHAR_W
