"""Per-move features for the local value network (UCTNet's move estimate).

A move is described by its kind and, where it places something, by its neighbourhood on
the board: for a settlement or a city, the pips of each resource on the adjacent hexes,
the harbour at the vertex and a robber there; for a road, the best free endpoint's pips;
for a robber move, the hex's pips and who builds around it; for resource cards, the
resources given and got.  Seven numbers of context (own hand, VP, turn) follow.  Only the
mover's own view is read (the board, its hand, public counts).
"""
import numpy as np
from numba import njit

from catan_env.core import actions as A
from catan_env.core.cards import total_vp
from catan_env.core.layout import (
    HEX_NUMBER, HEX_TERRAIN, N_RES, PORT_EDGE, PORT_TYPE, ROBBER, TURN, V_LEVEL, V_OWNER,
    hand_i,
)
from catan_env.core.observe import PIPS
from catan_env.core.placement import distance_ok
from catan_env.core.topology import EDGE_VERTICES, HEX_VERTICES, N_PORTS, VERTEX_HEXES

N_KINDS = len(A.RANGES)
KIND_OF = np.repeat(np.arange(N_KINDS), [n for _, n in A.RANGES]).astype(np.int64)
F_VERTEX = N_KINDS            # 5 pips per resource, 6 harbour type, 1 robber adjacent
F_ROAD = F_VERTEX + 12        # best free endpoint pips, an endpoint free to settle
F_ROBBER = F_ROAD + 2         # hex pips, own buildings, others' buildings, steals
F_RES = F_ROBBER + 4          # resource given (5), got (5)
F_CONTEXT = F_RES + 10        # own hand (5), own VP, turn
N_FEATURES = F_CONTEXT + 7


@njit(cache=True)
def _pips_at(s: np.ndarray, v: int, out: np.ndarray, o: int) -> float:
    """Add the pips of each resource on v's hexes to out[o:o+5]; return their sum."""
    total = 0.0
    for k in range(3):
        h = VERTEX_HEXES[v, k]
        if h >= 0 and s[HEX_TERRAIN + h] < N_RES:
            p = PIPS[s[HEX_NUMBER + h]] / 5.0
            if out.shape[0] > 0:
                out[o + s[HEX_TERRAIN + h]] += p
            total += p
    return total


@njit(cache=True)
def move_features(s: np.ndarray, seat: int, a: int, out: np.ndarray) -> np.ndarray:
    """Features of action a for the mover seat into out (N_FEATURES floats, zeroed here)."""
    out[:] = 0.0
    out[KIND_OF[a]] = 1.0
    if A.SETTLEMENT0 <= a < A.BUY_DEV:  # a settlement or a city
        v = a - A.SETTLEMENT0 if a < A.CITY0 else a - A.CITY0
        _pips_at(s, v, out, F_VERTEX)
        for i in range(N_PORTS):
            e = s[PORT_EDGE + i]
            if EDGE_VERTICES[e, 0] == v or EDGE_VERTICES[e, 1] == v:
                out[F_VERTEX + 5 + s[PORT_TYPE + i]] = 1.0
        for k in range(3):
            if VERTEX_HEXES[v, k] == s[ROBBER]:
                out[F_VERTEX + 11] = 1.0
    elif A.ROAD0 <= a < A.SETTLEMENT0:
        e = a - A.ROAD0
        empty = np.zeros(0)
        for j in range(2):
            v = EDGE_VERTICES[e, j]
            if distance_ok(s, v):  # empty, and no neighbour built
                out[F_ROAD] = max(out[F_ROAD], _pips_at(s, v, empty, 0) / 3.0)
                out[F_ROAD + 1] = 1.0
    elif A.is_robber(a):
        h = A.robber_hex(a)
        out[F_ROBBER] = PIPS[s[HEX_NUMBER + h]] / 5.0 if s[HEX_TERRAIN + h] < N_RES else 0.0
        for k in range(6):
            v = HEX_VERTICES[h, k]
            owner = s[V_OWNER + v]
            if owner == seat:
                out[F_ROBBER + 1] += s[V_LEVEL + v] / 3.0
            elif owner >= 0:
                out[F_ROBBER + 2] += s[V_LEVEL + v] / 3.0
        out[F_ROBBER + 3] = 1.0 if A.robber_victim(a) > 0 else 0.0
    elif A.MONOPOLY0 <= a < A.MONOPOLY0 + N_RES:
        out[F_RES + 5 + a - A.MONOPOLY0] = 1.0
    elif A.DISCARD0 <= a < A.MARITIME0:
        out[F_RES + a - A.DISCARD0] = 1.0
    elif A.MARITIME0 <= a < A.OFFER0:
        i = a - A.MARITIME0
        out[F_RES + A.MARITIME_GIVE[i]] = 1.0
        out[F_RES + 5 + A.MARITIME_GET[i]] = 1.0
    for r in range(N_RES):
        out[F_CONTEXT + r] = s[hand_i(seat, r)] / 10.0
    out[F_CONTEXT + 5] = total_vp(s, seat) / 10.0
    out[F_CONTEXT + 6] = min(s[TURN], 500) / 100.0
    return out

