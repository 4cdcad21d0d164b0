"""Settings > Language: the device's language, changed at once on every screen.

The config file's ``[ui] language`` is where a device starts. A choice made on the device
is kept in the game log's file (``meta``) with the config's value it replaced, so it
survives a restart; once the config file names another language, the file wins again
(whoever edits it last is heard) and the choice is forgotten: setting the config back
later does not bring it back::

    >>> from types import SimpleNamespace
    >>> config = SimpleNamespace(ui=SimpleNamespace(language="de"))
    >>> starting_language(config, None)
    'de'
"""

from __future__ import annotations

import json
from typing import Any

from companion import lang
from companion.ui.screen import Context, Menu, MenuItem, Message, Screen, wrap

#: The ``meta`` key of the device's own choice: {"language": ..., "config": ...}.
CHOICE_KEY = "ui.language"


def _configured(config: Any) -> str:
    return getattr(getattr(config, "ui", None), "language", lang.DEFAULT)


def starting_language(config: Any, store: Any) -> str:
    """The language to start in: the device's choice while the config still says what
    it said when the choice was made, else the config's."""
    configured = _configured(config)
    try:
        kept = json.loads(store.meta(CHOICE_KEY) or "{}") if store is not None else {}
    except (ValueError, OSError, AttributeError):
        kept = {}
    if (isinstance(kept, dict) and kept.get("config") == configured
            and kept.get("language") in lang.LANGUAGES):
        return str(kept["language"])
    if kept:
        # The config names another language than when the choice was made: it wins,
        # and the old choice is forgotten, so the config set back (en -> fr -> en)
        # does not bring it back.
        _forget(store)
    return configured


def _forget(store: Any) -> None:
    try:
        store.set_meta(CHOICE_KEY, None)
    except Exception:  # noqa: BLE001 - a read-only store: the config still wins today
        return


def _remember(ctx: Context, code: str) -> None:
    """Keep the choice in the game log's file; the choice stands in memory even when
    it cannot be kept (every screen says when nothing can be saved)."""
    store = ctx.store
    if store is None:
        return
    choice = json.dumps({"language": code, "config": _configured(ctx.config)})
    try:
        store.set_meta(CHOICE_KEY, choice)
    except Exception:  # noqa: BLE001 - a read-only or failing store only loses the memory
        return


def language_menu(ctx: Context, parent: Screen) -> Menu:
    """Every language in its own name, the current one marked; OK speaks it at once.
    The menus behind it (Settings, the main menu) hold their words as lazy texts, so
    BACK finds them in the new language too."""
    items = [MenuItem(lang.NAMES[code], _choose(code),
                      note="*" if code == lang.current() else "")
             for code in lang.LANGUAGES]
    menu = Menu(lang.lazy("screen 16", "Language"), items, parent)
    menu.selected = lang.LANGUAGES.index(lang.current())
    menu._scroll()
    return menu


def _choose(code: str):
    def choose(ctx: Context, menu: Screen) -> Screen:
        lang.use(code)
        # This menu again, its title and mark in the new language.
        again = language_menu(ctx, menu.parent)
        unread = lang.unreadable()
        if lang.current() != code and unread:  # its file is damaged: English stays
            return Message(lang.pgettext("screen 16", "Language"), wrap(unread), again)
        _remember(ctx, code)
        return again

    return choose
