"""Pairing a phone: the code's life (2 minutes, 5 tries), the Pair screen that shows
it, and the web stack staying unimported while the page is off."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from companion.clock import ManualClock
from companion.device.terminal import to_text
from companion.remote.web.pairing import CODE_SECONDS, TOKENS_MAX, TRIES, Pairing, PairingRefused
from companion.ui.home import settings_menu
from companion.ui.pair import PairScreen, page_address, pair_screen
from companion.ui.screen import Context, Message


@pytest.fixture
def clock():
    return ManualClock(100.0)


@pytest.fixture
def pairing(clock):
    return Pairing(clock, random.Random(3))


def test_a_code_is_six_digits_and_stays_until_it_expires(pairing, clock) -> None:
    code, expires = pairing.show()
    assert len(code) == 6 and code.isdigit() and expires == 100.0 + CODE_SECONDS
    clock.advance(CODE_SECONDS - 1)
    assert pairing.show() == (code, expires)
    clock.advance(1)
    assert pairing.show()[1] == 100.0 + 2 * CODE_SECONDS


def test_the_right_code_gives_a_token_once(pairing) -> None:
    code, _ = pairing.show()
    token = pairing.redeem(" " + code + " ")
    assert pairing.paired(token) and not pairing.paired("x" + token)
    assert not pairing.paired(None) and not pairing.paired("")
    with pytest.raises(PairingRefused, match="no pairing code"):
        pairing.redeem(code)


def test_wrong_tries_count_down_then_the_code_is_retired(pairing) -> None:
    code, _ = pairing.show()
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for left in range(TRIES - 1, 0, -1):
        with pytest.raises(PairingRefused, match=f"{left} tries left"):
            pairing.redeem(wrong)
    with pytest.raises(PairingRefused, match="new one"):
        pairing.redeem(wrong)
    with pytest.raises(PairingRefused):
        pairing.redeem(code)  # right, but too late
    assert pairing.redeem(pairing.show()[0])


@pytest.mark.parametrize("guess", [None, 123456, "", "12345", "1234567", ["1"]])
def test_odd_guesses_are_wrong_guesses(pairing, guess) -> None:
    pairing.show()
    with pytest.raises(PairingRefused, match="wrong code"):
        pairing.redeem(guess)


def test_an_expired_code_pairs_nothing(pairing, clock) -> None:
    code, _ = pairing.show()
    clock.advance(CODE_SECONDS)
    with pytest.raises(PairingRefused, match="no pairing code"):
        pairing.redeem(code)


def test_only_the_newest_phones_stay_paired(pairing) -> None:
    tokens = [pairing.redeem(pairing.show()[0]) for _ in range(TOKENS_MAX + 1)]
    assert not pairing.paired(tokens[0])
    assert all(pairing.paired(token) for token in tokens[1:])


# -- the screen --------------------------------------------------------------------------------


def test_the_pair_screen_shows_the_code_and_the_next_one(pairing, clock) -> None:
    ctx = Context(clock=clock)
    ctx.pairing = pairing
    ctx.web_address = "127.0.0.1:8080"
    screen = pair_screen(ctx, None)
    assert isinstance(screen, PairScreen) and screen.tick_after() == 1.0
    first = screen.code
    assert first == pairing.show()[0]
    picture = "\n".join(to_text(screen.render()))
    assert "#" in picture
    clock.advance(CODE_SECONDS)
    screen.tick(ctx)
    assert screen.code == pairing.show()[0]
    assert screen.address == "127.0.0.1:8080/pair"


def test_the_pair_screen_draws_differently_per_code(clock) -> None:
    ctx = Context(clock=clock)
    pictures = set()
    for seed in (1, 2):
        ctx.pairing = Pairing(clock, random.Random(seed))
        ctx.web_address = "127.0.0.1:8080"
        pictures.add(pair_screen(ctx, None).render().tobytes())
    assert len(pictures) == 2


def test_without_the_page_the_screen_says_how_to_switch_it_on(clock) -> None:
    screen = pair_screen(Context(clock=clock), None)
    assert isinstance(screen, Message) and "web page is off" in " ".join(screen.lines)


def test_settings_has_pair_a_phone() -> None:
    menu = settings_menu(Context(), None)
    assert [item.label for item in menu.items][0] == "Pair a phone"


def test_an_any_address_shows_this_machine() -> None:
    address = page_address("0.0.0.0:8080")
    assert address.endswith(":8080/pair") and not address.startswith("0.0.0.0")


# -- lazy import -----------------------------------------------------------------------------------


def test_nothing_web_is_imported_while_the_page_is_off() -> None:
    code = (
        "import sys\n"
        "from companion.clock import monotonic\n"
        "from companion.config import Config\n"
        "from companion.launch import make_app, web_page\n"
        "from companion.sim import sim_board_factory, sim_panel\n"
        "import companion.remote.web, companion.remote.web.pairing\n"
        "app = make_app(Config(), board_factory=sim_board_factory, panel=sim_panel(),"
        " clock=monotonic)\n"
        "with web_page(app, ''):\n"
        "    app.start()\n"
        "app.board.close()\n"
        "web = ('starlette', 'uvicorn', 'jinja2', 'anyio')\n"
        "print(sorted(m for m in web if m in sys.modules))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
