"""Recorded sessions, replayed into a seat's mirror without a server (for tests, and for
debugging a game that went wrong: ``catan-jsettlers`` saves the session of such a game)."""
from typing import Iterable, List, Tuple, Union

from .client import JSettlersClient, MirrorMismatch


class _Silent:
    """A connection that sends nothing (the replay decides nothing)."""

    def send(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


class _ReplayClient(JSettlersClient):
    """A client that only follows the recorded game."""

    def _maybe_act(self) -> None:
        pass


def read_transcript(path: str) -> List[Tuple[str, str]]:
    """A saved session: one ``S text`` or ``C text`` line per message."""
    out: List[Tuple[str, str]] = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if line[:2] in ("S ", "C "):
                out.append((line[0], line[2:]))
    return out


def replay_transcript(transcript: Iterable[Union[Tuple[str, str], str]], seat_name: str = "",
                      stop_on_mismatch: bool = False) -> JSettlersClient:
    """Rebuild a seat's mirror from a recorded session without a server: transcript is a
    list of ("S" | "C", text) or lines "S ..."/"C ...".  Returns the client, whose
    ``mirror`` holds the game and its ``mismatches`` (``stop_on_mismatch``: raise
    MirrorMismatch at the first, as a live client does)."""
    client = _ReplayClient("transcript", 0, agent=None, name=seat_name or "transcript",
                           stop_on_mismatch=stop_on_mismatch)
    client.conn = _Silent()
    for item in transcript:
        d, text = item if isinstance(item, tuple) else (item[:1], item[2:])
        if d != "S":
            continue
        known = len(client.mirror.mismatches) if client.mirror is not None else 0
        client.on_message(text)
        if stop_on_mismatch and client.mirror is not None and len(client.mirror.mismatches) > known:
            raise MirrorMismatch(client.mirror.mismatches[known])
        if client.done:
            break
    return client
