"""Pairing a phone: a 6-digit code shown on the OLED, traded for a token.

The code exists only once someone opens Settings > Pair a phone on the device (the
screen asks :meth:`Pairing.show`); it is valid for :data:`CODE_SECONDS` and for
:data:`TRIES` wrong guesses, after which it is gone and the screen shows a new one. A
right guess returns a random token that the page keeps as a cookie; every write needs
one. Tokens live as long as the device runs (pair again after a restart).

The clock and the random source come in from outside, so tests never sleep::

    >>> from companion.clock import ManualClock
    >>> import random
    >>> pairing = Pairing(ManualClock(), random.Random(1))
    >>> code, _ = pairing.show()
    >>> token = pairing.redeem(code)
    >>> pairing.paired(token)
    True

This module imports nothing of the web stack: the device's Pair screen uses it.
"""

from __future__ import annotations

import hmac
import random
import secrets
import threading

from companion.clock import Clock
from companion.errors import CompanionError

#: How long a shown code may be used.
CODE_SECONDS = 120.0
#: Wrong guesses a code survives; the next one retires it.
TRIES = 5
#: Phones paired at once; the oldest is forgotten beyond this.
TOKENS_MAX = 32


class PairingRefused(CompanionError):
    """A code was wrong, expired or not shown; the message says which, in one line."""


class Pairing:
    """The current code (if any) and the tokens of the paired phones. Thread-safe: the
    device's screen reads the code, the web server's threads redeem it."""

    def __init__(self, clock: Clock, rng: random.Random | None = None):
        self.clock = clock
        self.rng = rng or secrets.SystemRandom()
        self._lock = threading.Lock()
        self._code: str | None = None
        self._expires = 0.0
        self._tries = 0
        self._tokens: list[str] = []

    def show(self) -> tuple[str, float]:
        """The code to show now and when it expires; a new one when there is none, it
        expired or it was guessed wrong too often."""
        with self._lock:
            if self._code is None or self.clock() >= self._expires:
                self._code = f"{self.rng.randrange(1_000_000):06d}"
                self._expires = self.clock() + CODE_SECONDS
                self._tries = 0
            return self._code, self._expires

    def redeem(self, code: object) -> str:
        """A new token for the right code (which is then used up); PairingRefused else."""
        with self._lock:
            if self._code is None or self.clock() >= self._expires:
                self._code = None
                raise PairingRefused("no pairing code is showing: open Settings > Pair a "
                                     "phone on the device")
            if not isinstance(code, str) or not hmac.compare_digest(code.strip(), self._code):
                self._tries += 1
                if self._tries >= TRIES:
                    self._code = None
                    raise PairingRefused(f"wrong code {TRIES} times: the device shows a new one")
                raise PairingRefused(f"wrong code ({TRIES - self._tries} tries left)")
            self._code = None
            token = secrets.token_urlsafe(24)
            self._tokens = [*self._tokens[-(TOKENS_MAX - 1):], token]
            return token

    def paired(self, token: str | None) -> bool:
        """True for a token this device gave out."""
        if not token:
            return False
        with self._lock:
            return any(hmac.compare_digest(token, known) for known in self._tokens)
