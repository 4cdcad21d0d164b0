"""Count Up 21 on the device: what each press does at the table."""

import random
from types import SimpleNamespace

from companion.session import Session
from companion.ui.count_up.table import (
    PASS,
    CountUpSetup,
    CountUpTable,
    GameResult,
    MatchOver,
    TrickWon,
    strip_window,
)
from companion.ui.play import Standings
from companion.ui.screen import Context, Menu, Message


def press(button, long=False):
    return SimpleNamespace(button=button, long=long)


HOME = Menu("Home", [])


def game(games_to_win=3):
    ctx = Context(rng=random.Random(1), anim_rng=random.Random(0))
    session = Session.start("count-up-21", ["Ann", "Bob"], {"games_to_win": games_to_win})
    return ctx, CountUpTable(session, HOME)


def pick(screen, ctx, item):
    """Move the picker to ``item`` with UP presses, then OK."""
    for _ in range(30):
        if screen.selected() == item:
            return screen.press(ctx, press("ok"))
        screen.press(ctx, press("up"))
    raise AssertionError(f"{item} is not offered: {screen.choices()}")


def test_setup_starts_a_match_to_the_chosen_number_of_games():
    ctx = Context(rng=random.Random(1))
    setup = CountUpSetup(None, ["Ann", "Bob"])
    setup.press(ctx, press("down"))
    setup.press(ctx, press("ok"))                   # first to 3 -> 4
    assert setup.games_to_win == 4
    table = setup.press(ctx, press("roll"))
    assert isinstance(table, CountUpTable)
    assert table.match.options == {"games_to_win": 4}
    assert table.match.players == ("Ann", "Bob")


def test_the_lead_offers_every_number_not_played_and_no_pass():
    ctx, table = game()
    assert table.choices() == list(range(1, 22))
    assert table.hint == "UP/DOWN card  OK lead" and not table.roll_ready
    assert table.selected() == 1
    table.press(ctx, press("up", long=True))        # a long press moves 5
    assert table.selected() == 6
    table.press(ctx, press("down"))
    assert table.selected() == 5
    assert table.press(ctx, press("roll")) is table  # a leader cannot pass
    assert table.match.events == []
    after = table.press(ctx, press("ok"))
    assert after is table and table.match.events == [{"type": "play", "player": "Ann", "card": 5}]


def test_following_offers_only_legal_numbers_then_pass():
    ctx, table = game()
    pick(table, ctx, 9)
    assert table.choices() == [10, 11, 12, PASS]
    assert table.hint == "OK play  ROLL pass" and table.roll_ready
    table.press(ctx, press("down"))                 # wraps round to "pass"
    assert table.selected() == PASS
    pick(table, ctx, 12)
    assert table.match.state()["highest"] == 12 and table.match.current == "Ann"
    # a number played earlier in the game is never offered again
    won = table.press(ctx, press("roll"))           # Ann passes: Bob's trick
    won.press(ctx, press("ok"))
    assert 9 not in table.choices() and 12 not in table.choices()


def test_a_pass_announces_the_trick_and_the_winner_leads():
    ctx, table = game()
    pick(table, ctx, 7)
    pick(table, ctx, 8)
    won = table.press(ctx, press("roll"))           # Ann passes
    assert isinstance(won, TrickWon)
    assert won.trick == {"leader": "Ann", "cards": [7, 8], "winner": "Bob"}
    assert table.match.current == "Bob"
    back = won.press(ctx, press("ok"))
    assert back is table and table.hint == "UP/DOWN card  OK lead"


def test_up_on_the_announcement_already_moves_the_leaders_picker():
    ctx, table = game()
    pick(table, ctx, 7)
    won = table.press(ctx, press("roll"))           # Bob passes: Ann's trick, Ann leads
    after = won.press(ctx, press("up"))
    assert after is table and table.selected() == 2


def test_a_player_with_no_cards_can_only_pass():
    ctx, table = game()
    for card in (1, 3, 5, 7, 9, 11, 13):
        pick(table, ctx, card)
        table.press(ctx, press("roll")).press(ctx, press("ok"))
    pick(table, ctx, 15)                            # Ann's last card
    pick(table, ctx, 16)                            # Bob follows
    assert table.choices() == [PASS] and table.hint == "OK or ROLL: pass"
    result = table.press(ctx, press("ok"))
    assert isinstance(result, GameResult)
    assert result.game["tricks"] == {"Ann": 7, "Bob": 1} and result.game["winner"] == "Ann"
    nxt = result.press(ctx, press("ok"))
    assert nxt is table and table.match.current == "Bob"   # Bob leads game 2
    assert table.match.state()["cards_left"] == {"Ann": 8, "Bob": 8}


def test_a_refused_entry_shows_why():
    ctx, table = game()
    pick(table, ctx, 7)
    # The picker never offers an illegal number; a stale cursor still cannot cheat.
    refusal = table.enter(ctx, 11)
    assert isinstance(refusal, Message) and refusal.title == "Not allowed"
    assert "11 cannot follow 7" in " ".join(refusal.lines)
    assert refusal.press(ctx, press("ok")) is table and len(table.match.events) == 1


def win_game(table, ctx):
    """The leader leads 8 cards and the other passes each time."""
    screen = table
    for card in range(1, 9):
        pick(table, ctx, card)
        screen = table.press(ctx, press("roll"))
        if isinstance(screen, TrickWon):
            screen = screen.press(ctx, press("ok"))
    return screen


def test_a_whole_match_ends_on_the_match_screen():
    ctx, table = game(games_to_win=2)
    result = win_game(table, ctx)                   # Ann leads and wins game 1
    assert isinstance(result, GameResult) and table.match.totals == {"Ann": 1, "Bob": 0}
    result.press(ctx, press("ok"))
    result = win_game(table, ctx)                   # Bob leads and wins game 2
    result.press(ctx, press("ok"))
    result = win_game(table, ctx)                   # Ann leads game 3 and the match
    assert isinstance(result, GameResult)
    over = result.press(ctx, press("ok"))
    assert isinstance(over, MatchOver)
    games = over.press(ctx, press("down"))
    assert isinstance(games, Menu)
    assert [item.label for item in games.items] == ["1. Ann", "2. Bob", "3. Ann"]
    assert over.press(ctx, press("ok")) is HOME


def test_undo_from_the_game_menu_takes_back_a_pass_without_announcing_again():
    ctx, table = game()
    pick(table, ctx, 7)
    won = table.press(ctx, press("roll"))
    menu = won.press(ctx, press("back"))
    assert isinstance(menu, Menu) and menu.items[1].label.startswith("Undo Bob pass")
    menu.selected = 1
    back = menu.press(ctx, press("ok"))
    assert back is table and table.match.current == "Bob" and table.match.trick == [7]
    menu = table.press(ctx, press("back"))
    standings = next(item for item in menu.items if item.label == "Standings")
    assert isinstance(standings.open(ctx, menu), Standings)


def test_every_screen_draws():
    ctx, table = game(games_to_win=1)
    pick(table, ctx, 20)
    screens = [table, CountUpSetup(None, None)]
    screens.append(table.press(ctx, press("roll")))
    for screen in screens:
        assert screen.render().size == (128, 64)


def test_the_strip_keeps_the_cursor_in_view():
    labels = [str(n) for n in range(1, 22)]
    for at in range(21):
        first, last = strip_window(labels, at, 15)
        assert first <= at < last
        assert sum(len(label) + 1 for label in labels[first:last]) <= 13
