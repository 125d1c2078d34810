"""Who a page is: the secret tokens of the host, the spectators and the people of earlier
games, compared in constant time (a token is only ever compared as bytes, so an odd
character in a request cannot raise)."""
import secrets
from typing import Dict, Iterable, Optional

HOST, PERSON, WATCHER = "host", "person", "watcher"


def same_token(a: Optional[str], b: Optional[str]) -> bool:
    """Whether two tokens are equal, in constant time; False for a missing one."""
    if not isinstance(a, str) or not isinstance(b, str) or not a or not b:
        return False
    return secrets.compare_digest(a.encode("utf-8", "surrogatepass"), b.encode("utf-8", "surrogatepass"))


def new_token() -> str:
    """A fresh secret for a page's address."""
    return secrets.token_urlsafe(18)


MAX_FORMER = 64  # earlier games' people who may still watch: the most recent ones


class Tokens:
    """The server's long-lived tokens: the host's, the spectators', and those of people
    of earlier games (they watch the game now served; the last ``MAX_FORMER`` of them, so
    a long-running server's list stays bounded)."""

    def __init__(self, host: Optional[str] = None, spectator: Optional[str] = None) -> None:
        self.host = host or new_token()
        self.spectator = spectator or new_token()
        self.former: Dict[str, None] = {}  # insertion-ordered: the oldest go first

    def retire(self, tokens: Iterable[str], kept: Iterable[str]) -> None:
        """People of a finished game watch from now on (``kept``: tokens of the next game)."""
        for t in tokens:
            if not same_token(t, self.host):
                self.former.pop(t, None)
                self.former[t] = None
        for t in kept:
            self.former.pop(t, None)
        while len(self.former) > MAX_FORMER:
            del self.former[next(iter(self.former))]

    def is_host(self, token: Optional[str]) -> bool:
        """Whether the token is the host's."""
        return same_token(token, self.host)

    def watches(self, token: Optional[str]) -> bool:
        """Whether the token is a spectator's or an earlier game's person's."""
        return same_token(token, self.spectator) or any(same_token(token, t) for t in self.former)
