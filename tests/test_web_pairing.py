"""Pairing a phone: the code's life (2 minutes, a few tries, only while its screen is
shown), the lock after repeated wrong codes, the Pair screen that shows it (digits and
a QR code that decodes to the page's address), Settings > Paired phones, and the web
stack staying unimported while the page is off."""

from __future__ import annotations

import hashlib
import random
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image
from web_device import qr_decoder

from companion.clock import ManualClock
from companion.config import Config
from companion.device.buttons import Press
from companion.device.terminal import to_text
from companion.errors import PairingLocked, PairingRefused
from companion.launch import make_app
from companion.remote.web.pairing import (
    CODE_SECONDS,
    LOCK_AFTER,
    LOCK_FIRST,
    LOCK_MAX,
    TOKENS_MAX,
    TRIES,
    LockMemory,
    Pairing,
    browser_name,
)
from companion.sim import sim_board_factory, sim_panel
from companion.ui.canvas import Canvas
from companion.ui.home import settings_menu
from companion.ui.pair import PairScreen, page_address, pair_screen, phone_paired, qr_image
from companion.ui.screen import Confirm, Context, Menu, Message

ROOT = Path(__file__).resolve().parent.parent


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
        with pytest.raises(PairingRefused, match=f"{left} tr(y|ies) left"):
            pairing.redeem(wrong)
    with pytest.raises(PairingRefused, match="new one"):
        pairing.redeem(wrong)
    with pytest.raises(PairingRefused):
        pairing.redeem(code)  # right, but too late
    assert pairing.redeem(pairing.show()[0])


def test_tokens_are_kept_only_as_their_sha256(pairing) -> None:
    token = pairing.redeem(pairing.show()[0])
    kept = repr(vars(pairing)) + repr(pairing.phones())
    assert token not in kept and hashlib.sha256(token.encode()).hexdigest() in kept


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


# -- the lock ------------------------------------------------------------------------------


def spend_a_code(pairing) -> Exception:
    """Guess the shown code wrong until it ends; what the last guess was told."""
    code, _ = pairing.show()
    wrong = f"{(int(code) + 1) % 1_000_000:06d}"
    for _ in range(TRIES - 1):
        with pytest.raises(PairingRefused, match="wrong code"):
            pairing.redeem(wrong)
    with pytest.raises(PairingRefused) as refused:
        pairing.redeem(wrong)
    return refused.value


def test_repeated_wrong_codes_lock_pairing_and_each_lock_is_longer(pairing, clock) -> None:
    for lock in range(3):
        for _ in range(LOCK_AFTER - 1):
            assert not isinstance(spend_a_code(pairing), PairingLocked)
        locked = spend_a_code(pairing)
        assert isinstance(locked, PairingLocked) and locked.seconds == LOCK_FIRST * 2 ** lock
        assert pairing.show() == (None, clock() + locked.seconds)  # no code while locked
        with pytest.raises(PairingLocked, match="locked for"):
            pairing.redeem("000000")
        clock.advance(locked.seconds - 1)
        assert pairing.locked_for() == 1
        clock.advance(1)
        assert pairing.show()[0] is not None and pairing.locked_for() == 0
    # A pairing (someone at the device) starts the count again.
    pairing.redeem(pairing.show()[0])
    for _ in range(LOCK_AFTER - 1):
        spend_a_code(pairing)
    assert spend_a_code(pairing).seconds == LOCK_FIRST


def test_the_odds_of_guessing_in_a_year_are_what_the_docs_say(clock) -> None:
    """A guesser that never stops, with the Pair screen open all year (the worst
    case): count the guesses the lock lets through and check docs/web.md's figures."""
    pairing = Pairing(clock, random.Random(5))
    year, guesses = clock() + 365 * 24 * 3600, 0
    while clock() < year:
        code, until = pairing.show()
        if code is None:
            clock.advance(until - clock())
            continue
        wrong = f"{(int(code) + 1) % 1_000_000:06d}"
        try:
            guesses += 1
            pairing.redeem(wrong)
        except PairingLocked as locked:
            clock.advance(locked.seconds)
        except PairingRefused:
            pass
    chance = 1 - (1 - 1e-6) ** guesses
    docs = (ROOT / "docs" / "web.md").read_text()
    assert f"{guesses:,} guesses" in docs
    assert f"{chance * 100:.2f} %" in docs


def test_a_code_dies_when_its_screen_goes(clock) -> None:
    app = make_app(Config(), board_factory=sim_board_factory, panel=sim_panel(), clock=clock,
                   root=lambda ctx: settings_menu(ctx, None))
    app.ctx.pairing = pairing = Pairing(clock, random.Random(2))
    app.ctx.web_address = "127.0.0.1:8080"
    try:
        app.start()
        app.post("press", Press("ok"))
        app.pump()
        assert isinstance(app.screen, PairScreen)
        code = app.screen.code
        app.post("press", Press("back"))
        app.pump()
        with pytest.raises(PairingRefused, match="no pairing code"):
            pairing.redeem(code)
        app.post("press", Press("ok"))  # opened again: a new code, alive while shown
        app.pump()
        assert app.screen.code != code and pairing.redeem(app.screen.code)
    finally:
        app.board.close()


def test_a_guesser_who_lets_each_code_expire_is_locked_too(pairing, clock) -> None:
    """Two wrong guesses a code, then wait for the next code: every wrong guess counts
    toward the lock (else 2 guesses every 2 minutes for ever, about 41 % a year)."""
    statuses = []
    for _ in range(LOCK_AFTER * TRIES):
        code, expires = pairing.show()
        if code is None:
            break
        try:
            pairing.redeem(f"{(int(code) + 1) % 1_000_000:06d}")
        except PairingLocked:
            statuses.append("locked")
            break
        except PairingRefused:
            statuses.append("refused")
        if len(statuses) % (TRIES - 1) == 0:
            clock.advance(expires - clock())  # the code expires; the screen shows the next
    assert statuses[-1] == "locked" and len(statuses) == LOCK_AFTER * TRIES, statuses
    assert pairing.show()[0] is None and pairing.locked_for() == LOCK_FIRST


def test_the_pair_screen_says_when_pairing_is_locked(pairing, clock) -> None:
    ctx = Context(clock=clock)
    ctx.pairing, ctx.web_address = pairing, "127.0.0.1:8080"
    screen = pair_screen(ctx, None)
    for _ in range(LOCK_AFTER):
        spend_a_code(pairing)
    screen.tick(ctx)
    assert screen.code is None and screen.render().getbbox() is not None
    assert "Pairing locked" in screen_words(screen)


def screen_words(screen) -> str:
    """The words a screen draws (captured from the canvas calls)."""
    said: list[str] = []

    class Recording(Canvas):
        def text(self, x, y, text, **kw):
            said.append(text)
            super().text(x, y, text, **kw)

    screen.draw(Recording())
    return " ".join(said)


# -- the QR code ----------------------------------------------------------------------------


@pytest.mark.parametrize("listen", ["192.168.100.200:8080", "127.0.0.1:8080",
                                    "[fd00::1234]:8080"])
def test_the_qr_code_on_the_pair_screen_decodes_to_the_page_with_the_code(
        pairing, clock, listen) -> None:
    zxingcpp = qr_decoder()
    ctx = Context(clock=clock)
    ctx.pairing, ctx.web_address = pairing, listen
    screen = pair_screen(ctx, None)
    picture = screen.render()
    qr = screen.qr()
    assert qr is not None and qr.width <= 64 and qr.height <= 64
    # As a phone camera sees the panel: lit pixels light, scaled up, a dark room around.
    seen = Image.new("L", (200, 100), 0)
    seen.paste(picture.convert("L"), (36, 18))
    seen = seen.resize((800, 400), Image.NEAREST)
    found = zxingcpp.read_barcodes(seen)
    assert [code.text for code in found] == [screen.url()]
    host = listen.rpartition(":")[0]
    assert screen.url() == f"http://{host}:8080/pair?code={pairing.show()[0]}"
    # and the digits are still there, for typing
    assert pairing.show()[0][:3] in screen_words(screen)


def test_a_qr_code_stays_within_version_3_or_is_left_out() -> None:
    assert qr_image("http://192.168.100.200:8080/pair?code=123456").width == (29 + 2) * 2
    assert qr_image("http://" + "a" * 80 + ":8080/pair?code=123456") is None


def test_the_qr_library_is_imported_only_when_a_pair_screen_opens() -> None:
    code = ("import sys\nimport companion.ui.pair, companion.ui.home\n"
            "print('segno' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.stdout.strip() == "False", done.stderr


# -- Phone paired; Settings > Paired phones -------------------------------------------------------


@pytest.mark.parametrize(("agent", "name"), [
    ("Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
     "Chrome/120.0 Mobile Safari/537.36", "Chrome on Android"),
    ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 "
     "(KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1", "Safari on iPhone"),
    ("Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0",
     "Firefox on Linux"),
    ("curl/8.5.0", "curl"),
    ("", "a browser"),
    ("\x1b[2J\u202eevil\nname" + "x" * 500, "2Jevilnamexxxxxxxxxx"),
    ("中文/1.0", "a browser"),
])
def test_the_browser_name_comes_from_known_words_only(agent, name) -> None:
    got = browser_name(agent)
    assert got == name and len(got) <= 20 and re.fullmatch(r"[A-Za-z0-9 ._-]+", got)


def test_a_pairing_shows_phone_paired_with_the_browser_name(clock) -> None:
    menu = settings_menu(Context(clock=clock), None)
    ctx = Context(clock=clock)
    ctx.pairing, ctx.web_address = Pairing(clock), "127.0.0.1:8080"
    shown = phone_paired(pair_screen(ctx, menu), "Chrome on Android")
    assert isinstance(shown, Message) and shown.title == "Phone paired"
    assert shown.lines[0] == "Chrome on Android" and shown.parent is menu


def test_settings_lists_paired_phones_and_forgets_one_or_all(pairing, clock) -> None:
    ctx = Context(clock=clock)
    ctx.pairing = pairing
    first = pairing.redeem(pairing.show()[0], "Mozilla/5.0 (Android) Chrome/1")
    clock.advance(600)
    second = pairing.redeem(pairing.show()[0], "Mozilla/5.0 (iPhone) Safari/1")
    settings = settings_menu(ctx, None)
    assert [item.label for item in settings.items][:2] == ["Pair a phone", "Paired phones"]
    phones = settings.items[1].open(ctx, settings)
    assert [(item.label, item.note) for item in phones.items] == [
        ("Safari on iPhone", "0m"), ("Chrome on Android", "10m"), ("Forget all", "")]
    confirm = phones.press(ctx, Press("ok"))  # forget the newest
    assert isinstance(confirm, Confirm) and "Safari on iPhone" in " ".join(confirm.lines)
    after = confirm.press(ctx, Press("ok"))
    assert not pairing.paired(second) and pairing.paired(first)
    assert [item.label for item in after.items] == ["Chrome on Android", "Forget all"]
    after.press(ctx, Press("down"))
    none_left = after.press(ctx, Press("ok")).press(ctx, Press("ok"))
    assert not pairing.paired(first) and isinstance(none_left, Message)
    assert "No phone is paired" in none_left.lines[0]


@pytest.mark.parametrize("name", ["Samsung on Android", "Firefox on ChromeOS", "Safari on iPhone",
                                  "W" * 20, None])
def test_forget_asks_in_whole_lines(clock, name) -> None:
    """ "Forget Samsung on Android?" is longer than a line: folded, never cut."""
    from types import SimpleNamespace

    from companion.ui.canvas import COLUMNS
    from companion.ui.pair import _forget

    phone = None if name is None else SimpleNamespace(name=name, since=0.0)
    confirm = _forget(Context(clock=clock), Menu("Paired phones", []), phone)
    assert len(confirm.lines) <= 4 and all(len(line) <= COLUMNS for line in confirm.lines)
    assert " ".join(confirm.lines).startswith(f"Forget {name or 'all phones'}?")
    assert "must pair again" in " ".join(confirm.lines)


# -- the lock outlives a restart ----------------------------------------------------------------


def test_the_lock_and_its_doubling_survive_a_restart(tmp_path, clock) -> None:
    wall = ManualClock(1_800_000_000.0)
    memory = LockMemory(tmp_path, wall)
    pairing = Pairing(clock, random.Random(3), memory=memory)
    for _ in range(LOCK_AFTER):
        locked = spend_a_code(pairing)
    assert isinstance(locked, PairingLocked) and locked.seconds == LOCK_FIRST
    # The plug is pulled 10 s into the lock; the device is back after 20 s more. A new
    # program's monotonic clock starts anywhere.
    wall.advance(30)
    again = Pairing(ManualClock(5.0), random.Random(4), memory=LockMemory(tmp_path, wall))
    assert again.locked_for() == LOCK_FIRST - 30
    assert again.show()[0] is None
    with pytest.raises(PairingLocked):
        again.redeem("000000")
    # Once it ends, the next lock is the doubled one, as without the restart.
    again.clock.advance(LOCK_FIRST)
    for _ in range(LOCK_AFTER - 1):
        assert not isinstance(spend_a_code(again), PairingLocked)
    assert spend_a_code(again).seconds == 2 * LOCK_FIRST
    # Wrong guesses toward a lock count across a restart too.
    again.clock.advance(2 * LOCK_FIRST)
    spend_a_code(again)
    third = Pairing(ManualClock(), random.Random(5), memory=LockMemory(tmp_path, wall))
    assert spend_a_code(third).seconds == 4 * LOCK_FIRST


def test_a_pairing_clears_the_kept_lock(tmp_path, clock) -> None:
    wall = ManualClock(1_800_000_000.0)
    pairing = Pairing(clock, random.Random(3), memory=LockMemory(tmp_path, wall))
    for _ in range(LOCK_AFTER):
        spend_a_code(pairing)
    clock.advance(LOCK_FIRST)
    pairing.redeem(pairing.show()[0])
    fresh = Pairing(ManualClock(), random.Random(4), memory=LockMemory(tmp_path, wall))
    assert fresh.locked_for() == 0
    for _ in range(LOCK_AFTER):
        locked = spend_a_code(fresh)
    assert locked.seconds == LOCK_FIRST


@pytest.mark.parametrize("text", [
    "", "{", "[]", '{"locks": 1}', '{"locks": -1, "until": 0, "wrong": 0}',
    '{"locks": 1, "until": "soon", "wrong": 0}', '{"locks": true, "until": 0, "wrong": 0}',
    '{"locks": 1, "until": NaN, "wrong": 0}', '{"locks": 1, "until": 1e999, "wrong": 0}',
    "\xff",
])
def test_a_spoilt_lock_file_starts_as_after_one_lock(tmp_path, clock, caplog, text) -> None:
    (tmp_path / LockMemory.FILE).write_text(text, encoding="latin-1")
    pairing = Pairing(clock, random.Random(3), memory=LockMemory(tmp_path))
    assert pairing.locked_for() == 0 and pairing.show()[0] is not None
    for _ in range(LOCK_AFTER):
        locked = spend_a_code(pairing)
    assert locked.seconds == 2 * LOCK_FIRST
    assert any("pairing" in record.getMessage() for record in caplog.records)


def test_a_lock_file_from_far_ahead_locks_a_day_at_most(tmp_path, clock) -> None:
    (tmp_path / LockMemory.FILE).write_text('{"locks": 3, "until": 1e15, "wrong": 99}')
    pairing = Pairing(clock, random.Random(3), memory=LockMemory(tmp_path))
    assert pairing.locked_for() == LOCK_MAX


def test_a_card_that_cannot_keep_the_lock_still_locks(tmp_path, clock) -> None:
    memory = LockMemory(tmp_path / "gone")
    pairing = Pairing(clock, random.Random(3), memory=memory)
    for _ in range(LOCK_AFTER):
        locked = spend_a_code(pairing)
    assert isinstance(locked, PairingLocked)
