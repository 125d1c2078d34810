"""Board analysis for the heuristic agents, on a seat's public view (never hidden data).

``PlayerModel`` gathers one player's production (rolls per resource), harbours and
from-nothing ETAs; ``settlement_spots`` finds where a player could settle and the roads
it needs (BFS through empty edges, stopping at opponents' buildings); ``wgeta``
estimates the rolls a player needs to win, in the JSettlers manner.
"""
from collections import deque
from typing import Deque, Dict, Iterable, List, Optional, Set, Tuple

import numpy as np
from numpy.typing import ArrayLike

from catan_env.core import layout as L
from catan_env.core.board import port_vertices
from catan_env.core.rules import rate_from_bits
from catan_env.core.topology import EDGE_VERTICES, N_VERTICES, VERTEX_EDGES, VERTEX_HEXES, VERTEX_VERTICES

from . import speed as SP

CUTOFF = 40

# (hex terrain, hex numbers, robber hex, harbour types, harbour vertices (9, 2))
Board = Tuple[np.ndarray, np.ndarray, int, np.ndarray, np.ndarray]


def hex_arrays(s: np.ndarray) -> Board:
    """(terrain, numbers, robber hex, harbour types, harbour vertices (9, 2))."""
    return (L.view(s, "hex_terrain").copy(), L.view(s, "hex_number").copy(),
            int(s[L.ROBBER]), L.view(s, "port_type").copy(), port_vertices(s))


class PlayerModel:
    """Production and ETAs of seat p, optionally with extra settlements/cities."""

    def __init__(self, s: np.ndarray, p: int, extra_settlements: Iterable[int] = (),
                 extra_cities: Iterable[int] = (), board: Optional[Board] = None) -> None:
        self.s = s
        self.p = p
        terrain, numbers, robber, ports, port_verts = board or hex_arrays(s)
        owner = L.view(s, "v_owner")
        level = L.view(s, "v_level")
        verts = [int(v) for v in np.flatnonzero(owner == p)]
        levels = [int(level[v]) for v in verts]
        for v in extra_settlements:
            verts.append(int(v))
            levels.append(1)
        for v in extra_cities:
            levels[verts.index(int(v))] = 2
        self.vertices = np.array(verts, dtype=np.int64)
        self.levels = np.array(levels, dtype=np.int64)
        self.R = SP.rolls_per_resource(terrain, numbers, robber, self.vertices, self.levels, True)
        self.ports = SP.port_bits(ports, port_verts, self.vertices)
        self.zero = np.zeros(5, dtype=np.int64)
        self.nothing = SP.eta_table(self.R, self.ports, self.zero, CUTOFF)

    def eta(self, hand: ArrayLike, target: ArrayLike, cutoff: int = CUTOFF) -> int:
        return int(SP.eta(self.R, self.ports, np.asarray(hand, dtype=np.int64),
                          np.asarray(target, dtype=np.int64), cutoff))

    def rate(self, r: int) -> int:
        """p's maritime rate for giving resource r (the core's rule)."""
        return int(rate_from_bits(self.ports, r))


# the topology as Python lists: the BFS below indexes them one element at a time
_EDGE_VERTICES = EDGE_VERTICES.tolist()
_VERTEX_EDGES = [[e for e in row if e >= 0] for row in VERTEX_EDGES.tolist()]
_VERTEX_VERTICES = [[w for w in row if w >= 0] for row in VERTEX_VERTICES.tolist()]


def settlement_spots(s: np.ndarray, p: int, max_roads: int = 3) -> List[Tuple[int, List[int]]]:
    """[(vertex, [edges to build])] where p could settle with at most max_roads roads."""
    owner = L.view(s, "v_owner").tolist()
    eown = L.view(s, "e_owner").tolist()
    starts: Set[int] = set()
    for e, o in enumerate(eown):
        if o == p:
            for v in _EDGE_VERTICES[e]:
                if owner[v] < 0 or owner[v] == p:
                    starts.add(v)
    for v, o in enumerate(owner):
        if o == p:
            starts.add(v)
    dist: Dict[int, List[int]] = {v: [] for v in starts}
    queue: Deque[int] = deque(starts)
    while queue:
        v = queue.popleft()
        path = dist[v]
        if len(path) >= max_roads:
            continue
        if owner[v] >= 0 and owner[v] != p:
            continue
        for e in _VERTEX_EDGES[v]:
            if eown[e] >= 0:
                continue
            a, b = _EDGE_VERTICES[e]
            w = b if a == v else a
            if w in dist:
                continue
            dist[w] = path + [e]
            queue.append(w)
    spots = []
    for v, path in dist.items():
        if owner[v] >= 0:
            continue
        if any(owner[w] >= 0 for w in _VERTEX_VERTICES[v]):
            continue
        if not path and not any(eown[e] == p for e in _VERTEX_EDGES[v]):
            continue
        spots.append((v, path))
    return spots


def knights_to_buy(s: np.ndarray, p: int) -> int:
    holder = int(s[L.LA_HOLDER])
    if holder == p:
        return 0
    need = 3 if holder < 0 else int(s[L.KNIGHTS + holder]) + 1
    held = int(L.view(s, "dev_hand")[p, L.KNIGHT]) if L.view(s, "dev_hand")[p, 0] >= 0 else 0
    return max(0, need - int(s[L.KNIGHTS + p]) - held)


def roads_to_go(s: np.ndarray, p: int) -> int:
    holder = int(s[L.LR_HOLDER])
    if holder == p:
        return 0
    need = 5 if holder < 0 else int(s[L.ROAD_LEN + holder]) + 1
    return max(0, need - int(s[L.ROAD_LEN + p]))


def spot_road_counts(s: np.ndarray, p: int, max_roads: int = 3) -> List[int]:
    """Sorted road counts of p's settlement spots (``settlement_spots``' path lengths,
    from the jitted search)."""
    out = np.empty(N_VERTICES, np.int64)
    SP.spot_roads(L.view(s, "v_owner"), L.view(s, "e_owner"), int(p), int(max_roads), out)
    return sorted(int(d) for d in out if d >= 0)


def wgeta(s: np.ndarray, p: int, vp: Optional[int] = None, board: Optional[Board] = None,
          model: Optional[PlayerModel] = None) -> int:
    """Rolls p needs to win (JSettlers' WGETA, simplified: production is not updated
    between the 2-VP steps).  vp: p's VP as this seat knows it (default public VP);
    model: p's ``PlayerModel`` on s when the caller has it."""
    m = model if model is not None else PlayerModel(s, p, board=board)
    S, C, Rd, D = (int(x) for x in m.nothing)
    vp = int(s[L.PUBLIC_VP + p]) if vp is None else vp
    target = int(s[L.OPT_VP])
    spots = spot_road_counts(s, p)
    sett_left = int(s[L.SETTLEMENTS_LEFT + p])
    city_left = int(s[L.CITIES_LEFT + p])
    towns = int(((L.view(s, "v_owner") == p) & (L.view(s, "v_level") == 1)).sum())
    la = (D + 1) * knights_to_buy(s, p) if s[L.LA_HOLDER] != p else None
    lr = Rd * roads_to_go(s, p) if s[L.LR_HOLDER] != p else None
    total = 0
    used_spots = 0
    used_cities = 0
    got_la = got_lr = False
    while vp < target:
        opts = []
        if sett_left > 0 and used_spots < len(spots):
            opts.append(("s", S + spots[used_spots] * Rd))
        if city_left - used_cities > 0 and towns - used_cities > 0:
            opts.append(("c", C))
        if la is not None and not got_la:
            opts.append(("la", la))
        if lr is not None and not got_lr:
            opts.append(("lr", lr))
        if not opts:
            return total + 500
        if vp == target - 1:
            total += min(t for _, t in opts)
            break
        pairs = []
        cities_ok = min(city_left - used_cities, towns - used_cities)
        if cities_ok >= 2:
            pairs.append(("cc", 2 * C))
        free = len(spots) - used_spots
        if sett_left >= 2 and free >= 2:
            pairs.append(("ss", 2 * S + (spots[used_spots] + spots[used_spots + 1]) * Rd))
        if sett_left >= 1 and free >= 1 and cities_ok >= 1:
            pairs.append(("sc", S + spots[used_spots] * Rd + C))
        if vp > 5 and la is not None and not got_la:
            pairs.append(("la", la))
        if vp > 5 and lr is not None and not got_lr:
            pairs.append(("lr", lr))
        if not pairs:
            total += min(t for _, t in opts)
            vp += 1
            continue
        kind, t = min(pairs, key=lambda x: x[1])
        total += t
        vp += 2
        if kind == "cc":
            used_cities += 2
        elif kind == "ss":
            used_spots += 2
            sett_left -= 2
            towns += 2
        elif kind == "sc":
            used_spots += 1
            sett_left -= 1
            used_cities += 1
        elif kind == "la":
            got_la = True
        else:
            got_lr = True
    return total


def vertex_pips(s: np.ndarray, v: int) -> int:
    return int(SP.node_pips(L.view(s, "hex_terrain"), L.view(s, "hex_number"), int(v)))


def producing_hexes(s: np.ndarray, p: int) -> Set[int]:
    """The hexes p's buildings produce from (the desert, which produces nothing, is not
    one: the robot plays a Knight before rolling only for a hex that pays it)."""
    out: Set[int] = set()
    for v in np.flatnonzero(L.view(s, "v_owner") == p):
        for h in VERTEX_HEXES[v]:
            if h >= 0 and int(s[L.HEX_TERRAIN + h]) != L.DESERT:
                out.add(int(h))
    return out
