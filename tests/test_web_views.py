"""The page's log in words says what a die face meant, as the rules tell it."""

from __future__ import annotations

from companion.games import new_match
from companion.remote.web import views


def test_a_final_count_roll_reads_with_its_meaning() -> None:
    players = ["Ann", "Bob", "Cy"]
    match = new_match("final-count", players, {})
    first = match.expecting().player
    events = [{"type": "roll", "player": first, "value": 3}]
    lines = views.log_lines(events, game=("final-count", players, {}))
    assert lines == [(1, f"{first} rolled 3: draw for Board")]
    assert views.log_lines(events) == [(1, f"{first} rolled 3")]  # no game: plain words


def test_the_meaning_follows_the_table_state() -> None:
    """Once the draw pile is empty a 1-4 does nothing (FC10): the log says so."""
    players = ["Ann", "Bob"]
    match = new_match("final-count", players, {})
    events = []
    while match.draw_pile > 0:
        event = {"type": "roll", "player": match.expecting().player, "value": 1}
        match.apply(event)
        events.append(event)
    event = {"type": "roll", "player": match.expecting().player, "value": 2}
    events.append(event)
    words = views.log_lines(events, last=1, game=("final-count", players, {}))
    assert words[0][1].endswith(": pile empty: pass")


def test_a_log_the_engine_refuses_is_still_shown_in_plain_words() -> None:
    events = [{"type": "roll", "player": "Nobody", "value": 9}]
    assert views.log_lines(events, game=("final-count", ["Ann", "Bob"], {})) == [
        (1, "Nobody rolled 9")]
