"""Information-set handles: what one seat knows, with determinization, and no more.

An ``InfoSet`` never holds the true state.  It is built from a state already
determinized for its seat (every hidden card, every other seat's private knowledge and
the RNG resampled or rebuilt), so even its private fields carry nothing the seat could
not know: two true states the seat cannot tell apart give bitwise-equal InfoSets for the
same secret seed (tested in ``tests/test_hidden_info.py``).  Agents use it to read public facts and
their own hand, and to sample full states for search (``determinize(seed)``).
"""
from typing import Callable, List, Optional, Tuple

import numpy as np

from .core import game as G
from .core import layout as L


class InfoSet:
    """What ``seat`` knows at one moment of a game."""

    __slots__ = ("seat", "_view", "_on_fallback")

    def __init__(self, state: np.ndarray, seat: int, secret_seed: int,
                 on_fallback: Optional[Callable[[int, str], None]] = None) -> None:
        self.seat = int(seat)
        self._view = G.determinize(state, self.seat, int(secret_seed))
        self._view.setflags(write=False)
        self._on_fallback = on_fallback

    # ---- honesty about replaced moves
    def report_fallback(self, reason: str) -> None:
        """Tell the game this seat's agent replaced a move it planned (illegal, timed out,
        ...): the env counts it per seat (``game_stats()["fallbacks"]``) so a baseline that
        silently plays worse shows in every table.  A handle built outside an env ignores it."""
        if self._on_fallback is not None:
            self._on_fallback(self.seat, str(reason))

    # ---- sampling
    @property
    def view(self) -> np.ndarray:
        """The handle's own determinization (read-only): a full state consistent with this
        seat's knowledge, for kernels that determinize it again themselves."""
        return self._view

    def determinize(self, seed: int = 0) -> np.ndarray:
        """A full state consistent with this seat's knowledge (a fresh array)."""
        return G.determinize(self._view, self.seat, seed)

    # ---- public facts and own information
    @property
    def n_players(self) -> int:
        """Players in the game."""
        return int(self._view[L.OPT_PLAYERS])

    @property
    def decider(self) -> int:
        """The seat that decides now (public)."""
        return G.decider(self._view)

    @property
    def phase(self) -> str:
        """The game phase's name (public)."""
        return L.PHASE_NAMES[int(self._view[L.PHASE])]

    def legal_actions(self) -> np.ndarray:
        """Legal actions of the decider (computed from public facts and, when this seat
        decides, its own hand; never from others' hidden cards)."""
        if self.decider != self.seat:
            return np.zeros(0, dtype=np.int64)
        return G.legal_actions(self._view)

    def hand(self) -> np.ndarray:
        """This seat's resource cards (brick, lumber, wool, grain, ore)."""
        return L.view(self._view, "hand")[self.seat].copy()

    def dev_cards(self) -> Tuple[np.ndarray, np.ndarray]:
        """This seat's unplayed development cards by type, and those bought this turn."""
        return (L.view(self._view, "dev_hand")[self.seat].copy(),
                L.view(self._view, "dev_new")[self.seat].copy())

    def known_cards(self, target: int) -> Tuple[np.ndarray, int]:
        """Cards of target this seat knows (5 counts) and how many it does not."""
        k = L.view(self._view, "know")[self.seat, int(target)]
        return k[:L.N_RES].copy(), int(k[L.UNKNOWN])

    def public_state(self) -> np.ndarray:
        """A copy of the view with every field this seat cannot know blanked (-1): other
        seats' hands and development cards by type, the deck by type, what other seats
        know of each other, and the RNG.  Public counts stay readable through
        ``hand_sizes``, ``dev_counts``, ``deck_size``, ``bank``, ``dev_used`` and the
        public knowledge row ``known_cards_public``.  Safe to inspect freely."""
        s = self._view.copy()
        n = self.n_players
        know = L.view(s, "know")
        for p in range(n):
            if p != self.seat:
                L.view(s, "hand")[p] = -1
                L.view(s, "dev_hand")[p] = -1
                L.view(s, "dev_new")[p] = -1
            for o in range(n):
                if o != self.seat and o != p:
                    know[o, p] = -1
        L.view(s, "deck")[:] = -1
        s[L.RNG] = -1
        s[L.LAST_STEAL] = -1
        s[L.LAST_DRAW] = -1
        return s

    def hand_sizes(self) -> List[int]:
        """Resource cards held per seat (public)."""
        return [int(x) for x in L.view(self._view, "hand")[:self.n_players].sum(axis=1)]

    def dev_counts(self) -> List[int]:
        """Unplayed development cards held per seat (public)."""
        return [int(x) for x in L.view(self._view, "dev_hand")[:self.n_players].sum(axis=1)]

    def deck_size(self) -> int:
        """Development cards left in the deck (public)."""
        return int(L.view(self._view, "deck").sum())

    def bank(self) -> np.ndarray:
        """Resource cards left in the bank, per resource (public)."""
        return L.view(self._view, "bank").copy()

    def dev_used(self) -> np.ndarray:
        """Development cards played so far by type, all seats together (public)."""
        return L.view(self._view, "dev_used").copy()

    def known_cards_public(self, target: int) -> Tuple[np.ndarray, int]:
        """What every seat knows of target's hand from public events alone."""
        k = L.view(self._view, "know")[L.PUBLIC, int(target)]
        return k[:L.N_RES].copy(), int(k[L.UNKNOWN])

    def observe(self, kind: str = "vector") -> np.ndarray:
        """This seat's observation ("vector" or "planes"), as the envs give it."""
        return G.observe(self._view, self.seat, kind)

    def __repr__(self) -> str:
        return f"InfoSet(seat={self.seat}, phase={self.phase}, decider={self.decider})"
