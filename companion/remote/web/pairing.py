"""Pairing a phone: a 6-digit code shown on the OLED, traded for a token.

A code exists only while Settings > Pair a phone is on the device's screen: the screen
asks :meth:`Pairing.show` when it opens and :meth:`Pairing.retire` when it goes, so a
code read over someone's shoulder is dead once the screen is closed. A code also ends
after :data:`CODE_SECONDS` (the screen then shows the next) and after :data:`TRIES`
wrong guesses. After :data:`LOCK_AFTER` codes' worth of wrong guesses (``LOCK_AFTER *
TRIES``, whichever codes they were made on: a guesser who lets each code expire after
fewer tries counts too), pairing locks: no code is shown and every try is refused
(:class:`PairingLocked`, with the seconds left) for :data:`LOCK_FIRST` seconds, twice
as long each time it locks again (at most :data:`LOCK_MAX`), until a phone pairs.
docs/web.md works out what that leaves a guesser in a year.

A right guess returns a random token that the page keeps as a cookie; every write
needs one. Only the token's SHA-256 is kept (with the browser's name, for Settings >
Paired phones), and only while the device runs: pair again after a restart. The lock
is not forgotten that way: with a :class:`LockMemory` (a small file in the state dir)
the lock, its doubling and the wrong guesses counted toward the next one survive a
restart, so pulling the plug does not buy a guesser a fresh start.

The clock and the random source come in from outside, so tests never sleep::

    >>> from companion.clock import ManualClock
    >>> import random
    >>> pairing = Pairing(ManualClock(), random.Random(1))
    >>> code, _ = pairing.show()
    >>> token = pairing.redeem(code, "Mozilla/5.0 (Linux; Android 14) Chrome/120.0")
    >>> pairing.paired(token), pairing.phones()[0].name
    (True, 'Chrome on Android')

This module imports nothing of the web stack: the device's Pair screen uses it.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import os
import random
import re
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from companion.clock import Clock
from companion.errors import PairingLocked, PairingRefused, UnreadableFile, one_line
from companion.files import read_text_file
from companion.lang import _, ngettext

log = logging.getLogger("companion")

#: How long a shown code may be used.
CODE_SECONDS = 120.0
#: Wrong guesses a code survives; the last of them ends it.
TRIES = 3
#: Codes' worth of wrong guesses (``LOCK_AFTER * TRIES``, on any codes) before pairing
#: locks.
LOCK_AFTER = 2
#: The first lock (seconds); each lock after it is twice as long as the one before.
LOCK_FIRST = 60.0
#: The longest lock: a day.
LOCK_MAX = 86_400.0
#: Phones paired at once; the oldest is forgotten beyond this.
TOKENS_MAX = 32
#: The longest browser name shown (one line of the OLED beside nothing else).
BROWSER_MAX = 20


@dataclass(frozen=True)
class Phone:
    """A paired phone as Settings lists it: the browser's name and when it paired
    (the pairing clock's time); ``digest`` is its token's SHA-256."""

    digest: str
    name: str
    since: float


class LockMemory:
    """Where the lock outlives the program: ``pairing.json`` in the state dir, holding
    the locks since the last pairing, the wall-clock time the current lock ends and the
    wrong guesses toward the next one. ``wall`` is the calendar clock (the pairing
    clock is monotonic and starts again with the program).

    The file is written whole (a new file renamed over the old) by this class only; one
    that cannot be read as such (a hand edit, a bad card) is logged and taken as a
    device that has locked once and is not locked now: the owner can still pair, and a
    guesser's next lock is already a doubled one."""

    FILE = "pairing.json"

    def __init__(self, state_dir: str | os.PathLike[str], wall: Callable[[], float] = time.time):
        self.path = Path(state_dir) / self.FILE
        self.wall = wall

    def load(self) -> tuple[int, float, int]:
        """(locks, seconds the lock still runs, wrong guesses) as last saved."""
        try:
            data = json.loads(read_text_file(self.path, 4096, "the pairing lock"))
            locks, until, wrong = (data[key] for key in ("locks", "until", "wrong"))
            if not all(_count(n) for n in (locks, wrong)) or not _moment(until):
                raise ValueError("a value is not a count or a time")
        except UnreadableFile as problem:
            if not problem.missing:
                log.warning("pairing: %s; starting as after one lock", problem)
            return (0, 0.0, 0) if problem.missing else (1, 0.0, 0)
        except (ValueError, TypeError, KeyError) as problem:
            log.warning("pairing: %s is not readable (%s); starting as after one lock",
                        self.path, one_line(str(problem), 80))
            return 1, 0.0, 0
        # A lock never runs past LOCK_MAX from now, whatever the file or a clock set
        # back says.
        left = min(LOCK_MAX, max(0.0, until - self.wall()))
        return min(locks, 64), left, min(wrong, LOCK_AFTER * TRIES - 1)

    def save(self, locks: int, seconds_left: float, wrong: int) -> None:
        """Keep the state; a card that cannot take it keeps the lock in memory only
        (one log line), as before this file existed."""
        data = json.dumps({"locks": locks, "until": self.wall() + seconds_left,
                           "wrong": wrong})
        spare = self.path.with_name(f".{self.FILE}.new")
        try:
            with open(spare, "w", encoding="utf-8") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(spare, self.path)
        except OSError as problem:
            log.warning("pairing: cannot keep the lock in %s: %s", self.path,
                        problem.strerror or problem)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**31


def _moment(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) \
        and math.isfinite(value)


def digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class Pairing:
    """The current code (if any), the lock, and the paired phones. Thread-safe: the
    device's screen shows and retires the code, the web server's threads redeem it.
    ``on_paired(phone)`` is called (on the redeeming thread) after each pairing."""

    def __init__(self, clock: Clock, rng: random.Random | None = None,
                 on_paired: Callable[[Phone], None] | None = None,
                 memory: LockMemory | None = None):
        self.clock = clock
        self.memory = memory
        self.rng = rng or secrets.SystemRandom()
        self.on_paired = on_paired
        self._lock = threading.Lock()
        self._code: str | None = None
        self._showing = False  # the Pair screen is up (between show and retire)
        self._expires = 0.0
        self._tries = 0
        self._wrong_guesses = 0  # since the last lock or pairing, on any code
        self._locks = 0  # locks since the last pairing
        self._locked_until = 0.0
        self._phones: list[Phone] = []
        if memory is not None:
            self._locks, left, self._wrong_guesses = memory.load()
            if left > 0:
                self._locked_until = clock() + left

    # -- the screen ------------------------------------------------------------------

    def show(self) -> tuple[str | None, float]:
        """The code to show now and when it expires: a new one when there is none or it
        expired; ``(None, until)`` while pairing is locked."""
        with self._lock:
            now = self.clock()
            self._showing = True
            if now < self._locked_until:
                self._code = None
                return None, self._locked_until
            if self._code is None or now >= self._expires:
                self._new_code(now)
            return self._code, self._expires

    def _new_code(self, now: float) -> None:
        self._code = f"{self.rng.randrange(1_000_000):06d}"
        self._expires = now + CODE_SECONDS
        self._tries = 0

    def retire(self) -> None:
        """The code's screen is gone: the code is dead."""
        with self._lock:
            self._code = None
            self._showing = False

    def locked_for(self) -> float:
        """Seconds pairing stays locked (0 when it is not)."""
        with self._lock:
            return max(0.0, self._locked_until - self.clock())

    # -- the page --------------------------------------------------------------------

    def redeem(self, code: object, user_agent: str = "") -> str:
        """A new token for the right code (which is then used up); PairingRefused (or
        PairingLocked) else. ``user_agent`` names the phone in Settings."""
        with self._lock:
            now = self.clock()
            if now < self._locked_until:
                raise PairingLocked(self._locked_until - now)
            if self._code is None or now >= self._expires:
                self._code = None
                raise PairingRefused(_("no pairing code is showing: open Settings > Pair a "
                                       "phone on the device"))
            if not isinstance(code, str) or not hmac.compare_digest(
                    code.strip().encode(), self._code.encode()):
                return self._wrong(now)
            self._code = None
            self._wrong_guesses = self._locks = 0
            self._remember(now)
            token = secrets.token_urlsafe(24)
            phone = Phone(digest(token), browser_name(user_agent), now)
            self._phones = [*self._phones[-(TOKENS_MAX - 1):], phone]
        if self.on_paired is not None:
            self.on_paired(phone)
        return token

    def _wrong(self, now: float) -> str:
        self._tries += 1
        # Every wrong guess counts toward the lock, not only those that end a code: a
        # code that expires (or whose screen closes) after fewer than TRIES guesses
        # would otherwise give a patient guesser 2 guesses a code for ever, never locked.
        self._wrong_guesses += 1
        if self._wrong_guesses >= LOCK_AFTER * TRIES:
            self._code = None
            self._wrong_guesses = 0
            self._locked_until = now + min(LOCK_MAX, LOCK_FIRST * 2 ** min(self._locks, 32))
            self._locks += 1
            self._remember(now)
            raise PairingLocked(self._locked_until - now)
        self._remember(now)
        if self._tries < TRIES:
            left = TRIES - self._tries
            raise PairingRefused(ngettext("wrong code ({n} try left)",
                                          "wrong code ({n} tries left)", left).format(n=left))
        self._code = None
        if self._showing:
            self._new_code(now)  # the screen shows it at its next tick
        raise PairingRefused(_("wrong code {n} times: the device shows a new one").format(
            n=TRIES))

    def _remember(self, now: float) -> None:
        if self.memory is not None:
            self.memory.save(self._locks, max(0.0, self._locked_until - now),
                             self._wrong_guesses)

    def paired(self, token: str | None) -> bool:
        """True for a token this device gave out and has not forgotten."""
        if not token or not isinstance(token, str):
            return False
        wanted = digest(token)
        with self._lock:
            return any(hmac.compare_digest(wanted, phone.digest) for phone in self._phones)

    # -- Settings > Paired phones --------------------------------------------------------

    def phones(self) -> list[Phone]:
        """The paired phones, oldest first."""
        with self._lock:
            return list(self._phones)

    def forget(self, phone: Phone | None = None) -> None:
        """Forget one phone (its token stops working), or every phone."""
        with self._lock:
            self._phones = [] if phone is None else [
                known for known in self._phones if known.digest != phone.digest]


# -- the browser's name --------------------------------------------------------------------

#: (pattern in the User-Agent, name), first match wins: the order matters (Edge and
#: Chrome both say Chrome; Chrome and Safari both say Safari).
BROWSERS = (("EdgA?/", "Edge"), ("OPR/", "Opera"), ("SamsungBrowser/", "Samsung"),
            ("Firefox/|FxiOS/", "Firefox"), ("Chrome/|CriOS/|Chromium/", "Chrome"),
            ("Safari/", "Safari"))
SYSTEMS = (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"),
           ("Windows", "Windows"), ("Macintosh|Mac OS X", "Mac"), ("CrOS", "ChromeOS"),
           ("Linux", "Linux"))


def browser_name(user_agent: object) -> str:
    """What a person calls the browser that paired ("Chrome on Android"), from its
    User-Agent. The header is anyone's text: only known words are taken from it, and
    an unknown agent is its first word cut to plain letters, digits and ``.-_``."""
    text = user_agent[:1000] if isinstance(user_agent, str) else ""
    browser = next((name for pattern, name in BROWSERS if re.search(pattern, text)), "")
    system = next((name for pattern, name in SYSTEMS if re.search(pattern, text)), "")
    if browser:
        return f"{browser} on {system}" if system else browser
    first = re.sub(r"[^A-Za-z0-9._-]", "", text.split("/")[0].split(" ")[0])
    return first[:BROWSER_MAX] or "a browser"
