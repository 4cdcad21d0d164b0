"""The table page's help: ``/help`` lists what has help, ``/help/TOPIC`` shows one (a
game's id, ``tools`` or ``settings``). The words are the device's Help
(:mod:`companion.ui.help`), from the same source: the games' texts
(:mod:`companion.ui.guides`) and each screen's own keys. A game's page names every
screen of the game with its buttons; the device shows the screen Help was opened from.

Help holds nothing of the table's (no names, no scores), so it is open to anyone the
door lets in, paired or not, like the pair page.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from companion.errors import RemoteError, one_line
from companion.lang import _, pgettext

#: The topics besides the games, in the order the index lists them.
TOOLS, SETTINGS = "tools", "settings"


def topics() -> list[dict[str, str]]:
    """What has help: every game in the menu (and the scoreboard), the Tools and the
    Settings, each with its address and its title in the device's language."""
    from companion.games import GAMES, available
    from companion.ui.games import game_screens, has_screens

    listed = [{"id": info.game_id, "title": str(info.title)} for info in GAMES
              if available(info.game_id) and has_screens(info.game_id)
              and game_screens(info.game_id).guide is not None]
    listed += [{"id": TOOLS, "title": pgettext("screen 21", "Tools")},
               {"id": SETTINGS, "title": pgettext("screen 21", "Settings")}]
    return listed


def sections(topic: str) -> list[Any]:
    """The help of ``topic`` as :class:`companion.ui.help.Section` s; NOTFOUND for a
    topic there is no help for."""
    from companion.ui import help as device_help

    known = {entry["id"] for entry in topics()}
    if topic not in known:
        raise RemoteError("NOTFOUND", _("no help for {topic}").format(
            topic=repr(one_line(topic, 40))))
    if topic == TOOLS:
        from companion.ui.tools import tool_keys

        return device_help.tools_sections(tool_keys())
    if topic == SETTINGS:
        return device_help.settings_sections()
    from companion.ui.games import table_class

    return device_help.game_sections(topic, table_class(topic).all_keys)


def help_routes(site: Any) -> list[Route]:
    """``/help`` and ``/help/TOPIC``, rendered by ``site`` (the table page's Site)."""

    async def index(request: Request) -> Response:
        return site.render(request, "help.html", topics=topics(), topic=None, sections=[])

    async def page(request: Request) -> Response:
        topic = request.path_params["topic"]
        shown = sections(topic)
        title = next(entry["title"] for entry in topics() if entry["id"] == topic)
        return site.render(request, "help.html", topics=topics(), topic=topic, title=title,
                           sections=shown)

    return [Route("/help", index), Route("/help/{topic}", page)]
