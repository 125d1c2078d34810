"""Recorded sessions, replayed into a seat's mirror without a server (for tests and for
debugging a game that went wrong: ``catan-pioneers`` saves the session of such a game)."""
from typing import Iterable, List, Optional, Sequence, Tuple, Union

from .client import PioneersClient


class _TranscriptConnection:
    """Plays back the server's side of a recorded session (commands are dropped)."""

    def __init__(self, server_lines: Iterable[str]) -> None:
        self.lines = list(server_lines)
        self.transcript = None

    def send(self, line: str) -> None:
        pass

    def read(self, timeout: Optional[float] = None) -> Optional[str]:
        if not self.lines:
            raise EOFError("end of transcript")
        return self.lines.pop(0)

    def close(self) -> None:
        pass


class _TranscriptClient(PioneersClient):
    """A client that only follows the recorded game: it decides and sends nothing."""

    def _maybe_act(self) -> None:
        pass

    def _discard(self, k: int) -> None:
        pass

    def _answer_call(self, caller: int, supply: Sequence[int], receive: Sequence[int]) -> None:
        pass

    def _ev_rob(self, seat: int, w: List[str], body: str) -> None:
        pass


def replay_transcript(transcript: Iterable[Union[Tuple[str, str], str]],
                      stop_on_mismatch: bool = False) -> PioneersClient:
    """Rebuild a seat's mirror from a recorded session without a server: transcript is a
    list of ("S" | "C", line) or lines "S ..."/"C ...".  Returns the client, whose
    ``mirror`` holds the game and its ``mismatches``; nothing is decided or sent
    (``stop_on_mismatch``: raise MirrorMismatch at the first, as a live client does)."""
    server = []
    for item in transcript:
        d, line = item if isinstance(item, tuple) else (item[:1], item[2:])
        if d == "S":
            server.append(line)
    client = _TranscriptClient("transcript", 0, agent=None, stop_on_mismatch=stop_on_mismatch)
    client.conn = _TranscriptConnection(server)
    client._handshake()
    try:
        client._loop()
    except EOFError:
        pass
    return client
