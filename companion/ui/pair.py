"""Settings > Pair a phone and Settings > Paired phones.

The code comes from the web page's pairing (``ctx.pairing``, set when the page is
switched on). It lives only while the Pair screen is shown: the screen takes it when
it opens and retires it when it goes (:meth:`Screen.hidden`). Beside the digits, a QR
code holds the page's address with the code in it, so a phone camera pairs in one
step; the digits stay for typing. While pairing is locked (too many wrong codes) the
screen says so and counts down. Without the page the screen says how to switch it
on. The screen ticks once a second for its countdown, only while it is open.

Paired phones lists each phone by its browser's name; OK forgets one, and the last
item forgets them all (their pages must pair again to change anything).
"""

from __future__ import annotations

import math
from typing import Any

from PIL import Image

from companion.lang import lazy, pgettext
from companion.network import outward_address
from companion.ui.canvas import WIDTH, Canvas
from companion.ui.keys import Key, Keys
from companion.ui.screen import Confirm, Context, Menu, MenuItem, Message, Screen, folded

#: The largest QR code drawn: version 3 is 29 modules, 58 px at 2 px a module.
QR_VERSION_MAX = 3
#: Pixels per module: a phone camera reads 2 px modules on a 0.96" panel.
QR_SCALE = 2
#: Lit modules around the code (the "quiet zone"; the dark panel beyond it helps too).
QR_BORDER = 1


def qr_image(text: str) -> Image.Image | None:
    """``text`` as a QR code the panel shows: dark modules on a lit ground (as printed),
    :data:`QR_SCALE` px a module, with a lit border; None when it needs more than
    version :data:`QR_VERSION_MAX` (the digits alone are shown then)."""
    import segno  # only when a Pair screen opens

    try:
        code = segno.make_qr(text, error="l", boost_error=True)
    except segno.DataOverflowError:
        return None
    if code.version > QR_VERSION_MAX:
        return None
    matrix = code.matrix
    size = (len(matrix) + 2 * QR_BORDER) * QR_SCALE
    image = Image.new("1", (size, size), 1)
    for row, modules in enumerate(matrix):
        for column, dark in enumerate(modules):
            if dark:
                x, y = ((column + QR_BORDER) * QR_SCALE, (row + QR_BORDER) * QR_SCALE)
                image.paste(0, (x, y, x + QR_SCALE, y + QR_SCALE))
    return image


PAIR_BACK = Key("BACK", lazy("screen 21xN", "Leave: the code shown can no longer be used."))
# Translators: a hint line (21 characters): the button names printed on the device (UP,
# DOWN, DN, OK, BACK, ROLL) stay, each with a word for what it does.
PAIR_KEYS = Keys(lazy("screen 21", "Pairing a phone"), lazy("screen 21", "BACK leave"), PAIR_BACK)
PAIR_QR_KEYS = Keys(lazy("screen 21", "Pairing a phone"), "", PAIR_BACK)


class PairScreen(Screen):
    """The current code, big, a QR code of the page's address with it, and the seconds
    it has left; "Locked" and the seconds to wait while pairing is locked."""

    # The title bar leaves 15 characters beside the code's time left ("4:59").
    title = lazy("screen 15", "Pair a phone")

    def __init__(self, pairing: Any, address: str, parent: Screen | None = None):
        super().__init__(parent)
        self.pairing = pairing
        self.address = address
        self.code: str | None = None
        self.expires = 0.0
        self._qr: tuple[str, Image.Image | None] | None = None
        self._take()

    @property
    def keys(self) -> Keys:  # type: ignore[override]
        # The QR code takes the hint's line: BACK is said in Help.
        return PAIR_QR_KEYS if self.qr() is not None else PAIR_KEYS

    def _take(self) -> None:
        self.code, self.expires = self.pairing.show()

    def url(self) -> str:
        """What the QR code says: the pair page with the code in it."""
        return f"http://{self.address.removesuffix('/pair')}/pair?code={self.code}"

    def qr(self) -> Image.Image | None:
        if self.code is None:
            return None
        if self._qr is None or self._qr[0] != self.code:
            self._qr = (self.code, qr_image(self.url()))
        return self._qr[1]

    def tick_after(self) -> float | None:
        return 1.0

    def tick(self, ctx: Context) -> Screen:
        self._take()  # a new code once this one is gone; the lock and its end
        return self

    def returned(self, ctx: Context) -> Screen:
        self._take()
        return self

    def hidden(self, ctx: Context) -> None:
        self.pairing.retire()  # nobody sees the code any more: nobody may use it

    def draw(self, canvas: Canvas) -> None:
        left = max(0, math.ceil(self.expires - self.pairing.clock()))
        clock = f"{left // 60}:{left % 60:02d}"
        if self.code is None:
            canvas.title(pgettext("screen 15", "Pairing locked"), clock)
            canvas.paragraph(folded(pgettext(
                "screen 21x4", "Too many wrong codes.\nPair again when this\nreaches 0:00.")))
            return
        qr = self.qr()
        if qr is None:
            canvas.title(self.title, clock)
            canvas.centered(15, self.code, scale=3)
            canvas.centered(42, self.address)
            return
        # The QR code on the right, full height; the digits in two rows on the left.
        canvas.image.paste(qr, (WIDTH - qr.width, (64 - qr.height) // 2))
        room = WIDTH - qr.width
        # Left of the QR code at its largest: 10 characters.
        canvas.text(1, 0, pgettext("screen 10", "Pair phone"))
        canvas.draw.line((0, 9, room - 3, 9), fill=1)
        for row, part in enumerate((self.code[:3], self.code[3:])):
            canvas.big_text((room - 3 * 12) // 2, 14 + row * 18, part, scale=2)
        canvas.text(1, 54, clock)


def pair_screen(ctx: Context, parent: Screen) -> Screen:
    """The Pair screen, or a note when the web page is off."""
    pairing = getattr(ctx, "pairing", None)
    if pairing is None:
        return page_off(pgettext("screen 21", "Pair a phone"), parent)
    return PairScreen(pairing, page_address(getattr(ctx, "web_address", "")), parent)


def page_off(title: str, parent: Screen) -> Screen:
    # Translators: "[web] listen" (the config file's words) and --web stay as they are.
    return Message(title, folded(pgettext(
        "screen 21x4", "The web page is off.\nSet [web] listen in\nthe config file, or\n"
        "start with --web.")), parent)


def page_address(listen: str) -> str:
    """Where a phone finds the page: ``listen``'s port on this machine's address on the
    local network (found without sending anything)."""
    import socket

    host, _, port = listen.rpartition(":")
    host = host.strip("[]")
    if host in ("", "0.0.0.0", "::"):
        host = outward_address() or socket.gethostname()
    if ":" in host:
        host = f"[{host}]"  # an IPv6 address, as a URL writes it
    return f"{host}:{port}/pair" if port else "/pair"


def phone_paired(current: Screen, name: str) -> Screen:
    """What the panel shows when a phone has just paired: its browser's name, over the
    Pair screen's parent (the code is used up) or over whatever is shown."""
    parent = current.parent if isinstance(current, PairScreen) else current
    # Translators: {name} is the browser's name ("Firefox on Android"), a line of its own.
    said = pgettext("screen 21x4", "{name}\nmay now add players,\nstart games and\n"
                    "enter events.")
    lines: list[str] = []
    for line in said.split("\n"):
        # The name on a line of its own stays as it came (the screen cuts it if it must).
        lines += [name] if line == "{name}" else folded(line.format(name=name))
    return Message(pgettext("screen 21", "Phone paired"), lines, parent)


# -- Settings > Paired phones ----------------------------------------------------------------


def paired_phones(ctx: Context, parent: Screen) -> Screen:
    """The paired phones (OK forgets one) and "Forget all"; a note when there are none
    or the page is off."""
    pairing = getattr(ctx, "pairing", None)
    if pairing is None:
        return page_off(pgettext("screen 21", "Paired phones"), parent)
    phones = pairing.phones()
    if not phones:
        return Message(pgettext("screen 21", "Paired phones"), folded(pgettext(
            "screen 21x4", "No phone is paired.\nSettings > Pair a\nphone pairs one.")),
            parent)
    now = pairing.clock()
    items = [MenuItem(phone.name, lambda ctx, menu, phone=phone: _forget(ctx, menu, phone),
                      _ago(now - phone.since)) for phone in reversed(phones)]
    items.append(MenuItem(pgettext("screen 21", "Forget all"),
                          lambda ctx, menu: _forget(ctx, menu, None)))
    return Menu(pgettext("screen 21", "Paired phones"), items, parent)


def _forget(ctx: Context, menu: Screen, phone: Any) -> Screen:
    # Folded, not cut: "Forget Samsung on Android?" is longer than a line.
    if phone is None:
        lines = folded(pgettext("screen 21x4", "Forget all phones? Their pages must pair "
                                               "again to change anything."))
    else:
        lines = folded(pgettext("screen 21x4", "Forget {name}? Its page must pair again to "
                                               "change anything.").format(name=phone.name))
        if len(lines) > 4:  # a browser name at its longest: the shorter question
            lines = folded(pgettext("screen 21x4", "Forget {name}? Its page must pair "
                                                   "again.").format(name=phone.name))

    def forget(ctx: Context) -> Screen:
        ctx.pairing.forget(phone)
        return paired_phones(ctx, menu.parent)

    return Confirm(pgettext("screen 21", "Forget"), lines, forget, menu)


def _ago(seconds: float) -> str:
    """"5m", "3h", "2d": how long ago a phone paired, in a menu note."""
    minutes = int(seconds // 60)
    # Translators: minutes, hours and days since a phone paired, beside its name.
    if minutes < 60:
        return pgettext("screen 4", "{minutes}m").format(minutes=minutes)
    if minutes < 1440:
        return pgettext("screen 4", "{hours}h").format(hours=minutes // 60)
    return pgettext("screen 4", "{days}d").format(days=minutes // 1440)
