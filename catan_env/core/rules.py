"""The rules of the base game as pure jitted functions over the state vector.

Public kernels: ``init_state``, ``legal_actions`` / ``legal_mask``, ``apply_action``,
``trade_rate``, ``deck_size`` (card and placement helpers live in ``cards`` and
``placement``).  They assume valid
input; the Python layer in ``catan_env.core.game`` validates before calling them.
Chance (dice, steals, draws) uses the RNG inside the state unless an outcome is forced
(``apply_action(s, a, outcome)`` with outcome >= 0), which search and replay use.
"""
import numpy as np
from numba import njit
from .jit_options import NO_RUNTIME, helper

from . import actions as A
from .layout import (
    BANK, BOARD_END, BUILT, CITIES_LEFT, DECIDER, DECK, DECK_START, DESERT, DEV_PLAYED, DEV_USED,
    DISCARDS, E_OWNER, FREE_ROADS, GENERIC_PORT, HEX_NUMBER, HEX_TERRAIN, KNIGHT,
    KNIGHTS, LAST_DIE1, LAST_DIE2, LAST_DRAW, LAST_ROLL, LAST_STEAL, LA_HOLDER, LR_HOLDER,
    MAX_PLAYERS, MONOPOLY, N_DEV, N_RES, OFFERS_MADE, OPT_DISCARD, OPT_FRIENDLY, OPT_MAX_OFFERS,
    OPT_PLAYERS, OPT_RULES, OPT_SEVENS, OPT_TRADE, OPT_VP, PHASE, PH_DISCARD, PH_GAME_OVER, PH_MAIN, PH_MOVE_ROBBER,
    PH_PRE_ROLL, PH_ROAD_BUILDING, PH_SETUP_ROAD, PH_SETUP_SETTLEMENT, PH_TRADE_CONFIRM,
    PH_TRADE_RESPONSE, PORT_EDGE, PORT_TYPE, PUBLIC_VP, RESP_ACCEPT, RESP_COUNTER, RESP_NOT_ASKED,
    RESP_PENDING, RESP_REJECT, RETURN_PHASE, RULE_DIRECT_CITY, RULE_NO_DESERT_ROBBER,
    RULE_SHORTAGE_IN_ORDER, RULE_STRICT_TRADE, RULE_VP_PLAYED, ROADS_LEFT, ROAD_BUILDING, ROBBER, ROLLED,
    SETTLEMENTS_LEFT, SETUP_STEP, SETUP_VERTEX, STEPS, TRADE_ASKED, TRADE_GET_N, TRADE_GET_RES,
    TRADE_GIVE_N, TRADE_GIVE_RES, TRADE_RESP, TURN, TURN_PLAYER, V_LEVEL, V_OWNER,
    VICTORY_POINT, VP_REVEALED, WINNER, YEAR_OF_PLENTY, dev_i, dev_new_i, hand_i, seat_after,
)
from .tables import (
    CARDS_PER_RESOURCE, CITIES_PER_PLAYER, CITY_COST, DEV_COST, GENERIC_PORT_RATE,
    MARITIME_BASE_RATE, NUMBER_TOKENS, OFFICIAL_DECK, PORT_DECK, ROAD_COST, ROADS_PER_PLAYER,
    SETTLEMENTS_PER_PLAYER, SETTLEMENT_COST, SPECIAL_PORT_RATE, TERRAIN_DECK,
)
from .topology import (EDGE_VERTICES, HEX_NEIGHBOURS, HEX_VERTICES, N_EDGES, N_HEXES, N_PORTS,
                       N_VERTICES, PORT_EDGES, VERTEX_HEXES)
from .rng import randint, seed_rng, shuffle
from .cards import _gain, _know_lose, _know_steal, _pay, _transfer, can_afford, hand_size, total_vp
from .placement import (BIT, HEX_VERTEX_MASK, any_road_spot, building_mask, distance_ok, lowest_bit,
                        place_road, place_settlement, road_ends, road_reach, road_spots, settlement_spots,
                        update_largest_army, upgrade_to_city, vertex_masks)

MASK_SIZE = A.N_ACTIONS

# ``apply_action``'s forced argument for "chance from the state's RNG".  An int64, not the
# literal -1: numba compiles a separate copy of a kernel (and of its callees) for every
# literal argument, so kernels passing this share one compiled apply_action with the envs.
FROM_RNG = np.int64(-1)
# The standard game's options as int64, for kernels that start standard games (benchmarks,
# fuzzing) -- as literals they would compile a copy of new_random_game of their own.
STANDARD_VP, STANDARD_DISCARD_LIMIT, STANDARD_MAX_OFFERS = np.int64(10), np.int64(7), np.int64(3)
FRIENDLY_ROBBER_OFF = np.int64(0)


# inline='always' below: see the note in cards.py (calls passing the state cost atomic refcounts)
@njit(cache=True, inline='always')
def port_bits(s: np.ndarray, p: int) -> int:
    """Harbours p owns as bits: bit r for a 2:1 harbour of resource r, bit 5 generic."""
    bits = 0
    for i in range(N_PORTS):
        e = s[PORT_EDGE + i]
        if s[V_OWNER + EDGE_VERTICES[e, 0]] == p or s[V_OWNER + EDGE_VERTICES[e, 1]] == p:
            bits |= 1 << s[PORT_TYPE + i]
    return bits


@helper
def rate_from_bits(bits: int, r: int) -> int:
    """Maritime rate for giving resource r with the harbours in bits (see port_bits)."""
    if bits & (1 << r):
        return SPECIAL_PORT_RATE
    if bits & (1 << GENERIC_PORT):
        return GENERIC_PORT_RATE
    return MARITIME_BASE_RATE


@njit(cache=True, inline='always')
def trade_rate(s: np.ndarray, p: int, r: int) -> int:
    """Best maritime rate p has for giving resource r (4, 3 or 2)."""
    return rate_from_bits(port_bits(s, p), r)


DIRECT_CITY_COST = SETTLEMENT_COST + CITY_COST  # a city straight on an empty spot
DIRECT_CITY_COST.setflags(write=False)


@helper
def rule_on(s: np.ndarray, bit: int) -> bool:
    """Whether the rule variant bit (layout.RULE_*) is on in this game."""
    return (s[OPT_RULES] & bit) != 0


@njit(cache=True)
def action_cost(a: int) -> np.ndarray:
    """The resource price of a build or card purchase (zeros for other actions).  A city
    on an empty spot (the direct-city variant) costs DIRECT_CITY_COST instead."""
    if A.ROAD0 <= a < A.SETTLEMENT0:
        return ROAD_COST
    if A.SETTLEMENT0 <= a < A.CITY0:
        return SETTLEMENT_COST
    if A.CITY0 <= a < A.BUY_DEV:
        return CITY_COST
    if a == A.BUY_DEV:
        return DEV_COST
    return np.zeros(N_RES, dtype=np.int64)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def deck_size(s: np.ndarray) -> int:
    """Development cards left in the deck (public)."""
    n = 0
    for t in range(N_DEV):
        n += s[DECK + t]
    return n


@helper
def _dev_playable(s: np.ndarray, p: int, t: int) -> bool:
    if s[DEV_PLAYED] != 0:
        return False
    return s[dev_i(p, t)] - s[dev_new_i(p, t)] > 0



# ---------------------------------------------------------------- legal actions
@helper
def _push(buf: np.ndarray, n: int, a: int) -> int:
    buf[n] = a
    return n + 1


@helper
def _push_bits(mask: int, first: int, buf: np.ndarray, n: int) -> int:
    """Push first + i for each set bit i of mask, ascending."""
    while mask != 0:
        n = _push(buf, n, first + lowest_bit(mask))
        mask &= mask - 1
    return n


@njit(cache=True, inline='always')
def _push_roads(s: np.ndarray, reach: int, buf: np.ndarray, n: int) -> int:
    """Push the road actions of the empty edges with an end in reach, ascending."""
    low, high = road_spots(s, reach)
    n = _push_bits(low, A.ROAD0, buf, n)
    return _push_bits(high, A.ROAD0 + 64, buf, n)


@njit(cache=True, inline='always')
def _dev_plays(s: np.ndarray, p: int, buf: np.ndarray, n: int) -> int:
    if s[DEV_PLAYED] != 0:
        return n
    if _dev_playable(s, p, KNIGHT):
        n = _push(buf, n, A.PLAY_KNIGHT)
    if _dev_playable(s, p, ROAD_BUILDING) and s[ROADS_LEFT + p] > 0 and any_road_spot(s, p):
        n = _push(buf, n, A.PLAY_ROAD_BUILDING)
    if _dev_playable(s, p, YEAR_OF_PLENTY):
        for i in range(len(A.YOP_R1)):
            r1 = A.YOP_R1[i]
            r2 = A.YOP_R2[i]
            if r1 == r2:
                ok = s[BANK + r1] >= 2
            else:
                ok = s[BANK + r1] >= 1 and s[BANK + r2] >= 1
            if ok:
                n = _push(buf, n, A.YOP0 + i)
    if _dev_playable(s, p, MONOPOLY):
        for r in range(N_RES):
            n = _push(buf, n, A.MONOPOLY0 + r)
    return n


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def legal_actions(s: np.ndarray, buf: np.ndarray) -> int:
    """Write the legal action ids for the decider into buf (ascending); return the count."""
    ph = s[PHASE]
    n = 0
    if ph == PH_GAME_OVER:
        return 0
    p = s[DECIDER]
    if ph == PH_SETUP_SETTLEMENT:
        for v in range(N_VERTICES):
            if distance_ok(s, v):
                n = _push(buf, n, A.SETTLEMENT0 + v)
        return n
    if ph == PH_SETUP_ROAD:
        v = s[SETUP_VERTEX]
        for e in range(N_EDGES):
            if s[E_OWNER + e] < 0 and (EDGE_VERTICES[e, 0] == v or EDGE_VERTICES[e, 1] == v):
                n = _push(buf, n, A.ROAD0 + e)
        return n
    if ph == PH_PRE_ROLL:
        n = _push(buf, n, A.ROLL)
        return _dev_plays(s, p, buf, n)
    if ph == PH_DISCARD:
        for r in range(N_RES):
            if s[hand_i(p, r)] > 0:
                n = _push(buf, n, A.DISCARD0 + r)
        return n
    if ph == PH_MOVE_ROBBER:
        np_ = s[OPT_PLAYERS]
        robbable = 0  # bit k: the seat k places after the mover may be robbed somewhere
        for k in range(1, np_):
            q = seat_after(p, k, np_)
            if hand_size(s, q) > 0 and not (s[OPT_FRIENDLY] != 0 and s[PUBLIC_VP + q] <= 2):
                robbable |= 1 << k
        # the buildings of the seats 1, 2, 3 places after the mover that may be robbed,
        # as vertex bitmasks (a branch-free pass per seat that may be robbed)
        at1 = building_mask(s, seat_after(p, 1, np_)) if robbable & 2 else np.int64(0)
        at2 = building_mask(s, seat_after(p, 2, np_)) if robbable & 4 else np.int64(0)
        at3 = building_mask(s, seat_after(p, 3, np_)) if robbable & 8 else np.int64(0)
        no_desert = rule_on(s, RULE_NO_DESERT_ROBBER)
        for h in range(N_HEXES):
            if h == s[ROBBER] or (no_desert and s[HEX_TERRAIN + h] == DESERT):
                continue
            on_h = HEX_VERTEX_MASK[h]
            if (at1 | at2 | at3) & on_h == 0:
                n = _push(buf, n, A.robber_action(h, 0))
                continue
            if at1 & on_h:
                n = _push(buf, n, A.robber_action(h, 1))
            if at2 & on_h:
                n = _push(buf, n, A.robber_action(h, 2))
            if at3 & on_h:
                n = _push(buf, n, A.robber_action(h, 3))
        return n
    if ph == PH_ROAD_BUILDING:
        return _push_roads(s, road_reach(s, p), buf, n)
    if ph == PH_TRADE_RESPONSE:
        if s[hand_i(p, s[TRADE_GET_RES])] >= s[TRADE_GET_N]:
            n = _push(buf, n, A.TRADE_ACCEPT)
        n = _push(buf, n, A.TRADE_REJECT)
        # counter-offers the responder can pay, except the mirror of the offer (= accept);
        # menu entries come in runs of MENU_RUN with the same cards given.  Half of a
        # trading game's steps are answers: each id is written and kept unless it is the
        # mirror (no comparison of the four fields per entry)
        mirror = _menu_entry(s[TRADE_GET_RES], s[TRADE_GET_N], s[TRADE_GIVE_RES], s[TRADE_GIVE_N])
        for m0 in range(0, A.N_MENU, A.MENU_RUN):
            if s[hand_i(p, A.MENU_GIVE_RES[m0])] < A.MENU_GIVE_N[m0]:
                continue
            for m in range(m0, m0 + A.MENU_RUN):
                buf[n] = A.COUNTER0 + m
                n += m != mirror
        return n
    if ph == PH_TRADE_CONFIRM:
        np_ = s[OPT_PLAYERS]
        for k in range(1, np_):
            if _confirm_ok(s, p, seat_after(p, k, np_)):
                n = _push(buf, n, A.confirm_action(k))
        n = _push(buf, n, A.TRADE_CANCEL)
        return n
    # PH_MAIN
    n = _push(buf, n, A.END_TURN)
    road = s[ROADS_LEFT + p] > 0 and can_afford(s, p, ROAD_COST)
    settlement = s[SETTLEMENTS_LEFT + p] > 0 and can_afford(s, p, SETTLEMENT_COST)
    city = s[CITIES_LEFT + p] > 0 and can_afford(s, p, CITY_COST)
    if road or settlement or city:  # the board as bitmasks, one pass each (placement)
        occupied, own, settlements = vertex_masks(s, p)
        touched = road_ends(s, p) if road or settlement or rule_on(s, RULE_DIRECT_CITY) else 0
        if road:
            n = _push_roads(s, own | (touched & ~occupied), buf, n)
        spots = settlement_spots(occupied, touched)
        if settlement:
            n = _push_bits(spots, A.SETTLEMENT0, buf, n)
        if city:
            direct = (rule_on(s, RULE_DIRECT_CITY) and s[SETTLEMENTS_LEFT + p] > 0
                      and can_afford(s, p, DIRECT_CITY_COST))
            n = _push_bits(settlements | (spots if direct else 0), A.CITY0, buf, n)
    if can_afford(s, p, DEV_COST) and deck_size(s) > 0:
        n = _push(buf, n, A.BUY_DEV)
    n = _dev_plays(s, p, buf, n)
    if rule_on(s, RULE_STRICT_TRADE) and s[BUILT] != 0:
        return n  # strict trade: no trading once something was built or bought
    most = 0
    for r in range(N_RES):
        most = max(most, s[hand_i(p, r)])
    if most >= SPECIAL_PORT_RATE:  # else no rate can be paid: skip the harbours
        ports = port_bits(s, p)
        for r1 in range(N_RES):
            if s[hand_i(p, r1)] < rate_from_bits(ports, r1):
                continue
            for r2 in range(N_RES):
                if r2 != r1 and s[BANK + r2] > 0:
                    n = _push(buf, n, A.maritime_action(r1, r2))
    if s[OPT_TRADE] != 0 and s[OFFERS_MADE] < s[OPT_MAX_OFFERS]:
        for m0 in range(0, A.N_MENU, A.MENU_RUN):  # runs giving the same cards
            if s[hand_i(p, A.MENU_GIVE_RES[m0])] >= A.MENU_GIVE_N[m0]:
                for m in range(m0, m0 + A.MENU_RUN):
                    n = _push(buf, n, A.OFFER0 + m)
    return n


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def random_answer(s: np.ndarray, rng: np.ndarray) -> int:
    """A uniformly random answer to the open offer, for the random policy: the same draw
    and the same action as ``buf[randint(rng, legal_actions(s, buf))]`` in
    PH_TRADE_RESPONSE (a test checks it on fuzzed states), without writing the list:
    half of a trading game's steps are answers, and their list is the longest part."""
    p = s[DECIDER]
    accept = np.int64(s[hand_i(p, s[TRADE_GET_RES])] >= s[TRADE_GET_N])
    mirror = _menu_entry(s[TRADE_GET_RES], s[TRADE_GET_N], s[TRADE_GIVE_RES], s[TRADE_GIVE_N])
    mirror_run = mirror // A.MENU_RUN if mirror >= 0 else -1
    runs = 0  # bit r: the responder can pay menu run r's cards
    count = accept + 1
    for r in range(A.N_MENU // A.MENU_RUN):
        if s[hand_i(p, A.MENU_GIVE_RES[r * A.MENU_RUN])] >= A.MENU_GIVE_N[r * A.MENU_RUN]:
            runs |= 1 << r
            count += A.MENU_RUN - (r == mirror_run)
    k = randint(rng, count)
    if k < accept:
        return A.TRADE_ACCEPT
    k -= accept
    if k == 0:
        return A.TRADE_REJECT
    k -= 1
    for r in range(A.N_MENU // A.MENU_RUN):
        if not runs >> r & 1:
            continue
        size = A.MENU_RUN - (r == mirror_run)
        if k < size:
            m = r * A.MENU_RUN + k
            if r == mirror_run and m >= mirror:
                m += 1  # past the mirror, which is not listed
            return A.COUNTER0 + m
        k -= size
    return A.TRADE_REJECT  # not reached: k < count


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _menu_entry(give_res: int, give_n: int, get_res: int, get_n: int) -> int:
    """The menu entry giving give_n x give_res for get_n x get_res, or -1 if none."""
    if 1 <= give_n <= A.MAX_TRADE_N and 1 <= get_n <= A.MAX_TRADE_N:
        return A.MENU_INDEX[give_res, give_n - 1, get_res, get_n - 1]
    return -1


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _confirm_ok(s: np.ndarray, proposer: int, partner: int) -> bool:
    resp = s[TRADE_RESP + partner]
    if resp == RESP_ACCEPT:
        return True
    if resp >= RESP_COUNTER:
        m = resp - RESP_COUNTER
        return s[hand_i(proposer, A.MENU_GET_RES[m])] >= A.MENU_GET_N[m]
    return False


@njit(cache=True)
def legal_mask(s: np.ndarray, out: np.ndarray) -> int:
    """Fill out (length N_ACTIONS) with 1 for legal actions of the decider; return count."""
    buf = np.empty(MASK_SIZE, dtype=np.int64)
    n = legal_actions(s, buf)
    out[:] = 0
    for i in range(n):
        out[buf[i]] = 1
    return n


# ---------------------------------------------------------------- chance helpers
@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _roll_dice(s: np.ndarray, forced: int) -> int:
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


# What a roll owes, packed without an allocation (a roll is a third of all steps): seat p's
# count of resource r is a 6-bit field of one int64 per pair of seats (seats 0-1, 2-3).
# A seat is owed at most 9 buildings x 3 hexes x 2 = 54 of a resource, even on a custom
# board with one number everywhere, so a field never overflows.
_OWED_BITS = 6


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _owed(pair: int, p: int, r: int) -> int:
    """Seat p's count of resource r in its pair's word."""
    return (pair >> (((p & 1) * N_RES + r) * _OWED_BITS)) & ((1 << _OWED_BITS) - 1)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _produce(s: np.ndarray, number: int) -> None:
    np_ = s[OPT_PLAYERS]
    seats01 = np.int64(0)
    seats23 = np.int64(0)
    hits = np.int64(0)  # the hexes showing the number, found by a branch-free (vectorised) scan
    for h in range(N_HEXES):
        hits |= BIT[h] & -np.int64(s[HEX_NUMBER + h] == number)
    if s[ROBBER] >= 0:  # (a set-up position may have no robber)
        hits &= ~BIT[s[ROBBER]]
    while hits != 0:
        h = lowest_bit(hits)
        hits &= hits - 1
        r = s[HEX_TERRAIN + h]
        if r == DESERT:
            continue
        for k in range(6):  # branch-free: an empty vertex has level 0 and adds nothing
            v = HEX_VERTICES[h, k]
            o = s[V_OWNER + v]
            add = s[V_LEVEL + v] << (((o & 1) * N_RES + r) * _OWED_BITS)
            upper = np.int64(o >= 2)
            seats23 += add * upper
            seats01 += add * (1 - upper)
    if seats01 == 0 and seats23 == 0:
        return
    if rule_on(s, RULE_SHORTAGE_IN_ORDER):  # paid in seat order from the roller, partially
        tp = s[TURN_PLAYER]
        for r in range(N_RES):
            for k in range(np_):
                p = seat_after(tp, k, np_)
                give = min(_owed(seats01 if p < 2 else seats23, p, r), s[BANK + r])
                if give > 0:
                    _gain(s, p, r, give)
        return
    for r in range(N_RES):
        total = 0
        owed_players = 0
        last = -1
        for p in range(np_):
            owed = _owed(seats01 if p < 2 else seats23, p, r)
            if owed > 0:
                total += owed
                owed_players += 1
                last = p
        if total == 0:
            continue
        if total <= s[BANK + r]:
            for p in range(np_):
                owed = _owed(seats01 if p < 2 else seats23, p, r)
                if owed > 0:
                    _gain(s, p, r, owed)
        elif owed_players == 1 and s[BANK + r] > 0:
            _gain(s, last, r, s[BANK + r])


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _first_discarder(s: np.ndarray) -> int:
    for p in range(s[OPT_PLAYERS]):
        if s[DISCARDS + p] > 0:
            return p
    return -1


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def reveal_vp_card(s: np.ndarray, p: int) -> None:
    """p plays one Victory Point card face up: it moves from the hidden hand to public VP
    (the played-VP variant; a mirror of a Pioneers game calls it when a seat reveals one)."""
    s[dev_i(p, VICTORY_POINT)] -= 1
    if s[dev_new_i(p, VICTORY_POINT)] > s[dev_i(p, VICTORY_POINT)]:
        s[dev_new_i(p, VICTORY_POINT)] = s[dev_i(p, VICTORY_POINT)]
    s[DEV_USED + VICTORY_POINT] += 1
    s[VP_REVEALED + p] += 1
    s[PUBLIC_VP + p] += 1


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _check_win(s: np.ndarray) -> None:
    """The turn player wins once they have the target VP during their own turn."""
    ph = s[PHASE]
    if ph == PH_SETUP_SETTLEMENT or ph == PH_SETUP_ROAD or ph == PH_GAME_OVER:
        return
    tp = s[TURN_PLAYER]
    if total_vp(s, tp) >= s[OPT_VP]:
        if rule_on(s, RULE_VP_PLAYED):  # the winner plays its VP cards face up to win
            while s[dev_i(tp, VICTORY_POINT)] > 0:
                reveal_vp_card(s, tp)
        s[PHASE] = PH_GAME_OVER
        s[WINNER] = tp
        s[DECIDER] = -1


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _clear_trade(s: np.ndarray) -> None:
    s[TRADE_GIVE_RES] = -1
    s[TRADE_GIVE_N] = 0
    s[TRADE_GET_RES] = -1
    s[TRADE_GET_N] = 0
    s[TRADE_ASKED] = 0
    for p in range(MAX_PLAYERS):
        s[TRADE_RESP + p] = RESP_NOT_ASKED


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _next_responder(s: np.ndarray) -> int:
    tp = s[TURN_PLAYER]
    np_ = s[OPT_PLAYERS]
    for k in range(1, np_):
        q = seat_after(tp, k, np_)
        if s[TRADE_RESP + q] == RESP_PENDING:
            return q
    return -1


# ---------------------------------------------------------------- apply, one function per kind
@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_setup_settlement(s: np.ndarray, p: int, v: int) -> None:
    place_settlement(s, p, v)
    s[SETUP_VERTEX] = v
    if s[SETUP_STEP] >= s[OPT_PLAYERS]:  # second settlement: one card per adjacent hex
        for k in range(3):
            h = VERTEX_HEXES[v, k]
            if h >= 0 and s[HEX_TERRAIN + h] != DESERT and s[BANK + s[HEX_TERRAIN + h]] > 0:
                _gain(s, p, s[HEX_TERRAIN + h], 1)
    s[PHASE] = PH_SETUP_ROAD


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_setup_road(s: np.ndarray, p: int, e: int) -> None:
    np_ = s[OPT_PLAYERS]
    place_road(s, p, e)
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
        nxt = step if step < np_ else 2 * np_ - 1 - step  # snake order
        s[TURN_PLAYER] = nxt
        s[DECIDER] = nxt


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_roll(s: np.ndarray, forced: int) -> None:
    total = _roll_dice(s, forced)
    if forced < 0 and s[OPT_SEVENS] != 0:  # the sevens rule re-rolls (forced rolls stand)
        round_ = (s[TURN] - 1) // s[OPT_PLAYERS] + 1
        while total == 7 and (s[OPT_SEVENS] == 2 or round_ <= 2):
            total = _roll_dice(s, forced)
    s[LAST_ROLL] = total
    s[ROLLED] = 1
    if total != 7:
        _produce(s, total)
        s[PHASE] = PH_MAIN
        return
    any_discard = False
    for q in range(s[OPT_PLAYERS]):
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


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_end_turn(s: np.ndarray, tp: int) -> None:
    for t in range(N_DEV):
        s[dev_new_i(tp, t)] = 0
    s[DEV_PLAYED] = 0
    s[ROLLED] = 0
    s[OFFERS_MADE] = 0
    s[BUILT] = 0
    nxt = seat_after(tp, 1, s[OPT_PLAYERS])
    s[TURN_PLAYER] = nxt
    s[DECIDER] = nxt
    s[TURN] += 1
    s[PHASE] = PH_PRE_ROLL
    _check_win(s)


@helper
def _buy(s: np.ndarray, p: int, cost: np.ndarray) -> None:
    """The turn player pays for a piece or a card: with the strict-trade rule, no domestic
    trade after it this turn."""
    _pay(s, p, cost)
    s[BUILT] = 1


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_road(s: np.ndarray, p: int, e: int) -> None:
    """A road: free during road building, paid in the main phase."""
    if s[PHASE] == PH_ROAD_BUILDING:
        place_road(s, p, e)
        s[FREE_ROADS] -= 1
        if s[FREE_ROADS] <= 0 or s[ROADS_LEFT + p] <= 0 or not any_road_spot(s, p):
            s[FREE_ROADS] = 0
            s[PHASE] = s[RETURN_PHASE]
    else:
        _buy(s, p, ROAD_COST)
        place_road(s, p, e)
    _check_win(s)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_building(s: np.ndarray, p: int, v: int, city: bool) -> None:
    """A settlement, or a city: on p's settlement, or (the direct-city variant) on an
    open spot, paying for the settlement and the city at once."""
    if not city or s[V_LEVEL + v] == 0:
        _buy(s, p, SETTLEMENT_COST)
        place_settlement(s, p, v)
    if city:
        _buy(s, p, CITY_COST)
        upgrade_to_city(s, p, v)
    _check_win(s)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_buy_dev(s: np.ndarray, p: int, forced: int) -> None:
    _buy(s, p, DEV_COST)
    if forced >= 0:
        t = forced
    else:
        x = randint(s, deck_size(s))
        t = 0
        while x >= s[DECK + t]:
            x -= s[DECK + t]
            t += 1
    s[DECK + t] -= 1
    s[dev_i(p, t)] += 1
    s[dev_new_i(p, t)] += 1
    s[LAST_DRAW] = t
    _check_win(s)


@helper
def _use_dev(s: np.ndarray, p: int, t: int) -> None:
    s[dev_i(p, t)] -= 1
    s[DEV_PLAYED] = 1
    s[DEV_USED + t] += 1


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_knight(s: np.ndarray, p: int) -> None:
    _use_dev(s, p, KNIGHT)
    s[KNIGHTS + p] += 1
    update_largest_army(s, p)
    s[RETURN_PHASE] = s[PHASE]
    s[PHASE] = PH_MOVE_ROBBER
    _check_win(s)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_road_building(s: np.ndarray, p: int) -> None:
    _use_dev(s, p, ROAD_BUILDING)
    s[FREE_ROADS] = min(2, s[ROADS_LEFT + p])
    s[RETURN_PHASE] = s[PHASE]
    s[PHASE] = PH_ROAD_BUILDING


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_year_of_plenty(s: np.ndarray, p: int, i: int) -> None:
    _use_dev(s, p, YEAR_OF_PLENTY)
    _gain(s, p, A.YOP_R1[i], 1)
    _gain(s, p, A.YOP_R2[i], 1)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_monopoly(s: np.ndarray, p: int, r: int) -> None:
    _use_dev(s, p, MONOPOLY)
    for q in range(s[OPT_PLAYERS]):
        if q != p:
            c = s[hand_i(q, r)]
            if c > 0:
                _transfer(s, q, p, r, c)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_robber(s: np.ndarray, p: int, a: int, forced: int) -> None:
    s[ROBBER] = A.robber_hex(a)
    s[LAST_STEAL] = -1
    victim = A.robber_victim_seat(a, p, s[OPT_PLAYERS])
    if victim >= 0:
        if forced >= 0:
            r = forced
        else:
            x = randint(s, hand_size(s, victim))
            r = 0
            while x >= s[hand_i(victim, r)]:
                x -= s[hand_i(victim, r)]
                r += 1
        s[hand_i(victim, r)] -= 1
        s[hand_i(p, r)] += 1
        _know_steal(s, p, victim, r)
        s[LAST_STEAL] = r
    s[PHASE] = s[RETURN_PHASE]
    s[DECIDER] = s[TURN_PLAYER]
    _check_win(s)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_discard(s: np.ndarray, p: int, r: int) -> None:
    s[hand_i(p, r)] -= 1
    s[BANK + r] += 1
    _know_lose(s, p, r, 1)
    s[DISCARDS + p] -= 1
    nxt = _first_discarder(s)
    if nxt >= 0:
        s[DECIDER] = nxt
    else:
        s[PHASE] = PH_MOVE_ROBBER
        s[DECIDER] = s[TURN_PLAYER]


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_maritime(s: np.ndarray, p: int, i: int) -> None:
    r1 = A.MARITIME_GIVE[i]
    rate = trade_rate(s, p, r1)
    s[hand_i(p, r1)] -= rate
    s[BANK + r1] += rate
    _know_lose(s, p, r1, rate)
    _gain(s, p, A.MARITIME_GET[i], 1)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_offer(s: np.ndarray, p: int, m: int) -> None:
    s[TRADE_GIVE_RES] = A.MENU_GIVE_RES[m]
    s[TRADE_GIVE_N] = A.MENU_GIVE_N[m]
    s[TRADE_GET_RES] = A.MENU_GET_RES[m]
    s[TRADE_GET_N] = A.MENU_GET_N[m]
    s[TRADE_ASKED] = 0
    for q in range(MAX_PLAYERS):
        s[TRADE_RESP + q] = RESP_NOT_ASKED
    for q in range(s[OPT_PLAYERS]):
        if q != p:
            s[TRADE_RESP + q] = RESP_PENDING
    s[OFFERS_MADE] += 1
    s[PHASE] = PH_TRADE_RESPONSE
    s[DECIDER] = _next_responder(s)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def _do_answer(s: np.ndarray, p: int, a: int) -> None:
    """Accept, reject or counter; after the last answer the proposer confirms or the
    offer lapses."""
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
    tp = s[TURN_PLAYER]
    any_yes = False
    for q in range(s[OPT_PLAYERS]):
        if q != tp and _confirm_ok(s, tp, q):
            any_yes = True
    s[DECIDER] = tp
    if any_yes:
        s[PHASE] = PH_TRADE_CONFIRM
    else:
        close_trade(s)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def confirm_trade(s: np.ndarray, p: int, a: int) -> None:
    """The proposer p closes the open offer with TRADE_CONFIRM a: the cards move on the
    partner's answer (the offer's terms, or its counter's) and the offer is cleared."""
    partner = A.confirm_partner(a, p, s[OPT_PLAYERS])
    resp = s[TRADE_RESP + partner]
    if resp == RESP_ACCEPT:
        _transfer(s, p, partner, s[TRADE_GIVE_RES], s[TRADE_GIVE_N])
        _transfer(s, partner, p, s[TRADE_GET_RES], s[TRADE_GET_N])
    else:
        m = resp - RESP_COUNTER
        _transfer(s, partner, p, A.MENU_GIVE_RES[m], A.MENU_GIVE_N[m])
        _transfer(s, p, partner, A.MENU_GET_RES[m], A.MENU_GET_N[m])
    close_trade(s)


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def close_trade(s: np.ndarray) -> None:
    """Clear the open offer and every answer; the turn player decides again."""
    _clear_trade(s)
    s[PHASE] = PH_MAIN
    s[DECIDER] = s[TURN_PLAYER]


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def apply_action(s: np.ndarray, a: int, forced: int) -> None:
    """Apply legal action a for the decider.  forced < 0: chance from the RNG; otherwise
    the dice total (ROLL), stolen resource (MOVE_ROBBER) or drawn card type (BUY_DEV).
    Dispatches on the action's id range (see ``actions``)."""
    p = s[DECIDER]
    ph = s[PHASE]
    s[STEPS] += 1
    if ph == PH_SETUP_SETTLEMENT:
        _do_setup_settlement(s, p, a - A.SETTLEMENT0)
    elif ph == PH_SETUP_ROAD:
        _do_setup_road(s, p, a - A.ROAD0)
    elif a == A.ROLL:
        _do_roll(s, forced)
    elif a == A.END_TURN:
        _do_end_turn(s, s[TURN_PLAYER])
    elif a < A.SETTLEMENT0:
        _do_road(s, p, a - A.ROAD0)
    elif a < A.CITY0:
        _do_building(s, p, a - A.SETTLEMENT0, False)
    elif a < A.BUY_DEV:
        _do_building(s, p, a - A.CITY0, True)
    elif a == A.BUY_DEV:
        _do_buy_dev(s, p, forced)
    elif a == A.PLAY_KNIGHT:
        _do_knight(s, p)
    elif a == A.PLAY_ROAD_BUILDING:
        _do_road_building(s, p)
    elif a < A.MONOPOLY0:
        _do_year_of_plenty(s, p, a - A.YOP0)
    elif a < A.ROBBER0:
        _do_monopoly(s, p, a - A.MONOPOLY0)
    elif a < A.DISCARD0:
        _do_robber(s, p, a, forced)
    elif a < A.MARITIME0:
        _do_discard(s, p, a - A.DISCARD0)
    elif a < A.OFFER0:
        _do_maritime(s, p, a - A.MARITIME0)
    elif a < A.TRADE_ACCEPT:
        _do_offer(s, p, a - A.OFFER0)
    elif a < A.CONFIRM0:
        _do_answer(s, p, a)
    elif a < A.TRADE_CANCEL:
        confirm_trade(s, p, a)
    else:
        close_trade(s)


# ---------------------------------------------------------------- new games and boards
@njit(cache=True)
def red_numbers_adjacent(numbers: np.ndarray) -> bool:
    for h in range(N_HEXES):
        if numbers[h] == 6 or numbers[h] == 8:
            for k in range(6):
                g = HEX_NEIGHBOURS[h, k]
                if g >= 0 and (numbers[g] == 6 or numbers[g] == 8):
                    return True
    return False


@njit(cache=True)
def random_board_into(s: np.ndarray) -> None:
    """Shuffle terrain, harbours and numbers (no adjacent 6/8) with the state's RNG."""
    terrain = TERRAIN_DECK.copy()
    shuffle(s, terrain)
    ports = PORT_DECK.copy()
    shuffle(s, ports)
    numbers = np.zeros(19, dtype=np.int64)
    tokens = NUMBER_TOKENS.copy()
    while True:
        shuffle(s, tokens)
        j = 0
        for h in range(N_HEXES):
            if terrain[h] == DESERT:
                numbers[h] = 0
            else:
                numbers[h] = tokens[j]
                j += 1
        if not red_numbers_adjacent(numbers):
            break
    for h in range(N_HEXES):
        s[HEX_TERRAIN + h] = terrain[h]
        s[HEX_NUMBER + h] = numbers[h]
        if terrain[h] == DESERT:
            s[ROBBER] = h
    for i in range(N_PORTS):
        s[PORT_TYPE + i] = ports[i]
        s[PORT_EDGE + i] = PORT_EDGES[i]


@njit(cache=True)
def init_state(s: np.ndarray, n_players: int, vp: int, discard: int, friendly: int, trade: int, max_offers: int,
               seed: int) -> None:
    """Reset s to the start of set-up; the board fields must be filled by the caller
    (or by random_board_into).  Everything else is derived from the options."""
    s[BOARD_END:] = 0  # the board fields stay
    seed_rng(s, seed)
    s[OPT_PLAYERS] = n_players
    s[OPT_VP] = vp
    s[OPT_DISCARD] = discard
    s[OPT_FRIENDLY] = friendly
    s[OPT_TRADE] = trade
    s[OPT_MAX_OFFERS] = max_offers
    for v in range(N_VERTICES):
        s[V_OWNER + v] = -1
    for e in range(N_EDGES):
        s[E_OWNER + e] = -1
    for r in range(N_RES):
        s[BANK + r] = CARDS_PER_RESOURCE
    for t in range(N_DEV):
        s[DECK + t] = OFFICIAL_DECK[t]
        s[DECK_START + t] = OFFICIAL_DECK[t]
    for p in range(MAX_PLAYERS):
        on = 1 if p < n_players else 0
        s[ROADS_LEFT + p] = ROADS_PER_PLAYER * on
        s[SETTLEMENTS_LEFT + p] = SETTLEMENTS_PER_PLAYER * on
        s[CITIES_LEFT + p] = CITIES_PER_PLAYER * on
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
def new_random_game(s: np.ndarray, n_players: int, vp: int, discard: int, friendly: int, trade: int,
                    max_offers: int, seed: int) -> None:
    """A new game on an official random board, all from one seed."""
    seed_rng(s, seed ^ 0x2545F4914F6CDD1D)
    random_board_into(s)
    init_state(s, n_players, vp, discard, friendly, trade, max_offers, seed)


@njit(cache=True)
def set_rule_variants(s: np.ndarray, rules: int, sevens: int, deck: np.ndarray) -> None:
    """Switch a freshly initialised game (before any action) to rule variants: the
    RULE_* bits, the sevens rule and the development deck (counts by type)."""
    s[OPT_RULES] = rules
    s[OPT_SEVENS] = sevens
    for t in range(N_DEV):
        s[DECK + t] = deck[t]
        s[DECK_START + t] = deck[t]
