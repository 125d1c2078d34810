"""The rules of the base game as pure jitted functions over the state vector.

Public kernels: ``init_state``, ``legal_actions`` / ``legal_mask``, ``apply_action``,
``current_decider``, ``winner``, ``total_vp``, ``road_length``.  They assume valid
input; the Python layer in ``catan_env.core.game`` validates before calling them.
Chance (dice, steals, draws) uses the RNG inside the state unless an outcome is forced
(``apply_action(s, a, outcome)`` with outcome >= 0), which search and replay use.
"""
import numpy as np
from numba import njit

from . import actions as A
from .layout import (
    BANK, CITIES_LEFT, DECIDER, DECK, DESERT, DEV_HAND, DEV_NEW, DEV_PLAYED, DEV_USED,
    DISCARDS, E_OWNER, FREE_ROADS, GENERIC_PORT, HAND, HEX_NUMBER, HEX_TERRAIN, KNIGHT,
    KNIGHTS, LAST_DIE1, LAST_DIE2, LAST_DRAW, LAST_ROLL, LAST_STEAL, LA_HOLDER, LR_HOLDER,
    MONOPOLY, OFFERS_MADE, OPT_DISCARD, OPT_FRIENDLY, OPT_MAX_OFFERS, OPT_PLAYERS, OPT_TRADE,
    OPT_VP, PHASE, PH_DISCARD, PH_GAME_OVER, PH_MAIN, PH_MOVE_ROBBER, PH_PRE_ROLL,
    PH_ROAD_BUILDING, PH_SETUP_ROAD, PH_SETUP_SETTLEMENT, PH_TRADE_CONFIRM, PH_TRADE_RESPONSE,
    PORT_TYPE, PUBLIC_VP, RESP_ACCEPT, RESP_COUNTER, RESP_NOT_ASKED, RESP_PENDING, RESP_REJECT,
    RETURN_PHASE, ROADS_LEFT, ROAD_BUILDING, ROAD_LEN, ROBBER, ROLLED, SETTLEMENTS_LEFT,
    SETUP_STEP, SETUP_VERTEX, STEPS, TRADE_ASKED, TRADE_GET_N, TRADE_GET_RES, TRADE_GIVE_N,
    TRADE_GIVE_RES, TRADE_RESP, TURN, TURN_PLAYER, V_LEVEL, V_OWNER, WINNER, YEAR_OF_PLENTY,
)
from .topology import EDGE_VERTICES, HEX_VERTICES, PORT_VERTICES, VERTEX_EDGES, VERTEX_HEXES, HEX_NEIGHBOURS
from .rng import randint, seed_rng
from .cards import (_gain, _know_lose, _know_steal, _pay, _transfer, can_afford,  # noqa: F401
                    current_decider, hand_size, total_vp, winner)
from .placement import (_any_road_spot, _distance_ok, _update_largest_army,  # noqa: F401
                        _update_longest_road, road_length, road_spot_ok, settlement_spot_ok)

ROAD_COST = np.array([1, 1, 0, 0, 0], dtype=np.int64)
SETTLEMENT_COST = np.array([1, 1, 1, 1, 0], dtype=np.int64)
CITY_COST = np.array([0, 0, 0, 2, 3], dtype=np.int64)
DEV_COST = np.array([0, 0, 1, 1, 1], dtype=np.int64)
DECK_START = np.array([14, 5, 2, 2, 2], dtype=np.int64)
TERRAIN_DECK = np.array([0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5], dtype=np.int64)
NUMBER_TOKENS = np.array([2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9, 10, 10, 11, 11, 12], dtype=np.int64)
PORT_DECK = np.array([0, 1, 2, 3, 4, 5, 5, 5, 5], dtype=np.int64)
MASK_SIZE = A.N_ACTIONS


@njit(cache=True)
def trade_rate(s, p, r):
    """Best maritime rate p has for giving resource r (4, 3 or 2)."""
    rate = 4
    for i in range(9):
        if s[V_OWNER + PORT_VERTICES[i, 0]] == p or s[V_OWNER + PORT_VERTICES[i, 1]] == p:
            t = s[PORT_TYPE + i]
            if t == r:
                return 2
            if t == GENERIC_PORT:
                rate = 3
    return rate


@njit(cache=True)
def _port_bits(s, p):
    """Harbours p owns as bits: bit r for a 2:1 harbour of resource r, bit 5 generic."""
    bits = 0
    for i in range(9):
        if s[V_OWNER + PORT_VERTICES[i, 0]] == p or s[V_OWNER + PORT_VERTICES[i, 1]] == p:
            bits |= 1 << s[PORT_TYPE + i]
    return bits


@njit(cache=True)
def _rate_from_bits(bits, r):
    if bits & (1 << r):
        return 2
    if bits & (1 << GENERIC_PORT):
        return 3
    return 4


@njit(cache=True)
def _robber_victim_ok(s, mover, victim, h):
    if victim == mover or hand_size(s, victim) == 0:
        return False
    if s[OPT_FRIENDLY] != 0 and s[PUBLIC_VP + victim] <= 2:
        return False
    for k in range(6):
        if s[V_OWNER + HEX_VERTICES[h, k]] == victim:
            return True
    return False


@njit(cache=True)
def _dev_playable(s, p, t):
    if s[DEV_PLAYED] != 0:
        return False
    return s[DEV_HAND + p * 5 + t] - s[DEV_NEW + p * 5 + t] > 0



# ---------------------------------------------------------------- legal actions
@njit(cache=True)
def _push(buf, n, a):
    buf[n] = a
    return n + 1


@njit(cache=True)
def _dev_plays(s, p, buf, n):
    if s[DEV_PLAYED] != 0:
        return n
    if _dev_playable(s, p, KNIGHT):
        n = _push(buf, n, A.PLAY_KNIGHT)
    if _dev_playable(s, p, ROAD_BUILDING) and s[ROADS_LEFT + p] > 0 and _any_road_spot(s, p):
        n = _push(buf, n, A.PLAY_ROAD_BUILDING)
    if _dev_playable(s, p, YEAR_OF_PLENTY):
        for i in range(15):
            r1 = A.YOP_R1[i]
            r2 = A.YOP_R2[i]
            if r1 == r2:
                ok = s[BANK + r1] >= 2
            else:
                ok = s[BANK + r1] >= 1 and s[BANK + r2] >= 1
            if ok:
                n = _push(buf, n, A.YOP0 + i)
    if _dev_playable(s, p, MONOPOLY):
        for r in range(5):
            n = _push(buf, n, A.MONOPOLY0 + r)
    return n


@njit(cache=True)
def legal_actions(s, buf):
    """Write the legal action ids for the decider into buf (ascending); return the count."""
    ph = s[PHASE]
    n = 0
    if ph == PH_GAME_OVER:
        return 0
    p = s[DECIDER]
    if ph == PH_SETUP_SETTLEMENT:
        for v in range(54):
            if _distance_ok(s, v):
                n = _push(buf, n, A.SETTLEMENT0 + v)
        return n
    if ph == PH_SETUP_ROAD:
        v = s[SETUP_VERTEX]
        for e in range(72):
            if s[E_OWNER + e] < 0 and (EDGE_VERTICES[e, 0] == v or EDGE_VERTICES[e, 1] == v):
                n = _push(buf, n, A.ROAD0 + e)
        return n
    if ph == PH_PRE_ROLL:
        n = _push(buf, n, A.ROLL)
        return _dev_plays(s, p, buf, n)
    if ph == PH_DISCARD:
        for r in range(5):
            if s[HAND + p * 5 + r] > 0:
                n = _push(buf, n, A.DISCARD0 + r)
        return n
    if ph == PH_MOVE_ROBBER:
        np_ = s[OPT_PLAYERS]
        for h in range(19):
            if h == s[ROBBER]:
                continue
            any_victim = False
            for k in range(1, np_):
                if _robber_victim_ok(s, p, (p + k) % np_, h):
                    any_victim = True
            if not any_victim:
                n = _push(buf, n, A.ROBBER0 + 4 * h)
            else:
                for k in range(1, np_):
                    if _robber_victim_ok(s, p, (p + k) % np_, h):
                        n = _push(buf, n, A.ROBBER0 + 4 * h + k)
        return n
    if ph == PH_ROAD_BUILDING:
        for e in range(72):
            if road_spot_ok(s, p, e):
                n = _push(buf, n, A.ROAD0 + e)
        return n
    if ph == PH_TRADE_RESPONSE:
        if s[HAND + p * 5 + s[TRADE_GET_RES]] >= s[TRADE_GET_N]:
            n = _push(buf, n, A.TRADE_ACCEPT)
        n = _push(buf, n, A.TRADE_REJECT)
        for m in range(A.N_MENU):
            if s[HAND + p * 5 + A.MENU_GIVE_RES[m]] < A.MENU_GIVE_N[m]:
                continue
            mirror = (A.MENU_GIVE_RES[m] == s[TRADE_GET_RES] and A.MENU_GIVE_N[m] == s[TRADE_GET_N]
                      and A.MENU_GET_RES[m] == s[TRADE_GIVE_RES] and A.MENU_GET_N[m] == s[TRADE_GIVE_N])
            if not mirror:
                n = _push(buf, n, A.COUNTER0 + m)
        return n
    if ph == PH_TRADE_CONFIRM:
        np_ = s[OPT_PLAYERS]
        for k in range(1, np_):
            if _confirm_ok(s, p, (p + k) % np_):
                n = _push(buf, n, A.CONFIRM0 + k - 1)
        n = _push(buf, n, A.TRADE_CANCEL)
        return n
    # PH_MAIN
    n = _push(buf, n, A.END_TURN)
    if s[ROADS_LEFT + p] > 0 and can_afford(s, p, ROAD_COST):
        for e in range(72):
            if road_spot_ok(s, p, e):
                n = _push(buf, n, A.ROAD0 + e)
    if s[SETTLEMENTS_LEFT + p] > 0 and can_afford(s, p, SETTLEMENT_COST):
        for v in range(54):
            if settlement_spot_ok(s, p, v):
                n = _push(buf, n, A.SETTLEMENT0 + v)
    if s[CITIES_LEFT + p] > 0 and can_afford(s, p, CITY_COST):
        for v in range(54):
            if s[V_OWNER + v] == p and s[V_LEVEL + v] == 1:
                n = _push(buf, n, A.CITY0 + v)
    if can_afford(s, p, DEV_COST) and (s[DECK] + s[DECK + 1] + s[DECK + 2] + s[DECK + 3] + s[DECK + 4]) > 0:
        n = _push(buf, n, A.BUY_DEV)
    n = _dev_plays(s, p, buf, n)
    ports = _port_bits(s, p)
    for i in range(20):
        r1 = A.MARITIME_GIVE[i]
        r2 = A.MARITIME_GET[i]
        if s[BANK + r2] > 0 and s[HAND + p * 5 + r1] >= _rate_from_bits(ports, r1):
            n = _push(buf, n, A.MARITIME0 + i)
    if s[OPT_TRADE] != 0 and s[OFFERS_MADE] < s[OPT_MAX_OFFERS]:
        for m in range(A.N_MENU):
            if s[HAND + p * 5 + A.MENU_GIVE_RES[m]] >= A.MENU_GIVE_N[m]:
                n = _push(buf, n, A.OFFER0 + m)
    return n


@njit(cache=True)
def _confirm_ok(s, proposer, partner):
    resp = s[TRADE_RESP + partner]
    if resp == RESP_ACCEPT:
        return True
    if resp >= RESP_COUNTER:
        m = resp - RESP_COUNTER
        return s[HAND + proposer * 5 + A.MENU_GET_RES[m]] >= A.MENU_GET_N[m]
    return False


@njit(cache=True)
def legal_mask(s, out):
    """Fill out (length N_ACTIONS) with 1 for legal actions of the decider; return count."""
    buf = np.empty(MASK_SIZE, dtype=np.int64)
    n = legal_actions(s, buf)
    out[:] = 0
    for i in range(n):
        out[buf[i]] = 1
    return n


# ---------------------------------------------------------------- building
@njit(cache=True)
def _recompute_roads_at(s, v):
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
    _update_longest_road(s)


@njit(cache=True)
def _place_settlement(s, p, v):
    s[V_OWNER + v] = p
    s[V_LEVEL + v] = 1
    s[SETTLEMENTS_LEFT + p] -= 1
    s[PUBLIC_VP + p] += 1
    _recompute_roads_at(s, v)


@njit(cache=True)
def _place_road(s, p, e):
    s[E_OWNER + e] = p
    s[ROADS_LEFT + p] -= 1
    s[ROAD_LEN + p] = road_length(s, p)
    _update_longest_road(s)


# ---------------------------------------------------------------- chance helpers
@njit(cache=True)
def _roll_dice(s, forced):
    if forced >= 2:
        d1 = forced - 6 if forced > 7 else 1
        if d1 < 1:
            d1 = 1
        d2 = forced - d1
    else:
        d1 = randint(s, 6) + 1
        d2 = randint(s, 6) + 1
    s[LAST_DIE1] = d1
    s[LAST_DIE2] = d2
    return d1 + d2


@njit(cache=True)
def _produce(s, number):
    np_ = s[OPT_PLAYERS]
    owed = np.zeros((4, 5), dtype=np.int64)
    for h in range(19):
        if s[HEX_NUMBER + h] != number or h == s[ROBBER]:
            continue
        r = s[HEX_TERRAIN + h]
        if r == DESERT:
            continue
        for k in range(6):
            v = HEX_VERTICES[h, k]
            o = s[V_OWNER + v]
            if o >= 0:
                owed[o, r] += s[V_LEVEL + v]
    for r in range(5):
        total = 0
        owed_players = 0
        last = -1
        for p in range(np_):
            if owed[p, r] > 0:
                total += owed[p, r]
                owed_players += 1
                last = p
        if total == 0:
            continue
        if total <= s[BANK + r]:
            for p in range(np_):
                if owed[p, r] > 0:
                    _gain(s, p, r, owed[p, r])
        elif owed_players == 1 and s[BANK + r] > 0:
            _gain(s, last, r, s[BANK + r])


@njit(cache=True)
def _first_discarder(s):
    for p in range(s[OPT_PLAYERS]):
        if s[DISCARDS + p] > 0:
            return p
    return -1


@njit(cache=True)
def _check_win(s):
    """The turn player wins once they have the target VP during their own turn."""
    ph = s[PHASE]
    if ph == PH_SETUP_SETTLEMENT or ph == PH_SETUP_ROAD or ph == PH_GAME_OVER:
        return
    tp = s[TURN_PLAYER]
    if total_vp(s, tp) >= s[OPT_VP]:
        s[PHASE] = PH_GAME_OVER
        s[WINNER] = tp
        s[DECIDER] = -1


@njit(cache=True)
def _clear_trade(s):
    s[TRADE_GIVE_RES] = -1
    s[TRADE_GIVE_N] = 0
    s[TRADE_GET_RES] = -1
    s[TRADE_GET_N] = 0
    s[TRADE_ASKED] = 0
    for p in range(4):
        s[TRADE_RESP + p] = RESP_NOT_ASKED


@njit(cache=True)
def _next_responder(s):
    tp = s[TURN_PLAYER]
    np_ = s[OPT_PLAYERS]
    for k in range(1, np_):
        q = (tp + k) % np_
        if s[TRADE_RESP + q] == RESP_PENDING:
            return q
    return -1


# ---------------------------------------------------------------- apply
@njit(cache=True)
def apply_action(s, a, forced):
    """Apply legal action a for the decider.  forced < 0: chance from the RNG; otherwise
    the dice total (ROLL), stolen resource (MOVE_ROBBER) or drawn card type (BUY_DEV)."""
    p = s[DECIDER]
    tp = s[TURN_PLAYER]
    np_ = s[OPT_PLAYERS]
    ph = s[PHASE]
    s[STEPS] += 1
    if ph == PH_SETUP_SETTLEMENT:
        v = a - A.SETTLEMENT0
        _place_settlement(s, p, v)
        s[SETUP_VERTEX] = v
        if s[SETUP_STEP] >= np_:
            for k in range(3):
                h = VERTEX_HEXES[v, k]
                if h >= 0 and s[HEX_TERRAIN + h] != DESERT and s[BANK + s[HEX_TERRAIN + h]] > 0:
                    _gain(s, p, s[HEX_TERRAIN + h], 1)
        s[PHASE] = PH_SETUP_ROAD
        return
    if ph == PH_SETUP_ROAD:
        _place_road(s, p, a - A.ROAD0)
        step = s[SETUP_STEP] + 1
        s[SETUP_STEP] = step
        if step >= 2 * np_:
            s[PHASE] = PH_PRE_ROLL
            s[TURN_PLAYER] = 0
            s[DECIDER] = 0
            s[TURN] = 1
            _check_win(s)
        else:
            s[PHASE] = PH_SETUP_SETTLEMENT
            nxt = step if step < np_ else 2 * np_ - 1 - step
            s[TURN_PLAYER] = nxt
            s[DECIDER] = nxt
        return
    if a == A.ROLL:
        total = _roll_dice(s, forced)
        s[LAST_ROLL] = total
        s[ROLLED] = 1
        if total == 7:
            any_discard = False
            for q in range(np_):
                hs = hand_size(s, q)
                if hs > s[OPT_DISCARD]:
                    s[DISCARDS + q] = hs // 2
                    any_discard = True
            s[RETURN_PHASE] = PH_MAIN
            if any_discard:
                s[PHASE] = PH_DISCARD
                s[DECIDER] = _first_discarder(s)
            else:
                s[PHASE] = PH_MOVE_ROBBER
        else:
            _produce(s, total)
            s[PHASE] = PH_MAIN
        return
    if a == A.END_TURN:
        for t in range(5):
            s[DEV_NEW + tp * 5 + t] = 0
        s[DEV_PLAYED] = 0
        s[ROLLED] = 0
        s[OFFERS_MADE] = 0
        nxt = (tp + 1) % np_
        s[TURN_PLAYER] = nxt
        s[DECIDER] = nxt
        s[TURN] += 1
        s[PHASE] = PH_PRE_ROLL
        _check_win(s)
        return
    if a < A.SETTLEMENT0:  # road: paid in main, free in road building
        e = a - A.ROAD0
        if ph == PH_ROAD_BUILDING:
            _place_road(s, p, e)
            s[FREE_ROADS] -= 1
            if s[FREE_ROADS] <= 0 or s[ROADS_LEFT + p] <= 0 or not _any_road_spot(s, p):
                s[FREE_ROADS] = 0
                s[PHASE] = s[RETURN_PHASE]
        else:
            _pay(s, p, ROAD_COST)
            _place_road(s, p, e)
        _check_win(s)
        return
    if a < A.CITY0:
        _pay(s, p, SETTLEMENT_COST)
        _place_settlement(s, p, a - A.SETTLEMENT0)
        _check_win(s)
        return
    if a < A.BUY_DEV:
        v = a - A.CITY0
        _pay(s, p, CITY_COST)
        s[V_LEVEL + v] = 2
        s[SETTLEMENTS_LEFT + p] += 1
        s[CITIES_LEFT + p] -= 1
        s[PUBLIC_VP + p] += 1
        _check_win(s)
        return
    if a == A.BUY_DEV:
        _pay(s, p, DEV_COST)
        if forced >= 0:
            t = forced
        else:
            left = s[DECK] + s[DECK + 1] + s[DECK + 2] + s[DECK + 3] + s[DECK + 4]
            x = randint(s, left)
            t = 0
            while x >= s[DECK + t]:
                x -= s[DECK + t]
                t += 1
        s[DECK + t] -= 1
        s[DEV_HAND + p * 5 + t] += 1
        s[DEV_NEW + p * 5 + t] += 1
        s[LAST_DRAW] = t
        _check_win(s)
        return
    if a == A.PLAY_KNIGHT:
        s[DEV_HAND + p * 5 + KNIGHT] -= 1
        s[DEV_PLAYED] = 1
        s[DEV_USED + KNIGHT] += 1
        s[KNIGHTS + p] += 1
        _update_largest_army(s, p)
        s[RETURN_PHASE] = ph
        s[PHASE] = PH_MOVE_ROBBER
        _check_win(s)
        return
    if a == A.PLAY_ROAD_BUILDING:
        s[DEV_HAND + p * 5 + ROAD_BUILDING] -= 1
        s[DEV_PLAYED] = 1
        s[DEV_USED + ROAD_BUILDING] += 1
        s[FREE_ROADS] = min(2, s[ROADS_LEFT + p])
        s[RETURN_PHASE] = ph
        s[PHASE] = PH_ROAD_BUILDING
        return
    if a < A.MONOPOLY0:
        i = a - A.YOP0
        s[DEV_HAND + p * 5 + YEAR_OF_PLENTY] -= 1
        s[DEV_PLAYED] = 1
        s[DEV_USED + YEAR_OF_PLENTY] += 1
        _gain(s, p, A.YOP_R1[i], 1)
        _gain(s, p, A.YOP_R2[i], 1)
        return
    if a < A.ROBBER0:
        r = a - A.MONOPOLY0
        s[DEV_HAND + p * 5 + MONOPOLY] -= 1
        s[DEV_PLAYED] = 1
        s[DEV_USED + MONOPOLY] += 1
        for q in range(np_):
            if q != p:
                c = s[HAND + q * 5 + r]
                if c > 0:
                    _transfer(s, q, p, r, c)
        return
    if a < A.DISCARD0:
        i = a - A.ROBBER0
        h = i // 4
        k = i % 4
        s[ROBBER] = h
        s[LAST_STEAL] = -1
        if k > 0:
            victim = (p + k) % np_
            if forced >= 0:
                r = forced
            else:
                x = randint(s, hand_size(s, victim))
                r = 0
                while x >= s[HAND + victim * 5 + r]:
                    x -= s[HAND + victim * 5 + r]
                    r += 1
            s[HAND + victim * 5 + r] -= 1
            s[HAND + p * 5 + r] += 1
            _know_steal(s, p, victim, r)
            s[LAST_STEAL] = r
        s[PHASE] = s[RETURN_PHASE]
        s[DECIDER] = tp
        _check_win(s)
        return
    if a < A.MARITIME0:
        r = a - A.DISCARD0
        s[HAND + p * 5 + r] -= 1
        s[BANK + r] += 1
        _know_lose(s, p, r, 1)
        s[DISCARDS + p] -= 1
        nxt = _first_discarder(s)
        if nxt >= 0:
            s[DECIDER] = nxt
        else:
            s[PHASE] = PH_MOVE_ROBBER
            s[DECIDER] = tp
        return
    if a < A.OFFER0:
        i = a - A.MARITIME0
        r1 = A.MARITIME_GIVE[i]
        r2 = A.MARITIME_GET[i]
        rate = trade_rate(s, p, r1)
        s[HAND + p * 5 + r1] -= rate
        s[BANK + r1] += rate
        _know_lose(s, p, r1, rate)
        _gain(s, p, r2, 1)
        return
    if a < A.TRADE_ACCEPT:
        m = a - A.OFFER0
        s[TRADE_GIVE_RES] = A.MENU_GIVE_RES[m]
        s[TRADE_GIVE_N] = A.MENU_GIVE_N[m]
        s[TRADE_GET_RES] = A.MENU_GET_RES[m]
        s[TRADE_GET_N] = A.MENU_GET_N[m]
        s[TRADE_ASKED] = 0
        for q in range(4):
            s[TRADE_RESP + q] = RESP_NOT_ASKED
        for q in range(np_):
            if q != p:
                s[TRADE_RESP + q] = RESP_PENDING
        s[OFFERS_MADE] += 1
        s[PHASE] = PH_TRADE_RESPONSE
        s[DECIDER] = _next_responder(s)
        return
    if a < A.CONFIRM0:  # accept / reject / counter
        if a == A.TRADE_ACCEPT:
            s[TRADE_RESP + p] = RESP_ACCEPT
        elif a == A.TRADE_REJECT:
            s[TRADE_RESP + p] = RESP_REJECT
        else:
            s[TRADE_RESP + p] = RESP_COUNTER + (a - A.COUNTER0)
        s[TRADE_ASKED] += 1
        nxt = _next_responder(s)
        if nxt >= 0:
            s[DECIDER] = nxt
            return
        any_yes = False
        for q in range(np_):
            if q != tp and _confirm_ok(s, tp, q):
                any_yes = True
        s[DECIDER] = tp
        if any_yes:
            s[PHASE] = PH_TRADE_CONFIRM
        else:
            _clear_trade(s)
            s[PHASE] = PH_MAIN
        return
    if a < A.TRADE_CANCEL:
        partner = (p + (a - A.CONFIRM0) + 1) % np_
        resp = s[TRADE_RESP + partner]
        if resp == RESP_ACCEPT:
            _transfer(s, p, partner, s[TRADE_GIVE_RES], s[TRADE_GIVE_N])
            _transfer(s, partner, p, s[TRADE_GET_RES], s[TRADE_GET_N])
        else:
            m = resp - RESP_COUNTER
            _transfer(s, partner, p, A.MENU_GIVE_RES[m], A.MENU_GIVE_N[m])
            _transfer(s, p, partner, A.MENU_GET_RES[m], A.MENU_GET_N[m])
    # confirm or cancel
    _clear_trade(s)
    s[PHASE] = PH_MAIN
    s[DECIDER] = tp


# ---------------------------------------------------------------- new games and boards
@njit(cache=True)
def _shuffle(s, arr):
    for i in range(arr.shape[0] - 1, 0, -1):
        j = randint(s, i + 1)
        t = arr[i]
        arr[i] = arr[j]
        arr[j] = t


@njit(cache=True)
def red_numbers_adjacent(numbers):
    for h in range(19):
        if numbers[h] == 6 or numbers[h] == 8:
            for k in range(6):
                g = HEX_NEIGHBOURS[h, k]
                if g >= 0 and (numbers[g] == 6 or numbers[g] == 8):
                    return True
    return False


@njit(cache=True)
def random_board_into(s):
    """Shuffle terrain, harbours and numbers (no adjacent 6/8) with the state's RNG."""
    terrain = TERRAIN_DECK.copy()
    _shuffle(s, terrain)
    ports = PORT_DECK.copy()
    _shuffle(s, ports)
    numbers = np.zeros(19, dtype=np.int64)
    tokens = NUMBER_TOKENS.copy()
    while True:
        _shuffle(s, tokens)
        j = 0
        for h in range(19):
            if terrain[h] == DESERT:
                numbers[h] = 0
            else:
                numbers[h] = tokens[j]
                j += 1
        if not red_numbers_adjacent(numbers):
            break
    for h in range(19):
        s[HEX_TERRAIN + h] = terrain[h]
        s[HEX_NUMBER + h] = numbers[h]
        if terrain[h] == DESERT:
            s[ROBBER] = h
    for i in range(9):
        s[PORT_TYPE + i] = ports[i]


@njit(cache=True)
def init_state(s, n_players, vp, discard, friendly, trade, max_offers, seed):
    """Reset s to the start of set-up; the board fields must be filled by the caller
    (or by random_board_into).  Everything else is derived from the options."""
    board = s[:48].copy()
    s[:] = 0
    s[:48] = board
    seed_rng(s, seed)
    s[OPT_PLAYERS] = n_players
    s[OPT_VP] = vp
    s[OPT_DISCARD] = discard
    s[OPT_FRIENDLY] = friendly
    s[OPT_TRADE] = trade
    s[OPT_MAX_OFFERS] = max_offers
    for v in range(54):
        s[V_OWNER + v] = -1
    for e in range(72):
        s[E_OWNER + e] = -1
    for r in range(5):
        s[BANK + r] = 19
    for t in range(5):
        s[DECK + t] = DECK_START[t]
    for p in range(4):
        on = 1 if p < n_players else 0
        s[ROADS_LEFT + p] = 15 * on
        s[SETTLEMENTS_LEFT + p] = 5 * on
        s[CITIES_LEFT + p] = 4 * on
    s[LR_HOLDER] = -1
    s[LA_HOLDER] = -1
    s[WINNER] = -1
    s[SETUP_VERTEX] = -1
    s[LAST_STEAL] = -1
    s[LAST_DRAW] = -1
    s[PHASE] = PH_SETUP_SETTLEMENT
    s[RETURN_PHASE] = PH_MAIN
    _clear_trade(s)


@njit(cache=True)
def new_random_game(s, n_players, vp, discard, friendly, trade, max_offers, seed):
    """A new game on an official random board, all from one seed."""
    seed_rng(s, seed ^ 0x2545F4914F6CDD1D)
    random_board_into(s)
    init_state(s, n_players, vp, discard, friendly, trade, max_offers, seed)
