"""A TCP proxy between a bot process and the gateway whose connections a test can cut
(a network drop as the bot and the gateway see it: the stream breaks, nothing closes
it politely)."""

from __future__ import annotations

import socket
import threading


class DropProxy:
    """Listens on 127.0.0.1 (``target`` for the bot) and forwards to ``upstream``.

    :meth:`drop` closes every open connection (both sides) at once; new connections
    are accepted as before, so a reconnecting bot gets through.
    """

    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.connections = 0
        self._open: list[socket.socket] = []
        self._lock = threading.Lock()
        self._closed = False
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def target(self) -> str:
        return f"127.0.0.1:{self.port}"

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(("127.0.0.1", self.upstream_port), timeout=5)
            except OSError:
                client.close()
                continue
            server.settimeout(None)
            with self._lock:
                self.connections += 1
                self._open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def drop(self) -> int:
        """Cut every open connection; returns how many sockets were cut."""
        with self._lock:
            cut, self._open = self._open, []
        for s in cut:
            try:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()
        return len(cut)

    def close(self) -> None:
        self._closed = True
        self.listener.close()
        self.drop()
