"""Putting an app together: context, board, panel and the first screen.

The real device, the terminal simulator and the script runner differ only in the board
(real pins or mock pins), the panel (real luma driver or a dummy), the clock (real or
manual) and where the frames go; :func:`make_app` wires the rest the same way for all.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from PIL import Image

from companion.app import App
from companion.clock import Clock
from companion.config import Config
from companion.device.buttons import ButtonDecoder
from companion.lang import pgettext
from companion.notify import Notifier
from companion.ui.screen import Context, Message, Screen, wrap

BoardFactory = Callable[..., Any]
log = logging.getLogger("companion")


@contextmanager
def serial_console(app: App, url: str | None, baud: int = 115200, **kw: Any) -> Iterator[Any]:
    """The serial console (:class:`companion.remote.serial.Link`) on ``url`` while the
    block runs; nothing (and no pyserial import, for the cold start) when ``url`` is
    empty::

        with serial_console(app, config.serial.url, config.serial.baud):
            app.run()
    """
    if not url:
        yield None
        return
    from companion.remote.serial import Link

    link = Link(app, url, baud, **kw).start()
    try:
        yield link
    finally:
        link.stop()


class WebSlot:
    """What :func:`web_page` yields: ``server`` once the page is up (a
    :class:`companion.remote.web.server.WebServer`), ``error`` if it could not start."""

    server: Any = None
    error: str = ""


@contextmanager
def web_page(app: App, listen: str | None, *, open_reads: bool = True) -> Iterator[Any]:
    """The table page (:mod:`companion.remote.web`) on ``listen`` (``"HOST:PORT"``) while
    the block runs; nothing (and no web import) when ``listen`` is empty::

        with web_page(app, config.web.listen, open_reads=config.web.open_reads):
            app.run()

    It starts on the owner thread once the first frame is shown (a queued call), and the
    web stack is imported in the server's own thread, so the page never delays the start.
    An address that cannot be used is logged; the device carries on without the page.
    """
    if not listen:
        yield None
        return
    slot = WebSlot()

    def start(app: App) -> None:
        from companion.errors import CompanionError
        from companion.remote.web.server import start as start_page

        try:
            slot.server = start_page(app, listen, open_reads=open_reads)
        except CompanionError as err:
            slot.error = str(err)
            log.error("%s", err)

    app.post("call", start)
    try:
        yield slot
    finally:
        if slot.server is not None:
            slot.server.stop()


@contextmanager
def _log_follower(app: App, what: str, does: str,
                  make: Callable[[Any], Any]) -> Iterator[list[Any]]:
    """A worker that follows the game log on a thread of its own (the club publisher,
    the backups), while the block runs: ``make(store)`` builds it on the owner thread
    once the first frame is shown; its ``listener`` hears every session's events; it is
    stopped when the block ends. None is made while games are not saved."""
    slot: list[Any] = []

    def start(app: App) -> None:
        store = app.ctx.store
        if store is None or str(store.path) == ":memory:":
            log.error("%s off: games are not saved, so there is nothing to %s", what, does)
            return
        worker = make(store)
        app.ctx.listeners.append(worker.listener)
        slot.append(worker.start())

    app.post("call", start)
    try:
        yield slot
    finally:
        for worker in slot:
            worker.stop()


@contextmanager
def club_link(app: App, club: Any) -> Iterator[Any]:
    """Club mode (:mod:`companion.club`) while the block runs when ``[club] broker`` is
    set; nothing (and no MQTT import) otherwise::

        with club_link(app, config.club):
            app.run()

    The publisher starts once the first frame is shown (a queued call) on its own thread
    with its own connection to the game log's file; the app only signals it after each
    event or undo, so the table never waits for the network. The header shows the club
    mark while the broker is connected: dotted, or dashed while the dashboard has not
    confirmed some of this table's matches.
    """
    if not club.broker:
        yield None
        return

    def show(up: bool) -> None:  # from the publisher's thread: post, never touch
        def mark(app: App) -> None:
            app.ctx.club_up = up
        app.post("call", mark)

    def lag(count: int) -> None:  # the same: "N matches not confirmed" on the mark
        def mark(app: App) -> None:
            app.ctx.club_unconfirmed = count
        app.post("call", mark)

    def offer(round_offer: Any) -> None:  # a round the organiser seated: to the screen
        from companion.club.offer import offer_round

        app.post("call", lambda app: offer_round(app, round_offer))

    def publisher(store: Any) -> Any:
        from companion.club.publisher import Publisher

        return Publisher(club, store.path, on_link=show, on_lag=lag, on_round=offer)

    with _log_follower(app, "club mode", "publish", publisher) as slot:
        yield slot


@contextmanager
def backup_keeper(app: App, backup: Any) -> Iterator[Any]:
    """A backup of the game log in ``[backup] dir`` after each finished game, while the
    block runs; nothing when no directory is set::

        with backup_keeper(app, config.backup):
            app.run()

    The backups are written by :class:`companion.store.keeper.BackupKeeper` on a thread of its
    own (started once the first frame is shown); a failure shows one line on the screen.
    """
    if not backup.dir:
        yield None
        return

    def failed(message: str) -> None:  # from the keeper's thread: post, never touch
        def show(app: App) -> None:
            app.wake()
            app.set_screen(Message(pgettext("screen 21", "Backup failed"), wrap(message)[:8],
                                   app.screen))
        app.post("call", show)

    def keeper(store: Any) -> Any:
        from companion.errors import StoreError
        from companion.store.keeper import BackupKeeper

        try:
            store.device_id()  # made now if need be, so every backup's manifest names it
        except StoreError:
            pass  # a log that cannot be written now: its backups say null
        return BackupKeeper(store.path, Path(backup.dir).expanduser(), backup.keep,
                            on_failure=failed)

    with _log_follower(app, "backups", "back up", keeper) as slot:
        yield slot


def make_context(config: Config, clock: Clock, seed: int | None) -> Context:
    """Outcomes from SystemRandom, or from ``random.Random(seed)`` when a seed is given."""
    if seed is None:
        rng: random.Random = random.SystemRandom()
        anim = random.Random()
    else:
        rng, anim = random.Random(seed), random.Random(seed + 1)
    return Context(rng=rng, anim_rng=anim, clock=clock, config=config)


def warm_history(app: App) -> None:
    """After the first frame, build the History figures in a thread of their own (over
    a read-only connection to the game log) and hand them to the owner thread, so the
    first History screen opens at once even on a long record. Best effort: if anything
    fails, History builds them itself when opened."""

    def start(app: App) -> None:
        store = app.ctx.store
        if store is None or str(store.path) == ":memory:":
            return
        path = store.path

        def build() -> None:
            try:
                from companion import stats

                tally = stats.warm(path)
            except Exception:  # noqa: BLE001 - an optimisation must never cost the table
                log.exception("History figures not prepared ahead")
                return

            def hand_over(app: App) -> None:
                if app.ctx.store is not None and app.ctx.store.path == path:
                    stats.keep(app.ctx.store, tally)

            app.post("call", hand_over)

        threading.Thread(target=build, name="history-warmup", daemon=True).start()

    app.post("call", start)


def make_app(
    config: Config,
    *,
    board_factory: BoardFactory,
    panel: Any,
    clock: Clock,
    seed: int | None = None,
    root: Callable[[Context], Screen] | None = None,
    on_frame: Callable[[Image.Image], None] | None = None,
    notifier: Notifier | None = None,
    state_dir: Path | None = None,
    game_log: Any = None,
    voice_options: dict[str, Any] | None = None,
) -> App:
    """An :class:`App` with its board attached; ``root`` builds the first screen
    (default: the main menu, after any notice and the offer to resume). The game log is
    opened in ``state_dir`` (a :class:`companion.gamelog.GameLog` given as ``game_log``
    instead: tests with storage that refuses). ``voice_options`` go to the table's
    voice (:class:`companion.speech.voice.TableVoice`: ``find``, ``make``)."""
    from companion.gamelog import GameLog
    from companion.speaking import speak
    from companion.ui.home import start_screen
    from companion.ui.language import starting_language

    # The configured language before the first screen is built: its texts are said once
    # it is drawn. A missing language file is a ConfigError (one line, exit 78).
    speak(config.ui.language, config.source)
    ctx = make_context(config, clock, seed)
    if game_log is None:
        game_log = GameLog.open(state_dir, clock())
    ctx.store, ctx.notice = game_log.store, game_log.notice
    # A language chosen on the device (Settings > Language) stands until the config
    # file names another one.
    chosen = starting_language(config, ctx.store)
    if chosen != config.ui.language:  # (not the language spoken: its file may be torn)
        speak(chosen, config.source)
    buttons = config.buttons
    decoder = ButtonDecoder(buttons.hold_time, buttons.bounce_time)
    screen = (root or start_screen)(ctx)
    app = App(ctx, panel, screen, decoder, config.idle, notifier=notifier, on_frame=on_frame,
              game_log=game_log)
    board = board_factory(
        buttons, config.buzzer.pin, config.led.pin, sink=app.pin_edge, clock=clock
    )
    app.board = app.timer.board = board
    ctx.beep = board.beep
    ctx.sound, ctx.clocks = app.timer.sound, app.timer.clocks
    give_voice(app, config, voice_options or {})
    return app


def give_voice(app: App, config: Config, options: dict[str, Any]) -> None:
    """The announcer (:mod:`companion.speech`) hears every game, the turn timer and every
    refusal; the table's voice says what it announces when speech is on (``[speech]``,
    or the device's choice under Settings > Speech). The speaker is looked for once the
    first frame is shown: no espeak-ng or no sound card is one line in the log."""
    from companion.speech.announcer import Announcer
    from companion.speech.voice import TableVoice
    from companion.ui.speech import starting_speech

    voice = TableVoice(config.speech, **starting_speech(config, app.ctx.store), **options)
    announcer = Announcer(voice, config.speech.say,
                          later=lambda say: app.post("then", say))
    app.ctx.speech = announcer
    app.ctx.listeners.append(announcer)
    app.session_watchers.append(announcer.watch)
    app.refusal_watchers.append(announcer.refused)
    app.timer.alerts.append(announcer.timer_alert)
    if voice.enabled:
        app.post("then", voice.ready)


def close_voice(app: App) -> None:
    """Stop what is being said (the program ends)."""
    speech = app.ctx.speech
    if speech is not None and speech.voice is not None:
        speech.voice.close()
