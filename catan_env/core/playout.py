"""Playouts to the end of the game, entirely in numba, for search and benchmarks.

Policies (ints, so the cached kernels take no function arguments):
  POLICY_RANDOM   uniform over the decider's legal actions;
  POLICY_PRUNING  "Optimizing UCT" move pruning: a city if one can be built, else a
                  settlement, else uniform over the other actions;
  POLICY_WEIGHTED "MCTS in Settlers of Catan" (Szita et al.) weights: 1 per action,
                  +10,000 for settlements and cities, 10 / 10^R for roads with
                  R = roads / (settlements + cities), +100 for a Knight when the
                  robber blocks one of the player's hexes, +10 for other card plays.
A turn cap keeps every playout finite; a capped game has winner -1.
"""
from typing import Tuple

import numpy as np
from numba import njit
from .jit_options import RUNTIME

from . import actions as A
from .layout import (
    PHASE, PH_GAME_OVER, PH_TRADE_RESPONSE, ROBBER, STATE_SIZE, TURN, V_OWNER, WINNER,
    ROADS_LEFT, SETTLEMENTS_LEFT, CITIES_LEFT, MAX_PLAYERS,
)
from .rng import randint, seed_rng
from .cards import current_decider, total_vp
from .rules import (FRIENDLY_ROBBER_OFF, FROM_RNG, STANDARD_DISCARD_LIMIT, STANDARD_MAX_OFFERS, STANDARD_VP,
                    apply_action, legal_actions, new_random_game, random_answer)
from .tables import CITIES_PER_PLAYER, ROADS_PER_PLAYER, SETTLEMENTS_PER_PLAYER
from .topology import HEX_VERTICES

POLICY_RANDOM = 0
POLICY_PRUNING = 1
POLICY_WEIGHTED = 2
POLICIES = {"random": POLICY_RANDOM, "pruning": POLICY_PRUNING, "weighted": POLICY_WEIGHTED}


@njit(cache=True)
def _pick_pruning(s: np.ndarray, buf: np.ndarray, n: int, rng: np.ndarray) -> int:
    cities = 0
    settlements = 0
    for i in range(n):
        a = buf[i]
        if A.CITY0 <= a < A.BUY_DEV:
            cities += 1
        elif A.SETTLEMENT0 <= a < A.CITY0:
            settlements += 1
    if cities > 0:
        lo, hi, k = A.CITY0, A.BUY_DEV, randint(rng, cities)
    elif settlements > 0:
        lo, hi, k = A.SETTLEMENT0, A.CITY0, randint(rng, settlements)
    else:
        return buf[randint(rng, n)]
    for i in range(n):
        a = buf[i]
        if lo <= a < hi:
            if k == 0:
                return a
            k -= 1
    return buf[0]


@njit(cache=True)
def _robber_blocks(s: np.ndarray, p: int) -> bool:
    h = s[ROBBER]
    for k in range(6):
        if s[V_OWNER + HEX_VERTICES[h, k]] == p:
            return True
    return False


@njit(cache=True)
def action_weight(s: np.ndarray, p: int, a: int, road_weight: float, knight_weight: float) -> float:
    if A.SETTLEMENT0 <= a < A.BUY_DEV:
        return 10001.0
    if A.ROAD0 <= a < A.SETTLEMENT0:
        return 1.0 + road_weight
    if a == A.PLAY_KNIGHT:
        return 1.0 + knight_weight
    if A.PLAY_ROAD_BUILDING <= a < A.ROBBER0:
        return 11.0
    return 1.0


@njit(cache=True)
def action_weights(s: np.ndarray, p: int, buf: np.ndarray, n: int, out: np.ndarray) -> float:
    """Szita et al.'s weight of each of the n actions in buf for seat p, into out."""
    roads = ROADS_PER_PLAYER - s[ROADS_LEFT + p]
    towns = (SETTLEMENTS_PER_PLAYER - s[SETTLEMENTS_LEFT + p]) + (CITIES_PER_PLAYER - s[CITIES_LEFT + p])
    ratio = roads / max(towns, 1)
    road_weight = 10.0 / 10.0 ** ratio
    knight_weight = 100.0 if _robber_blocks(s, p) else 1.0
    total = 0.0
    for i in range(n):
        out[i] = action_weight(s, p, buf[i], road_weight, knight_weight)
        total += out[i]
    return total


@njit(cache=True)
def _pick_weighted(s: np.ndarray, buf: np.ndarray, n: int, rng: np.ndarray, w: np.ndarray) -> int:
    """Sample by weight; w is scratch space of at least n floats (kept off the hot path's
    allocations)."""
    total = action_weights(s, current_decider(s), buf, n, w)
    x = (randint(rng, 1 << 30) / float(1 << 30)) * total
    for i in range(n):
        x -= w[i]
        if x < 0.0:
            return buf[i]
    return buf[n - 1]


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def pick_action(s: np.ndarray, buf: np.ndarray, n: int, policy: int, rng: np.ndarray, weights: np.ndarray) -> int:
    """The policy's choice among the n legal actions in buf; weights is scratch space of
    at least n floats (used by the weighted policy)."""
    if policy == POLICY_PRUNING:
        return _pick_pruning(s, buf, n, rng)
    if policy == POLICY_WEIGHTED:
        return _pick_weighted(s, buf, n, rng, weights)
    return buf[randint(rng, n)]


@njit(cache=True)
def choose_action(s: np.ndarray, buf: np.ndarray, n: int, policy: int, rng: np.ndarray) -> int:
    return pick_action(s, buf, n, policy, rng, np.empty(n))


@njit(cache=True)
def playout_inplace(s: np.ndarray, policy: int, seed: int, max_turns: int) -> int:
    """Play s to the end (or the turn cap) with the policy; return the number of steps.
    The policy's choices use their own RNG (seeded by seed); chance uses the state's."""
    rng = np.zeros(STATE_SIZE, dtype=np.int64)  # only the RNG slot is used
    seed_rng(rng, seed)
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    weights = np.empty(A.N_ACTIONS)
    steps = 0
    while s[PHASE] != PH_GAME_OVER and s[TURN] <= max_turns:
        if policy == POLICY_RANDOM and s[PHASE] == PH_TRADE_RESPONSE:
            a = random_answer(s, rng)  # the same draw, without the list
        else:
            n = legal_actions(s, buf)
            if policy == POLICY_RANDOM:  # the draw inline: a call passing arrays costs more (cards.py)
                a = buf[randint(rng, n)]
            else:
                a = pick_action(s, buf, n, policy, rng, weights)
        apply_action(s, a, FROM_RNG)
        steps += 1
    return steps


@njit(cache=True)
def playout(state: np.ndarray, policy: int, seed: int, max_turns: int) -> Tuple[np.ndarray, int]:
    """Run a copy of state to the end; return (final VP per seat, winner or -1)."""
    s = state.copy()
    playout_inplace(s, policy, seed, max_turns)
    vp = np.zeros(MAX_PLAYERS, dtype=np.int64)
    for p in range(MAX_PLAYERS):
        vp[p] = total_vp(s, p)
    return vp, s[WINNER]


@njit(cache=True, nogil=True)
def random_games(n_games: int, n_players: int, trade: int, policy: int, seed: int, max_turns: int) -> Tuple[int, int]:
    """Benchmark kernel: n_games new random-board games played to the end.
    Returns (games finished with a winner, total steps).  Releases the GIL, so threads
    play games on several cores at once (``benchmarks/core_throughput.py --threads``)."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    won = 0
    steps = 0
    for g in range(n_games):
        new_random_game(s, n_players, STANDARD_VP, STANDARD_DISCARD_LIMIT, FRIENDLY_ROBBER_OFF, trade,
                        STANDARD_MAX_OFFERS, seed * 1000003 + g)
        steps += playout_inplace(s, policy, seed * 7919 + g, max_turns)
        if s[WINNER] >= 0:
            won += 1
    return won, steps
