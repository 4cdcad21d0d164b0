"""Settings > Speech: speech on or off, how fast and how loud, a sample, and why there is
no sound when there is none.

``[speech]`` in the config file is where a device starts. A choice made here is kept in
the game log's file (``meta``) with the config's values it replaced, as Settings >
Language keeps the language: it survives a restart until the config file's
``enabled``, ``rate`` or ``volume`` change (whoever edits last is heard)::

    >>> from types import SimpleNamespace
    >>> from companion.voices import Speech
    >>> starting_speech(SimpleNamespace(speech=Speech(rate=160)), None)
    {'enabled': False, 'rate': 160, 'volume': 100}

A long ROLL on the main menu or in Tools says the last words again
(:func:`say_again`).
"""

from __future__ import annotations

import json
from typing import Any

from companion import lang
from companion.lang import lazy, pgettext
from companion.ui.canvas import BODY_TOP, WIDTH, Canvas, text_width
from companion.ui.keys import Key, Keys
from companion.ui.screen import Context, Menu, MenuItem, Message, Press, Screen, folded, is_
from companion.voices import RATE_MAX, RATE_MIN, VOLUME_MAX, VOLUME_MIN, Speech, check_speech

#: The ``meta`` key of the device's own choice: {"enabled", "rate", "volume", "config"}.
CHOICE_KEY = "speech"
#: What the device may choose, and the steps UP/DOWN take (a long press: five steps).
CHOSEN = ("enabled", "rate", "volume")
STEP = 10


def _configured(config: Any) -> dict[str, Any]:
    speech = getattr(config, "speech", None) or Speech()
    return {key: getattr(speech, key) for key in CHOSEN}


def starting_speech(config: Any, store: Any) -> dict[str, Any]:
    """Speech on or off, its rate and volume to start with: the device's choice while
    the config still says what it said when the choice was made, else the config's."""
    configured = _configured(config)
    try:
        kept = json.loads(store.meta(CHOICE_KEY) or "{}") if store is not None else {}
    except (ValueError, OSError, AttributeError):
        kept = {}
    if not isinstance(kept, dict) or kept.get("config") != configured:
        return configured
    chosen = dict(configured)
    for key in CHOSEN:
        value = kept.get(key)
        if key == "enabled" and isinstance(value, bool):
            chosen[key] = value
        elif key != "enabled" and isinstance(value, int) and not isinstance(value, bool):
            chosen[key] = value
    # The file outlives versions and can be damaged: what [speech] may say is what the
    # kept choice may say (espeak-ng is never asked for -s 100000); the config's instead.
    wrong: list[str] = []
    check_speech(Speech(**chosen), lambda key, problem: wrong.append(key.split(".")[-1]))
    return {key: configured[key] if key in wrong else chosen[key] for key in CHOSEN}


def _remember(ctx: Context) -> None:
    """Keep the device's choice in the game log's file (it stands in memory even when
    it cannot be kept: every screen says when nothing can be saved)."""
    voice = ctx.speech.voice
    if ctx.store is None:
        return
    choice = json.dumps({**voice.choices(), "config": _configured(ctx.config)})
    try:
        ctx.store.set_meta(CHOICE_KEY, choice)
    except Exception:  # noqa: BLE001 - a read-only or failing store only loses the memory
        return


def say_again(ctx: Context) -> None:
    """A long ROLL on the main menu or in Tools: the last words again."""
    if ctx.speech is not None:
        ctx.speech.repeat()


def speech_menu(ctx: Context, parent: Screen, selected: int = 0) -> Screen:
    """Settings > Speech (see the module docstring)."""
    title = lazy("screen 21", "Speech")
    if ctx.speech is None or ctx.speech.voice is None:
        return Message(str(title), folded(pgettext(
            "screen 21x3", "This device has no voice here.")), parent)
    voice = ctx.speech.voice
    items = [
        MenuItem(pgettext("screen 21", "Speech: on") if voice.enabled
                 else pgettext("screen 21", "Speech: off"), _toggle),
        MenuItem(pgettext("screen 21", "Rate: {rate}").format(rate=voice.rate),
                 lambda ctx, menu: SpeechLevel("rate", voice.rate, menu)),
        MenuItem(pgettext("screen 21", "Volume: {volume}").format(volume=voice.volume),
                 lambda ctx, menu: SpeechLevel("volume", voice.volume, menu)),
        MenuItem(pgettext("screen 21", "Say a sample"), _sample),
    ]
    if voice.problem:
        items.append(MenuItem(pgettext("screen 21", "No sound: why?"), _why))
    menu = Menu(title, items, parent)
    menu.selected = min(selected, len(items) - 1)
    menu._scroll()
    return menu


def _again(ctx: Context, menu: Screen) -> Screen:
    """This menu once more, its words as they are now, on the same row."""
    return speech_menu(ctx, menu.parent, getattr(menu, "selected", 0))


def _toggle(ctx: Context, menu: Screen) -> Screen:
    voice = ctx.speech.voice
    voice.enabled = not voice.enabled
    if voice.enabled:
        voice.ready()  # no speaker: the menu says so at once
    else:
        voice.hush()  # off is off: not the end of the words being said
    _remember(ctx)
    return _again(ctx, menu)


def _sample(ctx: Context, menu: Screen) -> Screen:
    ctx.speech.voice.sample(lang.current())
    return _again(ctx, menu)


def _why(ctx: Context, menu: Screen) -> Screen:
    return Message(pgettext("screen 21", "No sound"), folded(ctx.speech.voice.problem), menu)


# Translators: a hint line (21 characters): the buttons printed on the device (UP, DN,
# DOWN, OK, BACK, ROLL) stay as they are, each with a word for what it does.
LEVEL_KEYS = Keys(lazy("screen 21", "Speech rate or volume"),
                  lazy("screen 21", "UP/DN change  OK keep"),
                  Key("UP/DOWN", lazy("screen 21xN", "Faster or slower, louder or softer (held: "
                                      "in bigger steps).")),
                  Key("OK", lazy("screen 21xN", "Keep it, and hear the sample with it.")),
                  Key("BACK", lazy("screen 21xN", "Leave it as it was.")))


class SpeechLevel(Screen):
    """The rate or the volume: UP/DOWN change it, OK keeps it and says the sample,
    BACK leaves it as it was."""

    keys = LEVEL_KEYS

    def __init__(self, which: str, value: int, parent: Screen):
        super().__init__(parent)
        self.which = which
        self.low, self.high = (RATE_MIN, RATE_MAX) if which == "rate" else \
            (VOLUME_MIN, VOLUME_MAX)
        self.value = value

    @property
    def title(self) -> str:  # type: ignore[override]
        # Beside the range ("80-450") in the title bar: 14 columns.
        return pgettext("screen 14", "Rate") if self.which == "rate" \
            else pgettext("screen 14", "Volume")

    def press(self, ctx: Context, press: Press) -> Screen:
        voice = ctx.speech.voice
        if press.button in ("up", "down"):
            step = STEP * (5 if press.long else 1) * (1 if press.button == "up" else -1)
            self.value = max(self.low, min(self.high, self.value + step))
            return self
        if is_(press, "ok"):
            setattr(voice, self.which, self.value)
            _remember(ctx)
            voice.sample(lang.current())
            return _again(ctx, self.parent)
        return super().press(ctx, press)

    def draw(self, canvas: Canvas) -> None:
        canvas.title(self.title, f"{self.low}-{self.high}")
        shown = str(self.value)
        canvas.big_text((WIDTH - text_width(shown, 3) + 3) // 2, BODY_TOP + 8, shown)
