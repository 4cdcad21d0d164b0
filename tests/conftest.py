"""Shared pytest fixtures.

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
