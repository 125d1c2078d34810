"""A TCP connection to a game server, as both bridges use it: bytes buffered and read
against a deadline, and every message kept in an optional transcript (("S" | "C", text)
pairs, replayable offline).  The framing (Pioneers' lines, JSettlers' writeUTF) is the
subclass's."""
import select
import socket
import time
from typing import List, Optional, Tuple


class ServerSocket:
    """The socket, its receive buffer and the transcript; ``_receive`` waits for bytes."""

    def __init__(self, host: str, port: int, timeout: float = 60.0,
                 transcript: Optional[List[Tuple[str, str]]] = None) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout = timeout
        self.buf = b""
        self.transcript = transcript  # receives ("S" | "C", text)

    def _deadline(self, timeout: Optional[float]) -> float:
        return time.monotonic() + (self.timeout if timeout is None else timeout)

    def _receive(self, deadline: float) -> bool:
        """Append the bytes that arrive before deadline to the buffer; False when none did
        (a deadline already past polls once).  A closed connection raises ConnectionError."""
        if hasattr(socket, "TCP_QUICKACK"):  # acknowledge at once: the server waits on us
            try:
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            except OSError:  # not a TCP socket (a test's socket pair)
                pass
        ready, _, _ = select.select([self.sock], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            return False
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buf += chunk
        return True

    def _record(self, direction: str, text: str) -> None:
        if self.transcript is not None:
            self.transcript.append((direction, text))

    def close(self) -> None:
        try:  # (shutdown first: a thread blocked reading this socket wakes up)
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self.sock.close()
        except OSError:
            pass
