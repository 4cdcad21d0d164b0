"""A display that stops answering mid-game (a loose I2C cable): logged once, the game
goes on, and the picture comes back when the display answers again."""

import logging

from PIL import Image

from companion.clock import ManualClock
from companion.config import Config, Display
from companion.device.display import Panel, RecordingSerial, open_device
from companion.launch import make_app
from companion.sim import ScriptRunner, Step, sim_board_factory


class FlakyBus(RecordingSerial):
    """A recording bus that can be unplugged."""

    def __init__(self):
        super().__init__()
        self.unplugged = False

    def command(self, *cmd):
        if self.unplugged:
            raise OSError(121, "Remote I/O error")
        super().command(*cmd)

    def data(self, data):
        if self.unplugged:
            raise OSError(121, "Remote I/O error")
        super().data(data)


def frame(lit_column):
    image = Image.new("1", (128, 64))
    image.putpixel((lit_column, 10), 1)
    return image


def test_the_panel_keeps_frames_while_lost_and_resends_on_return(caplog):
    bus = FlakyBus()
    panel = Panel(open_device(Display(), serial=bus))
    panel.show(frame(1))
    bus.unplugged = True
    with caplog.at_level(logging.ERROR, logger="companion"):
        panel.show(frame(2))           # fails: no exception, marked lost
        panel.show(frame(3))           # not even tried
        panel.dim(True)
    assert panel.lost
    assert sum("stopped answering" in r.message for r in caplog.records) == 1
    assert not panel.retry()           # still unplugged
    bus.unplugged = False
    sent = bus.bytes_sent
    assert panel.retry()
    assert not panel.lost
    assert bus.bytes_sent - sent >= 1024            # the whole frame again
    assert panel.last_image.getpixel((3, 10)) == 1  # the newest frame
    assert panel.dimmed


def test_the_app_goes_on_and_retries_every_few_seconds():
    bus = FlakyBus()
    reopened = []

    def reopen():
        reopened.append(1)
        return open_device(Display(), serial=bus)

    panel = Panel(open_device(Display(), serial=bus), reopen=reopen)
    clock = ManualClock()
    app = make_app(Config(), board_factory=sim_board_factory, panel=panel, clock=clock)
    runner = ScriptRunner(app, clock, 0.8)
    try:
        app.start()
        bus.unplugged = True
        for button in ("down", "down"):           # the menu still moves
            runner.run(Step(0, button, button))
        assert app.screen.selected == 2 and panel.lost
        runner.advance(Panel.RETRY_EVERY * 2.5)
        assert len(reopened) >= 2                 # retried, without a busy loop
        bus.unplugged = False
        runner.advance(Panel.RETRY_EVERY)
        assert not panel.lost
        assert panel.last_image.tobytes() == app.screen.render().tobytes()
        assert app.retry_at is None
    finally:
        app.board.close()


def test_a_display_absent_at_start_is_reached_later():
    bus = FlakyBus()
    bus.unplugged = True
    panel = Panel.absent(lambda: open_device(Display(), serial=bus))
    clock = ManualClock()
    app = make_app(Config(), board_factory=sim_board_factory, panel=panel, clock=clock)
    runner = ScriptRunner(app, clock, 0.8)
    try:
        app.start()
        runner.run(Step(0, "down", "down"))      # the device works without its screen
        runner.advance(600)                      # dims and blanks: nothing to talk to
        assert panel.lost and app.screen.selected == 1
        bus.unplugged = False
        runner.run(Step(0, "up", "up"))          # wakes; the retry reaches the display
        runner.advance(Panel.RETRY_EVERY)
        assert not panel.lost
        assert panel.last_image.tobytes() == app.screen.render().tobytes()
        assert bus.bytes_sent >= 1024
    finally:
        app.board.close()
