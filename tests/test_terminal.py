"""The simulator's screen (braille, text, terminal box, PNG frames) and keyboard."""

from __future__ import annotations

import doctest
import io
import os
import pty
import re
import signal
import termios
import threading
import tty

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image, ImageDraw

from companion.clock import ManualClock
from companion.config import Buttons, Config
from companion.device import terminal as terminal_module
from companion.device.buttons import BUTTONS, Press
from companion.device.terminal import (
    KEYMAP,
    LEGEND,
    NEEDED,
    KeyReader,
    PngWriter,
    TerminalScreen,
    raw_terminal,
    to_braille,
    to_text,
)
from companion.sim import redrawn_on_resize, run_interactive
from tests.press_log import PressLog

SIZE = (128, 64)


def test_doctests() -> None:
    assert doctest.testmod(terminal_module).failed == 0


# --- braille and text --------------------------------------------------------------


def test_braille_dot_order_of_one_cell() -> None:
    # (x, y) within a 2x4 cell -> the Unicode braille dot bit
    expected = {
        (0, 0): 0x01,
        (0, 1): 0x02,
        (0, 2): 0x04,
        (1, 0): 0x08,
        (1, 1): 0x10,
        (1, 2): 0x20,
        (0, 3): 0x40,
        (1, 3): 0x80,
    }
    for (x, y), bit in expected.items():
        img = Image.new("1", (2, 4))
        img.putpixel((x, y), 1)
        assert to_braille(img) == [chr(0x2800 + bit)], (x, y)
    assert to_braille(Image.new("1", (2, 4), 1)) == ["\u28ff"]
    assert to_braille(Image.new("1", (2, 4))) == ["\u2800"]


def test_braille_of_a_frame_is_16_by_64() -> None:
    img = Image.new("1", SIZE)
    img.putpixel((0, 0), 1)  # top-left cell, dot 1
    img.putpixel((127, 63), 1)  # bottom-right cell, dot 8
    img.putpixel((10, 21), 1)  # cell (5, 5), left column, row 1: dot 2
    lines = to_braille(img)
    assert len(lines) == 16 and all(len(line) == 64 for line in lines)
    assert lines[0][0] == "\u2801"
    assert lines[15][63] == "\u2880"
    assert lines[5][5] == "\u2802"
    lit = sum(1 for line in lines for ch in line if ch != "\u2800")
    assert lit == 3


def test_braille_pads_partial_cells() -> None:
    img = Image.new("1", (3, 5), 1)
    assert to_braille(img) == ["\u28ff\u2847", "\u2809\u2801"]


def test_text_of_a_known_image() -> None:
    img = Image.new("1", SIZE)
    ImageDraw.Draw(img).rectangle((2, 1, 4, 2), fill=1)
    lines = to_text(img)
    assert len(lines) == 64 and all(len(line) == 128 for line in lines)
    assert lines[0] == "." * 128
    assert lines[1] == ".." + "###" + "." * 123
    assert lines[2] == lines[1]
    assert lines[3] == "." * 128


def test_text_accepts_other_modes() -> None:
    img = Image.new("L", (2, 1))
    img.putpixel((1, 0), 255)
    assert to_text(img) == [".#"]


@given(st.binary(min_size=1024, max_size=1024))
def test_braille_and_text_agree(data: bytes) -> None:
    img = Image.frombytes("1", SIZE, data)
    text = to_text(img)
    braille = to_braille(img)
    for row in range(16):
        for col in range(64):
            code = ord(braille[row][col]) - 0x2800
            for dy, bits in enumerate(((0x01, 0x08), (0x02, 0x10), (0x04, 0x20), (0x40, 0x80))):
                for dx, bit in enumerate(bits):
                    assert bool(code & bit) == (text[row * 4 + dy][col * 2 + dx] == "#")


# --- terminal screen ---------------------------------------------------------------


def frame(n: int) -> Image.Image:
    img = Image.new("1", SIZE)
    ImageDraw.Draw(img).text((10, 10), f"score {n}", fill=1)
    return img


def visible_lines(raw: str) -> list[str]:
    return raw.splitlines()


def test_screen_fits_80x24_and_shows_box_and_legend() -> None:
    out = io.StringIO()
    screen = TerminalScreen(out)
    assert screen.draw(frame(1), status="Ann's turn")
    lines = visible_lines(out.getvalue())
    assert len(lines) <= 24
    assert all(len(line) <= 80 for line in lines)
    assert lines[0] == "┌" + "─" * 64 + "┐"
    assert lines[1:17] == ["│" + line + "│" for line in to_braille(frame(1))]
    assert lines[17] == "└" + "─" * 64 + "┘"
    assert lines[18] == "Ann's turn"
    assert lines[19:] == LEGEND.splitlines()


def test_screen_redraws_in_place_only_changed_lines() -> None:
    out = io.StringIO()
    screen = TerminalScreen(out)
    screen.draw(frame(1))
    first = screen.lines(frame(1))
    out.seek(0)
    out.truncate()
    assert screen.draw(frame(1)) is False
    assert out.getvalue() == ""
    assert screen.draw(frame(2)) is True
    update = out.getvalue()
    assert update.startswith(f"\x1b[{len(first)}F")  # back to the top of the block
    assert "\n" not in update  # nothing scrolls
    changed = [
        a for a, b in zip(screen.lines(frame(1)), screen.lines(frame(2)), strict=True) if a != b
    ]
    assert 0 < len(changed) < 16
    assert update.count("\x1b[2K") == len(changed)
    assert update.count("\x1b[1E") == len(first)  # the cursor ends below the block


def test_screen_close_leaves_the_last_frame() -> None:
    out = io.StringIO()
    screen = TerminalScreen(out)
    screen.draw(frame(1))
    before = out.getvalue()
    screen.close()
    assert out.getvalue() == before


def test_screen_redraws_for_a_new_status() -> None:
    out = io.StringIO()
    screen = TerminalScreen(out)
    screen.draw(frame(1))
    assert screen.draw(frame(1), status="beep") is True
    assert "beep" in out.getvalue()


def test_screen_replays_to_the_last_frame() -> None:
    # a tiny ANSI interpreter: applying the output must leave exactly the last block
    out = io.StringIO()
    screen = TerminalScreen(out)
    for n in (1, 2, 2, 3):
        screen.draw(frame(n))
    assert render_ansi(out.getvalue()) == screen.lines(frame(3))


def render_ansi(raw: str) -> list[str]:
    lines: list[str] = [""]
    row = 0
    for token in re.findall(r"\x1b\[(\d*)([FEK])|(\r)|(\n)|([^\x1b\r\n]+)", raw):
        count, op, cr, lf, text = token
        if op == "F":
            row -= int(count or 1)
        elif op == "E":
            row += int(count or 1)
        elif op == "K":
            lines[row] = ""
        elif lf:
            row += 1
        elif text:
            lines[row] += text
        while len(lines) <= row:
            lines.append("")
    return [line for line in lines[:-1]] if lines[-1] == "" else lines


# --- PNG frames --------------------------------------------------------------------


def test_png_writer_writes_distinct_frames(tmp_path) -> None:
    writer = PngWriter(tmp_path / "frames", scale=3)
    img = Image.new("1", SIZE)
    img.putpixel((1, 2), 1)
    first = writer.write(img)
    assert first == tmp_path / "frames" / "frame-0001.png"
    assert writer.write(img.copy()) is None
    second = writer.write(frame(2))
    assert second.name == "frame-0002.png"
    assert writer.write(img).name == "frame-0003.png"  # distinct from the previous one
    with Image.open(first) as png:
        assert png.size == (384, 192)
        rgb = png.convert("RGB")
        assert rgb.getpixel((3, 6)) == PngWriter.LIT  # the lit pixel, scaled
        assert rgb.getpixel((5, 8)) == PngWriter.LIT
        assert rgb.getpixel((6, 6)) == (0, 0, 0)
        assert rgb.getpixel((0, 0)) == (0, 0, 0)


def test_png_writer_refuses_bad_scale(tmp_path) -> None:
    with pytest.raises(ValueError):
        PngWriter(tmp_path, scale=0)


# --- keys --------------------------------------------------------------------------


def test_keymap_covers_every_button_short_and_long() -> None:
    values = set(KEYMAP.values())
    for button in BUTTONS:
        assert Press(button) in values
        assert Press(button, long=True) in values
    assert "quit" in values


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (b"\x1b[A", [Press("up")]),
        (b"\x1b[B", [Press("down")]),
        (b"\x1bOA\x1bOB", [Press("up"), Press("down")]),
        (b"\x1b[1;2A", [Press("up", long=True)]),
        (b"\x1b[1;2B", [Press("down", long=True)]),
        (b"\r", [Press("ok")]),
        (b"\n", [Press("ok")]),
        (b"\r\n", [Press("ok")]),
        (b"\r\r\n\n", [Press("ok"), Press("ok"), Press("ok")]),
        (b"\x7f", [Press("back")]),
        (b"\x08", [Press("back")]),
        (b"\x1b", [Press("back")]),
        (b"\x1b\x1b", [Press("back"), Press("back")]),
        (b" ", [Press("roll")]),
        (b"udobr", [Press(b) for b in BUTTONS]),
        (b"UDOBR", [Press(b, long=True) for b in BUTTONS]),
        (b"q", ["quit"]),
        (b"\x03", ["quit"]),
        (b"xyz\x1b[C\x1b[15~\x1bx\xc3\xa9", []),  # unknown keys, right arrow, F5, Alt+x, é
        (b"\x1b[Cu", [Press("up")]),
    ],
)
def test_key_decoding(data: bytes, expected: list) -> None:
    assert KeyReader().feed(data) == expected


@pytest.mark.parametrize("seq", [b"\x1b[A", b"\x1b[1;2B", b"\x1bOB", b"\x1b[15~"])
def test_sequences_split_after_the_bracket_are_completed(seq: bytes) -> None:
    whole = KeyReader().feed(seq + b"u")
    for cut in range(2, len(seq)):
        reader = KeyReader()
        assert reader.feed(seq[:cut]) == []
        assert reader.feed(seq[cut:] + b"u") == whole


def test_sequence_split_over_three_chunks() -> None:
    reader = KeyReader()
    assert reader.feed(b" \x1b[") == [Press("roll")]
    assert reader.feed(b"1;") == []
    assert reader.feed(b"2A\r") == [Press("up", long=True), Press("ok")]


@pytest.mark.parametrize("tail", [b"[A", b"[1;2B", b"OA"])
def test_lone_esc_at_chunk_end_is_back_and_a_late_tail_is_dropped(tail: bytes) -> None:
    reader = KeyReader()
    assert reader.feed(b"\x1b") == [Press("back")]
    # not misread as '[', '1', ';', '2', 'B' (= long BACK)
    assert reader.feed(tail + b"r") == [Press("roll")]


def test_late_tail_may_itself_be_split() -> None:
    reader = KeyReader()
    assert reader.feed(b"\x1b") == [Press("back")]
    assert reader.feed(b"[1") == []
    assert reader.feed(b";2Bd") == [Press("down")]


def test_lone_esc_then_an_ordinary_key() -> None:
    reader = KeyReader()
    assert reader.feed(b"\x1b") == [Press("back")]
    assert reader.feed(b"O") == [Press("ok", long=True)]  # the O key, not an SS3 tail
    assert reader.feed(b"\x1b") == [Press("back")]
    assert reader.feed(b"Ou") == [Press("ok", long=True), Press("up")]
    assert reader.feed(b"o") == [Press("ok")]
    assert reader.feed(b"[") == []  # only right after the lone ESC is a tail dropped


@given(st.lists(st.sampled_from(sorted(KEYMAP)), max_size=20), st.data())
def test_any_chunking_of_key_sequences_decodes_the_same(keys: list[bytes], data) -> None:
    # keys as terminals send them; a lone ESC only ever ends a chunk (a real Esc press),
    # CR is never followed by LF from another key (that pair means one Enter)
    stream = b""
    chunks_at = []
    for key in keys:
        if key == b"\r" and stream.endswith(b"\r"):
            continue
        if key == b"\n" and stream.endswith(b"\r"):
            continue
        stream += key
        if key == b"\x1b":
            chunks_at.append(len(stream))
    expected = []
    reader = KeyReader()
    start = 0
    for end in [*chunks_at, len(stream)]:
        expected += reader.feed(stream[start:end])
        start = end
    # now cut the same stream at extra random places, except right after an ESC (that
    # boundary is the Esc key) or one byte after an Esc key ("O" alone is the O key)
    cuts = set(chunks_at)
    for cut in data.draw(st.lists(st.integers(1, max(1, len(stream) - 1)), max_size=5)):
        if stream[cut - 1 : cut] != b"\x1b" and cut - 1 not in chunks_at:
            cuts.add(cut)
    reader = KeyReader()
    got = []
    start = 0
    for end in [*sorted(cuts), len(stream)]:
        if end > start:
            got += reader.feed(stream[start:end])
            start = end
    assert got == expected


def test_raw_terminal_sets_and_restores_modes() -> None:
    leader, follower = pty.openpty()
    try:
        before = termios.tcgetattr(follower)
        with raw_terminal(follower):
            inside = termios.tcgetattr(follower)
            assert not inside[3] & termios.ICANON and not inside[3] & termios.ECHO
            assert inside[3] & termios.ISIG  # cbreak: Ctrl-C still interrupts
        assert termios.tcgetattr(follower) == before
        with pytest.raises(RuntimeError):
            with raw_terminal(follower, raw=True):
                assert not termios.tcgetattr(follower)[3] & termios.ISIG
                raise RuntimeError("restored even after an error")
        assert termios.tcgetattr(follower) == before
    finally:
        os.close(leader)
        os.close(follower)


def test_raw_terminal_on_a_pipe_does_nothing() -> None:
    read_end, write_end = os.pipe()
    try:
        with raw_terminal(read_end):
            pass
    finally:
        os.close(read_end)
        os.close(write_end)


# --- keys typed into the simulator: whole presses, in order ---------------------------


def typed_into_the_simulator(data: bytes, config: Config | None = None) -> list[Press]:
    """Everything in ``data`` typed at once (before the simulator reads a byte), ending
    with ``q``; the presses the app received. The presses are played through the mock
    pins and the decoder on a manual clock, so nothing here depends on machine speed."""
    log = PressLog()
    leader, follower = pty.openpty()
    try:
        tty.setraw(follower)  # as typed: no line editing, no echo
        os.write(leader, data + b"q")
        clock = ManualClock()
        with os.fdopen(follower, "r", closefd=False) as stdin:
            status = run_interactive(config or Config(), root=lambda ctx: log, stdin=stdin,
                                     out=io.StringIO(), clock=clock, wait=clock.advance)
        assert status == 0
    finally:
        os.close(leader)
        os.close(follower)
    return log.presses


def test_ten_downs_typed_at_once_are_ten_presses() -> None:
    assert typed_into_the_simulator(b"\x1b[B" * 10) == [Press("down")] * 10


def test_a_long_press_then_the_same_key_at_once_stays_two_presses() -> None:
    # "Cy", hold OK, Enter: the hold is a long OK and the Enter a short one after it
    assert typed_into_the_simulator(b"O\rO\r") == [
        Press("ok", long=True), Press("ok"), Press("ok", long=True), Press("ok")]


def test_many_arrows_at_once_are_not_cut_after_an_escape() -> None:
    # 100 arrows are 300 bytes: read in chunks, an ESC may end one; it is no Esc key
    assert typed_into_the_simulator(b"\x1b[A" * 100) == [Press("up")] * 100


def test_presses_longer_than_a_wide_bounce_window_still_all_count() -> None:
    config = Config(buttons=Buttons(bounce_time=0.3, hold_time=0.5))
    assert typed_into_the_simulator(b"uuUu", config) == [
        Press("up"), Press("up"), Press("up", long=True), Press("up")]


# Keys without the lone-ESC ambiguity (an Esc typed before another key reads as Alt+key)
# and without quit: whatever mix, all at once, the presses are the keys, in order.
PRESS_KEYS = sorted(key for key, meaning in KEYMAP.items()
                    if meaning != "quit" and key != b"\x1b")


@settings(max_examples=25, deadline=None)
@given(st.lists(st.sampled_from(PRESS_KEYS), max_size=40))
def test_any_keys_typed_at_once_are_the_same_presses_in_order(keys) -> None:
    data = b"".join(keys)
    assert typed_into_the_simulator(data) == KeyReader().feed(data)


# --- a terminal too small -----------------------------------------------------------


@pytest.mark.parametrize(("columns", "rows"), [(40, 15), (65, 30), (120, 12), (8, 3)])
def test_a_terminal_too_small_is_told_so_not_drawn_cut(columns, rows) -> None:
    out = io.StringIO()
    screen = TerminalScreen(out, size=lambda: (columns, rows))
    assert screen.draw(frame(1))
    shown = visible_lines(out.getvalue())
    assert len(shown) < rows and all(len(line) < columns for line in shown)
    assert not any("┌" in line or "│" in line for line in shown)  # no piece of the box
    if columns >= 40 and rows >= 5:
        text = " ".join(shown)
        assert f"at least {NEEDED[0]}x{NEEDED[1]}" in text and f"{columns}x{rows}" in text


def test_made_larger_the_screen_comes_back_whole() -> None:
    out = io.StringIO()
    size = [(40, 15)]
    screen = TerminalScreen(out, size=lambda: size[0])
    screen.draw(frame(1), status="Ann's turn")
    size[0] = (80, 24)
    out.seek(0)
    out.truncate()
    screen.redraw()
    drawn = out.getvalue()
    assert drawn.startswith("\x1b[H\x1b[2J")  # cleared, then drawn whole
    assert render_ansi(drawn.removeprefix("\x1b[H\x1b[2J")) == screen.lines(frame(1),
                                                                             "Ann's turn")
    # The next frame at the same size is drawn in place again.
    out.seek(0)
    out.truncate()
    assert screen.draw(frame(2), status="Ann's turn") and "\n" not in out.getvalue()


def test_the_standard_terminal_is_large_enough() -> None:
    assert NEEDED[0] <= 80 and NEEDED[1] <= 24


def test_a_resize_signal_queues_a_redraw_for_the_owner_thread() -> None:
    posted = threading.Event()
    calls = []

    class App:
        def post(self, *item):
            calls.append(item)
            posted.set()

    before = signal.getsignal(signal.SIGWINCH)
    with redrawn_on_resize(App(), TerminalScreen(io.StringIO())):
        assert signal.getsignal(signal.SIGWINCH) is not before
        os.kill(os.getpid(), signal.SIGWINCH)
        assert posted.wait(10)
    assert calls[0][0] == "call" and callable(calls[0][1])
    assert signal.getsignal(signal.SIGWINCH) is before
