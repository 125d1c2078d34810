"""Determinization: resample everything an observer does not know.

``determinize(state, observer, seed)`` returns a full state identical in everything the
observer knows (board, buildings, own hand and cards, public counts, the observer's
known cards of each opponent) with the rest resampled consistently:
  - opponents' unknown resource cards, dealt from the pool the observer cannot place
    (19 - bank - own hand - known cards, per resource);
  - opponents' unplayed development cards (bought-this-turn counts kept), dealt with the
    deck from the pool of cards the observer has not seen; the turn player is never given
    enough VP cards to have already won;
  - the RNG (future dice, steals and draws).
Other seats' knowledge is clamped so that it stays a set of true lower bounds.
"""
import numpy as np
from numba import njit

from .layout import (
    BANK, DECK, DEV_HAND, DEV_NEW, HAND, LAST_DRAW, LAST_STEAL, OPT_PLAYERS,
    OPT_VP, PUBLIC_VP, TURN_PLAYER, VICTORY_POINT,
)
from .cards import _kidx
from .rng import seed_rng
from .rules import _shuffle


@njit(cache=True)
def _deal_resources(s, observer):
    n = s[OPT_PLAYERS]
    pool = np.zeros(95, dtype=np.int64)
    m = 0
    for r in range(5):
        c = 19 - s[BANK + r] - s[HAND + observer * 5 + r]
        for t in range(n):
            if t != observer:
                c -= s[_kidx(observer, t, r)]
        for _ in range(c):
            pool[m] = r
            m += 1
    cards = pool[:m].copy()
    _shuffle(s, cards)
    j = 0
    for t in range(n):
        if t == observer:
            continue
        for r in range(5):
            s[HAND + t * 5 + r] = s[_kidx(observer, t, r)]
        for _ in range(s[_kidx(observer, t, 5)]):
            s[HAND + t * 5 + cards[j]] += 1
            j += 1


@njit(cache=True)
def _clamp_knowledge(s, observer):
    n = s[OPT_PLAYERS]
    for t in range(n):
        for r in range(5):
            s[_kidx(t, t, r)] = s[HAND + t * 5 + r]
        s[_kidx(t, t, 5)] = 0
        if t == observer:
            continue
        for o in range(n):
            if o == observer or o == t:
                continue
            for r in range(5):
                excess = s[_kidx(o, t, r)] - s[HAND + t * 5 + r]
                if excess > 0:
                    s[_kidx(o, t, r)] -= excess
                    s[_kidx(o, t, 5)] += excess


@njit(cache=True)
def _deal_dev_cards(s, observer):
    n = s[OPT_PLAYERS]
    pool = np.zeros(25, dtype=np.int64)
    m = 0
    for t in range(5):
        c = s[DECK + t]
        for p in range(n):
            if p != observer:
                c += s[DEV_HAND + p * 5 + t]
        for _ in range(c):
            pool[m] = t
            m += 1
    cards = pool[:m].copy()
    held = np.zeros(4, dtype=np.int64)
    new = np.zeros(4, dtype=np.int64)
    for p in range(n):
        for t in range(5):
            held[p] += s[DEV_HAND + p * 5 + t]
            new[p] += s[DEV_NEW + p * 5 + t]
    tp = s[TURN_PLAYER]
    j = 0
    for attempt in range(100):
        _shuffle(s, cards)
        j = 0
        for p in range(n):
            if p == observer:
                continue
            for t in range(5):
                s[DEV_HAND + p * 5 + t] = 0
                s[DEV_NEW + p * 5 + t] = 0
            for i in range(held[p]):
                c = cards[j]
                j += 1
                s[DEV_HAND + p * 5 + c] += 1
                if i < new[p]:
                    s[DEV_NEW + p * 5 + c] += 1
        if tp == observer or s[PUBLIC_VP + tp] + s[DEV_HAND + tp * 5 + VICTORY_POINT] < s[OPT_VP]:
            break
    for t in range(5):
        s[DECK + t] = 0
    while j < m:
        s[DECK + cards[j]] += 1
        j += 1


@njit(cache=True)
def determinize(state, observer, seed):
    s = state.copy()
    seed_rng(s, seed ^ (observer * 0x9E3779B1 + 0x7F4A7C15))
    _deal_resources(s, observer)
    _clamp_knowledge(s, observer)
    _deal_dev_cards(s, observer)
    s[LAST_STEAL] = -1
    s[LAST_DRAW] = -1
    seed_rng(s, seed * 2654435761 + observer + 1)
    return s
