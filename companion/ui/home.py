"""The main menu: the five games, Tools, History and Settings."""

from __future__ import annotations

import importlib

from companion import __version__
from companion.games import GAMES, GameInfo, available
from companion.lang import lazy, number, pgettext, unreadable
from companion.ui.canvas import COLUMNS
from companion.ui.help import HelpScreen, help_title, here, settings_sections
from companion.ui.keys import MENU_KEYS
from companion.ui.resume import resume_offer, unfinished_first
from companion.ui.screen import (
    Context,
    Lines,
    Menu,
    MenuItem,
    Message,
    Screen,
    folded,
    wrap,
)
from companion.ui.speech import say_again
from companion.ui.tools import tools_menu


def home_menu(ctx: Context | None = None) -> Menu:
    """The main menu, the root of every other screen."""
    # The menu stays for the whole run: its words are lazy, so a switch of language
    # shows the next time it is drawn. Game titles stay as their rule sheets print them.
    # Translators: beside a game's title in the main menu, for a game not built yet.
    soon = lazy("screen 5", "soon")
    items = [MenuItem(info.title, _game_opener(info), note="" if _playable(info.game_id)
                      else soon) for info in GAMES if info.in_menu]
    items += [
        MenuItem(lazy("screen 21", "Tools"), lambda ctx, menu: tools_menu(menu)),
        MenuItem(lazy("screen 21", "History"), lambda ctx, menu: _history(ctx, menu)),
        MenuItem(lazy("screen 21", "Settings"), lambda ctx, menu: settings_menu(ctx, menu)),
    ]
    menu = Menu("Tabletop Companion", items)
    menu.long_roll = say_again  # the last words again, for whoever did not hear them
    return menu


def start_screen(ctx: Context) -> Screen:
    """What the device shows when it starts: a notice if the game log had a problem, or
    if the language's file could not be read (English is spoken), then the offer to
    resume an unfinished game (also when the log can only be read), then the main
    menu."""
    home = home_menu(ctx)
    after = resume_offer(ctx, home) or home
    if ctx.notice:
        after = Message(pgettext("screen 21", "Game log"), wrap(ctx.notice), after)
    unread = unreadable()
    if unread:
        after = Message(pgettext("screen 16", "Language"), wrap(unread), after)
    return after


def _history(ctx: Context, menu: Screen) -> Screen:
    # Imported when opened: the figures bring openskill, which the start need not pay for.
    from companion.ui.history import history_menu

    return history_menu(ctx, menu)


def _playable(game_id: str) -> bool:
    from companion.ui.games import has_screens

    return available(game_id) and has_screens(game_id)


def _game_opener(info: GameInfo):
    def open_game(ctx: Context, menu: Screen) -> Screen:
        if not _playable(info.game_id):
            return Message(info.title, [pgettext("screen 21", "Coming soon."), *folded(
                pgettext("screen 21x3", "Tools work for any\ngame meanwhile."))], menu)
        flows = importlib.import_module("companion.ui.games")
        return unfinished_first(ctx, menu,
                                lambda: flows.setup_screen(ctx, info.game_id, menu))

    return open_game


def settings_menu(ctx: Context, parent: Screen) -> Screen:
    """Settings: pair a phone with the web page, the phones paired, the language, the
    speech, what the device is configured as, and Help."""
    from companion.ui.language import language_menu
    from companion.ui.pair import pair_screen, paired_phones
    from companion.ui.speech import speech_menu

    # Lazy: this menu is under Settings > Language, and shows the new language at once.
    return Menu(lazy("screen 21", "Settings"),
                [MenuItem(lazy("screen 21", "Pair a phone"), pair_screen),
                 MenuItem(lazy("screen 21", "Paired phones"), paired_phones),
                 MenuItem(lazy("screen 21", "Language"), language_menu),
                 MenuItem(lazy("screen 21", "Speech"), speech_menu),
                 MenuItem(lazy("screen 21", "This device"), settings_screen),
                 MenuItem(lazy("screen 21", "Help"), settings_help)], parent)


def settings_help(ctx: Context, menu: Screen) -> Screen:
    """Help for the Settings: the menu's buttons, each row, how the buttons work."""
    return HelpScreen(help_title(), here(MENU_KEYS) + settings_sections(), menu)


def _pieces(text: str, width: int) -> list[str]:
    """``text`` in pieces of ``width`` characters, to show whole over several lines."""
    return [text[start : start + width] for start in range(0, len(text), width)] or [""]


def settings_screen(ctx: Context, parent: Screen) -> Screen:
    """What the device is configured as (edit the config file to change it)."""
    config = ctx.config
    title = pgettext("screen 21", "Settings")
    version = pgettext("screen 21", "Version {version}").format(version=__version__)
    if config is None:
        return Lines(title, [version], parent)
    d, b, idle = config.display, config.buttons, config.idle
    where = f"I2C {d.i2c_port} 0x{d.i2c_address:02X}" if d.interface == "i2c" else "SPI"
    serial, web = config.serial.url, getattr(ctx, "web_address", "")
    lines = [
        pgettext("screen 21", "Display {driver}").format(driver=d.driver),
        where,
        pgettext("screen 21", "Rotate {degrees}").format(degrees=d.rotate * 90),
        pgettext("screen 21", "Contrast {value}").format(value=d.contrast),
        # Translators: the GPIO pins of the buttons; OK is the button's printed name.
        pgettext("screen 21", "Up {up} Down {down} OK {ok}").format(up=b.up, down=b.down,
                                                                    ok=b.ok),
        pgettext("screen 21", "Back {back} Roll {roll}").format(back=b.back, roll=b.roll),
        pgettext("screen 21", "Long press {seconds} s").format(seconds=number(b.hold_time)),
        pgettext("screen 21", "Dim after {seconds} s").format(seconds=number(idle.dim_after)),
        pgettext("screen 21", "Blank after {seconds} s").format(
            seconds=number(idle.blank_after)),
        # a port's URL or the page's address may be longer than a line: whole, as the path
        *_pieces(pgettext("screen 21", "Serial {url}").format(url=serial) if serial
                 else pgettext("screen 21", "Serial off"), COLUMNS),
        *_pieces(pgettext("screen 21", "Web {address}").format(address=web) if web
                 else pgettext("screen 21", "Web off"), COLUMNS),
        version,
        *wrap(unreadable() or ""),
        pgettext("screen 21", "Config file:"),
        # a path is cut nowhere: it goes on over as many lines as it takes
        *_pieces(config.source or pgettext("screen 21", "(defaults)"), COLUMNS),
    ]
    return Lines(title, lines, parent)
