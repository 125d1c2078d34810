"""Where pieces may go and what they are worth: longest road (the longest trail, cut by
opponents' buildings) with the holder / tie / set-aside rules, largest army, and the
road and settlement placement rules."""
from typing import Tuple

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros
from .jit_options import NO_RUNTIME, RUNTIME

from .layout import (
    E_OWNER, KNIGHTS, LA_HOLDER, LR_HOLDER, OPT_PLAYERS, PUBLIC_VP, ROAD_LEN, ROADS_LEFT,
    SETTLEMENTS_LEFT, CITIES_LEFT, V_LEVEL, V_OWNER,
)
from .tables import HOLDER_BONUS_VP, LARGEST_ARMY_MIN, LONGEST_ROAD_MIN
from .topology import EDGE_VERTICES, HEX_VERTICES, N_EDGES, N_VERTICES, VERTEX_EDGES, VERTEX_VERTICES


def _neighbour_masks() -> np.ndarray:
    out = np.zeros(N_VERTICES, np.int64)
    for v in range(N_VERTICES):
        for w in VERTEX_VERTICES[v]:
            if w >= 0:
                out[v] |= np.int64(1) << np.int64(w)
    out.setflags(write=False)
    return out


NEIGHBOUR_MASK = _neighbour_masks()  # bit w of row v: w shares an edge with v
HEX_VERTEX_MASK = np.array([sum(1 << int(v) for v in vs) for vs in HEX_VERTICES], dtype=np.int64)
HEX_VERTEX_MASK.setflags(write=False)  # bit v of row h: v is a corner of hex h
EDGE_END_MASK = np.array([(1 << int(a)) | (1 << int(b)) for a, b in EDGE_VERTICES], dtype=np.int64)
EDGE_END_MASK.setflags(write=False)  # the two ends of edge e as a vertex bitmask
BIT = np.array([1 << i for i in range(63)], dtype=np.int64)
BIT.setflags(write=False)  # 1 << i for a vertex or hex i: a table, so the mask scans vectorise


@njit(cache=True)
def adjacent(v: int, w: int) -> bool:
    """Vertices v and w share an edge."""
    for k in range(3):
        if VERTEX_VERTICES[v, k] == w:
            return True
    return False


# ---------------------------------------------------------------- longest road
@njit(cache=True)
def _longest_from(s: np.ndarray, p: int, start: int, used: np.ndarray, stack_v: np.ndarray, stack_k: np.ndarray,
                  stack_e: np.ndarray, seen: np.ndarray, best: int) -> int:
    """Depth-first enumeration of p's trails from start; returns max(best, longest).
    Marks every vertex reached in seen."""
    depth = 0
    stack_v[0] = start
    stack_k[0] = 0
    stack_e[0] = -1
    seen[start] = 1
    while depth >= 0:
        v = stack_v[depth]
        k = stack_k[depth]
        blocked = depth > 0 and s[V_OWNER + v] >= 0 and s[V_OWNER + v] != p
        if k >= 3 or blocked:
            if depth > 0:
                used[stack_e[depth]] = 0
            depth -= 1
            continue
        stack_k[depth] = k + 1
        e = VERTEX_EDGES[v, k]
        if e < 0 or s[E_OWNER + e] != p or used[e] != 0:
            continue
        used[e] = 1
        w = EDGE_VERTICES[e, 0]
        if w == v:
            w = EDGE_VERTICES[e, 1]
        depth += 1
        stack_v[depth] = w
        stack_k[depth] = 0
        stack_e[depth] = e
        seen[w] = 1
        if depth > best:
            best = depth
    return best


@njit(cache=True, **RUNTIME)  # allocates: keeps numba's runtime (batched.runtime_check)
def road_length(s: np.ndarray, p: int) -> int:
    """Longest trail of p's roads; opponents' buildings cut it (a trail may end there).

    Trails are enumerated only from vertices where a longest one can start: an end of a
    road (one of p's roads there), a fork (three), or an opponent's building.  A longest
    trail starting at an unblocked vertex with two roads either extends backwards (so it
    was not longest) or is closed, and a closed trail can be started at any of its
    vertices; only a component that is one bare cycle has no such vertex, and is then
    searched from any of its vertices.  (Checked against the exhaustive reference.)"""
    scratch = np.zeros(N_EDGES + 3 * 17 + 2 * N_VERTICES, dtype=np.int64)  # one allocation
    used = scratch[:N_EDGES]
    stack_v = scratch[N_EDGES:N_EDGES + 17]
    stack_k = scratch[N_EDGES + 17:N_EDGES + 34]
    stack_e = scratch[N_EDGES + 34:N_EDGES + 51]
    degree = scratch[N_EDGES + 51:N_EDGES + 51 + N_VERTICES]
    seen = scratch[N_EDGES + 51 + N_VERTICES:]
    for e in range(N_EDGES):
        if s[E_OWNER + e] == p:
            degree[EDGE_VERTICES[e, 0]] += 1
            degree[EDGE_VERTICES[e, 1]] += 1
    best = np.int64(0)  # not a literal: one compiled version of _longest_from
    for start in range(N_VERTICES):
        owner = s[V_OWNER + start]
        if degree[start] == 0 or (degree[start] == 2 and not (owner >= 0 and owner != p)):
            continue
        best = _longest_from(s, p, start, used, stack_v, stack_k, stack_e, seen, best)
    for start in range(N_VERTICES):   # components that are bare cycles
        if degree[start] > 0 and seen[start] == 0:
            best = _longest_from(s, p, start, used, stack_v, stack_k, stack_e, seen, best)
    return best


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _walk(s: np.ndarray, p: int, start: int, first: int) -> int:
    """Roads of p walked from vertex start away from edge first while the way is forced:
    each vertex passed is free of opponents' buildings and has exactly two of p's roads.
    Returns the edges walked, or -1 when a fork or a cycle makes the way not forced."""
    v, came, walked = start, first, 0
    while True:
        owner = s[V_OWNER + v]
        if owner >= 0 and owner != p:
            return walked  # an opponent's building: trails end here
        nxt = -1
        for k in range(3):
            f = VERTEX_EDGES[v, k]
            if f >= 0 and f != came and s[E_OWNER + f] == p:
                if nxt >= 0:
                    return -1  # a fork
                nxt = f
        if nxt < 0:
            return walked  # the road ends here
        if nxt == first:
            return -1  # around a cycle, back to the start
        walked += 1
        came = nxt
        v = EDGE_VERTICES[nxt, 0] + EDGE_VERTICES[nxt, 1] - v


MAX_TRAIL = 15  # a seat has 15 roads: no trail is longer, which bounds the recursions


@njit(cache=True)
def _edge_bit(e: int) -> Tuple[int, int]:
    """(low word, high word) of edge e in a two-word edge bitmask (72 edges)."""
    if e < 64:
        return np.int64(1) << e, np.int64(0)
    return np.int64(0), np.int64(1) << (e - 64)


@njit(cache=True)
def _free_for(s: np.ndarray, p: int, v: int) -> bool:
    """A trail of p may pass through vertex v: no opponent's building there."""
    owner = s[V_OWNER + v]
    return owner < 0 or owner == p


@njit(cache=True, **RUNTIME)  # allocates: keeps numba's runtime (batched.runtime_check)
def longest_through(s: np.ndarray, p: int, e: int) -> int:
    """Longest trail of p's roads that uses p's road e, by one depth-first search over
    explicit stacks (numba caches no recursion).  It walks on from e's second end; at
    each vertex of that walk, once its roads are tried, the trail turns back (a frame
    with no road) and walks on from e's first end, avoiding the edges already used."""
    size = 2 * MAX_TRAIL + 2
    stacks = np.empty(3 * size, dtype=np.int64)
    stack_v, stack_k, stack_e = stacks[:size], stacks[size:2 * size], stacks[2 * size:]
    back = EDGE_VERTICES[e, 0]
    back_free = _free_for(s, p, back)
    used_lo, used_hi = _edge_bit(e)
    stack_v[0] = EDGE_VERTICES[e, 1]
    stack_k[0] = 0 if _free_for(s, p, stack_v[0]) else 3  # blocked: the trail ends on e
    stack_e[0] = -1  # frames that walked no road: the first and the turn
    turned = -1  # the turn's depth while the trail walks on from e's first end
    best = 1
    depth = 0
    while depth >= 0:
        v = stack_v[depth]
        k = stack_k[depth]
        if k == 3 and turned < 0 and back_free:
            stack_k[depth] = 4
            depth += 1
            turned = depth
            stack_v[depth] = back
            stack_k[depth] = 0
            stack_e[depth] = -1
            continue
        if k >= 3:
            if stack_e[depth] >= 0:
                lo, hi = _edge_bit(stack_e[depth])
                used_lo &= ~lo
                used_hi &= ~hi
            if depth == turned:
                turned = -1
            depth -= 1
            continue
        stack_k[depth] = k + 1
        f = VERTEX_EDGES[v, k]
        if f < 0 or s[E_OWNER + f] != p:
            continue
        lo, hi = _edge_bit(f)
        if (used_lo & lo) | (used_hi & hi):
            continue
        used_lo |= lo
        used_hi |= hi
        depth += 1
        stack_v[depth] = EDGE_VERTICES[f, 0] + EDGE_VERTICES[f, 1] - v
        stack_k[depth] = 0 if _free_for(s, p, stack_v[depth]) else 3  # an opponent's building
        stack_e[depth] = f
        length = depth + 1 if turned < 0 else depth  # e and the roads walked (not the turn)
        if length > best:
            best = length
    return best


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def longest_after_road(s: np.ndarray, p: int, e: int) -> int:
    """p's longest trail right after p's road e was added, given ROAD_LEN from before.

    A new trail must use e, so the answer is max(the old length, the longest trail
    through e).  When the roads on both sides of e run without a fork or a cycle, that
    trail is the whole run, found by walking; otherwise by a search of the trails through
    e only.  Tests check both against the exhaustive reference, road by road."""
    a = _walk(s, p, EDGE_VERTICES[e, 0], e)
    if a >= 0:
        b = _walk(s, p, EDGE_VERTICES[e, 1], e)
        if b >= 0:
            return max(s[ROAD_LEN + p], a + b + 1)
    return max(s[ROAD_LEN + p], longest_through(s, p, e))


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def update_longest_road(s: np.ndarray) -> None:
    """Apply the holder / strictly-longer / tie / set-aside rules to ROAD_LEN."""
    n = s[OPT_PLAYERS]
    best = 0
    for p in range(n):
        if s[ROAD_LEN + p] > best:
            best = s[ROAD_LEN + p]
    count = 0
    leader = -1
    for p in range(n):
        if s[ROAD_LEN + p] == best:
            count += 1
            leader = p
    holder = s[LR_HOLDER]
    if holder >= 0 and s[ROAD_LEN + holder] == best and best >= LONGEST_ROAD_MIN:
        return
    new = -1
    if best >= LONGEST_ROAD_MIN and count == 1:
        new = leader
    if new != holder:
        if holder >= 0:
            s[PUBLIC_VP + holder] -= HOLDER_BONUS_VP
        if new >= 0:
            s[PUBLIC_VP + new] += HOLDER_BONUS_VP
        s[LR_HOLDER] = new


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def update_largest_army(s: np.ndarray, p: int) -> None:
    k = s[KNIGHTS + p]
    h = s[LA_HOLDER]
    if k >= LARGEST_ARMY_MIN and h != p and (h < 0 or k > s[KNIGHTS + h]):
        if h >= 0:
            s[PUBLIC_VP + h] -= HOLDER_BONUS_VP
        s[LA_HOLDER] = p
        s[PUBLIC_VP + p] += HOLDER_BONUS_VP


# ---------------------------------------------------------------- placement rules
@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def distance_ok(s: np.ndarray, v: int) -> bool:
    if s[V_OWNER + v] >= 0:
        return False
    for k in range(3):
        w = VERTEX_VERTICES[v, k]
        if w >= 0 and s[V_OWNER + w] >= 0:
            return False
    return True


@njit(cache=True)
def touches_own_road(s: np.ndarray, p: int, v: int) -> bool:
    for k in range(3):
        e = VERTEX_EDGES[v, k]
        if e >= 0 and s[E_OWNER + e] == p:
            return True
    return False


@njit(cache=True)
def road_spot_ok(s: np.ndarray, p: int, e: int) -> bool:
    """Edge e is empty and connects to p's building or to p's road through a free vertex."""
    if s[E_OWNER + e] >= 0:
        return False
    for j in range(2):
        v = EDGE_VERTICES[e, j]
        owner = s[V_OWNER + v]
        if owner == p:
            return True
        if owner < 0:
            for k in range(3):
                f = VERTEX_EDGES[v, k]
                if f >= 0 and f != e and s[E_OWNER + f] == p:
                    return True
    return False


@njit(cache=True)
def settlement_spot_ok(s: np.ndarray, p: int, v: int) -> bool:
    return distance_ok(s, v) and touches_own_road(s, p, v)


# Vertex sets as bitmasks (54 vertices fit one int64; bit v is vertex v), so the main
# phase's legal builds come from a pass over the vertices and one over the edges instead
# of a placement test per vertex and per edge (the tests compare them with the reference).
# inline='always' below: see the note in cards.py (calls passing the state cost atomic refcounts)
@njit(cache=True, inline='always')
def building_mask(s: np.ndarray, p: int) -> int:
    """p's buildings as a vertex bitmask (branch-free, vectorised)."""
    own = np.int64(0)
    for v in range(N_VERTICES):
        own |= BIT[v] & -np.int64(s[V_OWNER + v] == p)
    return own


@njit(cache=True, inline='always')
def vertex_masks(s: np.ndarray, p: int) -> Tuple[int, int, int]:
    """(occupied vertices, p's buildings, p's settlements) as vertex bitmasks.  Branch-free
    loops of one output each, which LLVM vectorises (measured 45 ns against 55-70 ns for
    one branching loop)."""
    occupied = np.int64(0)
    for v in range(N_VERTICES):
        occupied |= BIT[v] & -np.int64(s[V_OWNER + v] >= 0)
    own = building_mask(s, p)
    cities = np.int64(0)
    for v in range(N_VERTICES):
        cities |= BIT[v] & -np.int64(s[V_LEVEL + v] == 2)
    return occupied, own, own & ~cities


@njit(cache=True, inline='always')
def road_ends(s: np.ndarray, p: int) -> int:
    """Vertices that p's roads touch, as a bitmask (branch-free, vectorised: 12 ns against
    55 ns for a branching loop)."""
    touched = np.int64(0)
    for e in range(N_EDGES):
        touched |= EDGE_END_MASK[e] & -np.int64(s[E_OWNER + e] == p)
    return touched


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def lowest_bit(mask: int) -> int:
    """Index of the lowest set bit of a non-empty bitmask (a vertex, or an edge of a mask
    of edges)."""
    return trailing_zeros(mask)  # type: ignore[call-arg]  # (a numba intrinsic, typed when compiled)


@njit(cache=True, inline='always')
def settlement_spots(occupied: int, touched: int) -> int:
    """Vertices where p may build a settlement: free, no neighbour occupied, on p's road."""
    spots = np.int64(0)
    rest = touched & ~occupied
    while rest != 0:
        v = lowest_bit(rest)
        rest &= rest - 1
        if NEIGHBOUR_MASK[v] & occupied == 0:
            spots |= np.int64(1) << v
    return spots


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def road_reach(s: np.ndarray, p: int) -> int:
    """Bit v set when a road of p may end at vertex v: p's building there, or an empty
    vertex that one of p's roads touches.  An empty edge is a legal road spot iff one of
    its ends is in the reach: the same rule as ``road_spot_ok``, for all edges at once."""
    occupied, own, _ = vertex_masks(s, p)
    return own | (road_ends(s, p) & ~occupied)


@njit(cache=True, inline='always')
def road_spots(s: np.ndarray, reach: int) -> Tuple[int, int]:
    """Empty edges with an end in reach (p's road_reach): p's legal road spots, as two
    bitmasks (edges 0-63, edges 64-71)."""
    low = np.int64(0)
    high = np.int64(0)
    rest = reach
    while rest != 0:
        v = lowest_bit(rest)
        rest &= rest - 1
        for k in range(3):
            e = VERTEX_EDGES[v, k]
            if e >= 0 and s[E_OWNER + e] < 0:
                if e < 64:
                    low |= np.int64(1) << e
                else:
                    high |= np.int64(1) << (e - 64)
    return low, high


@njit(cache=True)
def road_spot_in(s: np.ndarray, reach: int, e: int) -> bool:
    """road_spot_ok(s, p, e) given p's road_reach."""
    return s[E_OWNER + e] < 0 and (((reach >> EDGE_VERTICES[e, 0]) | (reach >> EDGE_VERTICES[e, 1])) & 1) == 1


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def any_road_spot(s: np.ndarray, p: int) -> bool:
    low, high = road_spots(s, road_reach(s, p))
    return low != 0 or high != 0


# ---------------------------------------------------------------- placing pieces
@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _recut_roads_at(s: np.ndarray, v: int) -> None:
    """A building on v may cut opponents' roads through v: recompute and re-award."""
    p_built = s[V_OWNER + v]
    for q in range(s[OPT_PLAYERS]):
        if q == p_built:
            continue
        cnt = 0
        for k in range(3):
            e = VERTEX_EDGES[v, k]
            if e >= 0 and s[E_OWNER + e] == q:
                cnt += 1
        if cnt >= 2:
            s[ROAD_LEN + q] = road_length(s, q)
    update_longest_road(s)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def place_settlement(s: np.ndarray, p: int, v: int) -> None:
    """Put p's settlement on v (no payment): VP, supply, and the roads it cuts."""
    s[V_OWNER + v] = p
    s[V_LEVEL + v] = 1
    s[SETTLEMENTS_LEFT + p] -= 1
    s[PUBLIC_VP + p] += 1
    _recut_roads_at(s, v)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def place_road(s: np.ndarray, p: int, e: int) -> None:
    """Put p's road on e (no payment): supply, road length and the longest-road card."""
    s[E_OWNER + e] = p
    s[ROADS_LEFT + p] -= 1
    s[ROAD_LEN + p] = longest_after_road(s, p, e)
    update_longest_road(s)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def upgrade_to_city(s: np.ndarray, p: int, v: int) -> None:
    """Turn p's settlement on v into a city (no payment): VP and supply."""
    s[V_LEVEL + v] = 2
    s[SETTLEMENTS_LEFT + p] += 1
    s[CITIES_LEFT + p] -= 1
    s[PUBLIC_VP + p] += 1
