"""JSettlers-style building-speed estimates, jitted (the opening search calls them
tens of thousands of times).

Resources are in engine order (brick, lumber, wool, grain, ore).  ``R[r]`` is the
rolls-per-card of resource r (55555 when the player has no production of it); ``ports``
is a bit set (bit r: 2:1 harbour of r, bit 5: a 3:1 harbour).
"""
from typing import Tuple

import numpy as np
from numba import njit

from catan_env.core.layout import DESERT
from catan_env.core.placement import adjacent
from catan_env.core.rules import rate_from_bits
from catan_env.core.tables import CITY_COST, DEV_COST, ROAD_COST, SETTLEMENT_COST
from catan_env.core.topology import (EDGE_VERTICES, N_PORTS, N_VERTICES, VERTEX_EDGES, VERTEX_HEXES,
                                     VERTEX_VERTICES)

# JSettlers' own rounded dice percentages (its estimates use them, not the exact 36ths)
PIP_PCT = np.array([0, 0, 3, 6, 8, 11, 14, 17, 14, 11, 8, 6, 3], dtype=np.int64)
P_DICE = PIP_PCT / 100.0
# JSettlers' tie-break order brick, ore, wool, grain, lumber as engine indices
TIE_ORDER = np.array([0, 4, 2, 3, 1], dtype=np.int64)
NONE = 55555

SETTLEMENT = SETTLEMENT_COST
CITY = CITY_COST
ROAD = ROAD_COST
CARD = DEV_COST
PIECES = np.stack([SETTLEMENT, CITY, ROAD, CARD])  # ETA table order: settlement, city, road, card
# the opening search's arguments as numpy scalars, not Python literals: numba compiles a
# separate version of a function for each literal argument it is called with
EXCLUDE_ROBBER = np.bool_(True)
OPENING_CUTOFF = np.int64(40)  # ETAs past this many rolls count as never


@njit(cache=True)
def rolls_per_resource(terrain: np.ndarray, numbers: np.ndarray, robber: int, vertices: np.ndarray,
                       levels: np.ndarray, exclude_robber: "bool | np.bool_") -> np.ndarray:
    """R[r] for a player whose buildings are on vertices (levels 1 or 2)."""
    prob = np.zeros(5)
    for i in range(vertices.shape[0]):
        v = vertices[i]
        for k in range(3):
            h = VERTEX_HEXES[v, k]
            if h < 0 or terrain[h] == DESERT or (exclude_robber and h == robber):
                continue
            prob[terrain[h]] += P_DICE[numbers[h]] * levels[i]
    out = np.empty(5, dtype=np.int64)
    for r in range(5):  # at least one roll per card: more than 2 cards per roll rounds to 0
        out[r] = NONE if prob[r] <= 0 else max(1, int(np.round(1.0 / prob[r])))
    return out


@njit(cache=True)
def _trade_step(have: np.ndarray, need: np.ndarray, R: np.ndarray, ports: int) -> None:
    """Bank/port trades turning surplus into the rarest missing type until covered."""
    while True:
        covered = True
        best_r = -1
        for r in range(5):
            if have[r] < need[r]:
                covered = False
                if best_r < 0 or R[r] > R[best_r]:
                    best_r = r
        if covered:
            return
        traded = False
        for i in range(5):
            g = TIE_ORDER[i]
            ratio = rate_from_bits(ports, g)
            if have[g] - need[g] >= ratio:
                have[g] -= ratio
                have[best_r] += 1
                traded = True
                break
        if not traded:
            return


@njit(cache=True)
def eta(R: np.ndarray, ports: int, hand: np.ndarray, target: np.ndarray, cutoff: int) -> int:
    """Rolls until the target cost is covered (the fast estimate); cutoff if never."""
    have = hand.copy()
    _trade_step(have, target, R, ports)
    t = 0
    while True:
        ok = True
        for r in range(5):
            if have[r] < target[r]:
                ok = False
        if ok:
            return t
        t += 1
        if t > cutoff:
            return cutoff
        for r in range(5):
            if R[r] < NONE and t % R[r] == 0:
                have[r] += 1
        _trade_step(have, target, R, ports)


@njit(cache=True)
def eta_table(R: np.ndarray, ports: int, hand: np.ndarray, cutoff: int) -> np.ndarray:
    """ETAs of settlement, city, road, card."""
    out = np.empty(4, dtype=np.int64)
    for k in range(4):
        out[k] = eta(R, ports, hand, PIECES[k], cutoff)
    return out


@njit(cache=True)
def port_bits(port_type: np.ndarray, port_verts: np.ndarray, vertices: np.ndarray) -> int:
    """Harbours (types, their (9, 2) vertices) touching any of vertices, as the core's bit
    set (see rules.port_bits)."""
    bits = 0
    for i in range(N_PORTS):
        for j in range(2):
            for k in range(vertices.shape[0]):
                if port_verts[i, j] == vertices[k]:
                    bits |= 1 << port_type[i]
    return bits


@njit(cache=True)
def node_pips(terrain: np.ndarray, numbers: np.ndarray, v: int) -> int:
    s = 0
    for k in range(3):
        h = VERTEX_HEXES[v, k]
        if h >= 0 and terrain[h] != DESERT:
            s += PIP_PCT[numbers[h]]
    return s


@njit(cache=True)
def best_opening_pair(terrain: np.ndarray, numbers: np.ndarray, robber: int, port_type: np.ndarray,
                      port_verts: np.ndarray, candidates: np.ndarray, fixed: int, own_v: np.ndarray,
                      own_l: np.ndarray) -> Tuple[int, int, int]:
    """JSettlers' opening pair search.  With fixed < 0: best pair (a, b) of candidate
    nodes; with fixed >= 0: best partner b for the fixed node.  own_v/own_l: the
    player's existing buildings (none in round one).  Returns (a, b, score)."""
    zero = np.zeros(5, dtype=np.int64)
    best = 160
    best_pips = -1
    ba, bb = -1, -1
    n = candidates.shape[0]
    m = own_v.shape[0]
    verts = np.empty(m + 2, dtype=np.int64)
    levels = np.ones(m + 2, dtype=np.int64)
    for i in range(m):
        verts[i] = own_v[i]
        levels[i] = own_l[i]
    for i in range(n):
        a = candidates[i] if fixed < 0 else fixed
        for j in range(i + 1 if fixed < 0 else 0, n):
            b = candidates[j]
            if b == a:
                continue
            if adjacent(a, b):
                continue
            verts[m] = a
            verts[m + 1] = b
            R = rolls_per_resource(terrain, numbers, robber, verts, levels, EXCLUDE_ROBBER)
            ports = port_bits(port_type, port_verts, verts)
            score = 0
            complete = True
            for k in range(4):
                score += eta(R, ports, zero, PIECES[k], OPENING_CUTOFF)
                if score >= best and k < 3:
                    complete = False
                    break
            if not complete:
                continue
            pips = node_pips(terrain, numbers, a) + node_pips(terrain, numbers, b)
            if score < best or (score == best and pips > best_pips):
                best = score
                best_pips = pips
                ba, bb = a, b
        if fixed >= 0:
            break
    return ba, bb, best


@njit(cache=True)
def spot_roads(v_owner: np.ndarray, e_owner: np.ndarray, p: int, max_roads: int, out: np.ndarray) -> None:
    """out[v] = the fewest roads p must build to settle on v (at most max_roads), or -1
    where p cannot settle within that: a breadth-first search over empty edges from p's
    network that stops at opponents' buildings.  The jitted twin of
    ``planning.settlement_spots`` (which also returns the paths), checked against it."""
    dist = np.full(N_VERTICES, -1, np.int64)
    queue = np.empty(N_VERTICES, np.int64)
    n = 0
    for e in range(e_owner.shape[0]):
        if e_owner[e] == p:
            for k in range(2):
                v = EDGE_VERTICES[e, k]
                if (v_owner[v] < 0 or v_owner[v] == p) and dist[v] < 0:
                    dist[v] = 0
                    queue[n] = v
                    n += 1
    for v in range(N_VERTICES):
        if v_owner[v] == p and dist[v] < 0:
            dist[v] = 0
            queue[n] = v
            n += 1
    head = 0
    while head < n:
        v = queue[head]
        head += 1
        if dist[v] >= max_roads or (v_owner[v] >= 0 and v_owner[v] != p):
            continue
        for k in range(VERTEX_EDGES.shape[1]):
            e = VERTEX_EDGES[v, k]
            if e < 0 or e_owner[e] >= 0:
                continue
            w = EDGE_VERTICES[e, 1] if EDGE_VERTICES[e, 0] == v else EDGE_VERTICES[e, 0]
            if dist[w] < 0:
                dist[w] = dist[v] + 1
                queue[n] = w
                n += 1
    for v in range(N_VERTICES):
        out[v] = -1
        if dist[v] < 0 or v_owner[v] >= 0:
            continue
        free = True
        for k in range(VERTEX_VERTICES.shape[1]):
            w = VERTEX_VERTICES[v, k]
            if w >= 0 and v_owner[w] >= 0:
                free = False
        if not free:
            continue
        if dist[v] == 0:
            touches = False
            for k in range(VERTEX_EDGES.shape[1]):
                e = VERTEX_EDGES[v, k]
                if e >= 0 and e_owner[e] == p:
                    touches = True
            if not touches:
                continue
        out[v] = dist[v]
