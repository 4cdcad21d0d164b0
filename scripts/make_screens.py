"""Make the README's pictures: run each docs/scripts/*.txt through the simulator's
script mode and keep its last frame as docs/screens/NAME.png.

    python scripts/make_screens.py
"""

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GAMES = {"final-count": ["--new", "final-count", "--players", "Ann,Bob,Cy"]}


def main() -> None:
    out = ROOT / "docs" / "screens"
    out.mkdir(parents=True, exist_ok=True)
    for script in sorted((ROOT / "docs" / "scripts").glob("*.txt")):
        extra = next((args for prefix, args in GAMES.items() if script.stem.startswith(prefix)),
                     [])
        if script.stem == "final-count-turn":
            extra = extra + ["--option", "hit_goal=true"]
        with tempfile.TemporaryDirectory() as frames:
            subprocess.run([sys.executable, "-m", "companion", "sim", *extra, "--script",
                            str(script), "--seed", "7", "--png", frames], check=True)
            last = sorted(Path(frames).glob("*.png"))[-1]
            shutil.copy(last, out / f"{script.stem}.png")
        print(f"docs/screens/{script.stem}.png")


if __name__ == "__main__":
    main()
