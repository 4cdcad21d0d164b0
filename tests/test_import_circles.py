"""No import circles in ``companion/`` (docs/design.md: when two modules need each other,
what they share moves down a floor).

Every module's AST is walked for every import in it: at module level, inside functions
(a lazy import is still an arrow between two modules) and ``importlib.import_module``
with a constant name. An arrow goes to the module named, or to ``package.name`` when
``from package import name`` names a submodule. Any strongly connected group of two or
more modules (or a module importing itself) is a circle and fails the test.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
# The graph is built in one place, shared with the layers picture (scripts/layers.py).
from layers import circles, import_graph, imports_of, module_name  # noqa: E402


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


def test_a_circle_through_a_packages_init_is_found(tmp_path: Path) -> None:
    # pkg.a imports a module of pkg.game, whose __init__ runs first and imports a module
    # that imports pkg.a: a circle although pkg.game.draw itself imports nothing.
    package = tmp_path / "pkg"
    (package / "game").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from pkg.game.draw import word\n")
    (package / "game" / "__init__.py").write_text("from pkg.game.table import Table\n")
    (package / "game" / "draw.py").write_text("word = 1\n")
    (package / "game" / "table.py").write_text("from pkg.a import thing\n")
    modules = {module_name(p, tmp_path): p for p in sorted(package.rglob("*.py"))}
    graph = {n: imports_of(n, p, set(modules)) for n, p in modules.items()}
    assert circles(graph) == [["pkg.a", "pkg.game", "pkg.game.table"]]
    assert "pkg" not in graph["pkg.game.table"]  # the package above it ran before it

