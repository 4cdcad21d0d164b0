"""No import circles in ``companion/`` (DESIGN.md: when two modules need each other,
what they share moves down a floor).

Every module's AST is walked for every import in it: at module level, inside functions
(a lazy import is still an arrow between two modules) and ``importlib.import_module``
with a constant name. An arrow goes to the module named, or to ``package.name`` when
``from package import name`` names a submodule. Any strongly connected group of two or
more modules (or a module importing itself) is a circle and fails the test.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"


def module_name(path: Path, root: Path = ROOT) -> str:
    """``companion/ui/home.py`` -> ``companion.ui.home`` (a package: its folder's name)."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by its dotted name."""
    return {module_name(path): path for path in sorted(root.rglob("*.py"))}


def imports_of(name: str, path: Path, known: set[str]) -> set[str]:
    """The companion modules ``name`` (at ``path``) imports anywhere in its code."""
    is_package = path.name == "__init__.py"
    found: set[str] = set()

    def add(target: str) -> None:
        # The longest known module the dotted name starts with (a.b.c -> a.b if c is
        # a name inside a.b rather than a module of its own).
        parts = target.split(".")
        while parts and ".".join(parts) not in known:
            parts.pop()
        if parts:
            found.add(".".join(parts))

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                here = name.split(".") if is_package else name.split(".")[:-1]
                base = here[: len(here) - (node.level - 1)]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            for alias in node.names:
                full = f"{source}.{alias.name}"
                add(full if full in known else source)
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr == "import_module" and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
            add(node.args[0].value)
    found.discard(name)  # a package naming its own parts is no arrow to another module
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module's arrows to the other modules of the package."""
    modules = all_modules(root)
    known = set(modules)
    return {name: imports_of(name, path, known) for name, path in modules.items()}


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles: strongly connected groups of modules (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative, so a deep chain of imports never hits the recursion limit.
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, arrows = work[-1]
            for target in arrows:
                if target not in index:
                    index[target] = low[target] = len(index)
                    stack.append(target)
                    on_stack.add(target)
                    work.append((target, iter(sorted(graph[target]))))
                    break
                if target in on_stack:
                    low[node] = min(low[node], index[target])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        groups.append(sorted(group))

    for name in sorted(graph):
        if name not in index:
            visit(name)
    return sorted(groups)


def test_companion_has_no_import_circles() -> None:
    graph = import_graph()
    assert len(graph) > 50  # the walk found the package
    found = circles(graph)
    assert found == [], "import circles: " + "; ".join(" <-> ".join(g) for g in found)


@pytest.mark.parametrize("code_a, code_b", [
    ("import pkg.b\n", "from pkg import a\n"),
    ("from . import b\n", "def later():\n    from .a import thing\n"),
    ("import importlib\nimportlib.import_module('pkg.b')\n", "from pkg.a import x\n"),
])
def test_a_circle_is_found(tmp_path: Path, code_a: str, code_b: str) -> None:
    # The finder itself must see module-level, relative, lazy and importlib arrows.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text(code_a)
    (package / "b.py").write_text(code_b)
    (package / "c.py").write_text("from pkg import a, b\n")  # arrows in, no circle
    modules = {module_name(p, tmp_path): p for p in sorted(package.rglob("*.py"))}
    graph = {n: imports_of(n, p, set(modules)) for n, p in modules.items()}
    assert circles(graph) == [["pkg.a", "pkg.b"]]

