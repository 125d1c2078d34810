"""Information-set handles: what one seat knows, with determinization, and no more.

An ``InfoSet`` never holds the true state.  It is built from a state already
determinized for its seat (every hidden card and the RNG resampled), so even its private
fields carry nothing the seat could not know.  Agents use it to read public facts and
their own hand, and to sample full states for search (``determinize(seed)``).
"""
import numpy as np

from .core import game as G
from .core import layout as L


class InfoSet:
    """What ``seat`` knows at one moment of a game."""

    __slots__ = ("seat", "_view")

    def __init__(self, state, seat, secret_seed):
        self.seat = int(seat)
        self._view = G.determinize(state, self.seat, int(secret_seed))
        self._view.setflags(write=False)

    # ---- sampling
    def determinize(self, seed=0):
        """A full state consistent with this seat's knowledge (a fresh array)."""
        return G.determinize(self._view, self.seat, seed)

    # ---- public facts and own information
    @property
    def n_players(self):
        return int(self._view[L.OPT_PLAYERS])

    @property
    def decider(self):
        return G.decider(self._view)

    @property
    def phase(self):
        return L.PHASE_NAMES[int(self._view[L.PHASE])]

    def legal_actions(self):
        """Legal actions of the decider (computed from public facts and, when this seat
        decides, its own hand; never from others' hidden cards)."""
        if self.decider != self.seat:
            return np.zeros(0, dtype=np.int64)
        return G.legal_actions(self._view)

    def hand(self):
        """This seat's resource cards (brick, lumber, wool, grain, ore)."""
        o = L.HAND + self.seat * 5
        return self._view[o:o + 5].copy()

    def dev_cards(self):
        """This seat's unplayed development cards by type, and those bought this turn."""
        o = self.seat * 5
        return (self._view[L.DEV_HAND + o:L.DEV_HAND + o + 5].copy(),
                self._view[L.DEV_NEW + o:L.DEV_NEW + o + 5].copy())

    def known_cards(self, target):
        """Cards of target this seat knows (5 counts) and how many it does not."""
        o = L.KNOW + (self.seat * 4 + int(target)) * L.KNOW_W
        k = self._view[o:o + 6]
        return k[:5].copy(), int(k[5])

    def public_state(self):
        """A copy of the view with every hidden field blanked (-1): other hands, other
        development card types, the deck order and the RNG.  Safe to inspect freely."""
        s = self._view.copy()
        for p in range(self.n_players):
            if p != self.seat:
                s[L.HAND + p * 5:L.HAND + p * 5 + 5] = -1
                s[L.DEV_HAND + p * 5:L.DEV_HAND + p * 5 + 5] = -1
                s[L.DEV_NEW + p * 5:L.DEV_NEW + p * 5 + 5] = -1
                for o in range(self.n_players):
                    if o != self.seat:
                        b = L.KNOW + (o * 4 + p) * L.KNOW_W
                        s[b:b + 6] = -1
        s[L.DECK:L.DECK + 5] = -1
        s[L.RNG] = -1
        return s

    def hand_sizes(self):
        return [int(self._view[L.HAND + p * 5:L.HAND + p * 5 + 5].sum()) for p in range(self.n_players)]

    def dev_counts(self):
        return [int(self._view[L.DEV_HAND + p * 5:L.DEV_HAND + p * 5 + 5].sum())
                for p in range(self.n_players)]

    def observe(self, kind="vector"):
        return G.observe(self._view, self.seat, kind)

    def __repr__(self):
        return f"InfoSet(seat={self.seat}, phase={self.phase}, decider={self.decider})"
