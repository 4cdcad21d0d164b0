"""docs/architecture.md cannot drift from the code (issue 40.2).

Every code name the page writes in backticks is where the page puts it: a path exists
(a bare ``x.py`` in one of the packages its paragraph names, or at the top of
companion/), a dotted name (``remote.web.source.DeviceSource._on_event``) is its module
and then a class, function or attribute of it read from the module's AST, a
``Class.member`` or a bare name is defined in companion/ (and in the file the page
names next in the same clause: `read_json` (`body.py`)); a call written out
(`App.post("call", ...)`) is its name; a constant (`GAMES`) is a name as any other (the
wire's words are ``NOT_OURS``); and every import of every module, lazy ones included, is
one the floors table allows."""

from __future__ import annotations

import ast
import re
import sys
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"
PAGE = ROOT / "docs" / "architecture.md"
sys.path.insert(0, str(ROOT / "scripts"))
import layers  # noqa: E402

TICKED = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"[\w./-]*\.(py|md|svg|bin|txt|pot)|[\w/]+/|[a-z_]+(/[a-z_]+)+")
DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
#: A call written out (`App.post("call", ...)`): its name is checked, the rest is words.
CALL = re.compile(r"(?P<name>[A-Za-z_]\w*(\.[A-Za-z_]\w*)*)\(.*\)")
#: Backticked words that are not our code: stdlib and Python names, wire words.
NOT_OURS = {"random.Random", "ValueError", "EV", "ILLEGAL", "ctx.listeners", "exit_status"}


@cache
def modules() -> dict[str, Path]:
    return layers.all_modules()


@cache
def definitions(path: Path) -> dict[str, set[str]]:
    """Top-level names of a module -> the names defined in each (a class's members;
    a function's or an assignment's: nothing)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            members = set()
            for item in ast.walk(node):
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    members.add(item.name)
                elif isinstance(item, (ast.Assign, ast.AnnAssign)):
                    targets = item.targets if isinstance(item, ast.Assign) else [item.target]
                    members.update(getattr(t, "id", getattr(t, "attr", "")) for t in targets)
            found[node.name] = members
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found[node.name] = set()
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:  # a name or a tuple of names (not ``X.attr = ...``)
                for name in getattr(target, "elts", [target]):
                    if isinstance(name, ast.Name):
                        found[name.id] = set()
    return found


def defined_in(parts: list[str], path: Path) -> bool:
    names = definitions(path)
    if not parts:
        return True
    if parts[0] not in names:
        return False
    return len(parts) == 1 or (len(parts) == 2 and parts[1] in names[parts[0]])


def blocks(text: str) -> list[str]:
    """The page's paragraphs, list items and table rows: what a bare name is read in."""
    found, current = [], []
    for line in text.splitlines():
        starts = line.startswith(("|", "- ", "  - ", "    - ")) or re.match(r"\d+\. ", line)
        if not line.strip() or starts:
            if current:
                found.append("\n".join(current))
            current = [line] if line.strip() else []
        else:
            current.append(line)
    if current:
        found.append("\n".join(current))
    return found


def places(block: str) -> list[Path]:
    """The folders a block names (its packages, the folders of its paths and of its
    dotted names' modules), then the top of companion/."""
    folders = []
    for name in TICKED.findall(block):
        if name.startswith("companion/") and name.endswith("/"):
            folders.append(ROOT / name)
        elif "/" in name and name.endswith(".py"):
            folders.append((PACKAGE / name).parent)
        elif name.endswith("/") and (PACKAGE / name).is_dir():
            folders.append(PACKAGE / name)
        elif DOTTED.fullmatch(name):
            module = longest_module(name)
            if module:
                path = modules()[module]
                folders.append(path.parent)
    return [*folders, PACKAGE]


def longest_module(dotted: str) -> str | None:
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        for name in (".".join(["companion", *parts[:end]]), ".".join(parts[:end])):
            if name in modules():
                return name
    return None


def resolve_path(name: str, block: str) -> list[Path]:
    """Where the path ``name`` is, read in ``block`` ([] if nowhere)."""
    if name.startswith(("companion/", "tests/", "scripts/", "docs/")) or name == "companion/":
        candidates = [ROOT / name]
    elif "/" in name.rstrip("/"):
        candidates = [PACKAGE / name]
    else:
        candidates = [folder / name for folder in places(block)]
    return [path for path in candidates if path.exists()]


def resolve_name(name: str, block: str) -> list[Path]:
    """The modules that hold ``name`` where the page puts it ([] if none): a module
    of one of the block's folders, or a module and what it defines."""
    if "." not in name:
        here = [path for folder in places(block)
                for path in (folder / f"{name}.py", folder / name / "__init__.py")
                if path.exists()]
        if here:
            return here
    module = longest_module(name)
    if module is not None:
        skip = len(module.split(".")) - (not name.startswith("companion"))
        rest = name.split(".")[skip:]
        path = modules()[module]
        return [path] if defined_in(rest, path) else []
    return [path for path in modules().values() if defined_in(name.split("."), path)]


def problems(text: str) -> list[str]:
    found = []
    for block in blocks(text):
        for match in TICKED.finditer(block):
            name = match.group(1)
            if name in NOT_OURS or name.startswith(("[", "/", ".")):
                continue
            if PATH.fullmatch(name):
                if not resolve_path(name, block):
                    found.append(f"{name}: no such file or folder where the page puts it")
                continue
            call = CALL.fullmatch(name)
            if call:
                name = call["name"]
            if not DOTTED.fullmatch(name):
                continue  # a command, a placeholder: words
            where = resolve_name(name, block)
            if not where:
                found.append(f"{name}: not defined where the page puts it")
                continue
            # The next name in the same clause, when it is a file, is where it is.
            after = re.match(r"(?: \(|[^`;.:(]{0,40})`([\w./]+\.py)`", block[match.end():])
            if after and not ({p.resolve() for p in where}
                              & {p.resolve() for p in resolve_path(after.group(1), block)}):
                found.append(f"{name}: not in {after.group(1)}")
    return found


def floors_table(text: str) -> dict[str, set[str]]:
    """The floors section's table: each part -> what it may import (its own row's
    parts, the ground, everything)."""
    section = text[text.index("## Floors"):]
    section = section[:section.index("\n## ", 1)]
    rows = [line for line in section.splitlines() if line.startswith("| ")]
    assert rows and rows[0].startswith("| part | may import"), "the floors table is gone"
    table: dict[str, set[str]] = {}
    ground: set[str] = set()
    everything: set[str] = set()
    for row in rows[1:]:
        part_cell, import_cell = (cell.strip() for cell in row.strip("|").split("|"))
        parts = set(TICKED.findall(part_cell))
        if part_cell.startswith("the ground"):
            ground = parts
        allowed = set(TICKED.findall(import_cell)) | parts
        if "the ground" in import_cell:
            allowed |= ground
        if "everything" in import_cell:
            allowed |= everything | parts
        for part in parts:
            assert part not in table, f"{part} is in two rows"
            table[part] = allowed
        everything |= parts
    return table


def arrows_against(table: dict[str, set[str]], graph: dict[str, set[str]]) -> list[str]:
    wrong = []
    for module, targets in sorted(graph.items()):
        part = layers.unit(module)
        if part == "companion":
            continue
        if part not in table:
            wrong.append(f"{part}: not in the floors table")
            continue
        for target in sorted(targets):
            other = layers.unit(target)
            if other not in ("companion", part) and other not in table[part]:
                wrong.append(f"{module} -> {target}: {part} may not import {other}")
    return wrong


def test_every_code_name_of_the_page_is_where_it_says() -> None:
    assert problems(PAGE.read_text(encoding="utf-8")) == []


def test_every_import_is_one_the_floors_allow() -> None:
    table = floors_table(PAGE.read_text(encoding="utf-8"))
    assert arrows_against(table, layers.import_graph()) == []


@pytest.mark.parametrize("planted", [
    "6. The page: `Hub.publish` -> each stream's queue, `remote/web/stream.py`.",
    "1. The gate checks it; `read_json` (`gate.py`) checks every field.",
    "- `remote.web.stream.Hub.publish` fans the change out.",
    "- the errors: `remote.calls.RemoteError`.",
    "| `companion/ui/` | Help's words (`guide_book.py`) |",
    # A call written out is its name and then words: the name is checked.
    "2. The owner thread takes it: `App.pin_falls(edge)` -> `App.post(\"edge\", ...)`.",
    # A constant is a name as any other (the wire's words are NOT_OURS).
    "- the menu reads `GAMEZ`, one line a game.",
    # A folder written without its last slash.
    "- the page (`remote/webz`) serves it.",
])
def test_a_wrong_name_planted_in_the_page_fails(planted: str) -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert problems(text) == []
    assert problems(text + "\n\n" + planted + "\n") != []


def test_an_import_the_floors_do_not_allow_fails(tmp_path) -> None:
    table = floors_table(PAGE.read_text(encoding="utf-8"))
    graph = {**layers.import_graph(), "companion.games.planted": {"companion.ui.screen"}}
    assert arrows_against(table, graph) == [
        "companion.games.planted -> companion.ui.screen: games may not import ui"]
    # A lazy import counts: the graph reads every import of a module, in functions too.
    path = tmp_path / "planted.py"
    path.write_text("def later():\n    from companion.ui import screen\n")
    assert "companion.ui.screen" in layers.imports_of("companion.games.planted", path,
                                                      set(modules()))
