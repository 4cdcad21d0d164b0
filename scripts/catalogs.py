"""Keep the message catalogs in step with the code (Babel does the work).

    python scripts/catalogs.py extract    # the code's messages -> companion/locale/companion.pot
    python scripts/catalogs.py update     # the template's messages into every LANG's .po
                                          # (a message moved to another place keeps
                                          # its translation)
    python scripts/catalogs.py compile    # every .po -> its .mo (what the device reads)
    python scripts/catalogs.py all        # the three, in that order
    python scripts/catalogs.py init LANG  # a new language's .po (docs/translating.md)

The compiled ``.mo`` files are committed so that a fresh clone speaks every language
without a build step; ``tests/test_catalogs.py`` fails when the template lacks a message
the code holds, or when a ``.mo`` says anything its ``.po`` does not. Needs Babel (the
``[test]`` extra installs it); the device itself only reads the ``.mo`` files, with the
standard library's gettext.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOCALE = ROOT / "companion" / "locale"
TEMPLATE = LOCALE / "companion.pot"
MAPPING = ROOT / "babel.cfg"
#: Beyond Babel's own (_, gettext, ngettext, pgettext, npgettext, ...): the lazy screen
#: texts and the marked-only messages of companion.lang.
KEYWORDS = ("lazy:1c,2", "N_")
COMMENT_TAG = "Translators:"
PROJECT = "Tabletop Companion"


def _pybabel(*args: str) -> None:
    from babel.messages.frontend import CommandLineInterface

    CommandLineInterface().run(["pybabel", "-q", *args])


def languages() -> list[str]:
    """The languages with a catalog, in name order."""
    return sorted(path.parent.parent.name for path in LOCALE.glob("*/LC_MESSAGES/*.po"))


def extract_args(output: Path) -> list[str]:
    """pybabel extract's arguments for the whole package, written to ``output``."""
    keywords = [arg for keyword in KEYWORDS for arg in ("-k", keyword)]
    return ["extract", "-F", str(MAPPING), *keywords, f"--add-comments={COMMENT_TAG}",
            "--sort-by-file", f"--project={PROJECT}", "--no-wrap", "-o", str(output),
            "--copyright-holder=the Tabletop Companion authors", str(ROOT)]


def extract() -> None:
    _pybabel(*extract_args(TEMPLATE))
    # Paths relative to the checkout, whoever ran it from where.
    text = TEMPLATE.read_text(encoding="utf-8").replace(f"{ROOT}/", "")
    TEMPLATE.write_text(text, encoding="utf-8")


def catalog_file(code: str) -> Path:
    return LOCALE / code / "LC_MESSAGES" / "companion.po"


def update() -> None:
    for code in languages():
        before = _translations(catalog_file(code), code)
        _pybabel("update", "-D", "companion", "-i", str(TEMPLATE), "-d", str(LOCALE),
                 "-l", code, "--no-wrap", "--ignore-obsolete", "--no-fuzzy-matching")
        for line in carry(catalog_file(code), code, before):
            print(line)


def _translations(path: Path, code: str) -> dict[tuple[object, str | None], object]:
    """(the English, its context) -> the translation, for every translated, not fuzzy
    message of the catalog at ``path``."""
    from babel.messages.pofile import read_po

    with path.open("rb") as source:
        catalog = read_po(source, locale=code)
    return {(message.id, message.context): message.string for message in catalog
            if message.id and not message.fuzzy
            and all(message.string if isinstance(message.string, tuple)
                    else [message.string])}


def _kind(context: str | None) -> str:
    """The kind of place a context names: its first word ("screen", "spoken"...)."""
    return (context or "").split(" ", 1)[0]


def carry(path: Path, code: str, before: dict[tuple[object, str | None], object]) -> list[str]:
    """Give each message of the catalog at ``path`` that update left untranslated the
    translation its English had ``before`` in another place (another context): a
    message moved to a wider place, or a longer form tried first beside the short one,
    says what it said before until a translator writes more (lang-check still measures
    it in its new place). The one whose place the code dropped is taken first, then one
    of the same kind of place (the screen's for the screen). Returns a line for each
    message carried."""
    from babel.messages.pofile import read_po, write_po

    with path.open("rb") as source:
        catalog = read_po(source, locale=code)
    kept = {(message.id, message.context) for message in catalog if message.id}
    said = []
    for message in catalog:
        if not message.id or (message.string and all(message.string if isinstance(
                message.string, tuple) else [message.string])):
            continue
        places = sorted((key for key in before if key[0] == message.id
                         and key[1] != message.context),
                        key=lambda key: (key in kept, _kind(key[1]) != _kind(message.context),
                                         str(key[1])))
        if not places:
            continue
        message.string = before[places[0]]
        english = message.id[0] if isinstance(message.id, tuple) else message.id
        said.append(f"{code}: {english!r} ({places[0][1]} -> {message.context}): "
                    "the translation carried, read it in its new place")
    if said:
        with path.open("wb") as out:
            write_po(out, catalog, width=None, ignore_obsolete=True)
    return said


def compile_all() -> None:
    for code in languages():
        _pybabel("compile", "-D", "companion", "-d", str(LOCALE), "-l", code, "--statistics")


def init(code: str) -> None:
    _pybabel("init", "-D", "companion", "-i", str(TEMPLATE), "-d", str(LOCALE), "-l", code,
             "--no-wrap")


def main(argv: list[str]) -> int:
    commands = {"extract": [extract], "update": [update], "compile": [compile_all],
                "all": [extract, update, compile_all]}
    if len(argv) == 2 and argv[0] == "init":
        init(argv[1])
        return 0
    if len(argv) != 1 or argv[0] not in commands:
        print(__doc__, file=sys.stderr)
        return 2
    for step in commands[argv[0]]:
        step()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
