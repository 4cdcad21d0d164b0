"""A TCP relay whose connections can be frozen: a Wi-Fi link that died without a reset
(the page's watchdog in tests/browser, a club table's MQTT link in tests/test_club*)."""

from __future__ import annotations

import socket
import threading


class QuietLink:
    """A TCP relay between the browser and the device. :meth:`go_quiet` freezes every
    connection open now: they stay open, but no byte passes any more (a Wi-Fi link
    that died without a reset). Connections made after it flow again."""

    def __init__(self, port: int):
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.links: list[dict] = []
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            server = socket.create_connection(("127.0.0.1", self.target))
            link = {"quiet": False, "sockets": (client, server)}
            with self.lock:
                self.links.append(link)
            for one, other in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(one, other, link), daemon=True).start()

    @staticmethod
    def _pump(source: socket.socket, sink: socket.socket, link: dict) -> None:
        while True:
            try:
                data = source.recv(65536)
            except OSError:
                return
            if not data:
                if not link["quiet"]:
                    try:
                        sink.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                return
            if link["quiet"]:
                continue  # swallowed: the connection stays open and says nothing
            try:
                sink.sendall(data)
            except OSError:
                return

    def stall(self) -> None:
        """Nothing gets through any more: the open connections go quiet and new ones
        are refused (the table's Wi-Fi is gone, not only one connection)."""
        self.go_quiet()
        try:  # wakes the accept() blocked in its thread (close alone would not)
            self.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.listener.close()

    def go_quiet(self) -> None:
        with self.lock:
            for link in self.links:
                link["quiet"] = True

    def close(self) -> None:
        self.listener.close()
        with self.lock:
            for link in self.links:
                for sock in link["sockets"]:
                    sock.close()
