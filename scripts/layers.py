"""The floors of the package, read from its own imports, and their picture.

Every module's arrows to the other modules it imports (at module level, inside
functions, through ``importlib.import_module``, and to the packages above a module
imported, whose ``__init__`` runs first) make the import graph;
``tests/test_import_circles.py`` fails on any circle in it and
``tests/test_architecture.py`` on any arrow from a product package up to the top floor
(launch, cli, sim, the benches). This script draws the graph package by package as
``docs/images/layers.svg`` for ``docs/architecture.md``: each package on the lowest
floor above everything it imports, arrows pointing down.

    python scripts/layers.py            # write docs/images/layers.svg
    python scripts/layers.py --check    # exit 1 when the picture is out of date
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "companion"
PICTURE = ROOT / "docs" / "images" / "layers.svg"

#: The top floor: what puts the device together and the command line. Nothing below
#: imports them (tests/test_architecture.py).
TOP = ("companion.launch", "companion.cli", "companion.sim", "companion.bench",
       "companion.__main__", "companion.commands")


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
    # Importing a.b.c runs a's and a.b's __init__ first: an arrow to each package above
    # the module named, except those above ``name`` itself (already run before it).
    mine = {".".join(name.split(".")[:n]) for n in range(1, name.count(".") + 2)}
    for target in list(found):
        parts = target.split(".")
        found.update(parent for parent in (".".join(parts[:n]) for n in range(1, len(parts)))
                     if parent in known and parent not in mine)
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


def unit(module: str) -> str:
    """The part of the picture ``module`` belongs to: its subpackage (``remote.web`` is
    one of its own), else the top-level module itself."""
    parts = module.split(".")[1:]
    if not parts:
        return "companion"
    if parts[:2] == ["remote", "web"]:
        return "remote.web"
    if (PACKAGE / parts[0]).is_dir():
        return parts[0]
    return parts[0]


def unit_graph(graph: dict[str, set[str]] | None = None) -> dict[str, set[str]]:
    """The import graph between the picture's parts (arrows inside a part left out)."""
    graph = import_graph() if graph is None else graph
    joined: dict[str, set[str]] = {}
    for module, targets in graph.items():
        arrows = joined.setdefault(unit(module), set())
        arrows.update(unit(target) for target in targets)
    for name, arrows in joined.items():
        arrows.discard(name)
        arrows.discard("companion")  # the package's __init__ holds only the version
    joined.pop("companion", None)
    return joined


def floors(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each part's floor: one above the highest part it imports; a group of parts that
    import each other (lazily: the module graph has no circle) shares a floor."""
    groups = {name: name for name in graph}
    for group in circles(graph):
        for name in group:
            groups[name] = group[0]
    level: dict[str, int] = {}

    def floor_of(name: str, seen: frozenset[str] = frozenset()) -> int:
        head = groups[name]
        if head in level:
            return level[head]
        members = [n for n in graph if groups[n] == head]
        below = {t for m in members for t in graph[m] if groups.get(t, t) != head}
        result = 1 + max((floor_of(t, seen | {head}) for t in below if t in graph),
                         default=-1)
        level[head] = result
        return result

    return {name: floor_of(name) for name in graph}


def reduced(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The arrows no longer path already implies (A -> C goes when A -> B -> C): the
    picture shows what each part stands on directly, not every import."""

    def reach(start: str) -> set[str]:
        seen: set[str] = set()
        todo = list(graph.get(start, ()))
        while todo:
            node = todo.pop()
            if node not in seen:
                seen.add(node)
                todo.extend(graph.get(node, ()))
        return seen

    return {name: {target for target in targets
                   if not any(target in reach(other) for other in targets if other != target)}
            for name, targets in graph.items()}


def svg(graph: dict[str, set[str]]) -> str:
    """The picture: floors bottom to top, a box a part, a line where a part stands
    directly on another (:func:`reduced`)."""
    level = floors(graph)
    graph = reduced(graph) if not circles(graph) else graph
    rows: dict[int, list[str]] = {}
    for name in sorted(graph):
        rows.setdefault(level[name], []).append(name)
    box_w, box_h, gap_x, gap_y = 118, 26, 10, 56
    width = max(len(row) for row in rows.values()) * (box_w + gap_x) + gap_x
    height = len(rows) * (box_h + gap_y) + gap_y
    place: dict[str, tuple[int, int]] = {}
    for floor, names in rows.items():
        y = height - gap_y - (floor + 1) * (box_h + gap_y) + gap_y
        x0 = (width - len(names) * (box_w + gap_x) + gap_x) // 2
        for i, name in enumerate(names):
            place[name] = (x0 + i * (box_w + gap_x), y)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="monospace" font-size="12">',
           "<title>companion: each package's imports (made by scripts/layers.py)</title>",
           '<rect width="100%" height="100%" fill="white"/>']
    for name in sorted(graph):
        for target in sorted(graph[name]):
            if target not in place:
                continue
            (x1, y1), (x2, y2) = place[name], place[target]
            out.append(f'<line x1="{x1 + box_w // 2}" y1="{y1 + box_h}" '
                       f'x2="{x2 + box_w // 2}" y2="{y2}" stroke="#999" stroke-width="1"/>')
    for name, (x, y) in sorted(place.items()):
        out.append(f'<rect x="{x}" y="{y}" width="{box_w}" height="{box_h}" rx="4" '
                   f'fill="#eef" stroke="#335"/>')
        out.append(f'<text x="{x + box_w // 2}" y="{y + 17}" text-anchor="middle">'
                   f'{name}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    picture = svg(unit_graph())
    if argv == ["--check"]:
        current = PICTURE.read_text(encoding="utf-8") if PICTURE.exists() else ""
        if current != picture:
            print("docs/images/layers.svg is out of date: python scripts/layers.py",
                  file=sys.stderr)
            return 1
        return 0
    PICTURE.write_text(picture, encoding="utf-8")
    print(PICTURE.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
