"""A whole Count Up 21 match pressed on the mock pins (``companion sim --script``), then
exported from the state directory and replayed: the same match, event for event."""

from __future__ import annotations

import random

from companion_cli import play_export_replay

from companion.games.count_up import CountUp

PLAYERS = ["Ann", "Bob"]


def random_match(seed: int) -> list[dict]:
    """A legal match to 3 games, chosen at random the way players might play."""
    rnd = random.Random(seed)
    match = CountUp(PLAYERS)
    while not match.over:
        expect = match.expecting()
        if "play" in expect.types and ("pass" not in expect.types or rnd.random() < 0.75):
            match.apply({"type": "play", "player": expect.player,
                         "card": rnd.choice(expect.choices["card"])})
        else:
            match.apply({"type": "pass", "player": expect.player})
    return match.events


def presses_for(events: list[dict]) -> list[str]:
    """The button presses that enter ``events`` on the table screen: the picker starts on
    the lowest number offered; HOLD UP moves 5, UP 1; OK enters; ROLL passes; OK goes
    on from the trick and game announcements."""
    match = CountUp(PLAYERS)
    presses: list[str] = []
    for event in events:
        if event["type"] == "play":
            steps = match.expecting().choices["card"].index(event["card"])
            # The WAIT lets the bounce window after a release pass: a HOLD pressed in it
            # would only count from the window's end, and be let go too soon.
            presses += ["HOLD UP", "WAIT 0.1"] * (steps // 5) + ["UP"] * (steps % 5) + ["OK"]
        else:
            presses.append("ROLL")
        games, tricks = len(match.games), len(match.history)
        match.apply(event)
        if len(match.games) > games or len(match.history) > tricks:
            presses.append("OK")   # past "Bob takes trick 3" or the game's result
    return presses


def test_a_whole_match_through_the_pins_then_export_and_replay(tmp_path):
    events = random_match(seed=5)
    expected = CountUp.replay(PLAYERS, None, events).result()
    assert expected["over"] and len(expected["games"]) >= 3
    script = ("# Count Up 21, Ann and Bob, a match to 3\n"
              + "\n".join(presses_for(events)) + "\n")
    played = play_export_replay(tmp_path, "count-up-21", PLAYERS, script, "--seed", "1")
    lines, result = played.log, played.result
    assert lines[0]["players"] == PLAYERS and lines[1:] == events
    assert result == expected
    assert result["over"] is True and max(result["totals"].values()) == 3
    for record in result["games"]:
        assert set(record) >= {"tricks", "winner", "last_trick"}
