"""The catalogs: the template holds every message of the code, every language translates
every message (none fuzzy), the compiled .mo files say what their .po files say, and
every translation fits its place on the screen (``companion lang-check``)."""

from __future__ import annotations

import gettext
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from companion import lang, po
from companion.commands.langcheck import Place, catalog_file, check_language, filled
from companion.names import NAME_MAX

ROOT = Path(__file__).resolve().parent.parent
SIX = ("de", "fr", "es", "it", "pl", "ru")
sys.path.insert(0, str(ROOT / "scripts"))
import catalogs  # noqa: E402  (scripts/catalogs.py: the one place extraction is set up)
from lang_known import check_only_known  # noqa: E402


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        if os.environ.get("CI"):
            pytest.fail(f"{name} is not installed (Debian: gettext); CI must run this check")
        pytest.skip(f"{name} is not installed (Debian package gettext): catalog check SKIPPED")
    return found


def test_the_template_holds_every_message_the_code_holds(tmp_path):
    fresh = tmp_path / "fresh.pot"
    catalogs._pybabel(*catalogs.extract_args(fresh))
    in_code = {entry.key for entry in po.read(fresh) if entry.msgid}
    in_template = {entry.key for entry in po.read(catalogs.TEMPLATE) if entry.msgid}
    assert not in_code - in_template, (
        "messages the template lacks (run: python scripts/catalogs.py all): "
        f"{sorted(in_code - in_template, key=str)[:10]}")
    assert not in_template - in_code, (
        "messages the code no longer holds (run: python scripts/catalogs.py all): "
        f"{sorted(in_template - in_code, key=str)[:10]}")


@pytest.mark.parametrize("code", SIX)
def test_each_catalog_has_every_template_message_translated(code):
    template = {entry.key for entry in po.read(catalogs.TEMPLATE) if entry.msgid}
    entries = [entry for entry in po.read(catalog_file(code)) if entry.msgid]
    keys = {entry.key for entry in entries}
    assert template - keys == set()
    assert [e.msgid for e in entries if not e.translated] == []
    assert [e.msgid for e in entries if e.fuzzy] == []


@pytest.mark.parametrize("code", SIX)
def test_msgfmt_finds_every_message_translated_and_none_fuzzy(code, tmp_path):
    msgfmt = _tool("msgfmt")
    done = subprocess.run([msgfmt, "--check", "--statistics", "-o", str(tmp_path / "x.mo"),
                           str(catalog_file(code))], capture_output=True, text=True,
                          env={**os.environ, "LC_ALL": "C"})
    assert done.returncode == 0, done.stderr
    assert "translated message" in done.stderr
    assert "untranslated" not in done.stderr and "fuzzy" not in done.stderr, done.stderr


@pytest.mark.parametrize("code", SIX)
def test_the_compiled_catalog_says_what_its_po_says(code):
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with open(catalog_file(code), encoding="utf-8") as text:
        catalog = read_po(text)
    compiled = io.BytesIO()
    write_mo(compiled, catalog)
    compiled.seek(0)
    fresh = gettext.GNUTranslations(compiled)
    with open(lang.catalog_path(code), "rb") as mo:
        shipped = gettext.GNUTranslations(mo)
    assert shipped._catalog == fresh._catalog, (
        f"{lang.catalog_path(code)} is stale: run python scripts/catalogs.py compile")
    assert [shipped.plural(n) for n in range(200)] == [fresh.plural(n) for n in range(200)]


def test_russian_and_polish_have_three_plural_forms():
    for code in ("ru", "pl"):
        assert po.plural_count(po.read(catalog_file(code))) == 3
    lang.use("ru")
    try:
        forms = {lang.ngettext("{n} die", "{n} dice", n).format(n=n) for n in (1, 3, 5)}
    finally:
        lang.use("en")
    assert len(forms) == 3, forms


def test_lang_check_json_fills_the_worst_values_and_finds_only_what_the_lists_hold():
    """The bar of issue 38: names of the roster's longest, said in --json; English whole,
    every translation's problems those its lists still hold (the translators empty
    them); no catalog glues plural forms."""
    done = subprocess.run([sys.executable, "-m", "companion", "lang-check", "--json",
                           "--steps", "0"],
                          capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    report = json.loads(done.stdout)
    english = report["languages"]["en"]
    assert english["problems"] == [] and english["overflows"] == 0
    assert len(english["filled"]["name"]) == NAME_MAX
    for code in SIX:
        language = report["languages"][code]
        assert set(language) >= {"messages", "untranslated", "fuzzy", "overflows", "gender",
                                 "filled", "problems"}
        assert language["messages"] > 0
        assert (language["untranslated"], language["fuzzy"]) == (0, 0)
        assert len(language["filled"]["name"]) == NAME_MAX
        kinds = {problem["problem"] for problem in language["problems"]}
        assert kinds <= {"overflow", "gender"}, language["problems"][:5]
        check_only_known("messages", code, {
            f"{problem['context']}|{problem['message']}"
            for problem in language["problems"] if problem["problem"] == "overflow"},
            exact=True)
        check_only_known("gender", code, {
            f"{problem['context']}|{problem['message']}"
            for problem in language["problems"] if problem["problem"] == "gender"},
            exact=True)
    bad = any(language["problems"] for language in report["languages"].values())
    assert done.returncode == (1 if bad else 0), done.stdout[-2000:]


def test_lang_check_finds_what_does_not_fit(tmp_path, monkeypatch):
    """The check is not a rubber stamp: a catalog with a long, a fuzzy, an untranslated
    and a wrongly-filled message gets each named."""
    import companion.commands.langcheck as langcheck

    pot = tmp_path / "companion.pot"
    pot.write_text('msgid ""\nmsgstr ""\n\n'
                   '#: companion/ui/x.py:1\nmsgctxt "screen 10"\nmsgid "Draw pile"\nmsgstr ""\n\n'
                   'msgctxt "screen 21"\nmsgid "{name} busts"\nmsgstr ""\n\n'
                   'msgid "Players"\nmsgstr ""\n\n'
                   'msgid "Tools"\nmsgstr ""\n', encoding="utf-8")
    catalog = tmp_path / "xx.po"
    catalog.write_text('msgid ""\nmsgstr "Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
                       'msgctxt "screen 10"\nmsgid "Draw pile"\nmsgstr "Nachziehstapel"\n\n'
                       'msgctxt "screen 21"\nmsgid "{name} busts"\nmsgstr "{nom} ist raus"\n\n'
                       '#, fuzzy\nmsgid "Players"\nmsgstr "Spieler"\n', encoding="utf-8")
    monkeypatch.setattr(langcheck, "TEMPLATE", pot)
    monkeypatch.setattr(langcheck, "catalog_file", lambda code: catalog)
    report = check_language("xx")
    kinds = sorted(problem["problem"] for problem in report["problems"])
    assert kinds == ["fuzzy", "overflow", "placeholders", "untranslated"]
    assert (report["overflows"], report["fuzzy"], report["untranslated"]) == (1, 1, 1)
    overflow = next(p for p in report["problems"] if p["problem"] == "overflow")
    assert overflow["where"] == ["companion/ui/x.py:1"]


def test_places_and_samples():
    assert Place.of("screen 21") == Place(21, 1)
    assert Place.of("screen 21x4") == Place(21, 4)
    assert Place.of("decimal separator") is None
    assert Place(10, 1).overflow("Nachziehstapel")
    assert Place(21, 2).overflow("a b c d e f g h i j k l m n o p q r s t u v w x y z")
    assert Place(21, 1).overflow("fits") is None
    assert filled("{name}: {points}") == "HHHHHHHHHHHH: 297"  # companion.commands.worst's worst
    assert Place.of("screen 21 (if it fits)").overflow("x" * 30) is None
    assert Place(21, 2).overflow("two\nlines") is None
    assert Place(21, 2).overflow("one\ntwo\nthree")
    assert Place(5, 2).overflow("one two\nthree")  # "one two" folds to two lines


#: Where each translating call keeps its context and message (positions of the args).
_CALLS = {"_": (None, 0), "gettext": (None, 0), "N_": (None, 0), "ngettext": (None, 0),
          "pgettext": (0, 1), "npgettext": (0, 1), "lazy": (0, 1)}


def _literal_calls(tree):
    import ast

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = getattr(node.func, "id", None) or getattr(node.func, "attr", None)
        if name not in _CALLS:
            continue
        context_at, message_at = _CALLS[name]
        args = node.args
        if len(args) <= message_at or not all(
                isinstance(arg, ast.Constant) and isinstance(arg.value, str)
                for arg in args[: message_at + 1]):
            continue
        context = args[context_at].value if context_at is not None else None
        yield context, args[message_at].value, node.lineno


def test_every_translating_call_with_literal_text_is_in_the_template():
    """Babel reads the source as tokens and misses a call inside an f-string's braces:
    the message would never be translated. Python's own parser finds them all."""
    import ast

    in_template = {entry.key for entry in po.read(catalogs.TEMPLATE) if entry.msgid}
    missed = []
    for path in sorted((ROOT / "companion").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for context, message, line in _literal_calls(tree):
            if (context, message) not in in_template:
                missed.append(f"{path.relative_to(ROOT)}:{line}: {message!r}")
    assert missed == []


def test_a_message_moved_to_another_place_keeps_its_translation(tmp_path):
    """scripts/catalogs.py update: a message whose context changed (a wider place, a
    longer form tried first) says what it said before, the dropped place's first; a
    message new in every way stays untranslated."""
    old = tmp_path / "old.po"
    old.write_text('msgid ""\nmsgstr "Language: pl\\n"\n\n'
                   'msgctxt "screen 4"\nmsgid "ALL"\nmsgstr "KAŻDA"\n\n'
                   'msgctxt "screen 8"\nmsgid "{n} game"\nmsgid_plural "{n} games"\n'
                   'msgstr[0] "{n} gra"\nmsgstr[1] "{n} gry"\nmsgstr[2] "{n} gier"\n\n'
                   'msgid "{n} game"\nmsgid_plural "{n} games"\nmsgstr[0] "{n} partia"\n'
                   'msgstr[1] "{n} partie"\nmsgstr[2] "{n} partii"\n', encoding="utf-8")
    before = catalogs._translations(old, "pl")
    updated = tmp_path / "new.po"
    updated.write_text('msgid ""\nmsgstr "Language: pl\\n"\n\n'
                       'msgctxt "screen 5"\nmsgid "ALL"\nmsgstr ""\n\n'
                       'msgctxt "screen 10 (if it fits)"\nmsgid "{n} game"\n'
                       'msgid_plural "{n} games"\nmsgstr[0] ""\nmsgstr[1] ""\nmsgstr[2] ""\n\n'
                       'msgid "NONE"\nmsgstr ""\n', encoding="utf-8")
    said = catalogs.carry(updated, "pl", before)
    assert len(said) == 2 and "screen 4 -> screen 5" in said[0]
    entries = {entry.key: entry for entry in po.read(updated) if entry.msgid}
    assert entries[("screen 5", "ALL")].strings == ["KAŻDA"]
    assert entries[("screen 10 (if it fits)", "{n} game")].strings == ["{n} gra", "{n} gry",
                                                                       "{n} gier"]
    assert not entries[(None, "NONE")].translated
