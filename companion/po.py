"""Reading gettext ``.po`` and ``.pot`` files: what ``companion lang-check`` reads.

The device speaks from the compiled ``.mo`` files (companion.lang); the check needs what
those leave out: the untranslated and fuzzy entries, the places in the code each message
comes from, the translators' comments. Only the standard library is needed::

    >>> entries = parse('msgctxt "screen 21"\\nmsgid "Tools"\\nmsgstr "Werkzeuge"\\n')
    >>> entries[0].key, entries[0].strings
    (('screen 21', 'Tools'), ['Werkzeuge'])
"""

from __future__ import annotations

import ast
import gettext
import re
from dataclasses import dataclass, field
from pathlib import Path

from companion.errors import PoError

__all__ = ["Entry", "parse", "read", "plural_count", "lone_forms"]


@dataclass
class Entry:
    """One message of a catalog: its context, English text(s) and translation(s)."""

    context: str | None = None
    msgid: str = ""
    msgid_plural: str | None = None
    #: The translation; one string a plural form for a plural message.
    strings: list[str] = field(default_factory=list)
    flags: set[str] = field(default_factory=set)
    #: "path:line" places in the code.
    places: list[str] = field(default_factory=list)
    comments: list[str] = field(default_factory=list)

    @property
    def key(self) -> tuple[str | None, str]:
        """What identifies the message: (context, English text)."""
        return (self.context, self.msgid)

    @property
    def translated(self) -> bool:
        return bool(self.strings) and all(self.strings)

    @property
    def fuzzy(self) -> bool:
        return "fuzzy" in self.flags


_KEYWORD = re.compile(r'^(msgctxt|msgid_plural|msgid|msgstr(?:\[(\d+)\])?)\s+(".*")\s*$')


def _string(text: str, where: str) -> str:
    # A PO string is a C string literal; Python's literal reading is the same for what
    # gettext writes (\n, \t, \", \\) and refuses anything else loudly.
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise PoError(f"{where}: not a quoted string") from None
    if not isinstance(value, str):
        raise PoError(f"{where}: not a quoted string")
    return value


def parse(text: str, source: str = "<po>") -> list[Entry]:
    """Every entry of PO ``text``, the header (msgid "") included; obsolete ones left out."""
    entries: list[Entry] = []
    entry = Entry()
    part: tuple[str, int] | None = None  # what a continuation line adds to
    seen_keyword = False

    def finish() -> None:
        nonlocal entry, part, seen_keyword
        if seen_keyword:
            entries.append(entry)
        entry, part, seen_keyword = Entry(), None, False

    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        where = f"{source}:{number}"
        if not line:
            finish()
            continue
        if line.startswith("#~"):
            continue
        if line.startswith("#"):
            if seen_keyword:
                finish()
            if line.startswith("#:"):
                entry.places.extend(line[2:].split())
            elif line.startswith("#,"):
                entry.flags.update(flag.strip() for flag in line[2:].split(","))
            elif line.startswith("#."):
                entry.comments.append(line[2:].strip())
            continue
        if line.startswith('"'):
            if part is None:
                raise PoError(f"{where}: a string with no msgid/msgstr before it")
            _add(entry, part, _string(line, where))
            continue
        match = _KEYWORD.match(line)
        if match is None:
            raise PoError(f"{where}: not a PO line")
        keyword, index, literal = match.groups()
        if keyword in ("msgctxt", "msgid") and seen_keyword and entry.strings:
            finish()
        seen_keyword = True
        part = (keyword.split("[")[0], int(index) if index else 0)
        _set(entry, part, _string(literal, where))
    finish()
    return entries


def _set(entry: Entry, part: tuple[str, int], value: str) -> None:
    keyword, index = part
    if keyword == "msgctxt":
        entry.context = value
    elif keyword == "msgid":
        entry.msgid = value
    elif keyword == "msgid_plural":
        entry.msgid_plural = value
    else:
        while len(entry.strings) <= index:
            entry.strings.append("")
        entry.strings[index] = value


def _add(entry: Entry, part: tuple[str, int], value: str) -> None:
    keyword, index = part
    current = {"msgctxt": entry.context or "", "msgid": entry.msgid,
               "msgid_plural": entry.msgid_plural or ""}.get(keyword)
    if current is None:
        current = entry.strings[index]
    _set(entry, part, current + value)


def read(path: Path) -> list[Entry]:
    """The entries of the catalog file at ``path``."""
    return parse(path.read_text(encoding="utf-8"), str(path))


def header(entries: list[Entry]) -> dict[str, str]:
    """The catalog's header fields ("Plural-Forms", "Language", ...)."""
    for entry in entries:
        if entry.msgid == "" and entry.context is None:
            text = entry.strings[0] if entry.strings else ""
            pairs = (line.split(":", 1) for line in text.splitlines() if ":" in line)
            return {name.strip(): value.strip() for name, value in pairs}
    return {}


def plural_count(entries: list[Entry]) -> int:
    """How many plural forms the catalog's header says its language has (1 if unsaid)."""
    found = re.search(r"nplurals\s*=\s*(\d+)", header(entries).get("Plural-Forms", ""))
    return int(found.group(1)) if found else 1


def lone_forms(entries: list[Entry]) -> set[int]:
    """The plural forms the header's rule gives to the count 1 alone: only such a form
    may say "one" in words instead of ``{n}``. French says 0 with the form of 1, and
    Russian 21 and 101, so theirs is none::

        >>> rule = 'msgid ""\\nmsgstr "Plural-Forms: nplurals=2; plural=(n > 1);\\\\n"\\n'
        >>> lone_forms(parse(rule))
        set()
    """
    found = re.search(r"plural\s*=\s*([^;]+)", header(entries).get("Plural-Forms", ""))
    rule = gettext.c2py(found.group(1)) if found else (lambda n: int(n != 1))
    counts: dict[int, set[int]] = {}
    for n in range(1001):
        counts.setdefault(rule(n), set()).add(n)
    return {form for form, said in counts.items() if said == {1}}
