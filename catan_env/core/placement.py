"""Where pieces may go and what they are worth: longest road (the longest trail, cut by
opponents' buildings) with the holder / tie / set-aside rules, largest army, and the
road and settlement placement rules."""
import numpy as np
from numba import njit

from .layout import (
    E_OWNER, KNIGHTS, LA_HOLDER, LR_HOLDER, OPT_PLAYERS, PUBLIC_VP, ROAD_LEN, V_OWNER,
)
from .topology import EDGE_VERTICES, VERTEX_EDGES, VERTEX_VERTICES


@njit(cache=True)
def adjacent(v, w):
    """Vertices v and w share an edge."""
    for k in range(3):
        if VERTEX_VERTICES[v, k] == w:
            return True
    return False


# ---------------------------------------------------------------- longest road
@njit(cache=True)
def road_length(s, p):
    """Longest trail of p's roads; opponents' buildings cut it (a trail may end there)."""
    used = np.zeros(72, dtype=np.bool_)
    stack_v = np.empty(17, dtype=np.int64)
    stack_k = np.empty(17, dtype=np.int64)
    stack_e = np.empty(17, dtype=np.int64)
    best = 0
    for start in range(54):
        touches = False
        for k in range(3):
            e = VERTEX_EDGES[start, k]
            if e >= 0 and s[E_OWNER + e] == p:
                touches = True
        if not touches:
            continue
        depth = 0
        stack_v[0] = start
        stack_k[0] = 0
        stack_e[0] = -1
        while depth >= 0:
            v = stack_v[depth]
            k = stack_k[depth]
            blocked = depth > 0 and s[V_OWNER + v] >= 0 and s[V_OWNER + v] != p
            if k >= 3 or blocked:
                if depth > 0:
                    used[stack_e[depth]] = False
                depth -= 1
                continue
            stack_k[depth] = k + 1
            e = VERTEX_EDGES[v, k]
            if e < 0 or s[E_OWNER + e] != p or used[e]:
                continue
            used[e] = True
            w = EDGE_VERTICES[e, 0]
            if w == v:
                w = EDGE_VERTICES[e, 1]
            depth += 1
            stack_v[depth] = w
            stack_k[depth] = 0
            stack_e[depth] = e
            if depth > best:
                best = depth
    return best


@njit(cache=True)
def _update_longest_road(s):
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
    if holder >= 0 and s[ROAD_LEN + holder] == best and best >= 5:
        return
    new = -1
    if best >= 5 and count == 1:
        new = leader
    if new != holder:
        if holder >= 0:
            s[PUBLIC_VP + holder] -= 2
        if new >= 0:
            s[PUBLIC_VP + new] += 2
        s[LR_HOLDER] = new


@njit(cache=True)
def _update_largest_army(s, p):
    k = s[KNIGHTS + p]
    h = s[LA_HOLDER]
    if k >= 3 and h != p and (h < 0 or k > s[KNIGHTS + h]):
        if h >= 0:
            s[PUBLIC_VP + h] -= 2
        s[LA_HOLDER] = p
        s[PUBLIC_VP + p] += 2


# ---------------------------------------------------------------- placement rules
@njit(cache=True)
def _distance_ok(s, v):
    if s[V_OWNER + v] >= 0:
        return False
    for k in range(3):
        w = VERTEX_VERTICES[v, k]
        if w >= 0 and s[V_OWNER + w] >= 0:
            return False
    return True


@njit(cache=True)
def _touches_own_road(s, p, v):
    for k in range(3):
        e = VERTEX_EDGES[v, k]
        if e >= 0 and s[E_OWNER + e] == p:
            return True
    return False


@njit(cache=True)
def road_spot_ok(s, p, e):
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
def settlement_spot_ok(s, p, v):
    return _distance_ok(s, v) and _touches_own_road(s, p, v)


@njit(cache=True)
def _any_road_spot(s, p):
    for e in range(72):
        if road_spot_ok(s, p, e):
            return True
    return False
