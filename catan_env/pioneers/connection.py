"""Text lines over TCP with timeouts, as the Pioneers server speaks them."""
import select
import socket
import time
from typing import List, Optional, Protocol, Tuple


class Connection(Protocol):
    """What the client needs of its connection (a LineConnection, or a recorded session
    played back)."""

    def send(self, line: str) -> None:
        """Send one line to the server."""

    def read(self, timeout: Optional[float] = None) -> Optional[str]:
        """The next line from the server, or None after timeout seconds without one."""

    def close(self) -> None:
        """End the connection."""


class LineConnection:
    """Text lines over TCP with timeouts (LF only; ``hello`` answered)."""

    def __init__(self, host: str, port: int, timeout: float = 60.0,
                 transcript: Optional[List[Tuple[str, str]]] = None) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout = timeout
        self.buf = b""
        self.transcript = transcript  # list receiving ("S"|"C", line)

    def send(self, line: str) -> None:
        if self.transcript is not None:
            self.transcript.append(("C", line))
        self.sock.sendall((line + "\n").encode())

    def read(self, timeout: Optional[float] = None) -> Optional[str]:
        """The next line, or None after timeout seconds without one (EOF raises).
        Keep-alives (``hello``) are answered and skipped within the same deadline."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while True:
            text = self._next_line(deadline)
            if text != "hello":
                return text
            self.send("yes")

    def _next_line(self, deadline: float) -> Optional[str]:
        """One line as the server sent it (keep-alives included), or None at the deadline."""
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            if hasattr(socket, "TCP_QUICKACK"):
                self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_QUICKACK, 1)
            ready, _, _ = select.select([self.sock], [], [], left)
            if not ready:
                return None
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        text = line.decode(errors="replace").rstrip("\r")
        if self.transcript is not None:
            self.transcript.append(("S", text))
        return text

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
