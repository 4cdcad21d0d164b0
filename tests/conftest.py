"""Shared pytest fixtures.

``rig``: ``rig(config=None, root=None, notifier=None)`` builds an app on mock pins and
a manual clock, started, and gives ``(app, clock, runner)`` (a
:class:`companion.sim.ScriptRunner` that presses its buttons); closed after the test.

Every test ends in English (``english_after``), whatever language it switched to.

``mock_factory``: a fresh gpiozero MockFactory for one test. It is also installed as
``Device.pin_factory`` for the test's duration, so code that forgets ``pin_factory=``
still lands on mock pins instead of probing real GPIO; afterwards the factory is reset
(pins and reservations cleared) and the previous global factory is put back, because
gpiozero state otherwise leaks from one test into the next.

Under CI (``$CI`` set) hypothesis runs derandomized: the same examples every run, so a
landing never depends on the luck of a seed; local runs keep exploring new ones.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory
from hypothesis import settings

settings.register_profile("ci", derandomize=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture(autouse=True)
def drawn_alike(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """A match started without a secret of its caller's draws from the operating
    system's randomness on the device (companion.chance.new_secret); in a test it draws
    from a source seeded by the test's name, so a test that seeds its Context plays the
    same game every run (one test's outcome never hangs on the machine's luck)."""
    import random

    from companion import session
    from companion.chance import SECRET_BYTES

    source = random.Random(request.node.nodeid)
    monkeypatch.setattr(session, "new_secret", lambda: source.randbytes(SECRET_BYTES))


@pytest.fixture(autouse=True)
def english_after() -> Iterator[None]:
    """The language is the process's (the device speaks one at a time): a test that
    switches it, by a config's ``[ui] language`` or Settings > Language, must not leave
    the next test speaking it."""
    from companion import lang

    yield
    lang._current[:] = [lang.DEFAULT, lang._NONE]


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """A fresh MockFactory, reset and uninstalled after the test."""
    saved = Device.pin_factory
    factory = MockFactory()
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.close()  # close the pins first: reset() only forgets them
        factory.reset()
        Device.pin_factory = saved


@pytest.fixture
def rig():
    """Apps on mock pins and a manual clock (see the module docstring)."""
    from companion.clock import ManualClock
    from companion.config import Config
    from companion.launch import make_app
    from companion.sim import ScriptRunner, sim_board_factory, sim_panel

    made = []

    def build(config=None, root=None, notifier=None):
        config = config or Config()
        clock = ManualClock()
        app = make_app(config, board_factory=sim_board_factory, panel=sim_panel(),
                       clock=clock, seed=4, root=root, notifier=notifier)
        app.start()
        made.append(app)
        return app, clock, ScriptRunner(app, clock, config.buttons.hold_time)

    yield build
    for app in made:
        app.board.close()
