"""Set-up placements valued at the end of the set-up, in numba (``opening=rollout``).

The expectimax values a set-up move at the network's leaf where another seat places
next: mid set-up, before the spots the others will take are known, so the network must
guess what they take.  Here a candidate placement is played, then every remaining
set-up placement (the others' and the root's own) by that seat's greedy choice: the
placement of the highest one-ply value from its own view, the first of equals.  The
candidate's value is the root's network value once the set-up is over (every settlement
and road on the board, the first roll to come), a position the network was trained on
throughout rather than one it must extrapolate from.

Set-up moves have no chance (the second settlement's resources follow from the board),
and during the set-up nothing the seats choose from is hidden: every determinization of
the root's view plays the same rollout.
"""
from typing import Tuple

import numpy as np
from numba import njit

from catan_env.core.cards import current_decider
from catan_env.core.layout import MAX_PLAYERS, PH_SETUP_ROAD, PH_SETUP_SETTLEMENT, PHASE
from catan_env.core import actions as A
from catan_env.core.rules import FROM_RNG, apply_action, legal_actions
from catan_env.learned.value import Evaluator, leaf_value, one_ply_value, set_base


@njit(cache=True)
def in_setup(s: np.ndarray) -> bool:
    """Whether s is in the set-up (a settlement or its road to place)."""
    return s[PHASE] == PH_SETUP_SETTLEMENT or s[PHASE] == PH_SETUP_ROAD


@njit(cache=True)
def greedy_setup_move(ev: Evaluator, s: np.ndarray, seat: int, buf: np.ndarray, c: np.ndarray) -> int:
    """seat's set-up placement in s of the highest one-ply value from its own view (the
    first of equals).  Moves ev's base to seat's view of s."""
    set_base(ev, s, seat)
    n = legal_actions(s, buf)
    best, best_value = buf[0], -1.0
    for j in range(n):
        v = one_ply_value(ev, s, buf[j], seat, c)
        if v > best_value:
            best, best_value = buf[j], v
    return best


@njit(cache=True)
def setup_rollout_value(ev: Evaluator, s: np.ndarray, root: int, a: int) -> Tuple[float, float]:
    """(root's network value after set-up move a and the rest of the set-up played by
    every seat's greedy choice, the network evaluations it took).  s must be a set-up
    position where root decides; ev's base is left at root's view of s."""
    before = ev.rel[MAX_PLAYERS]
    c = s.copy()
    apply_action(c, a, FROM_RNG)
    buf = np.empty(A.N_ACTIONS, np.int64)
    scratch = np.empty_like(s)
    while in_setup(c):
        seat = current_decider(c)
        apply_action(c, greedy_setup_move(ev, c, seat, buf, scratch), FROM_RNG)
    set_base(ev, s, root)
    v = leaf_value(ev, c, root)
    return v, ev.rel[MAX_PLAYERS] - before
