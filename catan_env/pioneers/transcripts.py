"""Recorded sessions, replayed into a seat's mirror without a server (for tests and for
debugging a game that went wrong: ``catan-pioneers`` saves the session of such a game)."""
from .client import PioneersClient


class _TranscriptConnection:
    """Plays back the server's side of a recorded session (commands are dropped)."""

    def __init__(self, server_lines):
        self.lines = list(server_lines)
        self.transcript = None

    def send(self, line):
        pass

    def read(self, timeout=None):
        if not self.lines:
            raise EOFError("end of transcript")
        return self.lines.pop(0)

    def close(self):
        pass


def replay_transcript(transcript, stop_on_mismatch=False):
    """Rebuild a seat's mirror from a recorded session without a server: transcript is a
    list of ("S" | "C", line) or lines "S ..."/"C ...".  Returns the client, whose
    ``mirror`` holds the game and its ``mismatches``; nothing is decided or sent
    (``stop_on_mismatch``: raise MirrorMismatch at the first, as a live client does)."""
    server = []
    for item in transcript:
        d, line = item if isinstance(item, tuple) else (item[:1], item[2:])
        if d == "S":
            server.append(line)
    client = PioneersClient("transcript", 0, agent=None, stop_on_mismatch=stop_on_mismatch)
    client.conn = _TranscriptConnection(server)
    client._maybe_act = lambda: None
    client._discard = lambda k: None
    client._answer_call = lambda *a: None
    client._ev_rob = lambda *a: None
    client._handshake()
    try:
        client._loop()
    except EOFError:
        pass
    return client
