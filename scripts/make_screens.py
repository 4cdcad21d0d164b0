"""Make the README's pictures: run each docs/scripts/*.txt through the simulator's
script mode and keep its last frame as docs/screens/NAME.png.

A script whose first line is ``# new: GAME PLAYERS [NAME=VALUE ...]`` starts that game
directly (``companion sim --new GAME --players PLAYERS --option NAME=VALUE``).
``--language XX`` (or ``--languages``: all six) draws those games' main screens with
``[ui] language = "XX"`` into docs/screens/XX/ instead (docs/translating.md).

    python scripts/make_screens.py
    python scripts/make_screens.py --language de
    python scripts/make_screens.py --languages
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def game_args(script: Path) -> list[str]:
    first = script.read_text(encoding="utf-8").splitlines()[0]
    if not first.startswith("# new:"):
        return []
    game, players, *options = first.removeprefix("# new:").split()
    args = ["--new", game, "--players", players]
    for option in options:
        args += ["--option", option]
    return args


SIX = ("de", "fr", "es", "it", "pl", "ru")


def draw(scripts: list[Path], out: Path, config: list[str]) -> None:
    out.mkdir(parents=True, exist_ok=True)
    for script in scripts:
        with tempfile.TemporaryDirectory() as frames:
            subprocess.run([sys.executable, "-m", "companion", "sim", *config,
                            *game_args(script), "--script", str(script), "--seed", "7",
                            "--png", frames], check=True, cwd=ROOT)
            last = sorted(Path(frames).glob("*.png"))[-1]
            shutil.copy(last, out / f"{script.stem}.png")
        print((out / f"{script.stem}.png").relative_to(ROOT))


def main(argv: list[str]) -> None:
    scripts = sorted((ROOT / "docs" / "scripts").glob("*.txt"))
    screens = ROOT / "docs" / "screens"
    if not argv:
        draw(scripts, screens, [])
        return
    languages = SIX if argv == ["--languages"] else argv[1:] if argv[0] == "--language" else []
    if not languages:
        sys.exit(__doc__)
    games = [script for script in scripts if game_args(script)]
    for code in languages:
        with tempfile.TemporaryDirectory() as place:
            config = Path(place) / "config.toml"
            config.write_text(f'[ui]\nlanguage = "{code}"\n', encoding="utf-8")
            draw(games, screens / code, ["--config", str(config)])


if __name__ == "__main__":
    main(sys.argv[1:])
