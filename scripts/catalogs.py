"""Keep the message catalogs in step with the code (Babel does the work).

    python scripts/catalogs.py extract    # the code's messages -> companion/locale/companion.pot
    python scripts/catalogs.py update     # the template's messages into every LANG's .po
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


def update() -> None:
    for code in languages():
        _pybabel("update", "-D", "companion", "-i", str(TEMPLATE), "-d", str(LOCALE),
                 "-l", code, "--no-wrap", "--ignore-obsolete", "--no-fuzzy-matching")


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
