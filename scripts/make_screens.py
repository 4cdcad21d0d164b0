"""Make the README's pictures: run each docs/scripts/*.txt through the simulator's
script mode and keep its last frame as docs/screens/NAME.png.

A script whose first line is ``# new: GAME PLAYERS [NAME=VALUE ...]`` starts that game
directly (``companion sim --new GAME --players PLAYERS --option NAME=VALUE``).

    python scripts/make_screens.py
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


def main() -> None:
    out = ROOT / "docs" / "screens"
    out.mkdir(parents=True, exist_ok=True)
    for script in sorted((ROOT / "docs" / "scripts").glob("*.txt")):
        with tempfile.TemporaryDirectory() as frames:
            subprocess.run([sys.executable, "-m", "companion", "sim", *game_args(script),
                            "--script", str(script), "--seed", "7", "--png", frames],
                           check=True)
            last = sorted(Path(frames).glob("*.png"))[-1]
            shutil.copy(last, out / f"{script.stem}.png")
        print(f"docs/screens/{script.stem}.png")


if __name__ == "__main__":
    main()
