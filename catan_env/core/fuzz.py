"""Jitted invariant checks and random-play fuzzing, fast enough for thousands of games.

``invariant_code(s)`` returns 0 when every invariant holds, otherwise the code of the
first violation (see CODES).  ``fuzz_games`` plays uniformly random games and checks the
invariants after every action.  The slow Python twin is ``invariants.problems``.
"""
from typing import Tuple

import numpy as np
from numba import njit

from . import actions as A
from .layout import (
    BANK, CITIES_LEFT, DECIDER, DECK, DECK_START, DEV_USED, E_OWNER, KNIGHTS, KNOW_W, LA_HOLDER,
    LR_HOLDER, MAX_PLAYERS, N_DEV, N_RES, OPT_PLAYERS, PHASE, PH_GAME_OVER, PUBLIC, PUBLIC_VP,
    ROAD_LEN, ROADS_LEFT, SETTLEMENTS_LEFT, STATE_SIZE, TURN, TURN_PLAYER, V_LEVEL, V_OWNER,
    VP_REVEALED, WINNER, dev_i, dev_new_i, hand_i, know_i,
)
from .tables import (CARDS_PER_RESOURCE, CITIES_PER_PLAYER, LARGEST_ARMY_MIN,
                     LONGEST_ROAD_MIN, ROADS_PER_PLAYER, SETTLEMENTS_PER_PLAYER)
from .rng import randint, seed_rng
from .placement import road_length
from .rules import (FROM_RNG, STANDARD_DISCARD_LIMIT, STANDARD_MAX_OFFERS, STANDARD_VP, apply_action,
                    legal_actions, new_random_game, set_rule_variants)
from .topology import N_EDGES, N_VERTICES, VERTEX_VERTICES

CODES = {
    1: "resource not conserved (bank + hands != 19) or negative",
    2: "development cards not conserved",
    3: "pieces on board + supply do not add up",
    4: "cached public VP wrong",
    5: "cached road length wrong",
    6: "knowledge not a true lower bound / sums wrong",
    7: "decider not a seat while the game goes on",
    8: "no legal action before the end",
    9: "distance rule broken",
    10: "game over without a winner",
    11: "longest road / largest army holder below threshold",
}


@njit(cache=True)
def invariant_code(s: np.ndarray) -> int:
    n = s[OPT_PLAYERS]
    for r in range(N_RES):
        tot = s[BANK + r]
        if tot < 0:
            return 1
        for p in range(MAX_PLAYERS):
            h = s[hand_i(p, r)]
            if h < 0 or (p >= n and h != 0):
                return 1
            tot += h
        if tot != CARDS_PER_RESOURCE:
            return 1
    for t in range(N_DEV):
        tot = s[DECK + t] + s[DEV_USED + t]
        for p in range(n):
            if s[dev_new_i(p, t)] > s[dev_i(p, t)] or s[dev_new_i(p, t)] < 0:
                return 2
            tot += s[dev_i(p, t)]
        if tot != s[DECK_START + t] or s[DECK + t] < 0:
            return 2
    k = 0
    for p in range(n):
        k += s[KNIGHTS + p]
    if k != s[DEV_USED]:
        return 2
    for p in range(n):
        roads = 0
        for e in range(N_EDGES):
            if s[E_OWNER + e] == p:
                roads += 1
        setts = 0
        cities = 0
        for v in range(N_VERTICES):
            if s[V_OWNER + v] == p:
                if s[V_LEVEL + v] == 1:
                    setts += 1
                else:
                    cities += 1
        if roads + s[ROADS_LEFT + p] != ROADS_PER_PLAYER \
                or setts + s[SETTLEMENTS_LEFT + p] != SETTLEMENTS_PER_PLAYER \
                or cities + s[CITIES_LEFT + p] != CITIES_PER_PLAYER:
            return 3
        vp = setts + 2 * cities
        if s[LR_HOLDER] == p:
            vp += 2
        if s[LA_HOLDER] == p:
            vp += 2
        if vp + s[VP_REVEALED + p] != s[PUBLIC_VP + p]:
            return 4
        if road_length(s, p) != s[ROAD_LEN + p]:
            return 5
    for i in range(n + 1):
        o = i if i < n else PUBLIC
        for t in range(n):
            tot = 0
            for r in range(KNOW_W):
                x = s[know_i(o, t, r)]
                if x < 0:
                    return 6
                if r < N_RES and x > s[hand_i(t, r)]:
                    return 6
                if o == t and r < N_RES and x != s[hand_i(t, r)]:
                    return 6
                tot += x
            hs = 0
            for r in range(N_RES):
                hs += s[hand_i(t, r)]
            if tot != hs:
                return 6
    for v in range(N_VERTICES):
        if s[V_OWNER + v] >= 0:
            for j in range(3):
                w = VERTEX_VERTICES[v, j]
                if w >= 0 and s[V_OWNER + w] >= 0:
                    return 9
    if s[LR_HOLDER] >= 0 and s[ROAD_LEN + s[LR_HOLDER]] < LONGEST_ROAD_MIN:
        return 11
    if s[LA_HOLDER] >= 0 and s[KNIGHTS + s[LA_HOLDER]] < LARGEST_ARMY_MIN:
        return 11
    if s[PHASE] == PH_GAME_OVER:
        if s[WINNER] < 0 or s[WINNER] >= n:
            return 10
    else:
        if s[DECIDER] < 0 or s[DECIDER] >= n or s[TURN_PLAYER] < 0 or s[TURN_PLAYER] >= n:
            return 7
    return 0


@njit(cache=True)
def fuzz_games(n_games: int, seed: int, max_turns: int, trade: int, sample_every: int, samples: np.ndarray,
               rules: int, sevens: int, deck: np.ndarray) -> Tuple[int, int, int, int, int, int]:
    """Random games with 2-4 players checking invariants after every action, copying
    every sample_every-th state into samples (rows, while room is left) for the slow
    Python checks.  rules, sevens, deck: the rule variants (``GameOptions.rule_variants``).
    Returns (games, steps, first bad game or -1, its code, wins, states sampled)."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    rng = np.zeros(STATE_SIZE, dtype=np.int64)
    seed_rng(rng, seed)
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    steps = 0
    wins = 0
    taken = 0
    for g in range(n_games):
        players = 2 + randint(rng, 3)
        new_random_game(s, players, STANDARD_VP, STANDARD_DISCARD_LIMIT, randint(rng, 2), trade,
                        STANDARD_MAX_OFFERS, seed * 100003 + g)
        set_rule_variants(s, rules, sevens, deck)
        code = invariant_code(s)
        if code:
            return g, steps, g, code, wins, taken
        while s[PHASE] != PH_GAME_OVER and s[TURN] <= max_turns:
            n = legal_actions(s, buf)
            if n == 0:
                return g, steps, g, 8, wins, taken
            apply_action(s, buf[randint(rng, n)], FROM_RNG)
            steps += 1
            if sample_every > 0 and steps % sample_every == 0 and taken < samples.shape[0]:
                samples[taken, :] = s
                taken += 1
            code = invariant_code(s)
            if code:
                return g, steps, g, code, wins, taken
        if s[PHASE] == PH_GAME_OVER:
            wins += 1
    return n_games, steps, -1, 0, wins, taken
