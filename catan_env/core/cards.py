"""Card bookkeeping shared by the rules: hand sizes, VP, paying and gaining cards, and
the per-observer knowledge of every hand (KNOW), updated on each public or private event."""
import numpy as np
from numba import njit
from .jit_options import NO_RUNTIME, RUNTIME, helper

from .layout import (
    BANK, DECIDER, N_RES, OPT_PLAYERS, PHASE, PH_GAME_OVER, PUBLIC, PUBLIC_VP, UNKNOWN,
    VICTORY_POINT, WINNER, dev_i, hand_i, know_i,
)


# ---------------------------------------------------------------- small accessors
@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def hand_size(s: np.ndarray, p: int) -> int:
    n = 0
    for r in range(N_RES):
        n += s[hand_i(p, r)]
    return n


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def can_afford(s: np.ndarray, p: int, cost: np.ndarray) -> bool:
    for r in range(N_RES):
        if s[hand_i(p, r)] < cost[r]:
            return False
    return True


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def total_vp(s: np.ndarray, p: int) -> int:
    """Public VP plus the Victory Point cards in p's hand."""
    return s[PUBLIC_VP + p] + s[dev_i(p, VICTORY_POINT)]


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def shaping_value(s: np.ndarray, p: int) -> float:
    """What ``vp_reward`` shaping pays the change of: own VP (cards included) minus the
    mean public VP of the others (every env and the batched kernels use this one)."""
    n = s[OPT_PLAYERS]
    others = 0
    for q in range(n):
        if q != p:
            others += s[PUBLIC_VP + q]
    return total_vp(s, p) - others / (n - 1)


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def current_decider(s: np.ndarray) -> int:
    """Seat that decides next, or -1 once the game is over."""
    if s[PHASE] == PH_GAME_OVER:
        return -1
    return s[DECIDER]


@njit(cache=True)
def winner(s: np.ndarray) -> int:
    return s[WINNER]


@helper
def _observer(s: np.ndarray, i: int) -> int:
    """The i-th knowledge row owner: seats 0..n-1, then the PUBLIC onlooker (i == n)."""
    return i if i < s[OPT_PLAYERS] else PUBLIC


# ---------------------------------------------------------------- knowledge tracking
# inline='always' (numba inlines the function's IR into each caller) on the hot helpers that
# take the state and are too big for LLVM to inline: a call that passes an array costs an
# atomic reference-count increment and decrement around it, about a fifth of a random game's
# time before (perf); inlined, the pairs are pruned.  Small helpers are inlined by LLVM anyway.
@njit(cache=True, inline='always')
def _know_gain(s: np.ndarray, p: int, r: int, n: int) -> None:
    """Everyone sees p gain n cards of resource r."""
    for i in range(s[OPT_PLAYERS] + 1):
        s[know_i(_observer(s, i), p, r)] += n


@helper
def _know_lose_for(s: np.ndarray, o: int, p: int, r: int, n: int) -> None:
    i = know_i(o, p, r)
    k = s[i]
    if k >= n:
        s[i] = k - n
    else:
        s[i] = 0
        s[know_i(o, p, UNKNOWN)] -= n - k


@njit(cache=True, inline='always')
def _know_lose(s: np.ndarray, p: int, r: int, n: int) -> None:
    """Everyone sees p lose n cards of resource r."""
    for i in range(s[OPT_PLAYERS] + 1):
        _know_lose_for(s, _observer(s, i), p, r, n)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _know_steal(s: np.ndarray, thief: int, victim: int, r: int) -> None:
    """Thief and victim see which card moved; the others (and PUBLIC) see an unknown
    card move."""
    for i in range(s[OPT_PLAYERS] + 1):
        o = _observer(s, i)
        if o == thief or o == victim:
            _know_lose_for(s, o, victim, r, 1)
            s[know_i(o, thief, r)] += 1
        else:
            known_types = 0
            for q in range(N_RES):
                if s[know_i(o, victim, q)] > 0:
                    known_types += 1
            if known_types == 1 and s[know_i(o, victim, UNKNOWN)] == 0:
                for q in range(N_RES):
                    if s[know_i(o, victim, q)] > 0:
                        s[know_i(o, victim, q)] -= 1
            else:
                # every known type may have lost one card: keep only sure lower bounds
                for q in range(N_RES):
                    if s[know_i(o, victim, q)] > 0:
                        s[know_i(o, victim, q)] -= 1
                        s[know_i(o, victim, UNKNOWN)] += 1
                s[know_i(o, victim, UNKNOWN)] -= 1
            s[know_i(o, thief, UNKNOWN)] += 1


@njit(cache=True, inline='always')
def _gain(s: np.ndarray, p: int, r: int, n: int) -> None:
    s[hand_i(p, r)] += n
    s[BANK + r] -= n
    _know_gain(s, p, r, n)


@njit(cache=True, inline='always')
def _pay(s: np.ndarray, p: int, cost: np.ndarray) -> None:
    for r in range(N_RES):
        if cost[r] > 0:
            s[hand_i(p, r)] -= cost[r]
            s[BANK + r] += cost[r]
            _know_lose(s, p, r, cost[r])


@njit(cache=True, inline='always')
def _transfer(s: np.ndarray, src: int, dst: int, r: int, n: int) -> None:
    """n cards of r from src to dst in public (trade, monopoly)."""
    s[hand_i(src, r)] -= n
    s[hand_i(dst, r)] += n
    _know_lose(s, src, r, n)
    _know_gain(s, dst, r, n)
