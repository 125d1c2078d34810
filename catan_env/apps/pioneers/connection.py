"""Text lines over TCP with timeouts, as the Pioneers server speaks them."""
from typing import Optional, Protocol

from ..bridge.server_socket import ServerSocket


class Connection(Protocol):
    """What the client needs of its connection (a LineConnection, or a recorded session
    played back)."""

    def send(self, line: str) -> None:
        """Send one line to the server."""

    def read(self, timeout: Optional[float] = None) -> Optional[str]:
        """The next line from the server, or None after timeout seconds without one."""

    def close(self) -> None:
        """End the connection."""


class LineConnection(ServerSocket):
    """Text lines over TCP with timeouts (LF only; ``hello`` answered)."""

    def send(self, line: str) -> None:
        self._record("C", line)
        self.sock.sendall((line + "\n").encode())

    def read(self, timeout: Optional[float] = None) -> Optional[str]:
        """The next line, or None after timeout seconds without one (EOF raises).
        Keep-alives (``hello``) are answered and skipped within the same deadline."""
        deadline = self._deadline(timeout)
        while True:
            text = self._next_line(deadline)
            if text != "hello":
                return text
            self.send("yes")

    def _next_line(self, deadline: float) -> Optional[str]:
        """One line as the server sent it (keep-alives included), or None at the deadline."""
        while b"\n" not in self.buf:
            if not self._receive(deadline):
                return None
        line, self.buf = self.buf.split(b"\n", 1)
        text = line.decode(errors="replace").rstrip("\r")
        self._record("S", text)
        return text
