"""The physical board on gpiozero: five buttons, an optional buzzer, an optional LED.

The board only reports raw pin edges. Every edge calls ``sink(button, pressed, now)``
on whatever thread gpiozero uses for pin callbacks, so the sink must only enqueue; the
app's one thread feeds the edges to :class:`companion.device.buttons.ButtonDecoder`.
Debounce and long presses are decided there, on the injectable clock, not by gpiozero.

:class:`SimBoard` is the same board on gpiozero's MockFactory pins, for the simulator
and tests::

    >>> from companion.config import Buttons
    >>> edges = []
    >>> board = SimBoard(Buttons(), sink=lambda *edge: edges.append(edge), clock=lambda: 1.5)
    >>> board.press("ok"); board.release("ok")
    >>> edges
    [('ok', True, 1.5), ('ok', False, 1.5)]
    >>> board.close()

The pin factory is never set globally: each gpiozero device gets ``pin_factory=``. The
commands build it on purpose from ``[gpio] pin_factory`` (:mod:`companion.device.pins`);
``pin_factory=None`` leaves the choice to gpiozero. A pin that cannot be opened is one
:class:`BoardError` line naming the cause and the fix. Nothing here imports RPi.GPIO.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gpiozero import LED, Buzzer, DigitalInputDevice
from gpiozero.pins.mock import MockFactory

from companion.clock import Clock, monotonic
from companion.config import BUTTON_NAMES, Buttons
from companion.device.pins import explain_gpio_error
from companion.errors import BoardError

Sink = Callable[[str, bool, float], None]


class Board:
    """gpiozero buttons (internal pull-ups) for the five buttons, an optional buzzer and
    an optional LED in the ROLL button.

    ``beeps`` counts :meth:`beep` calls, ``buzzing`` says whether :meth:`buzz` holds the
    buzzer on and ``led_lit`` is the LED state the app asked for, kept even without a
    buzzer or LED so the simulator can show them.

    Why ``DigitalInputDevice`` and not ``gpiozero.Button``: a Button is the same pin
    set-up plus hold detection, and that hold detection keeps a thread per button that
    wakes every 0.1 s even when nobody is pressing anything. Long presses are decoded
    on our own clock anyway, so the plain input device gives the same edges without
    the idle wake-ups.
    """

    def __init__(
        self,
        buttons: Buttons,
        buzzer_pin: int = 0,
        led_pin: int = 0,
        *,
        sink: Sink,
        clock: Clock = monotonic,
        pin_factory: Any = None,
    ):
        self._sink = sink
        self._clock = clock
        self.pin_factory = pin_factory
        self.beeps = 0
        self.led_lit = False
        self.buzzing = False
        self._inputs: dict[str, DigitalInputDevice] = {}
        self._buzzer: Buzzer | None = None
        self._led: LED | None = None
        try:
            for name, pin in buttons.pins().items():
                self._inputs[name] = self._open_button(name, pin)
            if buzzer_pin:
                self._buzzer = self._open(Buzzer, "buzzer", buzzer_pin)
            if led_pin:
                self._led = self._open(LED, "LED", led_pin)
        except BaseException:
            self.close()  # release the pins already claimed so a retry can take them
            raise

    def _open(self, kind: Any, what: str, pin: int, **kwargs: Any) -> Any:
        try:
            return kind(pin, pin_factory=self.pin_factory, **kwargs)
        except Exception as err:  # noqa: BLE001 - gpiozero, lgpio and RPi.GPIO all differ
            raise BoardError(
                f"cannot open the {what} on GPIO{pin}: {explain_gpio_error(err)}"
            ) from err

    def _open_button(self, name: str, pin: int) -> DigitalInputDevice:
        # Contact to ground + internal pull-up: closed contact reads low = active.
        # bounce_time=None: debounce belongs to ButtonDecoder (see the class docstring).
        device = self._open(
            DigitalInputDevice, f"{name.upper()} button", pin, pull_up=True, bounce_time=None
        )
        sink, clock = self._sink, self._clock
        # Zero-argument callbacks: gpiozero would otherwise pass the device.
        device.when_activated = lambda: sink(name, True, clock())
        device.when_deactivated = lambda: sink(name, False, clock())
        return device

    def is_pressed(self, button: str) -> bool:
        """The raw level of a button's contact right now (True: closed)."""
        try:
            return bool(self._inputs[button].is_active)
        except KeyError:
            raise ValueError(f"unknown button {button!r}") from None

    def beep(self, seconds: float = 0.04) -> None:
        """Sound the buzzer for ``seconds`` without blocking; no-op without a buzzer."""
        self.beeps += 1
        if self._buzzer is not None:
            # background=True: gpiozero times the beep on its own thread and returns now.
            self._buzzer.blink(on_time=seconds, off_time=0, n=1, background=True)

    def buzz(self, on: bool) -> None:
        """Switch the buzzer on or off and leave it so: the caller times the sound on
        its own clock (the turn timer's beeps); ``buzzing`` says which, even without a
        buzzer, so the simulator can show it."""
        self.buzzing = bool(on)
        if self._buzzer is not None:
            self._buzzer.value = self.buzzing

    def set_led(self, lit: bool) -> None:
        """Light or darken the LED in the ROLL button; no-op without an LED."""
        self.led_lit = bool(lit)
        if self._led is not None:
            self._led.value = self.led_lit

    def close(self) -> None:
        """Release every pin (safe to call twice)."""
        for output in (self._buzzer, self._led):
            if output is not None:
                output.off()  # stop a beep in progress; closing alone leaves the level
                output.close()
        for device in self._inputs.values():
            device.close()
        self._inputs.clear()
        self._buzzer = self._led = None

    def __enter__(self) -> Board:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SimBoard(Board):
    """The same board on gpiozero MockFactory pins, for the simulator and tests.

    :meth:`press` and :meth:`release` drive the mock pin the way a real contact would
    (low = pressed, with the pull-up), so the edge travels through gpiozero exactly
    like on a Pi, and the sink is called synchronously in the caller's thread.
    """

    def __init__(
        self,
        buttons: Buttons,
        buzzer_pin: int = 0,
        led_pin: int = 0,
        *,
        sink: Sink,
        clock: Clock = monotonic,
        pin_factory: Any = None,
    ):
        # A factory we made is ours to reset on close; one passed in belongs to the caller.
        self._own_factory = MockFactory() if pin_factory is None else None
        super().__init__(
            buttons,
            buzzer_pin,
            led_pin,
            sink=sink,
            clock=clock,
            pin_factory=pin_factory if pin_factory is not None else self._own_factory,
        )

    def close(self) -> None:
        """Release every pin, and reset the MockFactory if this board made it."""
        super().close()
        if self._own_factory is not None:
            self._own_factory.reset()

    def _pin(self, button: str) -> Any:
        if button not in BUTTON_NAMES:
            raise ValueError(f"unknown button {button!r} (buttons: {', '.join(BUTTON_NAMES)})")
        return self._inputs[button].pin

    def press(self, button: str) -> None:
        """Close the button's contact (drive its pin low)."""
        self._pin(button).drive_low()

    def release(self, button: str) -> None:
        """Open the button's contact (let the pull-up take its pin high)."""
        self._pin(button).drive_high()

    def bounce(self, button: str, pressed: bool, edges: int) -> None:
        """Drive a burst of ``edges`` alternating levels that ends at ``pressed``.

        All edges get the same clock reading unless the caller advances its clock
        between calls; a level equal to the current one makes no edge (like a real pin).

        >>> from companion.config import Buttons
        >>> seen = []
        >>> board = SimBoard(Buttons(), sink=lambda b, p, t: seen.append(p), clock=lambda: 0)
        >>> board.bounce("ok", True, 3)
        >>> seen
        [True, False, True]
        >>> board.close()
        """
        if edges < 1:
            raise ValueError("a bounce has at least one edge")
        pin = self._pin(button)
        for i in range(edges):
            level = pressed if (edges - 1 - i) % 2 == 0 else not pressed
            if level:
                pin.drive_low()
            else:
                pin.drive_high()
