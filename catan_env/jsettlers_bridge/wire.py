"""JSettlers messages over TCP: Java's ``DataOutputStream.writeUTF`` framing (a 2-byte
big-endian length, then the text), with read timeouts and an optional transcript."""
import select
import socket
import struct
import time
from typing import List, Optional, Tuple

MAX_MESSAGE = 65535  # writeUTF's limit


class MessageConnection:
    """One JSettlers connection: ``send`` a message text, ``read`` the next one (None at the
    timeout; a closed connection raises ConnectionError)."""

    def __init__(self, host: str, port: int, timeout: float = 60.0,
                 transcript: Optional[List[Tuple[str, str]]] = None) -> None:
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.timeout = timeout
        self.buf = b""
        self.transcript = transcript  # receives ("S" | "C", text)

    def send(self, text: str) -> None:
        data = text.encode("utf-8")
        if len(data) > MAX_MESSAGE:
            raise ValueError(f"message of {len(data)} bytes is over writeUTF's {MAX_MESSAGE}")
        if self.transcript is not None:
            self.transcript.append(("C", text))
        self.sock.sendall(struct.pack(">H", len(data)) + data)

    def read(self, timeout: Optional[float] = None) -> Optional[str]:
        """The next message, or None after timeout seconds without a whole one (0: only
        what has already arrived)."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while len(self.buf) < 2 or len(self.buf) < 2 + struct.unpack(">H", self.buf[:2])[0]:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.sock], [], [], max(0.0, left))  # (0: one poll)
            if not ready:
                return None
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk
        n = struct.unpack(">H", self.buf[:2])[0]
        text = self.buf[2:2 + n].decode("utf-8", errors="replace")
        self.buf = self.buf[2 + n:]
        if self.transcript is not None:
            self.transcript.append(("S", text))
        return text

    def close(self) -> None:
        try:
            self.sock.close()
        except OSError:
            pass
