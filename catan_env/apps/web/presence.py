"""Which people's pages are open, and since when each person's seat has had none: a
reload keeps the seat for a grace period, a person gone longer lets the game end (or the
host start another)."""
import time
from typing import Dict, Iterable, Optional


class Presence:
    """Open pages per seat of the game now served, and when each seat lost its last one."""

    def __init__(self, seats: Iterable[int], now: Optional[float] = None) -> None:
        start = time.monotonic() if now is None else now
        self.pages: Dict[int, int] = {s: 0 for s in seats}
        self.absent_since: Dict[int, float] = dict.fromkeys(self.pages, start)
        self.seen = False  # whether any person's page ever opened

    def arrive(self, seat: Optional[int]) -> None:
        """A page of ``seat`` opened (None: a watcher's)."""
        if seat in self.pages:
            self.pages[seat] += 1
            self.absent_since.pop(seat, None)
            self.seen = True

    def leave(self, seat: Optional[int], now: Optional[float] = None) -> None:
        """A page of ``seat`` closed; the seat's absence starts when its last page closes."""
        if seat in self.pages:
            self.pages[seat] -= 1
            if self.pages[seat] == 0:
                self.absent_since[seat] = time.monotonic() if now is None else now

    def gone(self, seat: int, grace: float, now: Optional[float] = None) -> bool:
        """Whether the seat has had no page for longer than ``grace`` seconds."""
        since = self.absent_since.get(seat)
        return since is not None and (time.monotonic() if now is None else now) - since >= grace

    def everyone_gone(self, grace: float, now: Optional[float] = None) -> bool:
        """Whether every person came and then left for longer than the grace period."""
        return self.seen and bool(self.pages) and all(self.gone(s, grace, now) for s in self.pages)
