"""Card bookkeeping shared by the rules: hand sizes, VP, paying and gaining cards, and
the per-observer knowledge of every hand (KNOW), updated on each public or private event."""
from numba import njit

from .layout import (
    BANK, DECIDER, DEV_HAND, HAND, KNOW, KNOW_W, OPT_PLAYERS, PHASE, PH_GAME_OVER, PUBLIC_VP,
    VICTORY_POINT, WINNER,
)


# ---------------------------------------------------------------- small accessors
@njit(cache=True)
def hand_size(s, p):
    o = HAND + p * 5
    return s[o] + s[o + 1] + s[o + 2] + s[o + 3] + s[o + 4]


@njit(cache=True)
def can_afford(s, p, cost):
    o = HAND + p * 5
    for r in range(5):
        if s[o + r] < cost[r]:
            return False
    return True


@njit(cache=True)
def total_vp(s, p):
    """Public VP plus the Victory Point cards in p's hand."""
    return s[PUBLIC_VP + p] + s[DEV_HAND + p * 5 + VICTORY_POINT]


@njit(cache=True)
def current_decider(s):
    """Seat that decides next, or -1 once the game is over."""
    if s[PHASE] == PH_GAME_OVER:
        return -1
    return s[DECIDER]


@njit(cache=True)
def winner(s):
    return s[WINNER]


@njit(cache=True)
def _kidx(o, t, r):
    return KNOW + (o * 4 + t) * KNOW_W + r


# ---------------------------------------------------------------- knowledge tracking
@njit(cache=True)
def _know_gain(s, p, r, n):
    """Everyone sees p gain n cards of resource r."""
    for o in range(s[OPT_PLAYERS]):
        s[_kidx(o, p, r)] += n


@njit(cache=True)
def _know_lose_for(s, o, p, r, n):
    i = _kidx(o, p, r)
    k = s[i]
    if k >= n:
        s[i] = k - n
    else:
        s[i] = 0
        s[_kidx(o, p, 5)] -= n - k


@njit(cache=True)
def _know_lose(s, p, r, n):
    """Everyone sees p lose n cards of resource r."""
    for o in range(s[OPT_PLAYERS]):
        _know_lose_for(s, o, p, r, n)


@njit(cache=True)
def _know_steal(s, thief, victim, r):
    """Thief and victim see which card moved; the others see an unknown card move."""
    for o in range(s[OPT_PLAYERS]):
        if o == thief or o == victim:
            _know_lose_for(s, o, victim, r, 1)
            s[_kidx(o, thief, r)] += 1
        else:
            known_types = 0
            for q in range(5):
                if s[_kidx(o, victim, q)] > 0:
                    known_types += 1
            if known_types == 1 and s[_kidx(o, victim, 5)] == 0:
                for q in range(5):
                    if s[_kidx(o, victim, q)] > 0:
                        s[_kidx(o, victim, q)] -= 1
            else:
                # every known type may have lost one card: keep only sure lower bounds
                for q in range(5):
                    if s[_kidx(o, victim, q)] > 0:
                        s[_kidx(o, victim, q)] -= 1
                        s[_kidx(o, victim, 5)] += 1
                s[_kidx(o, victim, 5)] -= 1
            s[_kidx(o, thief, 5)] += 1


@njit(cache=True)
def _gain(s, p, r, n):
    s[HAND + p * 5 + r] += n
    s[BANK + r] -= n
    _know_gain(s, p, r, n)


@njit(cache=True)
def _pay(s, p, cost):
    for r in range(5):
        if cost[r] > 0:
            s[HAND + p * 5 + r] -= cost[r]
            s[BANK + r] += cost[r]
            _know_lose(s, p, r, cost[r])


@njit(cache=True)
def _transfer(s, src, dst, r, n):
    """n cards of r from src to dst in public (trade, monopoly)."""
    s[HAND + src * 5 + r] -= n
    s[HAND + dst * 5 + r] += n
    _know_lose(s, src, r, n)
    _know_gain(s, dst, r, n)
