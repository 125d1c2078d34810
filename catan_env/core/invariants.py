"""Invariants every reachable state satisfies, checked in plain Python.

Used by the fuzz tests after every action and by ``load_state`` to reject corrupt
saved states.  ``problems(state)`` returns a list of readable violations (empty = ok).
The caches (VP, road lengths) are recomputed here the slow, obvious way.
"""
from typing import List

import numpy as np

from . import layout as L
from .reference import ref_longest_road
from . import tables as T
from .topology import N_HEXES, N_VERTICES, VERTEX_VERTICES


def problems(s: object) -> List[str]:
    out = []
    if not isinstance(s, np.ndarray) or s.shape != (L.STATE_SIZE,) or s.dtype != np.int64:
        return [f"state must be an int64 array of shape ({L.STATE_SIZE},)"]
    n = int(s[L.OPT_PLAYERS])
    if not 2 <= n <= 4:
        return [f"player count {n} not in 2..4"]
    phase = int(s[L.PHASE])
    if not 0 <= phase < L.N_PHASES:
        return [f"phase {phase} out of range"]
    if not all(0 <= t <= L.DESERT for t in L.view(s, "hex_terrain")):
        out.append("terrain value out of range")
    if not all(0 <= t <= L.GENERIC_PORT for t in L.view(s, "port_type")):
        out.append("harbour value out of range")
    if not 0 <= s[L.ROBBER] < N_HEXES:
        out.append("robber off the board")
    hands = L.view(s, "hand")
    if (hands < 0).any() or (hands[n:] != 0).any():
        out.append("negative hand or cards for an absent seat")
    bank = L.view(s, "bank")
    for r in range(L.N_RES):
        if bank[r] < 0 or bank[r] + hands[:, r].sum() != T.CARDS_PER_RESOURCE:
            out.append(f"{L.RESOURCE_NAMES[r]}: bank {bank[r]} + hands {hands[:, r].sum()} != {T.CARDS_PER_RESOURCE}")
    dev = L.view(s, "dev_hand")
    new = L.view(s, "dev_new")
    deck = L.view(s, "deck")
    used = L.view(s, "dev_used")
    start = L.view(s, "deck_start")
    for t in range(L.N_DEV):
        if deck[t] < 0 or (dev[:, t] < 0).any() or deck[t] + dev[:, t].sum() + used[t] != start[t]:
            out.append(f"{L.DEV_NAMES[t]} cards not conserved")
    if (new > dev).any() or (new < 0).any():
        out.append("more cards bought this turn than held")
    if L.view(s, "vp_revealed").sum() != used[L.VICTORY_POINT]:
        out.append("VP cards revealed do not match cards used")
    if L.view(s, "knights").sum() != used[L.KNIGHT]:
        out.append("knights played do not match cards used")
    owner = L.view(s, "v_owner")
    level = L.view(s, "v_level")
    eown = L.view(s, "e_owner")
    if ((owner < -1) | (owner >= n)).any() or ((eown < -1) | (eown >= n)).any():
        out.append("piece owner out of range")
    if ((owner >= 0) != (level > 0)).any() or (level > 2).any() or (level < 0).any():
        out.append("vertex owner and level disagree")
    for v in range(N_VERTICES):
        if owner[v] >= 0:
            for w in VERTEX_VERTICES[v]:
                if w >= 0 and owner[w] >= 0:
                    out.append(f"distance rule broken at vertices {v}-{w}")
    for p in range(n):
        roads = int((eown == p).sum())
        setts = int(((owner == p) & (level == 1)).sum())
        cities = int(((owner == p) & (level == 2)).sum())
        if roads + s[L.ROADS_LEFT + p] != T.ROADS_PER_PLAYER or \
                setts + s[L.SETTLEMENTS_LEFT + p] != T.SETTLEMENTS_PER_PLAYER or \
                cities + s[L.CITIES_LEFT + p] != T.CITIES_PER_PLAYER:
            out.append(f"seat {p}: pieces on board and in supply do not add up")
        length = ref_longest_road(s, p)
        if s[L.ROAD_LEN + p] != length:
            out.append(f"seat {p}: cached road length {s[L.ROAD_LEN + p]} != {length}")
        vp = (setts + 2 * cities + 2 * (s[L.LR_HOLDER] == p) + 2 * (s[L.LA_HOLDER] == p)
              + s[L.VP_REVEALED + p])
        if s[L.PUBLIC_VP + p] != vp:
            out.append(f"seat {p}: cached public VP {s[L.PUBLIC_VP + p]} != {vp}")
    lr = int(s[L.LR_HOLDER])
    if lr >= 0 and s[L.ROAD_LEN + lr] < T.LONGEST_ROAD_MIN:
        out.append("longest road held with fewer than 5 segments")
    la = int(s[L.LA_HOLDER])
    if la >= 0 and s[L.KNIGHTS + la] < T.LARGEST_ARMY_MIN:
        out.append("largest army held with fewer than 3 knights")
    know = L.view(s, "know")
    for o in list(range(n)) + [L.PUBLIC]:
        for t in range(n):
            k = know[o, t]
            if (k < 0).any() or k.sum() != hands[t].sum() or (k[:L.N_RES] > hands[t]).any():
                out.append(f"knowledge of seat {o} about seat {t} is not a true lower bound")
            if o == t and (k[L.UNKNOWN] != 0 or (k[:L.N_RES] != hands[t]).any()):
                out.append(f"seat {o} does not know its own hand exactly")
    if phase == L.PH_GAME_OVER:
        if not 0 <= s[L.WINNER] < n:
            out.append("game over without a winner")
    else:
        if not 0 <= s[L.DECIDER] < n:
            out.append(f"decider {s[L.DECIDER]} is not a seat")
        if s[L.WINNER] != -1:
            out.append("winner set while the game goes on")
        if not 0 <= s[L.TURN_PLAYER] < n:
            out.append("turn player is not a seat")
    if (L.view(s, "discards") < 0).any():
        out.append("negative discards owed")
    return out


def check(s: np.ndarray) -> None:
    """Raise CorruptStateError listing every violated invariant."""
    from .game import CorruptStateError
    found = problems(s)
    if found:
        raise CorruptStateError("corrupt state: " + "; ".join(found))
