"""Optimal initial placement by backward induction (Christenson, Lobon, Martino:
"Optimal Initial Settlement Placement in Catan: A Game-Theoretic Approach").

Every player maximises the same objective of its two settlements:
  alpha * diversity (distinct resources, max 5)
  + beta * expected cards per roll (sum of the adjacent hexes' dice probabilities)
  + gamma * chance of at least one card per roll (sum over the unique numbers),
default weights (0.5, 0.3, 0.2).  The recursion is the paper's: player p tries every
feasible first settlement, recursively solves players p+1..n, then picks its second
settlement given all later placements (the snake order 1..n, n..1).

Modalities (identical optima; recursive calls counted):
  1 feasibility pruning only;  2 plus memoisation keyed by (player, occupied vertices) -- the keying that reproduces
    the paper's 983,839 calls; ``memo_key="available"`` keys by the set of still-feasible
    vertices instead, which merges more states (983,023 calls) with the same optima;
  3 plus an upper bound from the pair-quality matrix (max over feasible partners of the
    first vertex) and move ordering by single-vertex quality.
Ties are broken toward the lexicographically smallest (first, second) so that the
modalities agree exactly.  ``competitive=True`` maximises own value minus the best
opponent's value (opponents whose second settlement is not placed yet count with what
they have), the paper's suggested extension.
"""
from typing import Any, Iterable, Optional, Sequence, Tuple

import numpy as np
from numba import njit, types
from numba.typed import Dict
from numpy.typing import ArrayLike

from catan_env.core import layout as L
from catan_env.core.placement import adjacent
from catan_env.core.tables import DICE_PROB
from catan_env.core.topology import N_VERTICES, VERTEX_HEXES, VERTEX_VERTICES

P36 = DICE_PROB
EPS = 1e-12
KEY_TYPE = types.UniTuple(types.int64, 2)


def vertex_features(terrain: np.ndarray, numbers: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per vertex: resource bit mask, expected cards per roll, number bit mask."""
    res = np.zeros(N_VERTICES, dtype=np.int64)
    exp = np.zeros(N_VERTICES, dtype=np.float64)
    nums = np.zeros(N_VERTICES, dtype=np.int64)
    for v in range(N_VERTICES):
        for h in VERTEX_HEXES[v]:
            if h >= 0 and terrain[h] != L.DESERT:
                res[v] |= 1 << int(terrain[h])
                exp[v] += P36[numbers[h]]
                nums[v] |= 1 << int(numbers[h])
    return res, exp, nums


@njit(cache=True)
def _popcount(x: int) -> int:
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


@njit(cache=True)
def _number_prob(mask: int) -> float:
    s = 0.0
    for n in range(2, 13):
        if mask & (1 << n):
            s += P36[n]
    return s


@njit(cache=True)
def value(res_mask: int, exp: float, num_mask: int, a: float, b: float, g: float) -> float:
    return a * _popcount(res_mask) + b * exp + g * _number_prob(num_mask)


@njit(cache=True)
def pair_matrix(res: np.ndarray, exp: np.ndarray, nums: np.ndarray, a: float, b: float, g: float) -> np.ndarray:
    """Q[v1, v2]: objective of owning v1 and v2 (-inf when they break the distance rule)."""
    q = np.full((N_VERTICES, N_VERTICES), -np.inf)
    for v in range(N_VERTICES):
        for w in range(N_VERTICES):
            if v == w:
                continue
            if not adjacent(v, w):
                q[v, w] = value(res[v] | res[w], exp[v] + exp[w], nums[v] | nums[w], a, b, g)
    return q


def _block_mask() -> np.ndarray:
    """Bit mask per vertex of itself and its neighbours (plain numpy: no compile at import)."""
    out = np.zeros(N_VERTICES, dtype=np.int64)
    for v in range(N_VERTICES):
        m = 1 << v
        for w in VERTEX_VERTICES[v]:
            if w >= 0:
                m |= 1 << int(w)
        out[v] = m
    return out


BLOCK = _block_mask()
FULL = (np.int64(1) << N_VERTICES) - 1  # one bit per vertex


@njit(cache=True)
def _player_value(q: np.ndarray, single: np.ndarray, firsts: np.ndarray, seconds: np.ndarray, p: int) -> float:
    if firsts[p] < 0:
        return 0.0
    if seconds[p] < 0:
        return single[firsts[p]]
    return q[firsts[p], seconds[p]]


@njit(cache=True)
def _score(q: np.ndarray, single: np.ndarray, firsts: np.ndarray, seconds: np.ndarray, p: int, n: int,
           competitive: bool) -> float:
    own = q[firsts[p], seconds[p]]
    if not competitive:
        return own
    best_other = -np.inf
    for o in range(n):
        if o != p:
            x = _player_value(q, single, firsts, seconds, o)
            if x > best_other:
                best_other = x
    return own - best_other


@njit(cache=True)
def _better(obj: float, v1: int, v2: int, best: float, b1: int, b2: int) -> bool:
    if obj > best + EPS:
        return True
    if obj >= best - EPS and (v1 < b1 or (v1 == b1 and v2 < b2)):
        return True
    return False


# The recursive kernel is compiled per process: numba segfaults when it reloads a
# cached self-recursive function (seen with numba 0.68), so no cache=True here.
@njit(cache=False)
def _solve(avail: np.int64, occ: np.int64, p: int, n: int, q: np.ndarray, single: np.ndarray, order: np.ndarray,
           firsts: np.ndarray, seconds: np.ndarray, use_memo: bool, use_bound: bool, competitive: bool,
           key_by_available: bool, memo_keys: Any, memo_store: np.ndarray, counter: np.ndarray) -> np.int64:
    """Place first settlements of players p..n-1 and seconds of n-1..p optimally.
    firsts/seconds: in-out arrays (earlier players' firsts are set); returns the
    availability after all placements made here (or -1 when no placement exists)."""
    counter[0] += 1
    if p == n:
        return avail
    key0 = (avail if key_by_available else occ) | (np.int64(p) << N_VERTICES)
    key1 = np.int64(0)
    if competitive:
        for o in range(p):
            key1 = key1 * 64 + firsts[o] + 1
    if use_memo:
        k = (key0, key1)
        if k in memo_keys:
            idx = memo_keys[k]
            for o in range(p, n):
                firsts[o] = memo_store[idx, 2 * o]
                seconds[o] = memo_store[idx, 2 * o + 1]
            return memo_store[idx, 2 * n]
    best = -np.inf
    b1 = 99
    b2 = 99
    best_after = np.int64(-1)
    keep_f = np.full(n, -1, dtype=np.int64)
    keep_s = np.full(n, -1, dtype=np.int64)
    for i in range(N_VERTICES):
        v1 = order[i]
        if not (avail >> v1) & 1:
            continue
        after_first = avail & ~BLOCK[v1]
        if use_bound:
            ub = -np.inf
            for w in range(N_VERTICES):
                if (after_first >> w) & 1 and q[v1, w] > ub:
                    ub = q[v1, w]
            if competitive:
                worst = 0.0
                for o in range(p):
                    x = _player_value(q, single, firsts, seconds, o)
                    if x > worst:
                        worst = x
                ub -= worst
            if ub < best - EPS:
                continue
        firsts[p] = v1
        seconds[p] = -1
        rest = _solve(after_first, occ | (np.int64(1) << v1), p + 1, n, q, single, order, firsts,
                      seconds, use_memo, use_bound, competitive, key_by_available, memo_keys,
                      memo_store, counter)
        if rest < 0:
            continue
        # second settlement given every later placement
        v2 = -1
        best_v2 = -np.inf
        for w in range(N_VERTICES):
            if (rest >> w) & 1 and q[v1, w] > best_v2 + EPS:
                best_v2 = q[v1, w]
                v2 = w
        if v2 < 0:
            continue
        seconds[p] = v2
        obj = _score(q, single, firsts, seconds, p, n, competitive)
        if _better(obj, v1, v2, best, b1, b2):
            best = obj
            b1 = v1
            b2 = v2
            best_after = rest & ~BLOCK[v2]
            for o in range(p, n):
                keep_f[o] = firsts[o]
                keep_s[o] = seconds[o]
    for o in range(p, n):
        firsts[o] = keep_f[o]
        seconds[o] = keep_s[o]
    if use_memo:
        idx = len(memo_keys)
        if idx < memo_store.shape[0]:
            memo_keys[(key0, key1)] = idx
            for o in range(p, n):
                memo_store[idx, 2 * o] = keep_f[o]
                memo_store[idx, 2 * o + 1] = keep_s[o]
            memo_store[idx, 2 * n] = best_after
    return best_after


@njit(cache=False)
def solve_kernel(q: np.ndarray, single: np.ndarray, order: np.ndarray, n: int, occupied_mask: np.int64,
                 use_memo: bool, use_bound: bool, competitive: bool, memo_size: int,
                 key_by_available: bool) -> Tuple[np.ndarray, np.ndarray, int]:
    firsts = np.full(n, -1, dtype=np.int64)
    seconds = np.full(n, -1, dtype=np.int64)
    avail = FULL
    for v in range(N_VERTICES):
        if (occupied_mask >> v) & 1:
            avail &= ~BLOCK[v]
    memo_keys = Dict.empty(key_type=KEY_TYPE, value_type=types.int64)
    memo_store = np.zeros((memo_size if use_memo else 1, 2 * n + 1), dtype=np.int64)
    counter = np.zeros(1, dtype=np.int64)
    _solve(avail, occupied_mask, 0, n, q, single, order, firsts, seconds, use_memo, use_bound,
           competitive, key_by_available, memo_keys, memo_store, counter)
    return firsts, seconds, counter[0]


class OpeningSolver:
    """Solve a board's set-up placements; usable by any agent for its opening."""

    def __init__(self, weights: Sequence[float] = (0.5, 0.3, 0.2), modality: int = 3, competitive: bool = False,
                 memo_size: Optional[int] = None, memo_key: str = "occupied") -> None:
        if modality not in (1, 2, 3):
            raise ValueError(f"modality must be 1, 2 or 3, got {modality!r}")
        if len(weights) != 3:
            raise ValueError("weights must be (alpha, beta, gamma)")
        self.weights = tuple(float(w) for w in weights)
        self.modality = modality
        self.competitive = bool(competitive)
        # memo capacity: a full table for modality 2 (~1M states), a small one for the
        # pruned solver; when it fills, results are simply not cached (still exact)
        self.memo_size = int(memo_size) if memo_size else (1_200_000 if modality == 2 else 50_000)
        if memo_key not in ("occupied", "available"):
            raise ValueError(f"memo_key must be 'occupied' or 'available', got {memo_key!r}")
        self.memo_key = memo_key

    def tables(self, terrain: ArrayLike, numbers: ArrayLike) -> Tuple[np.ndarray, np.ndarray]:
        res, exp, nums = vertex_features(np.asarray(terrain), np.asarray(numbers))
        q = pair_matrix(res, exp, nums, *self.weights)
        single = np.array([value(res[v], exp[v], nums[v], *self.weights) for v in range(N_VERTICES)])
        return q, single

    def solve(self, terrain: ArrayLike, numbers: ArrayLike, players: int = 4,
              occupied: Iterable[int] = ()) -> dict[str, Any]:
        """Return dict(first=[...], second=[...], objective=[...], calls=int) per player
        (player 0 is the first to place).  occupied: vertices already taken."""
        q, single = self.tables(terrain, numbers)
        order = np.arange(N_VERTICES, dtype=np.int64)
        if self.modality == 3:
            order = np.array(sorted(range(N_VERTICES), key=lambda v: (-single[v], v)), dtype=np.int64)
        occ = 0
        for v in occupied:
            occ |= 1 << int(v)
        firsts, seconds, calls = solve_kernel(q, single, order, int(players), np.int64(occ),
                                              self.modality >= 2, self.modality == 3,
                                              self.competitive, self.memo_size,
                                              self.memo_key == "available")
        objective = [float(q[f, s]) if f >= 0 and s >= 0 else float("nan")
                     for f, s in zip(firsts, seconds)]
        return {"first": [int(x) for x in firsts], "second": [int(x) for x in seconds],
                "objective": objective, "calls": int(calls)}

    def solve_state(self, state: np.ndarray) -> dict[str, Any]:
        terrain, numbers = L.view(state, "hex_terrain"), L.view(state, "hex_number")
        return self.solve(terrain, numbers, int(state[L.OPT_PLAYERS]))

    def best_settlement(self, state: np.ndarray, seat: int) -> int:
        """The solver's choice for seat's next set-up settlement in the current state:
        placements already made are fixed; the remaining snake is solved."""
        terrain, numbers = L.view(state, "hex_terrain"), L.view(state, "hex_number")
        q, single = self.tables(terrain, numbers)
        owner = L.view(state, "v_owner")
        n = int(state[L.OPT_PLAYERS])
        step = int(state[L.SETUP_STEP])
        mine = [int(v) for v in np.flatnonzero(owner == seat)]
        if step >= n:  # second round: best partner among what is left
            free = [v for v in range(N_VERTICES) if owner[v] < 0 and all(
                w < 0 or owner[w] < 0 for w in VERTEX_VERTICES[v])]
            return max(free, key=lambda v: (q[mine[0], v], -v)) if mine else \
                max(free, key=lambda v: (single[v], -v))
        # first round: solve the remaining players (seat first) on the occupied board
        occupied = [int(v) for v in np.flatnonzero(owner >= 0)]
        res = self.solve(terrain, numbers, players=n - step, occupied=occupied)
        return res["first"][0]
