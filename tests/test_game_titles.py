"""A game is named in one place: outside its own engine module and screens package, at
most one file of companion/ (the registry, companion/games/__init__.py) names its title.

Any other place that needs a game's name asks the registry (``games.title``), so a
game added or renamed is one line, and nothing else keeps a list of games
(docs/adding-a-game.md). A message a person reads may mention a game in a sentence
("Block Lottery's tokens or numbered ones"): a translator's unit is the whole sentence,
so such a message is not a registry; a message that is the title alone is."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest

from companion import games

ROOT = Path(games.__file__).resolve().parents[2]
#: The calls that mark a message for translation.
MESSAGE_CALLS = {"_", "N_", "lazy", "pgettext", "ngettext", "npgettext"}


def own_files(info: games.GameInfo) -> set[Path]:
    """The game's engine module and every file of its screens package (or module)."""
    engine = Path(importlib.util.find_spec(info.module).origin).resolve()
    screens = Path(importlib.util.find_spec(info.screens).origin).resolve()
    if screens.name == "__init__.py":
        return {engine, *screens.parent.rglob("*.py")}
    return {engine, screens}


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                found.add(id(first.value))
    return found


def _in_sentences(tree: ast.AST) -> set[int]:
    """The string constants handed to a message call (the message's words)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            name = getattr(node.func, "id", getattr(node.func, "attr", None))
            if name in MESSAGE_CALLS:
                found.update(id(arg) for arg in node.args if isinstance(arg, ast.Constant))
    return found


def names_in_code(path: Path, title: str) -> bool:
    """True when a string of ``path``'s code (not a docstring, not a sentence of a
    message that mentions the game) holds ``title`` as a whole name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    skipped = _docstrings(tree)
    sentences = _in_sentences(tree)
    pattern = re.compile(rf"(?<![\w-]){re.escape(title)}(?![\w-])")
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in skipped and pattern.search(node.value):
            if id(node) in sentences and node.value != title:
                continue
            return True
    return False


def naming(title: str, own: set[Path]) -> list[str]:
    return sorted(str(path.relative_to(ROOT)) for path in (ROOT / "companion").rglob("*.py")
                  if path.resolve() not in own and names_in_code(path, title))


@pytest.mark.parametrize("info", games.GAMES, ids=lambda info: info.game_id)
def test_each_games_title_is_named_by_the_registry_alone(info) -> None:
    title = str(info.title)
    assert naming(title, own_files(info)) == ["companion/games/__init__.py"]


def test_count_up_21_is_written_nowhere_else_not_even_in_a_comment() -> None:
    info = games.info("count-up-21")
    own = own_files(info)
    written = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "companion").rglob("*")
                     if path.is_file() and path.resolve() not in own
                     and not {"locale", "__pycache__"} & set(path.parts)
                     and path.suffix not in {".mo", ".bin", ".pyc"}
                     and "Count Up 21" in path.read_text(encoding="utf-8", errors="replace"))
    assert written == ["companion/games/__init__.py"]


def test_the_check_sees_a_title_named_twice(tmp_path) -> None:
    planted = tmp_path / "planted.py"
    planted.write_text('"""A docstring may say Final Count."""\n'
                       'MENU = {"final-count": "Final Count"}\n')
    assert names_in_code(planted, "Final Count")
    planted.write_text('"""Final Count."""\nfrom x import lazy\n'
                       'TIP = lazy("screen 21xN", "A Final Count hand is scored")\n')
    assert not names_in_code(planted, "Final Count")
