"""What each seat of a bridged game built, from public facts only: the figures that say
*why* one seat beats another (an opening on better numbers, more cities, the Largest Army
or the Longest Road), recorded per game so a strength table can be explained, not only
read.  Every figure is public, so a seat's mirror knows it for every seat alike."""
from typing import Dict, Iterable, List, Sequence

import numpy as np

from ...core import actions as A
from ...core import layout as L
from ...core.tables import DICE_WAYS
from ...core.topology import N_EDGES, N_VERTICES, VERTEX_HEXES


def setup_settlements(entries: Iterable[object], n_players: int) -> List[List[int]]:
    """Each seat's set-up settlements, in the order placed: the first 2n settlements of
    the game are the set-up ones, placed in the snake order 0..n-1, n-1..0 (the mirror
    numbers seats so that the first to place is seat 0)."""
    order = list(range(n_players)) + list(range(n_players - 1, -1, -1))
    placed: List[List[int]] = [[] for _ in range(n_players)]
    k = 0
    for e in entries:
        if getattr(e, "kind") != "act":
            continue
        for a, _ in getattr(e, "actions"):
            if k < len(order) and A.SETTLEMENT0 <= a < A.SETTLEMENT0 + N_VERTICES:
                placed[order[k]].append(int(a - A.SETTLEMENT0))
                k += 1
    return placed


def vertex_pips(s: np.ndarray, v: int) -> int:
    """Dice ways (pips) of the numbered hexes touching vertex v: 0-15 for a corner."""
    return int(sum(DICE_WAYS[s[L.HEX_NUMBER + h]] for h in VERTEX_HEXES[v] if h >= 0))


def seat_statistics(s: np.ndarray, opening: Sequence[Sequence[int]]) -> List[Dict[str, int]]:
    """Per seat of the final state s: pieces on the board, knights played, whether it
    holds the Largest Army / the Longest Road, its public VP, and the pips of its set-up
    settlements (opening, as from setup_settlements)."""
    n = int(s[L.OPT_PLAYERS])
    stats = []
    for p in range(n):
        owned = s[L.V_OWNER:L.V_OWNER + N_VERTICES] == p
        level = s[L.V_LEVEL:L.V_LEVEL + N_VERTICES]
        stats.append({
            "opening_pips": sum(vertex_pips(s, v) for v in opening[p]) if p < len(opening) else 0,
            "settlements": int(np.sum(owned & (level == 1))),
            "cities": int(np.sum(owned & (level == 2))),
            "roads": int(np.sum(s[L.E_OWNER:L.E_OWNER + N_EDGES] == p)),
            "knights": int(s[L.KNIGHTS + p]),
            "largest_army": int(s[L.LA_HOLDER] == p),
            "longest_road": int(s[L.LR_HOLDER] == p),
            "public_vp": int(s[L.PUBLIC_VP + p])})
    return stats
