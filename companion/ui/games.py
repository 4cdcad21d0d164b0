"""Which screen starts each game; the main menu asks here when a game is picked."""

from __future__ import annotations

from companion.errors import UnknownGame
from companion.ui.screen import Context, Screen


def setup_screen(ctx: Context, game_id: str, parent: Screen | None,
                 names: list[str] | None = None) -> Screen:
    """The setup screen of ``game_id`` (players, options)."""
    if game_id == "final-count":
        from companion.ui.final_count import FinalCountSetup

        return FinalCountSetup(parent, names)
    raise UnknownGame(f"no screens for {game_id!r} yet")


def table_screen(session, home: Screen | None) -> Screen:
    """The main screen of a session's game (for resume and ``--new``)."""
    if session.match.game_id == "final-count":
        from companion.ui.final_count import FinalCountTable

        return FinalCountTable(session, home)
    raise UnknownGame(f"no screens for {session.match.game_id!r} yet")
