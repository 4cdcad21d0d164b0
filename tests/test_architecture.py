"""The house rules of the code (issue 31): docs/architecture.md names every package and
only packages that exist; no product package imports the top floor (launch, cli, sim,
the benches); no room outside games/ is over 650 lines; the layers picture is the one
the imports draw."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"
sys.path.insert(0, str(ROOT / "scripts"))
import layers  # noqa: E402  (scripts/layers.py: the import graph and its picture)

ARCHITECTURE = ROOT / "docs" / "architecture.md"
#: The product packages: none of them may import the top floor.
PRODUCT = ("remote", "club", "ui", "store", "games", "device", "table")
TOP_FLOOR = ("companion.launch", "companion.cli", "companion.sim", "companion.bench",
             "companion.commands")
ROOM_MAX = 650


def _packages() -> set[str]:
    """Every folder under companion/ that holds code or data, as "companion/x/"."""
    return {f"companion/{path.relative_to(PACKAGE).as_posix()}/"
            for path in PACKAGE.rglob("*") if path.is_dir() and path.name != "__pycache__"
            and "__pycache__" not in path.parts
            and not path.relative_to(PACKAGE).parts[0] == "locale"
            or path == PACKAGE / "locale"}


def test_architecture_names_every_package_and_no_other():
    text = ARCHITECTURE.read_text(encoding="utf-8")
    named = set(re.findall(r"`(companion/[a-z_/]+/)`", text))
    assert _packages() - named == set(), "packages docs/architecture.md does not name"
    assert named - _packages() == set(), "packages docs/architecture.md names that do not exist"


def test_no_product_package_imports_the_top_floor():
    graph = layers.import_graph()
    upward = sorted(f"{module} -> {target}" for module, targets in graph.items()
                    if module.split(".")[1:2] and module.split(".")[1] in PRODUCT
                    for target in targets
                    if any(target == top or target.startswith(top + ".") for top in TOP_FLOOR))
    assert upward == []


def test_no_room_outside_games_is_over_650_lines():
    rooms = {path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8")
                                                   .splitlines())
             for path in PACKAGE.rglob("*.py") if "games" not in path.parts}
    assert {room: lines for room, lines in rooms.items() if lines > ROOM_MAX} == {}


def test_the_layers_picture_is_the_one_the_imports_draw():
    assert layers.main(["--check"]) == 0, "run: python scripts/layers.py"
