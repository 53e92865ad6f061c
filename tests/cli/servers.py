"""Services that fail, for the fault tests: one that hangs up on every connection, and a Redis that answers
the first PING and then goes away (a server lost in the middle of a command). Threads of the test process,
on ports of their own; each stops when its ``with`` block ends."""

from __future__ import annotations

import socket
import threading
from types import TracebackType


class _Server:
    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.port: int = self.sock.getsockname()[1]
        self._stop = False
        self._thread = threading.Thread(target=self._accept, daemon=True)

    def __enter__(self) -> _Server:
        self._thread.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self._stop = True
        self.sock.close()
        self._thread.join(timeout=5)

    def _accept(self) -> None:
        while not self._stop:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self.serve, args=(conn,), daemon=True).start()

    def serve(self, conn: socket.socket) -> None:
        conn.close()


class HangsUp(_Server):
    """Accepts a connection and closes it at once: a service that is there, then gone."""


class LosesRedis(_Server):
    """Speaks enough RESP for redis-py's handshake, answers the first PING (a command reaches Redis), then
    closes every connection at its next command (Redis went away): ``lost Redis at URL: ...``."""

    def __init__(self) -> None:
        super().__init__()
        self.pinged = threading.Event()

    def serve(self, conn: socket.socket) -> None:
        buffer = b""
        try:
            while True:
                data = conn.recv(65536)
                if not data:
                    return
                buffer += data
                while True:
                    command, buffer = _command(buffer)
                    if command is None:
                        break
                    name = command[0].upper() if command else b""
                    if name == b"PING" and not self.pinged.is_set():
                        self.pinged.set()
                        conn.sendall(b"+PONG\r\n")
                    elif name == b"HELLO":
                        conn.sendall(_hello(command))
                    elif name in (b"CLIENT", b"SELECT", b"AUTH") or not self.pinged.is_set():
                        conn.sendall(b"+OK\r\n")
                    else:
                        return  # gone
        except OSError:
            return
        finally:
            conn.close()


def _hello(command: list[bytes]) -> bytes:
    """A real Redis 7's answer to ``HELLO [protover]``: the server's facts as a RESP3 map when asked for
    protocol 3 (redis-py >= 8 asks for it by default), as a flat RESP2 array otherwise."""
    facts = [
        (b"server", b"redis"),
        (b"version", b"7.2.0"),
        (b"proto", 3 if command[1:2] == [b"3"] else 2),
        (b"id", 1),
        (b"mode", b"standalone"),
        (b"role", b"master"),
    ]

    def value(item: bytes | int) -> bytes:
        if isinstance(item, int):
            return b":%d\r\n" % item
        return b"$%d\r\n%s\r\n" % (len(item), item)

    body = b"".join(value(key) + value(item) for key, item in facts) + b"$7\r\nmodules\r\n*0\r\n"
    if command[1:2] == [b"3"]:
        return b"%%%d\r\n" % (len(facts) + 1) + body
    return b"*%d\r\n" % (2 * (len(facts) + 1)) + body


def _command(buffer: bytes) -> tuple[list[bytes] | None, bytes]:
    """One RESP command (an array of bulk strings) from the front of ``buffer``, and the rest."""
    if not buffer.startswith(b"*") or b"\r\n" not in buffer:
        return None, buffer
    head, rest = buffer.split(b"\r\n", 1)
    parts: list[bytes] = []
    for _ in range(int(head[1:])):
        if b"\r\n" not in rest:
            return None, buffer
        size_line, rest = rest.split(b"\r\n", 1)
        size = int(size_line[1:])
        if len(rest) < size + 2:
            return None, buffer
        parts.append(rest[:size])
        rest = rest[size + 2 :]
    return parts, rest


def closed_port() -> int:
    """A port nothing listens on (connections are refused)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
    return port
