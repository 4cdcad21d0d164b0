"""A sixth game that lives outside the package, for the tests: High Card, one engine
module (:mod:`sixth.engine`) and one screens package (:mod:`sixth.screens`), joined to
the device by one registry line (:data:`LINE`), as docs/adding-a-game.md walks it."""

from __future__ import annotations

from companion.games import GameInfo

#: The game's one registry line: ``companion.games.register(LINE)`` adds it.
LINE = GameInfo("high-card", "High Card", "sixth.engine", "sixth.screens", unit="round")
