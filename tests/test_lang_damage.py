"""Catalogs that cannot take the device down (issue 38.4): a language file torn by a power
cut, cut short or gone speaks English with one line in the log and on the screen, never
a traceback, even for ``companion --help``; the config's language, once it changes,
wins over an older choice made on the device for good; the installed package holds the
compiled catalogs only. And the words that are the same thing everywhere (38.3): the
simulator's legend measured in the language it is drawn in, the Scoreboard one word on
the device and the pages."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from companion import lang
from companion.clock import ManualClock
from companion.config import Config, Ui
from companion.launch import make_app
from companion.sim import sim_board_factory, sim_panel
from companion.store import Store
from companion.ui.language import CHOICE_KEY, language_menu, starting_language
from companion.ui.screen import Context, Menu, Message

ROOT = Path(__file__).resolve().parent.parent
OK = type("Press", (), {"button": "ok", "long": False})()


#: Headers whose plural rule lies, each as long as the true one so the file's tables
#: still read: a bit flipped (1 is 0x31, 0 is 0x30) divides by zero at every count
#: said, a rule that names a form the file lacks, a count of forms it does not hold.
LYING_PLURALS = {
    "plural rule divides by zero": b"plural=(n %  0);",
    "plural rule picks a form it lacks": b"plural=(n +  7);",
    "plural count lies": b"nplurals=3; plural=(n != 1);",
}


def _torn(how: str, mo: Path) -> None:
    """The German catalog at ``mo`` as a power cut (or a flipped bit) may leave it."""
    whole = lang.catalog_path("de").read_bytes()
    if how in LYING_PLURALS:
        told = LYING_PLURALS[how]
        true = b"nplurals=2; plural=(n != 1);" if told.startswith(b"n") else b"plural=(n != 1);"
        assert len(told) == len(true) and whole.count(true) == 1
        mo.write_bytes(whole.replace(true, told))
    elif how == "missing":
        mo.unlink()
    elif how == "truncated":
        mo.write_bytes(whole[: len(whole) // 3])
    elif how == "garbage":
        mo.write_bytes(os.urandom(4096))
    elif how == "empty":
        mo.write_bytes(b"")
    else:  # a good header and count, its tables gone
        mo.write_bytes(whole[:28])


@pytest.fixture(params=["missing", "truncated", "garbage", "empty", "header only",
                        *LYING_PLURALS])
def torn(request, tmp_path, monkeypatch):
    """A locale directory whose German catalog is damaged (``request.param``)."""
    locale = tmp_path / "locale"
    shutil.copytree(lang.LOCALE_DIR, locale, ignore=shutil.ignore_patterns("*.po", "*.pot"))
    _torn(request.param, locale / "de" / "LC_MESSAGES" / "companion.mo")
    monkeypatch.setattr(lang, "LOCALE_DIR", locale)
    monkeypatch.delitem(lang._loaded, "de", raising=False)
    yield locale
    lang.use("en")


def test_a_damaged_catalog_speaks_english_with_one_line_in_the_log(torn, caplog):
    lang.use("de")
    assert lang.current() == "en" and lang.gettext("Tools") == "Tools"
    said = [record.getMessage() for record in caplog.records if record.name == "companion"]
    assert len(said) == 1 and "\n" not in said[0]
    assert said[0].startswith("the language file of de (") and "English is spoken" in said[0]
    assert str(lang.catalog_path("de")) in said[0]
    assert lang.unreadable().startswith("The language file of Deutsch cannot be read")
    lang.use("fr")  # another language that reads well: the line goes
    assert lang.current() == "fr" and lang.unreadable() is None


def test_the_device_starts_in_english_and_says_so_on_the_screen(torn, tmp_path, caplog):
    app = make_app(Config(ui=Ui("de")), board_factory=sim_board_factory, panel=sim_panel(),
                   clock=ManualClock(), state_dir=tmp_path / "state")
    try:
        assert lang.current() == "en"
        assert sum("the language file of de" in record.getMessage()
                   for record in caplog.records) == 1  # one line in the log
        first = app.screen
        assert isinstance(first, Message) and first.title == "Language"
        assert " ".join(first.lines) == lang.unreadable()  # whole, no word cut
        assert all(len(line) <= 21 for line in first.lines)
        assert first.press(app.ctx, OK).title == "Tabletop Companion"  # on to the menu
        from companion.ui.home import settings_screen

        settings = " ".join(settings_screen(app.ctx, Menu("Settings", [])).lines)
        assert lang.unreadable() in settings
    finally:
        app.board.close()
        app.ctx.store.close()


def test_choosing_a_damaged_language_on_the_device_keeps_english_and_says_why(torn, tmp_path):
    with Store.in_dir(tmp_path) as store:
        ctx = Context(config=Config(), store=store)
        menu = language_menu(ctx, Menu("Settings", []))
        menu.selected = lang.LANGUAGES.index("de")
        shown = menu.press(ctx, OK)
        assert isinstance(shown, Message) and " ".join(shown.lines) == lang.unreadable()
        assert lang.current() == "en"
        assert store.meta(CHOICE_KEY) is None  # nothing kept to come back at the next start


def test_companion_help_with_a_torn_catalog_is_english_and_one_line(torn, tmp_path):
    config = tmp_path / "config.toml"
    config.write_text('[ui]\nlanguage = "de"\n', encoding="utf-8")
    program = ("import sys, companion.lang as lang; from pathlib import Path; "
               f"lang.LOCALE_DIR = Path({str(torn)!r}); "
               "from companion.cli import main; sys.exit(main(sys.argv[1:]))")
    done = subprocess.run([sys.executable, "-c", program, "--help"],
                          capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT),
                               "COMPANION_CONFIG": str(config)})
    assert done.returncode == 0
    assert "show this help message and exit" in done.stdout
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "the language file of de" in done.stderr


def test_the_configs_new_language_wins_over_an_older_choice_for_good(tmp_path):
    """en -> fr -> en in the config does not bring back German chosen on the device."""
    def config(code: str) -> Config:
        return Config(ui=Ui(code))

    with Store.in_dir(tmp_path) as store:
        ctx = Context(config=config("en"), store=store)
        menu = language_menu(ctx, Menu("Settings", []))
        menu.selected = lang.LANGUAGES.index("de")
        menu.press(ctx, OK)                                   # German, chosen on the device
        assert starting_language(config("en"), store) == "de"  # kept across a restart
        assert starting_language(config("fr"), store) == "fr"  # the config changed: it wins
        assert starting_language(config("en"), store) == "en"  # and the choice is gone
        assert store.meta(CHOICE_KEY) is None
    lang.use("en")


def test_the_installed_package_holds_the_compiled_catalogs_only(tmp_path):
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps",
                           "-q", "-w", str(tmp_path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    (wheel,) = tmp_path.glob("*.whl")
    inside = [name for name in zipfile.ZipFile(wheel).namelist() if "/locale/" in name]
    assert sorted(inside) == sorted(f"companion/locale/{code}/LC_MESSAGES/companion.mo"
                                    for code in lang.LANGUAGES if code != "en")


def test_lang_check_without_the_catalogs_sources_says_so_in_one_line(tmp_path, monkeypatch):
    import io

    import companion.commands.langcheck as langcheck

    monkeypatch.setattr(langcheck, "TEMPLATE", tmp_path / "companion.pot")
    out = io.StringIO()
    assert langcheck.run(True, out) == 2
    assert out.getvalue().count("\n") == 1 and "companion.pot" in out.getvalue()


# -- one word for one thing, measured where it is drawn (38.3) ------------------------------


@pytest.mark.parametrize("code", lang.LANGUAGES)
def test_the_simulators_legend_fits_an_80_by_24_terminal_in_every_language(code):
    import io

    from PIL import Image

    from companion.device.terminal import LEGEND_COLUMNS, TerminalScreen

    lang.use(code)
    try:
        out = io.StringIO()
        screen = TerminalScreen(out, size=lambda: (80, 24))
        assert screen.needed()[0] <= 80 and screen.needed()[1] <= 24
        screen.draw(Image.new("1", (128, 64)), status="status")
        drawn = out.getvalue().splitlines()
        assert drawn[0].startswith("┌") and len(drawn) <= 24  # the picture, not a warning
        legend = drawn[19:]
        assert all(len(line) <= LEGEND_COLUMNS for line in legend)
        words = " ".join(lang.gettext(
            "Up/Down arrows: up/down  Enter: ok  Backspace/Esc: back  Space: roll  q: quit\n"
            "long press: Shift+Up/Down, or U D O B R   (u d o b r: short press)").split())
        assert " ".join(" ".join(legend).split()) == words  # every word of it, folded
    finally:
        lang.use("en")


def test_the_scoreboard_is_one_word_on_the_device_and_the_pages():
    from companion import games
    from companion.remote.web import views
    from companion.ui.scoreboard.table import ScoreboardSetup
    from companion.ui.tools import tools_menu

    lang.use("de")
    try:
        word = lang.pgettext("screen 21", "Scoreboard")
        assert word != "Scoreboard"
        assert games.title("scoreboard") == word           # History, the log
        assert views.game_title("scoreboard") == word      # the table and club pages
        assert ScoreboardSetup(None).title == word          # the table's own screen
        tools = [str(item.label) for item in tools_menu(Menu("Home", [])).items]
        assert word in tools                                 # Tools > Scoreboard
    finally:
        lang.use("en")
    assert games.title("scoreboard") == "Scoreboard"
