"""The simulator's screen and keyboard: frames drawn in a terminal or written as PNGs,
and key bytes decoded into button presses.

* :func:`to_braille` draws a 128x64 frame as 16 lines of 64 braille characters (each
  character is a 2x4 block of pixels), small enough for an 80x24 terminal;
  :func:`to_text` draws it as ``#``/``.`` text, one character per pixel, for scripts and
  docs.
* :class:`TerminalScreen` keeps the braille frame in a box on the terminal, redrawn in
  place; :class:`PngWriter` writes each new frame as a scaled-up PNG.
* :class:`KeyReader` turns bytes from a terminal in cbreak/raw mode
  (:func:`raw_terminal`) into :class:`~companion.device.buttons.Press` events.

>>> from PIL import Image
>>> img = Image.new("1", (4, 4)); img.putpixel((0, 0), 1); img.putpixel((3, 3), 1)
>>> to_text(img)
['#...', '....', '....', '...#']
>>> to_braille(img)
['⠁⢀']
>>> KeyReader().feed(b"\\x1b[A U q")
[Press(button='up', long=False), Press(button='roll', long=False), \
Press(button='up', long=True), Press(button='roll', long=False), 'quit']
"""

from __future__ import annotations

import os
import re
import sys
import termios
import tty
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Literal, TextIO

from PIL import Image

from companion.device.buttons import Press
from companion.errors import CompanionError
from companion.lang import N_, _

__all__ = [
    "KEYMAP",
    "LEGEND",
    "KeyReader",
    "PngWriter",
    "TerminalScreen",
    "raw_terminal",
    "to_braille",
    "to_text",
]

# Unicode braille: dot n is bit n-1; dots 1-3 and 7 are the left column (rows 0-3),
# dots 4-6 and 8 the right column. Indexed [row][column] within the 2x4 cell.
_BRAILLE_BITS = ((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))


def _pixels(image: Image.Image) -> tuple[int, int, bytes]:
    """Width, height and one byte per pixel (0 dark, nonzero lit)."""
    if image.mode != "1":
        image = image.convert("1")
    width, height = image.size
    return width, height, image.convert("L").tobytes()


def to_braille(image: Image.Image) -> list[str]:
    """The image as braille text: one character per 2x4 pixels (16 lines of 64 for a
    128x64 frame). Lit pixels are raised dots.

    >>> from PIL import Image
    >>> img = Image.new("1", (2, 4)); img.putpixel((1, 3), 1)
    >>> to_braille(img), hex(ord(to_braille(img)[0]))
    (['⢀'], '0x2880')
    """
    width, height, px = _pixels(image)
    lines = []
    for top in range(0, height, 4):
        chars = []
        for left in range(0, width, 2):
            code = 0
            for dy in range(4):
                y = top + dy
                if y >= height:
                    break
                row = y * width
                for dx in range(2):
                    x = left + dx
                    if x < width and px[row + x]:
                        code |= _BRAILLE_BITS[dy][dx]
            chars.append(chr(0x2800 + code))
        lines.append("".join(chars))
    return lines


def to_text(image: Image.Image) -> list[str]:
    """The image as one character per pixel: ``#`` lit, ``.`` dark (64 lines of 128).

    >>> from PIL import Image
    >>> to_text(Image.new("1", (3, 1), 1))
    ['###']
    """
    width, height, px = _pixels(image)
    table = bytes.maketrans(b"\x00\xff", b".#")
    text = px.translate(table).decode("ascii")
    return [text[y * width : (y + 1) * width] for y in range(height)]


# Translators: the simulator's key legend under the screen (two lines of at most 79
# characters). Keep the keys as they are (q, u d o b r, U D O B R) and the button names
# ok, back, roll as they are printed on the device.
LEGEND = N_(
    "Up/Down arrows: up/down  Enter: ok  Backspace/Esc: back  Space: roll  q: quit\n"
    "long press: Shift+Up/Down, or U D O B R   (u d o b r: short press)"
)


#: The longest line of the legend: an 80-column terminal draws 79 without wrapping.
LEGEND_COLUMNS = 79


def legend_lines(legend: str) -> list[str]:
    """The legend as drawn: each of its lines folded to :data:`LEGEND_COLUMNS`, between
    two keys (at a double space) where it can, else at a space, so a translation longer
    than the English takes a line more rather than tearing the picture."""
    lines: list[str] = []
    for line in legend.splitlines():
        if len(line) <= LEGEND_COLUMNS:
            lines.append(line)
            continue
        groups = [group.strip() for group in re.split(r" {2,}", line) if group.strip()]
        row = ""
        for group in groups:
            joined = f"{row}  {group}" if row else group
            if len(joined) <= LEGEND_COLUMNS:
                row = joined
                continue
            if row:
                lines.append(row)
            row = ""
            for word in group.split(" "):  # a group wider than a line: at its spaces
                joined = f"{row} {word}" if row else word
                if len(joined) <= LEGEND_COLUMNS or not row:
                    row = joined
                else:
                    lines.append(row)
                    row = word
        lines.append(row)
    return lines


def needed(legend: str) -> tuple[int, int]:
    """(columns, lines) the block needs with ``legend`` under it: the 66-column box and
    the legend's longest line; 18 lines of box, the status line and the legend's."""
    lines = legend_lines(legend)
    return max(66, *(len(line) for line in lines)), 19 + len(lines)


#: The size said of a stream that is not a terminal: room for any legend.
NOT_A_TERMINAL = (999, 999)

#: What the block needs with the English legend (:meth:`TerminalScreen.needed`: with
#: the legend in the language spoken).
NEEDED = needed(LEGEND)


#: The size a terminal is taken to have when it reports none and $COLUMNS/$LINES do not
#: say either: the standard terminal's (the screen fits it).
STANDARD = (80, 24)


def terminal_size(stream: TextIO, env: Mapping[str, str] | None = None) -> tuple[int, int]:
    """(columns, lines) of the terminal ``stream`` writes to. A serial login often
    reports 0x0 (nobody told the kernel the size): then ``$COLUMNS`` and ``$LINES`` say
    it, else :data:`STANDARD`; each of the two on its own. Not a terminal (a test's
    buffer, a pipe): :data:`NOT_A_TERMINAL`, nothing to cut."""
    try:
        size = os.get_terminal_size(stream.fileno())
    except (AttributeError, OSError, ValueError):
        return NOT_A_TERMINAL  # a test's buffer, a pipe: nothing to cut
    env = os.environ if env is None else env
    return (size.columns or _size_from(env, "COLUMNS", STANDARD[0]),
            size.lines or _size_from(env, "LINES", STANDARD[1]))


def _size_from(env: Mapping[str, str], name: str, default: int) -> int:
    """``$name`` as a size (a whole number from 1 to 10000), else ``default``."""
    text = env.get(name, "").strip()
    if text.isascii() and text.isdigit() and len(text) <= 5 and 0 < int(text) <= 10_000:
        return int(text)
    return default


class TerminalScreen:
    """The frame as braille in a box, with the key legend under it, redrawn in place.

    The first :meth:`draw` prints the block; later ones move the cursor back up with
    ANSI sequences and rewrite only the lines that changed, so the terminal does not
    scroll or flicker. A 128x64 frame takes 66x18 plus the legend: it fits 80x24. A
    terminal too small for it gets a few words saying how large it must be, never a
    picture cut at its edge (whose missing half could be the part that matters); call
    :meth:`redraw` when the terminal changes size. ``size()`` gives (columns, lines).

    >>> import io
    >>> from PIL import Image
    >>> out = io.StringIO()
    >>> screen = TerminalScreen(out)
    >>> screen.draw(Image.new("1", (128, 64))), screen.draw(Image.new("1", (128, 64)))
    (True, False)
    """

    def __init__(self, stream: TextIO | None = None, legend: str | None = None,
                 size: Callable[[], tuple[int, int]] | None = None):
        #: The key legend (None: :data:`LEGEND` in the language spoken when it is drawn).
        self.stream = stream if stream is not None else sys.stdout
        self.legend = legend
        self.size = size or (lambda: terminal_size(self.stream))
        self._lines: list[str] | None = None
        self._last: bytes | None = None
        self._status = ""
        self._image: Image.Image | None = None

    def lines(self, image: Image.Image, status: str = "") -> list[str]:
        """The text block for a frame: box, status line, legend."""
        art = to_braille(image)
        width = max(len(line) for line in art)
        return [
            "┌" + "─" * width + "┐",
            *("│" + line + "│" for line in art),
            "└" + "─" * width + "┘",
            status,
            *legend_lines(self._legend()),
        ]

    def _legend(self) -> str:
        return _(LEGEND) if self.legend is None else self.legend

    def needed(self) -> tuple[int, int]:
        """(columns, lines) the block needs, its legend measured in the language it is
        drawn in."""
        return needed(self._legend())

    def too_small(self, columns: int, rows: int) -> list[str]:
        """What a terminal smaller than :meth:`needed` shows instead of the screen,
        folded to its width (and its height: the first lines are the ones that count)."""
        wide, high = self.needed()
        # Translators: q is the key that quits: keep it as it is.
        text = _("The simulator needs a terminal of at least {wide}x{high}; this one is "
                 "{columns}x{rows}. Make it larger: the screen comes back at once. "
                 "q quits.").format(wide=wide, high=high, columns=columns, rows=rows)
        folded, line = [], ""
        for word in text.split():
            if line and len(line) + 1 + len(word) > max(columns - 1, 1):
                folded.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        folded.append(line)
        return [row[:max(columns - 1, 1)] for row in folded[:max(rows - 1, 1)]]

    def draw(self, image: Image.Image, status: str = "") -> bool:
        """Show a frame (and a one-line status under it); False if nothing changed."""
        columns, rows = self.size()
        key = (image.convert("1").tobytes() + repr(image.size).encode()
               + f"{columns}x{rows}".encode())
        if key == self._last and status == self._status and self._lines is not None:
            return False
        self._image = image
        wide, high = self.needed()
        small = columns < wide or rows < high
        new = self.too_small(columns, rows) if small else self.lines(image, status)
        old = self._lines
        out = []
        if old is None or len(old) != len(new):
            if old is not None:
                out.append(f"\x1b[{len(old)}F\x1b[J")  # the old block goes whole
            out.extend(line + "\n" for line in new)
        else:
            # Cursor sits at the start of the line below the block: go to its top, then
            # walk down, rewriting changed lines and skipping the rest (CSI E = next line).
            out.append(f"\x1b[{len(old)}F")
            for before, after in zip(old, new, strict=True):
                if before != after:
                    out.append("\r\x1b[2K" + after)
                out.append("\x1b[1E")
        self.stream.write("".join(out))
        self.stream.flush()
        self._lines, self._last, self._status = new, key, status
        return True

    def redraw(self) -> None:
        """The terminal changed size: clear it and draw the last frame again, whole."""
        if self._image is None:
            return
        self.stream.write("\x1b[H\x1b[2J")
        self._lines = self._last = None
        self.draw(self._image, self._status)

    def print_above(self, text: str) -> None:
        """Print a line of text above the drawn block (an event log line), and the block
        again under it: the line scrolls up with the terminal's history, the live
        screen stays at the bottom."""
        lines = self._lines
        out = []
        if lines is not None:
            out.append(f"\x1b[{len(lines)}F\x1b[J")  # to the block's top; clear below
        out.append(text + "\n")
        if lines is not None:
            out.extend(line + "\n" for line in lines)
        self.stream.write("".join(out))
        self.stream.flush()

    def close(self) -> None:
        """Finish: the cursor already sits below the block, so the shell prompt lands
        under the last frame; only flush what is buffered."""
        self.stream.flush()

class PngWriter:
    """Writes each new frame as ``frame-0001.png``, ``frame-0002.png``... scaled up
    (nearest neighbour, so pixels stay square) with lit pixels light blue on black,
    like a real OLED.

    >>> import tempfile
    >>> from PIL import Image
    >>> writer = PngWriter(tempfile.mkdtemp(), scale=2)
    >>> writer.write(Image.new("1", (128, 64))).name
    'frame-0001.png'
    >>> writer.write(Image.new("1", (128, 64))) is None  # same frame: nothing written
    True
    """

    LIT = (170, 220, 255)
    DARK = (0, 0, 0)

    def __init__(self, directory: str | os.PathLike[str], scale: int = 4):
        if scale < 1:
            raise ValueError(f"scale must be 1 or more, not {scale}")
        self.directory = Path(directory)
        self.scale = scale
        self.count = 0
        self._last: bytes | None = None
        # Made now, so a directory that cannot be written is said before anything runs.
        self._writing(lambda: self.directory.mkdir(parents=True, exist_ok=True))

    def write(self, image: Image.Image) -> Path | None:
        """Write the frame if it differs from the previous one; returns the file."""
        image = image.convert("1")
        data = image.tobytes() + repr(image.size).encode()
        if data == self._last:
            return None
        self._last = data
        picture = Image.new("RGB", image.size, self.DARK)
        picture.paste(self.LIT, mask=image)
        width, height = image.size
        picture = picture.resize(
            (width * self.scale, height * self.scale), Image.Resampling.NEAREST
        )
        self.count += 1
        path = self.directory / f"frame-{self.count:04d}.png"
        # Whole or not at all: a program reading the frames as they come (a test, a
        # viewer) never opens one half written.
        spare = self.directory / f".frame-{self.count:04d}.png.part"
        self._writing(lambda: (picture.save(spare, format="PNG"), os.replace(spare, path)))
        return path

    def _writing(self, step: Callable[[], object]) -> None:
        """Run a file step; a failure is one CompanionError naming the directory."""
        try:
            step()
        except OSError as err:
            raise CompanionError(_("cannot write PNGs in {path}: {problem}").format(
                path=self.directory, problem=err.strerror or err)) from None


Key = Press | Literal["quit"]

#: Byte sequences -> what they mean. Arrow keys come as CSI (``ESC [ A``) or, with the
#: terminal in application cursor mode, SS3 (``ESC O A``).
KEYMAP: dict[bytes, Key] = {
    b"\x1b[A": Press("up"),
    b"\x1bOA": Press("up"),
    b"\x1b[B": Press("down"),
    b"\x1bOB": Press("down"),
    b"\x1b[1;2A": Press("up", long=True),
    b"\x1b[1;2B": Press("down", long=True),
    b"\r": Press("ok"),
    b"\n": Press("ok"),
    b"\r\n": Press("ok"),
    b"\x7f": Press("back"),
    b"\x08": Press("back"),
    b"\x1b": Press("back"),
    b" ": Press("roll"),
    b"u": Press("up"),
    b"d": Press("down"),
    b"o": Press("ok"),
    b"b": Press("back"),
    b"r": Press("roll"),
    b"U": Press("up", long=True),
    b"D": Press("down", long=True),
    b"O": Press("ok", long=True),
    b"B": Press("back", long=True),
    b"R": Press("roll", long=True),
    b"q": "quit",
    b"\x03": "quit",  # Ctrl-C and Ctrl-D arrive as bytes in raw mode
    b"\x04": "quit",
}


class KeyReader:
    """Decodes key bytes into presses (and ``"quit"``); pure, so tests feed it bytes.

    Escape sequences split across chunks are completed by the next chunk. The one
    ambiguous boundary is right after ESC: a lone ESC at the end of a chunk is the Esc
    key (back) at once, because a person pressing Esc must not wait for more bytes.
    Terminals write a key's whole sequence at once, so that split is rare; if the next
    chunk then starts with the rest of a sequence (``[A``, ``[1;2B``, ``OA``), that rest
    is dropped rather than read as keys (``[1;2B`` would end in ``B``, a long BACK).
    A chunk that is just ``O`` is the O key. Unknown keys and sequences are ignored.

    >>> reader = KeyReader()
    >>> reader.feed(b"\\x1b[1;"), reader.feed(b"2Bx\\r")
    ([], [Press(button='down', long=True), Press(button='ok', long=False)])
    >>> reader.feed(b"\\x1b"), reader.feed(b"[A")
    ([Press(button='back', long=False)], [])
    """

    def __init__(self, keymap: dict[bytes, Key] | None = None):
        self.keymap = KEYMAP if keymap is None else keymap
        self._pending = b""
        self._after_lone_esc = False
        self._after_cr = False

    def feed(self, data: bytes) -> list[Key]:
        """Decode a chunk of bytes read from the terminal."""
        buf = self._pending + data
        self._pending = b""
        out: list[Key] = []
        if self._after_lone_esc and buf[:1] == b"[":
            end = _sequence_end(b"\x1b" + buf)
            if end is None:  # still incomplete: wait for it, then drop it
                self._pending = buf
                return out
            buf = buf[end - 1 :]
        elif self._after_lone_esc and buf[:1] == b"O" and buf[1:2] and buf[1] in _SS3_FINALS:
            # "O" alone is the O key; "O" plus a cursor-key final is an SS3 tail
            buf = buf[2:]
        self._after_lone_esc = False
        if self._after_cr and buf[:1] == b"\n":
            buf = buf[1:]  # the LF of a CRLF split across chunks: the same Enter
        self._after_cr = buf[-1:] == b"\r"
        i = 0
        while i < len(buf):
            if buf[i] == 0x1B:
                rest = buf[i:]
                if len(rest) == 1:  # lone ESC at the end of the chunk: the Esc key
                    out.append(self.keymap.get(b"\x1b", Press("back")))
                    self._after_lone_esc = True
                    i += 1
                    continue
                end = _sequence_end(rest)
                if end is None:  # an incomplete sequence: finish it with the next chunk
                    self._pending = rest
                    break
                token = rest[:end]
            elif buf[i : i + 2] == b"\r\n":
                token = b"\r\n"  # one Enter, whatever the terminal's line ending
            else:
                token = buf[i : i + 1]
            key = self.keymap.get(token)
            if key is not None:
                out.append(key)
            i += len(token)
        return out


# Final bytes of the SS3 sequences terminals send for cursor and function keys.
_SS3_FINALS = b"ABCDFHPQRS"


def _sequence_end(seq: bytes) -> int | None:
    """Length of the escape sequence at the start of ``seq`` (which starts with ESC),
    or None if it is incomplete."""
    if len(seq) < 2:
        return None
    kind = seq[1]
    if kind == 0x1B:  # ESC ESC: the first is an Esc key on its own
        return 1
    if kind == ord("O"):  # SS3: one final character
        return 3 if len(seq) >= 3 else None
    if kind != ord("["):
        return 2  # Alt+key: ESC and the key together, ignored as unknown
    # CSI: parameter bytes 0x30-0x3F, intermediates 0x20-0x2F, final byte 0x40-0x7E.
    for j in range(2, len(seq)):
        if 0x40 <= seq[j] <= 0x7E:
            return j + 1
        if not 0x20 <= seq[j] <= 0x3F:
            return j  # malformed: end it before the odd byte
    return None


@contextmanager
def raw_terminal(fd: int, raw: bool = False) -> Iterator[None]:
    """Put the terminal on ``fd`` in cbreak mode (``raw=True``: raw mode) and restore
    its settings on exit, even after an exception. Not a terminal: does nothing.
    Input already typed is kept.

    cbreak is the default because it keeps Ctrl-C working as a signal; it also keeps
    ICRNL, so Enter arrives as ``\\n`` (both ``\\r`` and ``\\n`` mean OK).
    """
    if not os.isatty(fd):
        yield
        return
    saved = termios.tcgetattr(fd)
    try:
        # TCSANOW, not tty's default TCSAFLUSH: keys typed while the program started
        # are kept and played, not thrown away.
        if raw:
            tty.setraw(fd, termios.TCSANOW)
        else:
            tty.setcbreak(fd, termios.TCSANOW)
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)
