"""Checking a long seat list (companion/names.py, check_players): each name is compared
only with the seated names it may look like, and the outcome is the one comparing it with
every seated name gives: the same names, or the same refusal in the same words."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from companion.errors import BadName
from companion.names import check_name, check_players

#: Letters the screen draws alike or nearly (Latin, Cyrillic, Greek; accents the title
#: bar hides; case), and a space.
LOOKALIKES = "AaАаΑαBbВвΒβEeЕеΕεÉéÈèÀàOoОоΟοPpРрΡρCcСсKkКкΚκMmМмHhНнTtТтΤτXxХхΧχ1lI "


def every_pair(names: list[str]) -> list[str]:
    """The plain rule: each name checked against every name seated before it."""
    seated: list[str] = []
    for name in names:
        seated.append(check_name(name, seated))
    return seated


def outcome(check, names: list[str]) -> object:
    try:
        return check(names)
    except BadName as refused:
        return str(refused)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(LOOKALIKES, min_size=1, max_size=4), max_size=9))
def test_a_seat_list_is_checked_as_if_every_pair_were_compared(names):
    assert outcome(check_players, names) == outcome(every_pair, names)


def test_two_hundred_names_are_not_compared_pair_by_pair(monkeypatch):
    """20,000 comparisons took 0.8 s for a club night; a name is now compared with the
    few seated names that share a mark with it."""
    import companion.names

    compared = []
    real = companion.names.looks_like
    monkeypatch.setattr(companion.names, "looks_like",
                        lambda name, other: compared.append(1) or real(name, other))
    names = [f"Player{number}" for number in range(200)]
    assert check_players(names) == names
    assert len(compared) < 200 * 199 // 2 // 10
