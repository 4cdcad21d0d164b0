"""The Tools screens and the menu, driven with presses (no pins: screen logic only)."""

import random
from types import SimpleNamespace

from companion.table.bag import TokenBag
from companion.table.shuffle import passes_needed
from companion.ui.canvas import Canvas, dice_layout
from companion.ui.home import home_menu
from companion.ui.screen import Context, Menu, Message
from companion.ui.tools import BagScreen, DiceScreen, FirstPlayer, ShuffleGuide, ShuffleSetup


def press(button, long=False):
    return SimpleNamespace(button=button, long=long)


def ctx(seed=7):
    return Context(rng=random.Random(seed), anim_rng=random.Random(seed + 1))


def settle(screen, context):
    while screen.tick_after() is not None:
        screen = screen.tick(context)
    return screen


def lit(image):
    return sum(bin(byte).count("1") for byte in image.tobytes())


def test_menu_moves_wraps_and_scrolls():
    menu = home_menu()
    c = ctx()
    assert [i.label for i in menu.items][-3:] == ["Tools", "History", "Settings"]
    menu.press(c, press("up"))
    assert menu.selected == len(menu.items) - 1  # wrapped to the bottom
    assert menu.top == len(menu.items) - 4        # and scrolled to show it
    menu.press(c, press("down"))
    assert (menu.selected, menu.top) == (0, 0)
    menu.press(c, press("down", long=True))
    assert menu.selected == len(menu.items) - 1


def test_menu_opens_tools_and_back_returns():
    menu = home_menu()
    c = ctx()
    menu.selected = 5
    tools = menu.press(c, press("ok"))
    assert isinstance(tools, Menu) and tools.title == "Tools"
    assert tools.press(c, press("back")) is menu


def test_a_game_not_built_yet_says_coming_soon(monkeypatch):
    import companion.ui.home as home

    monkeypatch.setattr(home, "_playable", lambda game_id: game_id != "count-up-21")
    menu = home_menu()
    assert menu.items[4].label == "Count Up 21" and menu.items[4].note == "soon"
    menu.selected = 4
    shown = menu.press(ctx(), press("ok"))
    assert isinstance(shown, Message) and "Coming soon." in shown.lines


def test_dice_roll_hold_and_reroll():
    c = ctx()
    dice = DiceScreen()
    dice.press(c, press("up"))           # 3 dice
    assert dice.cup.count == 3
    dice.press(c, press("roll"))
    assert dice.tick_after() is not None  # animating
    before = dice.render()
    dice = settle(dice, c)
    faces = dice.cup.faces
    assert len(faces) == 3 and all(1 <= f <= 6 for f in faces)
    assert dice.render().tobytes() != before.tobytes()
    dice.press(c, press("down"))          # cursor to die 2
    dice.press(c, press("ok"))            # hold it
    assert dice.cup.held == {1}
    for _ in range(20):
        dice.press(c, press("roll"))
        assert dice.cup.faces[1] == faces[1]
    dice = settle(dice, c)
    dice.press(c, press("ok", long=True))
    assert dice.cup.held == frozenset()


def test_dice_count_is_1_to_15_and_back_goes_to_count():
    c = ctx()
    dice = DiceScreen()
    for _ in range(30):
        dice.press(c, press("up"))
    assert dice.cup.count == 15
    dice.press(c, press("roll"))
    dice = settle(dice, c)
    assert len(dice.cup.faces) == 15
    dice.press(c, press("back"))
    assert dice.choosing
    for _ in range(30):
        dice.press(c, press("down"))
    assert dice.cup.count == 1


def test_dice_faces_are_pips_not_digits():
    one, six = Canvas(), Canvas()
    one.die(0, 0, 24, 1)
    six.die(0, 0, 24, 6)
    assert lit(six.image) > lit(one.image)


def test_dice_layout_fits_15():
    cols, rows, size = dice_layout(15, 88, 51)
    assert cols * rows >= 15 and size >= 10
    assert cols * (size + 3) - 3 <= 88


def test_bag_draws_every_token_once_then_refills_after_asking():
    c = ctx()
    bag = BagScreen(TokenBag())
    seen = []
    for _ in range(8):
        bag.press(c, press("roll"))
        bag = settle(bag, c)
        seen.append(bag.bag.drawn[-1])
    assert sorted(seen) == sorted(["1", "2", "3", "4", "5", "6", "NONE", "ALL"])
    bag.press(c, press("roll"))             # empty: nothing happens
    assert len(bag.bag.drawn) == 8
    confirm = bag.press(c, press("ok"))
    assert confirm.press(c, press("back")) is bag and len(bag.bag.remaining) == 0
    assert confirm.press(c, press("ok")) is bag and len(bag.bag.remaining) == 8


def test_shuffle_guide_pages_match_the_plan():
    c = ctx()
    setup = ShuffleSetup()
    setup.press(c, press("down", long=True))   # 42 cards
    setup.press(c, press("ok"))
    setup.press(c, press("down"))              # 3 piles
    guide = setup.press(c, press("roll"))
    assert isinstance(guide, ShuffleGuide)
    assert (guide.cards, guide.piles) == (42, 3)
    assert len(guide.plan) == passes_needed(42, 3)
    deal_pages = [p for p in guide.pages if p[0] == "deal"]
    assert len(deal_pages) == len(guide.plan) * 5      # 42 cards: 5 pages of 10
    titles = []
    while True:
        titles.append(guide.title)
        after = guide.press(c, press("roll"))
        if after is not guide:
            break
    assert after is setup
    assert titles[0] == "How to deal" and titles[-1] == "Shuffled!"
    assert "Pass 1/4 cards 41-42" in titles


def test_shuffle_back_in_the_middle_asks_first():
    c = ctx()
    setup = ShuffleSetup()
    guide = setup.press(c, press("roll"))
    guide.press(c, press("roll"))
    confirm = guide.press(c, press("back"))
    assert confirm.press(c, press("back")) is guide
    assert confirm.press(c, press("ok")) is setup


def test_first_player_is_a_seat_in_range():
    c = ctx()
    picker = FirstPlayer()
    picker.press(c, press("down"))      # 3 players
    seats = set()
    for _ in range(60):
        picker.press(c, press("roll"))
        picker = settle(picker, c)
        seats.add(picker.seat)
    assert seats == {1, 2, 3}


def test_every_tools_screen_renders_a_hint_line():
    c = ctx()
    for screen in (DiceScreen(), BagScreen(TokenBag()), ShuffleSetup(), FirstPlayer()):
        image = screen.render()
        assert image.size == (128, 64) and image.mode == "1"
        bar_top = [image.getpixel((x, 54)) for x in range(128)]
        assert all(bar_top), type(screen).__name__  # the inverted hint bar
        screen.press(c, press("roll"))
        settle(screen, c).render()


def test_a_long_bag_shows_the_newest_and_first_tokens_and_lists_every_one():
    c = ctx()
    tokens = [str(n) for n in range(1, 100)]
    bag = BagScreen(TokenBag(tokens))
    for _ in range(40):
        bag = settle(bag.press(c, press("roll")), c)
    drawn, left = bag._lines()
    assert drawn.startswith("Drawn: < ") and drawn.endswith(" " + bag.bag.drawn[-1])
    assert left.startswith("Left: ") and left.endswith(" >")
    assert bag.hint == "ROLL draw  DOWN list"
    listed = bag.press(c, press("down"))
    words = " ".join(listed.lines).split()
    assert sorted(w for w in words if w.isdigit()) == sorted(tokens)
    assert listed.press(c, press("ok")) is bag
