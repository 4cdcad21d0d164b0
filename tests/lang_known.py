"""What the translations still get wrong today, per language: the lists the tests hold
them to (tests/lang_known.json). They only shrink: a problem not on a list fails its
test, and so does one on a list that is gone (take it off). The translators empty them
(issue 38): "gender" holds a message that makes a player's gender up (a translation to
phrase around the name, docs/translating.md), "messages" one whose translation does not
fit its place at the worst values (companion lang-check), "screens" what a walk through
the screens finds drawn cut, off the panel or touching (tests/test_screens_fit.py).

An entry is a problem's words with the long names written NAME and the numbers #, so
the same cut is one entry whichever name or score it was met with."""

from __future__ import annotations

import json
import re
from pathlib import Path

from companion.commands.worst import long_names

FILE = Path(__file__).with_name("lang_known.json")
_BOX = re.compile(r" \(\d+, \d+(?:, \d+, \d+)?\)")


def known(section: str, code: str) -> set[str]:
    """The entries of ``section`` ("screens", "messages", "gender") for ``code``."""
    data = json.loads(FILE.read_text(encoding="utf-8"))
    return set(data.get(section, {}).get(code, []))


def entry(code: str, text: str) -> str:
    """``text`` as the lists write it: every long name of ``code`` (whole or cut) NAME,
    every run of digits #, pixel boxes left out."""
    stem = long_names(code)[0][:-1]
    text = re.sub(re.escape(stem) + r"\w?~?", "NAME", text)
    text = re.sub(re.escape(stem[:3]) + r"+~", "NAME~", text)
    text = _BOX.sub("", text)
    return re.sub(r"\d+", "#", text)


def check_only_known(section: str, code: str, found: set[str], *, exact: bool) -> None:
    """Fail on a problem not on the list; with ``exact``, also on one on the list that
    is not found any more (the list must shrink with the fix)."""
    listed = known(section, code)
    new = sorted(found - listed)
    assert not new, (f"{code}: new {section} problems (fix them; a wording for the "
                     f"translators goes on {FILE.name} only with a reason):\n" + "\n".join(new))
    if exact:
        gone = sorted(listed - found)
        assert not gone, (f"{code}: fixed, take them off {FILE.name} ({section}):\n"
                          + "\n".join(gone))
