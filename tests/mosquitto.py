"""A real Mosquitto broker for tests: started on a free loopback port, stopped after.

:class:`Mosquitto` is :class:`companion.club.localbroker.LocalBroker` (config in a
temporary directory, ``kill()``/``stop()``/``start()`` for fault tests) that, when
``mosquitto`` is not installed, skips the test loudly, and fails it when ``$CI`` is set
(CI installs it: ``.ci/run``).
"""

from __future__ import annotations

import os

import pytest

from companion.club.localbroker import LocalBroker, free_port, mosquitto_binary, wait_for

__all__ = ["Mosquitto", "free_port", "need_mosquitto", "wait_for"]


def need_mosquitto() -> str:
    """The mosquitto binary, or skip (fail under CI) with a clear reason."""
    binary = mosquitto_binary()
    if binary is None:
        reason = ("mosquitto is not installed: club tests need a real broker "
                  "(apt-get install mosquitto)")
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return binary


class Mosquitto(LocalBroker):
    """A :class:`LocalBroker` that skips (or fails under CI) without mosquitto."""

    def __init__(self, *args, **kw):
        need_mosquitto()
        super().__init__(*args, **kw)
