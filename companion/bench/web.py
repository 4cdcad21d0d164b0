"""The table page's benchmarks for ``companion bench`` (their targets: docs/design.md,
in numbers :mod:`companion.bench.targets`):

- ``press_to_dom``: a ROLL press on the mock pins until the browser's DOM shows the new
  view (median, p95; target <= 50 ms), in the system Chromium through Playwright;
  skipped, with the reason, when either is missing;
- ``idle_cpu_percent``: this process's CPU while one page's stream is open and nobody
  presses anything (target < 0.5 % of a core: no polling, only a keepalive comment);
- ``rss_added_mb``: resident memory the page adds to a running device once it has
  served a page and a stream (target <= 25 MB), measured in a fresh interpreter;
- ``page_kb``: the table view with its CSS, JS and icon (target <= 150 KB);
- ``press_to_frame_loaded``: a ROLL press on the mock pins until the app hands the new
  frame to the panel, while 50 clients load the table page over and over (median,
  p95), beside the same without them (``press_to_frame_quiet``): the readers share
  snapshots, so the buttons stay as fast as with nobody watching.

The press time excludes the debounce window (the buttons here have no bounce), like
``press_to_frame``; both clocks are this machine's wall clock.
"""

from __future__ import annotations

import http.client
import json
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from companion.remote.web.server import free_port

#: Page loads kept going at once for ``press_to_frame_loaded``.
READERS = 50
CHROMIUM = "/usr/bin/chromium"


class FrameClock:
    """When the app handed each frame to the panel (the app's ``on_frame``)."""

    def __init__(self) -> None:
        self.times: list[float] = []
        self.changed = threading.Condition()

    def __call__(self, image: Any) -> None:
        with self.changed:
            self.times.append(time.perf_counter())
            self.changed.notify_all()

    def after(self, seen: int, timeout: float = 30.0) -> float:
        """The time of frame number ``seen`` (waiting for it)."""
        with self.changed:
            if not self.changed.wait_for(lambda: len(self.times) > seen, timeout):
                raise RuntimeError("the device drew no frame")
            return self.times[seen]


@contextmanager
def bench_device(state_dir: Path, frames: FrameClock | None = None,
                 ) -> Iterator[tuple[Any, str]]:
    """A device on mock pins with a Final Count on its screen and its page on a free
    local port; (app, page url). ``frames`` hears of every frame."""
    from companion.clock import monotonic
    from companion.config import Buttons, Config, Idle
    from companion.device.board import SimBoard
    from companion.device.recording import recording_panel
    from companion.launch import make_app, web_page
    from companion.remote import commands

    config = Config(buttons=Buttons(bounce_time=0.0, hold_time=10.0), idle=Idle(0.0, 0.0, 0.0))
    app = make_app(config, board_factory=SimBoard, panel=recording_panel(), clock=monotonic,
                   seed=1, state_dir=state_dir, on_frame=frames)
    port = free_port()
    up = threading.Event()

    def run() -> None:
        with web_page(app, f"127.0.0.1:{port}"):
            up.set()
            app.run()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    up.wait(10)
    commands.call(app, commands.new_game, "final-count", ["Ann", "Bob", "Cy"], {})
    url = f"http://127.0.0.1:{port}"
    for _ in range(200):  # the server thread imports the web stack first
        try:
            urllib.request.urlopen(url + "/api/state", timeout=5).read()
            break
        except OSError:
            time.sleep(0.05)
    try:
        yield app, url
    finally:
        app.quit()
        thread.join(10)
        app.board.close()
        if app.ctx.store is not None:
            app.ctx.store.close()


def page_weight(url: str) -> float:
    """KiB of the table view: its HTML and every asset it links."""
    html = urllib.request.urlopen(url + "/", timeout=10).read()
    total = len(html)
    for asset in set(re.findall(rb'(?:href|src)="(/static/[^"]+)"', html)):
        total += len(urllib.request.urlopen(url + asset.decode(), timeout=10).read())
    return total / 1024


def press_to_dom(app: Any, url: str, presses: int) -> dict[str, Any]:
    """ROLL on the pins until the browser shows the view; then undo (not timed)."""
    from companion.remote import commands

    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return {"skipped": "playwright is not installed"}
    chromium = shutil.which("chromium") or CHROMIUM
    if not Path(chromium).exists():
        return {"skipped": "no Chromium (apt-get install chromium)"}
    times = []
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, headless=True)
        try:
            # Playwright's waits evaluate strings, which the page's CSP refuses.
            page = browser.new_context(bypass_csp=True).new_page()
            page.goto(url + "/")
            page.wait_for_function("window.companionViews.length > 0")
            for _ in range(presses):
                seen = page.evaluate("window.companionViews.length")
                start = time.time() * 1000
                app.board.press("roll")
                app.board.release("roll")
                page.wait_for_function(f"window.companionViews.length > {seen}")
                shown = page.evaluate(f"window.companionViews[{seen}]")
                times.append(shown - start)
                commands.call(app, commands.undo)
                page.wait_for_function(f"window.companionViews.length > {seen + 1}")
        finally:
            browser.close()
    times.sort()
    return {"press_to_dom_median_ms": statistics.median(times),
            "press_to_dom_p95_ms": times[min(len(times) - 1, int(len(times) * 0.95))]}


def press_to_frames(app: Any, frames: FrameClock, presses: int) -> list[float]:
    """ROLL, until the frame that shows it; then undo (not timed). Seconds, sorted."""
    from companion.remote import commands

    times = []
    for _ in range(presses):
        seen = len(frames.times)
        start = time.perf_counter()
        app.board.press("roll")
        app.board.release("roll")
        times.append(frames.after(seen) - start)
        commands.call(app, commands.undo)
    return sorted(times)


def press_to_frame_loaded(app: Any, frames: FrameClock, url: str, presses: int,
                          readers: int = READERS) -> dict[str, Any]:
    """Press-to-frame with nobody on the page, then with ``readers`` clients loading
    the table page without pause; and how many of those loads were refused."""
    quiet = press_to_frames(app, frames, presses)
    stop, loads, refused = threading.Event(), [0], [0]

    def reader() -> None:
        while not stop.is_set():
            try:
                with urllib.request.urlopen(url + "/", timeout=30) as reply:
                    reply.read()
                loads[0] += 1
            except OSError:
                refused[0] += 1

    threads = [threading.Thread(target=reader, daemon=True) for _ in range(readers)]
    for thread in threads:
        thread.start()
    while loads[0] < readers:  # every reader is going
        time.sleep(0.05)
    try:
        loaded = press_to_frames(app, frames, presses)
    finally:
        stop.set()
        for thread in threads:
            thread.join(30)

    def ms(times: list[float], share: float) -> float:
        return times[min(len(times) - 1, int(len(times) * share))] * 1000

    return {"press_to_frame_quiet_median_ms": ms(quiet, 0.5),
            "press_to_frame_loaded_median_ms": ms(loaded, 0.5),
            "press_to_frame_loaded_p95_ms": ms(loaded, 0.95),
            "page_loads_during": loads[0], "page_loads_refused": refused[0]}


def idle_with_stream(url: str, seconds: float) -> float:
    """Percent of a core this process uses while a page's stream is open."""
    host, port = url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30)
    conn.request("GET", "/api/stream")
    reply = conn.getresponse()
    reply.fp.readline()  # the stream is open
    time.sleep(0.3)
    cpu, wall = time.process_time(), time.perf_counter()
    time.sleep(seconds)
    used = (time.process_time() - cpu) / (time.perf_counter() - wall)
    conn.close()
    return used * 100


RSS_CODE = """
import json, tempfile, threading, urllib.request
from pathlib import Path
from companion.clock import monotonic
from companion.config import Config
from companion.device.board import SimBoard
from companion.device.recording import recording_panel
from companion.launch import make_app
from companion.remote.web.server import free_port


def rss():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1]) / 1024


app = make_app(Config(), board_factory=SimBoard, panel=recording_panel(), clock=monotonic,
               state_dir=Path(tempfile.mkdtemp()))
thread = threading.Thread(target=app.run, daemon=True)
thread.start()
from companion.remote import commands
commands.call(app, lambda app: None)
before = rss()
port = free_port()
server = commands.call(app, lambda app: __import__('companion.remote.web.server',
                       fromlist=['start']).start(app, f'127.0.0.1:{port}'))
server.ready.wait(30)
url = f'http://127.0.0.1:{port}'
urllib.request.urlopen(url + '/').read()
stream = urllib.request.urlopen(url + '/api/stream')
stream.readline()
after = rss()
print(json.dumps({'before': before, 'after': after}))
server.stop()
app.quit()
thread.join(5)
"""


def rss_added() -> float:
    done = subprocess.run([sys.executable, "-c", RSS_CODE], capture_output=True, text=True,
                          timeout=120)
    if done.returncode:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else "failed")
    numbers = json.loads(done.stdout.strip().splitlines()[-1])
    return numbers["after"] - numbers["before"]


def web_bench(quick: bool = False) -> dict[str, Any]:
    """Every web figure (see the module docstring)."""
    results: dict[str, Any] = {}
    frames = FrameClock()
    with tempfile.TemporaryDirectory() as folder, \
            bench_device(Path(folder), frames) as (app, url):
        results["page_kb"] = page_weight(url)
        results.update(press_to_frame_loaded(app, frames, url, 10 if quick else 50))
        results.update(press_to_dom(app, url, 10 if quick else 100))
        results["idle_cpu_percent"] = idle_with_stream(url, 1.0 if quick else 10.0)
    results["rss_added_mb"] = rss_added()
    return results
