"""The browser server's caps: pages open at once, message size and rate, and how long a
person's seat waits for a reloaded page.  Every figure is a field, so a test (or a host
with other needs) sets its own."""
import time
from dataclasses import dataclass


@dataclass(frozen=True)
class Limits:
    """Caps of one server."""

    pages: int = 32                  # WebSockets open at once, all tokens together
    pages_per_token: int = 4         # WebSockets open at once for one person's token (tabs of one seat)
    watcher_pages: int = 16          # spectators' WebSockets open at once, all together ...
    watcher_pages_per_token: int = 8  # ... and for one address (so one link cannot hold them all)
    message_bytes: int = 4096        # a page's message, as text
    messages_per_second: float = 20.0  # sustained rate per page ...
    burst: int = 40                  # ... after a burst of this many
    refused_before_close: int = 100  # messages refused for rate before the page is disconnected
    grace_seconds: float = 120.0     # a person's seat waits this long for a reloaded page
    send_seconds: float = 5.0        # a page that takes longer to take a message is dropped

    def __post_init__(self) -> None:
        for name in ("pages", "pages_per_token", "watcher_pages", "watcher_pages_per_token", "message_bytes", "burst", "refused_before_close"):
            if getattr(self, name) < 1:
                raise ValueError(f"limit {name} must be at least 1, got {getattr(self, name)}")
        if self.messages_per_second <= 0 or self.grace_seconds < 0 or self.send_seconds <= 0:
            raise ValueError("messages_per_second and send_seconds must be positive, grace_seconds non-negative")


class RateLimit:
    """A token bucket: ``allow()`` says whether one more message fits the rate now."""

    def __init__(self, per_second: float, burst: int) -> None:
        self.per_second = per_second
        self.burst = burst
        self.tokens = float(burst)
        self.last = time.monotonic()
        self.refused = 0

    def allow(self) -> bool:
        """Spend one token if there is one (and count a refusal if not)."""
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.per_second)
        self.last = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        self.refused += 1
        return False
