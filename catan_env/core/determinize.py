"""Determinization: resample everything an observer does not know.

``determinize(state, observer, seed)`` returns a full state identical in everything the
observer knows (board, buildings, own hand and cards, public counts, the observer's
known cards of each opponent, what every seat knows of the observer's own hand) with
the rest resampled or rebuilt:
  - opponents' unknown resource cards, dealt from the pool the observer cannot place
    (19 - bank - own hand - known cards, per resource);
  - opponents' unplayed development cards (bought-this-turn counts kept), dealt with the
    deck from the pool of cards the observer has not seen; the turn player is never given
    enough VP cards to have already won;
  - what other seats know of each other's hands (KNOW[o, t] for o, t != observer):
    rebuilt from the public row KNOW[PUBLIC, t] (what the public history tells every
    seat) clamped to the resampled hand, never copied from the truth;
  - the last steal and draw, and the RNG (future dice, steals and draws).
So the result depends on the true state only through what the observer knows: two true
states the observer cannot tell apart give the same determinization for the same seed.
"""
import numpy as np
from numba import njit

from .layout import (
    BANK, DECK, LAST_DRAW, LAST_STEAL, N_DEV, N_RES, OPT_PLAYERS, OPT_VP, PUBLIC, PUBLIC_VP,
    TURN_PLAYER, UNKNOWN, VICTORY_POINT, dev_i, dev_new_i, hand_i, know_i,
)
from .rng import seed_rng, shuffle
from .tables import CARDS_PER_RESOURCE


@njit(cache=True)
def _pool(counts: np.ndarray) -> np.ndarray:
    """The cards of a pool in type order: counts[k] cards of type k (none where a count is
    negative: a mirrored game's knowledge can claim more cards than are left)."""
    total = 0
    for k in range(counts.shape[0]):
        total += max(counts[k], 0)
    cards = np.empty(total, dtype=np.int64)
    m = 0
    for k in range(counts.shape[0]):
        for _ in range(counts[k]):  # (none for a negative count)
            cards[m] = k
            m += 1
    return cards


@njit(cache=True)
def _deal_resources(s: np.ndarray, observer: int) -> None:
    """Opponents keep the cards the observer knows; the rest is dealt from the pool."""
    n = s[OPT_PLAYERS]
    unplaced = np.empty(N_RES, dtype=np.int64)
    for r in range(N_RES):
        unplaced[r] = CARDS_PER_RESOURCE - s[BANK + r] - s[hand_i(observer, r)]
        for t in range(n):
            if t != observer:
                unplaced[r] -= s[know_i(observer, t, r)]
    cards = _pool(unplaced)
    shuffle(s, cards)
    j = 0
    for t in range(n):
        if t != observer:
            for r in range(N_RES):
                s[hand_i(t, r)] = s[know_i(observer, t, r)]
            # (a server whose bank never runs short, JSettlers, can put more than 19 cards of
            # a kind in play: then fewer are left to deal than are unknown, and the deal
            # goes as far as they do; in the core's own games the counts always match)
            for _ in range(min(s[know_i(observer, t, UNKNOWN)], cards.shape[0] - j)):
                s[hand_i(t, cards[j])] += 1
                j += 1


@njit(cache=True)
def _lower_bound_row(s: np.ndarray, o: int, src: int, t: int) -> None:
    """KNOW[o, t] := KNOW[src, t] clamped to t's (resampled) hand, the rest unknown."""
    known = 0
    for r in range(N_RES):
        k = min(s[know_i(src, t, r)], s[hand_i(t, r)])
        s[know_i(o, t, r)] = k
        known += k
    total = 0
    for r in range(N_RES):
        total += s[hand_i(t, r)]
    s[know_i(o, t, UNKNOWN)] = total - known


@njit(cache=True)
def _rebuild_knowledge(s: np.ndarray, observer: int) -> None:
    """Every knowledge row the observer cannot see, rebuilt from public facts and the
    resampled hands.  Kept: the observer's rows, and every seat's row about the
    observer (its value follows from events the observer took part in or saw)."""
    n = s[OPT_PLAYERS]
    public = np.int64(PUBLIC)  # not a literal: one compiled version of _lower_bound_row
    for t in range(n):
        if t == observer:
            continue
        _lower_bound_row(s, public, public, t)
        for o in range(n):
            if o == observer:
                continue
            if o == t:
                for r in range(N_RES):
                    s[know_i(t, t, r)] = s[hand_i(t, r)]
                s[know_i(t, t, UNKNOWN)] = 0
            else:
                _lower_bound_row(s, o, public, t)


@njit(cache=True)
def _deal_dev_cards(s: np.ndarray, observer: int) -> None:
    n = s[OPT_PLAYERS]
    unseen = np.empty(N_DEV, dtype=np.int64)
    for t in range(N_DEV):
        unseen[t] = s[DECK + t]
        for p in range(n):
            if p != observer:
                unseen[t] += s[dev_i(p, t)]
    cards = _pool(unseen)
    m = cards.shape[0]
    held = np.zeros(n, dtype=np.int64)
    new = np.zeros(n, dtype=np.int64)
    for p in range(n):
        for t in range(N_DEV):
            held[p] += s[dev_i(p, t)]
            new[p] += s[dev_new_i(p, t)]
    tp = s[TURN_PLAYER]
    j = 0
    for attempt in range(100):
        shuffle(s, cards)
        j = 0
        for p in range(n):
            if p == observer:
                continue
            for t in range(N_DEV):
                s[dev_i(p, t)] = 0
                s[dev_new_i(p, t)] = 0
            for i in range(min(held[p], m - j)):  # (as far as the pool goes, as above)
                c = cards[j]
                j += 1
                s[dev_i(p, c)] += 1
                if i < new[p]:
                    s[dev_new_i(p, c)] += 1
        if tp == observer or s[PUBLIC_VP + tp] + s[dev_i(tp, VICTORY_POINT)] < s[OPT_VP]:
            break
    for t in range(N_DEV):
        s[DECK + t] = 0
    while j < m:
        s[DECK + cards[j]] += 1
        j += 1


@njit(cache=True)
def determinize(state: np.ndarray, observer: int, seed: int) -> np.ndarray:
    s = state.copy()
    seed_rng(s, seed ^ (observer * 0x9E3779B1 + 0x7F4A7C15))
    _deal_resources(s, observer)
    _rebuild_knowledge(s, observer)
    _deal_dev_cards(s, observer)
    s[LAST_STEAL] = -1
    s[LAST_DRAW] = -1
    seed_rng(s, seed * 2654435761 + observer + 1)
    return s
