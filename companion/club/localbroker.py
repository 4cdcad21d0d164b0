"""A throwaway Mosquitto on a free loopback port (the club tests and ``bench --club``).

:class:`LocalBroker` writes a config into a directory of its own (persistence on and
saved every second, so a ``kill -9`` loses at most the last second, as on a real Pi),
starts ``mosquitto -c`` and waits until the port answers. ``kill()`` (SIGKILL),
``stop()`` (SIGTERM) and ``start()`` again on the same port are the fault helpers.
Not for a real club: ``deploy/club/`` has the broker config for that.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from companion.errors import CompanionError
from companion.remote.web.server import free_port

WAIT = 30.0  # generous: a busy machine may be slow; never a failure by itself


def mosquitto_binary() -> str | None:
    """Where ``mosquitto`` is (Debian puts it in /usr/sbin, often not on a user's PATH)."""
    return shutil.which("mosquitto") or next(
        (p for p in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto") if os.path.exists(p)),
        None)


def wait_for(condition: Callable[[], object], timeout: float = WAIT, what: str = "") -> None:
    """Wait until ``condition()`` is true (checked every 20 ms); AssertionError after
    ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        time.sleep(0.02)


class LocalBroker:
    """One mosquitto process in ``directory`` (see the module docstring); ``extra`` is
    appended to its config (TLS, passwords, ACL)."""

    def __init__(self, directory: str | Path, *, extra: str = "", port: int | None = None):
        binary = mosquitto_binary()
        if binary is None:
            raise CompanionError("mosquitto is not installed (apt-get install mosquitto)")
        self.binary = binary
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.extra = extra
        self.process: subprocess.Popen[bytes] | None = None
        self.log = self.directory / "mosquitto.log"

    @property
    def url(self) -> str:
        return f"mqtt://127.0.0.1:{self.port}"

    def config_text(self) -> str:
        lines = [
            f"listener {self.port} 127.0.0.1",
            "allow_anonymous true" if "password_file" not in self.extra else "",
            "persistence true",
            f"persistence_location {self.directory}/",
            "autosave_interval 1",
            "max_queued_messages 100000",
            f"log_dest file {self.log}",
            "log_type error",
            "log_type warning",
            "log_type notice",
        ]
        if os.geteuid() == 0:
            lines.append("user root")  # else mosquitto drops to a user that cannot write here
        return "\n".join(line for line in lines if line) + "\n" + self.extra

    def start(self) -> LocalBroker:
        conf = self.directory / "mosquitto.conf"
        conf.write_text(self.config_text())
        self.process = subprocess.Popen([self.binary, "-c", str(conf)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        wait_for(self._answers, what=f"mosquitto on port {self.port}")
        return self

    def _answers(self) -> bool:
        assert self.process is not None
        if self.process.poll() is not None:
            err = self.process.stderr.read().decode() if self.process.stderr else ""
            logged = self.log.read_text() if self.log.exists() else ""
            raise CompanionError(f"mosquitto exited: {err.strip()} {logged.strip()}")
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                return True
        except OSError:
            return False

    def kill(self) -> None:
        """SIGKILL: the broker dies as in a power cut."""
        self._end(signal.SIGKILL)

    def stop(self) -> None:
        """SIGTERM: a clean stop (it saves its persistence file)."""
        self._end(signal.SIGTERM)

    def _end(self, sig: int) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(sig)
            self.process.wait(WAIT)
        if self.process is not None and self.process.stderr:
            self.process.stderr.close()
        self.process = None

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
