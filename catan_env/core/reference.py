"""Slow, obvious pure-Python versions of the rules the jitted core implements cleverly.

Tests compare the kernels against these on random states: longest road (exhaustive
trail enumeration), the legal action set (rule by rule from the rule book), public VP
and production on a roll (with the bank-shortage rule).  Nothing here is fast.
"""
from typing import FrozenSet, List, Set

import numpy as np

from . import actions as A
from . import layout as L
from .topology import (EDGE_VERTICES, HEX_VERTICES, N_EDGES, N_HEXES, N_PORTS, N_VERTICES, VERTEX_EDGES, VERTEX_VERTICES)


def ref_longest_road(s: np.ndarray, p: int) -> int:
    """Longest trail over p's edges, trying every start and every continuation."""
    mine = [e for e in range(N_EDGES) if s[L.E_OWNER + e] == p]

    def blocked(v: int) -> bool:
        o = s[L.V_OWNER + v]
        return o >= 0 and o != p

    def extend(v: int, used: FrozenSet[int]) -> int:
        best = len(used)
        if used and blocked(v):
            return best
        for e in mine:
            if e in used:
                continue
            a, b = EDGE_VERTICES[e]
            if v in (a, b):
                best = max(best, extend(b if v == a else a, used | {e}))
        return best

    best = 0
    for e in mine:
        for v in EDGE_VERTICES[e]:
            best = max(best, extend(int(v), frozenset()))
    return best


def ref_public_vp(s: np.ndarray, p: int) -> int:
    vp = 0
    for v in range(N_VERTICES):
        if s[L.V_OWNER + v] == p:
            vp += int(s[L.V_LEVEL + v])
    vp += 2 * (s[L.LR_HOLDER] == p) + 2 * (s[L.LA_HOLDER] == p)
    return vp + int(s[L.VP_REVEALED + p])


def ref_production(s: np.ndarray, roll: int) -> List[List[int]]:
    """Cards each seat receives on a non-7 roll: list of 4 lists of 5."""
    n = int(s[L.OPT_PLAYERS])
    owed = [[0] * 5 for _ in range(4)]
    for h in range(N_HEXES):
        if s[L.HEX_NUMBER + h] == roll and s[L.ROBBER] != h and s[L.HEX_TERRAIN + h] != L.DESERT:
            r = int(s[L.HEX_TERRAIN + h])
            for v in HEX_VERTICES[h]:
                if s[L.V_OWNER + v] >= 0:
                    owed[s[L.V_OWNER + v]][r] += int(s[L.V_LEVEL + v])
    got = [[0] * 5 for _ in range(4)]
    if s[L.OPT_RULES] & L.RULE_SHORTAGE_IN_ORDER:  # Pioneers: seat order from the roller
        for r in range(5):
            left = int(s[L.BANK + r])
            for k in range(n):
                p = (int(s[L.TURN_PLAYER]) + k) % n
                got[p][r] = min(owed[p][r], left)
                left -= got[p][r]
        return got
    for r in range(5):
        total = sum(owed[p][r] for p in range(n))
        takers = [p for p in range(n) if owed[p][r] > 0]
        if total <= s[L.BANK + r]:
            for p in takers:
                got[p][r] = owed[p][r]
        elif len(takers) == 1:
            got[takers[0]][r] = int(s[L.BANK + r])
    return got


def _hand(s: np.ndarray, p: int) -> List[int]:
    return [int(x) for x in L.view(s, "hand")[p]]


def _rate(s: np.ndarray, p: int, r: int) -> int:
    rate = 4
    for i in range(N_PORTS):
        if any(s[L.V_OWNER + v] == p for v in EDGE_VERTICES[s[L.PORT_EDGE + i]]):
            if s[L.PORT_TYPE + i] == r:
                rate = min(rate, 2)
            elif s[L.PORT_TYPE + i] == L.GENERIC_PORT:
                rate = min(rate, 3)
    return rate


def _free_for_settlement(s: np.ndarray, v: int) -> bool:
    return s[L.V_OWNER + v] < 0 and all(w < 0 or s[L.V_OWNER + w] < 0 for w in VERTEX_VERTICES[v])


def _road_ok(s: np.ndarray, p: int, e: int) -> bool:
    if s[L.E_OWNER + e] >= 0:
        return False
    for v in EDGE_VERTICES[e]:
        if s[L.V_OWNER + v] == p:
            return True
        if s[L.V_OWNER + v] < 0 and any(f >= 0 and f != e and s[L.E_OWNER + f] == p
                                        for f in VERTEX_EDGES[v]):
            return True
    return False


def _victim_ok(s: np.ndarray, p: int, q: int, h: int) -> bool:
    if q == p or sum(_hand(s, q)) == 0:
        return False
    if s[L.OPT_FRIENDLY] and s[L.PUBLIC_VP + q] <= 2:
        return False
    return any(s[L.V_OWNER + v] == q for v in HEX_VERTICES[h])


def _cards(s: np.ndarray, p: int) -> Set[int]:
    """Development card plays available to p now."""
    out: Set[int] = set()
    if s[L.DEV_PLAYED]:
        return out
    old = [int(x) for x in L.view(s, "dev_hand")[p] - L.view(s, "dev_new")[p]]
    if old[L.KNIGHT] > 0:
        out.add(A.PLAY_KNIGHT)
    if old[L.ROAD_BUILDING] > 0 and s[L.ROADS_LEFT + p] > 0 and any(_road_ok(s, p, e) for e in range(N_EDGES)):
        out.add(A.PLAY_ROAD_BUILDING)
    if old[L.YEAR_OF_PLENTY] > 0:
        for i in range(15):
            r1, r2 = A.YOP_R1[i], A.YOP_R2[i]
            need = {r1: 2} if r1 == r2 else {r1: 1, r2: 1}
            if all(s[L.BANK + r] >= c for r, c in need.items()):
                out.add(A.YOP0 + i)
    if old[L.MONOPOLY] > 0:
        out.update(A.MONOPOLY0 + r for r in range(5))
    return out


def ref_legal_actions(s: np.ndarray) -> Set[int]:
    """The set of legal action ids, derived rule by rule."""
    ph = int(s[L.PHASE])
    if ph == L.PH_GAME_OVER:
        return set()
    p = int(s[L.DECIDER])
    n = int(s[L.OPT_PLAYERS])
    hand = _hand(s, p)
    out: Set[int] = set()
    if ph == L.PH_SETUP_SETTLEMENT:
        return {A.SETTLEMENT0 + v for v in range(N_VERTICES) if _free_for_settlement(s, v)}
    if ph == L.PH_SETUP_ROAD:
        v = s[L.SETUP_VERTEX]
        return {A.ROAD0 + e for e in range(N_EDGES) if v in EDGE_VERTICES[e] and s[L.E_OWNER + e] < 0}
    if ph == L.PH_PRE_ROLL:
        return {A.ROLL} | _cards(s, p)
    if ph == L.PH_DISCARD:
        return {A.DISCARD0 + r for r in range(5) if hand[r] > 0}
    if ph == L.PH_MOVE_ROBBER:
        for h in range(N_HEXES):
            if h == s[L.ROBBER]:
                continue
            if s[L.OPT_RULES] & L.RULE_NO_DESERT_ROBBER and s[L.HEX_TERRAIN + h] == L.DESERT:
                continue
            victims = [k for k in range(1, n) if _victim_ok(s, p, (p + k) % n, h)]
            out.update(A.robber_action(h, k) for k in (victims or [0]))
        return out
    if ph == L.PH_ROAD_BUILDING:
        return {A.ROAD0 + e for e in range(N_EDGES) if _road_ok(s, p, e)}
    if ph == L.PH_TRADE_RESPONSE:
        give_r, give_n = s[L.TRADE_GIVE_RES], s[L.TRADE_GIVE_N]
        get_r, get_n = s[L.TRADE_GET_RES], s[L.TRADE_GET_N]
        out.add(A.TRADE_REJECT)
        if hand[get_r] >= get_n:
            out.add(A.TRADE_ACCEPT)
        for m in range(A.N_MENU):
            mirror = (A.MENU_GIVE_RES[m], A.MENU_GIVE_N[m], A.MENU_GET_RES[m], A.MENU_GET_N[m]) == \
                (get_r, get_n, give_r, give_n)
            if hand[A.MENU_GIVE_RES[m]] >= A.MENU_GIVE_N[m] and not mirror:
                out.add(A.COUNTER0 + m)
        return out
    if ph == L.PH_TRADE_CONFIRM:
        out.add(A.TRADE_CANCEL)
        for k in range(1, n):
            resp = s[L.TRADE_RESP + (p + k) % n]
            if resp == L.RESP_ACCEPT:
                out.add(A.confirm_action(k))
            elif resp >= L.RESP_COUNTER:
                m = resp - L.RESP_COUNTER
                if hand[A.MENU_GET_RES[m]] >= A.MENU_GET_N[m]:
                    out.add(A.confirm_action(k))
        return out
    out.add(A.END_TURN)
    if hand[0] >= 1 and hand[1] >= 1 and s[L.ROADS_LEFT + p] > 0:
        out.update(A.ROAD0 + e for e in range(N_EDGES) if _road_ok(s, p, e))
    if min(hand[:4]) >= 1 and s[L.SETTLEMENTS_LEFT + p] > 0:
        for v in range(N_VERTICES):
            touches = any(f >= 0 and s[L.E_OWNER + f] == p for f in VERTEX_EDGES[v])
            if _free_for_settlement(s, v) and touches:
                out.add(A.SETTLEMENT0 + v)
    if hand[3] >= 2 and hand[4] >= 3 and s[L.CITIES_LEFT + p] > 0:
        out.update(A.CITY0 + v for v in range(N_VERTICES)
                   if s[L.V_OWNER + v] == p and s[L.V_LEVEL + v] == 1)
    if s[L.OPT_RULES] & L.RULE_DIRECT_CITY and min(hand[:2]) >= 1 and hand[2] >= 1 \
            and hand[3] >= 3 and hand[4] >= 3 and s[L.CITIES_LEFT + p] > 0 \
            and s[L.SETTLEMENTS_LEFT + p] > 0:
        for v in range(N_VERTICES):
            touches = any(f >= 0 and s[L.E_OWNER + f] == p for f in VERTEX_EDGES[v])
            if _free_for_settlement(s, v) and touches:
                out.add(A.CITY0 + v)
    if hand[2] >= 1 and hand[3] >= 1 and hand[4] >= 1 and sum(s[L.DECK:L.DECK + 5]) > 0:
        out.add(A.BUY_DEV)
    out |= _cards(s, p)
    if s[L.OPT_RULES] & L.RULE_STRICT_TRADE and s[L.BUILT]:
        return out
    for i in range(20):
        r1, r2 = A.MARITIME_GIVE[i], A.MARITIME_GET[i]
        if hand[r1] >= _rate(s, p, r1) and s[L.BANK + r2] > 0:
            out.add(A.MARITIME0 + i)
    if s[L.OPT_TRADE] and s[L.OFFERS_MADE] < s[L.OPT_MAX_OFFERS]:
        out.update(A.OFFER0 + m for m in range(A.N_MENU) if hand[A.MENU_GIVE_RES[m]] >= A.MENU_GIVE_N[m])
    return out
