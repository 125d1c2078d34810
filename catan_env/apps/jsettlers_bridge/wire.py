"""JSettlers messages over TCP: Java's ``DataOutputStream.writeUTF`` framing (a 2-byte
big-endian length, then the text), with read timeouts and an optional transcript."""
import struct
from typing import Optional

from ..bridge.server_socket import ServerSocket

MAX_MESSAGE = 65535  # writeUTF's limit


class MessageConnection(ServerSocket):
    """One JSettlers connection: ``send`` a message text, ``read`` the next one (None at the
    timeout; a closed connection raises ConnectionError)."""

    def send(self, text: str) -> None:
        data = text.encode("utf-8")
        if len(data) > MAX_MESSAGE:
            raise ValueError(f"message of {len(data)} bytes is over writeUTF's {MAX_MESSAGE}")
        self._record("C", text)
        self.sock.sendall(struct.pack(">H", len(data)) + data)

    def read(self, timeout: Optional[float] = None) -> Optional[str]:
        """The next message, or None after timeout seconds without a whole one (0: only
        what has already arrived)."""
        deadline = self._deadline(timeout)
        while len(self.buf) < 2 or len(self.buf) < 2 + struct.unpack(">H", self.buf[:2])[0]:
            if not self._receive(deadline):
                return None
        n = struct.unpack(">H", self.buf[:2])[0]
        text = self.buf[2:2 + n].decode("utf-8", errors="replace")
        self.buf = self.buf[2 + n:]
        self._record("S", text)
        return text
