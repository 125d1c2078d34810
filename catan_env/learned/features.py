"""What the win-probability network reads: one seat's view of a position as floats.

Two parts, both computed from what ``observer`` may know (the board, public counts, its
own hand and development cards; never another seat's hidden cards, the deck's order or
the RNG, so the features of a state and of any determinization of it for the observer
are equal, tested in ``tests/test_value_net.py``):

- ``raw``: the non-board part of the observer's observation vector
  (``catan_env.core.observe``, TAIL_SIZE floats: own hand and cards, each seat's public
  counts and what the observer knows of its hand, bank, deck, phase, the open offer).
  The board part is left out on purpose: it is constant through a game, so a network fed
  it learns "this board: that seat wins" (held-out log loss 4.1 against 0.19 in training
  on 1,600 games); the engineered columns describe the board per seat instead; and
- engineered features: per relative seat (observer first, then turn order) its victory
  points, expected production by resource and by number, what the robber takes from it,
  harbours, settlement spots open now and one road away with their pips, pieces built;
  and for the game the relative turn player and decider, the player count, the unseen
  development cards by type and what the observer's hand affords; and last the game's
  rule options (rule variant bits, the sevens rule, the starting development deck, the
  table rules), public and constant through a game, so that one network serves the
  official and the Pioneers rules.

Every slot is named once in ``FEATURE_FIELDS`` (name, offset, size, meaning), the
per-seat columns in ``SEAT_COLS``; ``feature_table()`` prints them.
"""
from collections import namedtuple
from typing import List, Tuple

import numpy as np
from numba import njit

from catan_env.core.jit_options import NO_RUNTIME

from catan_env.core.arrays import copy_into
from catan_env.core.cards import hand_size, total_vp
from catan_env.core.layout import (
    DECIDER, DECK_START, DEV_USED, E_OWNER, HEX_NUMBER, HEX_TERRAIN, MAX_PLAYERS, N_DEV, N_RES,
    OPT_DISCARD, OPT_FRIENDLY, OPT_MAX_OFFERS, OPT_PLAYERS, OPT_RULES, OPT_SEVENS, OPT_TRADE, OPT_VP,
    PORT_EDGE, PORT_TYPE, PUBLIC_VP, ROBBER, RULE_DIRECT_CITY, RULE_NO_DESERT_ROBBER, RULE_SHORTAGE_IN_ORDER,
    RULE_STRICT_TRADE, RULE_VP_PLAYED, TURN_PLAYER, V_LEVEL, V_OWNER, dev_i, hand_i,
)
from catan_env.core.observe import BOARD_SIZE, PIPS, TAIL_SIZE, VECTOR_SIZE, encode_tail
from catan_env.core.placement import distance_ok
from catan_env.core.tables import CITY_COST, DEV_COST, ROAD_COST, SETTLEMENT_COST
from catan_env.core.topology import (
    EDGE_VERTICES, N_EDGES, N_HEXES, N_PORTS, N_VERTICES, VERTEX_EDGES, VERTEX_HEXES,
)

FEATURE_FIELDS: List[Tuple[str, int, int, str]] = []  # (name, offset, size, meaning), in order
RULE_BITS = (("no robber on the desert", RULE_NO_DESERT_ROBBER), ("bank shortage paid in seat order", RULE_SHORTAGE_IN_ORDER),
             ("strict trade", RULE_STRICT_TRADE), ("direct city", RULE_DIRECT_CITY),
             ("VP cards count once played", RULE_VP_PLAYED))
RULE_BIT_VALUES = np.array([bit for _, bit in RULE_BITS], dtype=np.int64)
SEAT_COLS: List[Tuple[str, int, int, str]] = []  # the same for the columns of one seat's block


def _append(table: List[Tuple[str, int, int, str]], name: str, size: int, meaning: str) -> int:
    """Add a slot at the end of table; return its offset."""
    offset = sum(f[2] for f in table)
    table.append((name, offset, int(size), meaning))
    return offset


def _field(name: str, size: int, meaning: str) -> int:
    return _append(FEATURE_FIELDS, name, size, meaning)


def _col(name: str, size: int, meaning: str) -> int:
    return _append(SEAT_COLS, name, size, meaning)


C_VP = _col("vp", 1, "victory points / 10 (the observer's own include its VP cards; others' public)")
C_VP_LEFT = _col("vp_left", 1, "points still needed to win / 10")
C_PROD = _col("production", N_RES, "expected cards per roll by resource (robbed hex excluded) x 3")
C_PROD_TOTAL = _col("production_total", 1, "expected cards per roll, all resources x 3")
C_ROBBED = _col("robbed", 1, "expected cards per roll the robber withholds x 3")
C_NUMBERS = _col("numbers", 10, "building levels on each number 2-6, 8-12 / 3")
C_DIVERSITY = _col("diversity", 1, "resources produced at all / 5")
C_HARBOURS = _col("harbours", 6, "harbour owned: 2:1 brick lumber wool grain ore, generic 3:1")
C_SPOTS = _col("spots", 1, "settlement spots open now (legal by distance, on own road) / 5")
C_SPOTS_NEAR = _col("spots_near", 1, "more spots one road away / 5")
C_SPOT_PIPS = _col("spot_pips", 1, "best pips of a spot open now / 13")
C_NEAR_PIPS = _col("near_pips", 1, "best pips of a spot one road away / 13")
C_SETTLEMENTS = _col("settlements", 1, "settlements on the board / 5")
C_CITIES = _col("cities", 1, "cities on the board / 4")
C_ROADS = _col("roads", 1, "roads on the board / 15")
SEAT_WIDTH = sum(c[2] for c in SEAT_COLS)

F_RAW = _field("raw", TAIL_SIZE, "the observer's observation vector without its board part (docs/observations-actions.md)")
F_SEATS = _field("seats", MAX_PLAYERS * SEAT_WIDTH, f"per relative seat, {SEAT_WIDTH} columns (SEAT_COLS)")
F_TURN_PLAYER = _field("turn_player", MAX_PLAYERS, "relative seat whose turn it is, one-hot")
F_DECIDER = _field("decider", MAX_PLAYERS, "relative seat that decides now, one-hot")
F_PLAYERS = _field("players", 3, "players in the game one-hot (2, 3, 4)")
F_UNSEEN_DEV = _field("unseen_devs", N_DEV, "development cards the observer has not seen, by type / their count")
F_AFFORD = _field("affords", 4, "the observer's hand pays for a road, settlement, city, development card")
F_OVER_SEVEN = _field("over_seven", 1, "the observer holds more than 7 cards")
# The rule options (appended last: a network trained before them reads them with zero
# weights, see ``net.ValueNetwork.load``), so one network serves every rule set.
F_RULES = _field("rules", len(RULE_BITS), "rule variant on: " + ", ".join(name for name, _ in RULE_BITS))
F_SEVENS = _field("sevens_rule", 3, "sevens rule one-hot: normal, re-roll in rounds 1-2, re-roll every 7")
F_DECK = _field("deck_start", N_DEV, "the development deck at the start by type / 25")
F_TABLE = _field("table_rules", 4, "friendly robber, domestic trade on, discard limit / 10, offers per turn / 10")
N_FEATURES = sum(f[2] for f in FEATURE_FIELDS)
NUMBER_SLOT = np.array([-1, -1, 0, 1, 2, 3, 4, -1, 5, 6, 7, 8, 9], dtype=np.int64)  # dice total -> C_NUMBERS slot


def feature_table() -> str:
    """The feature slots as a Markdown table."""
    rows = ["| field | floats | offset | meaning |", "|---|---:|---:|---|"]
    rows += [f"| `{n}` | {s} | {o} | {m} |" for n, o, s, m in FEATURE_FIELDS]
    rows += ["", f"Per-seat columns ({SEAT_WIDTH} per seat, observer first):", "",
             "| column | floats | offset | meaning |", "|---|---:|---:|---|"]
    rows += [f"| `{n}` | {s} | {o} | {m} |" for n, o, s, m in SEAT_COLS]
    return "\n".join(rows)


@njit(cache=True, **NO_RUNTIME)
def vertex_pips(s: np.ndarray, v: int) -> float:
    """Pips of the producing hexes around vertex v (robber ignored)."""
    total = 0.0
    for k in range(3):
        h = VERTEX_HEXES[v, k]
        if h >= 0 and s[HEX_TERRAIN + h] < N_RES:
            total += PIPS[s[HEX_NUMBER + h]]
    return total


@njit(cache=True, **NO_RUNTIME)
def _affords(s: np.ndarray, p: int, cost: np.ndarray) -> float:
    for r in range(N_RES):
        if s[hand_i(p, r)] < cost[r]:
            return 0.0
    return 1.0


@njit(cache=True, **NO_RUNTIME)
def _seat_vp(s: np.ndarray, p: int, observer: int, out: np.ndarray, o: int) -> None:
    """Seat p's VP columns into out[o:]: the only per-seat columns that do not follow from
    the board (the pieces, the robber, the hexes and harbours)."""
    vp = total_vp(s, p) if p == observer else s[PUBLIC_VP + p]
    out[o + C_VP] = vp / 10.0
    out[o + C_VP_LEFT] = max(s[OPT_VP] - vp, 0) / 10.0


@njit(cache=True, **NO_RUNTIME)
def _seat_offset(p: int, observer: int, n: int) -> int:
    """Offset in the features of seat p's block (relative seats, observer first)."""
    return F_SEATS + ((p - observer) % n) * SEAT_WIDTH


@njit(cache=True, **NO_RUNTIME)
def _seat_columns(s: np.ndarray, observer: int, out: np.ndarray, spot_pips: np.ndarray, reach: np.ndarray) -> None:
    """Every seat's block of engineered columns (relative seats, observer first) into out
    (zero there on entry); spot_pips: N_VERTICES floats, reach: (MAX_PLAYERS, N_VERTICES)
    bools of scratch.  One pass over the board for all seats: each road, building and
    open spot adds to its seat's columns in board order, so each column sums the same
    terms in the same order as a pass per seat (the same float32 bits,
    ``tests/test_value_net.py``'s per-seat reference).  Reads nothing of s but the VP
    columns' fields (``_seat_vp``) and s[SEAT_KEY_FROM:SEAT_KEY_TO]:
    ``encode_features_keyed`` copies the rest by seat key (a column that read more would
    need a wider key).  A piece whose owner is not a seat of the game (a state relabelled
    with fewer players) is left out, as the pass per seat left it."""
    n = s[OPT_PLAYERS]
    for k in range(n):
        _seat_vp(s, (observer + k) % n, observer, out, F_SEATS + k * SEAT_WIDTH)
    for v in range(N_VERTICES):  # each spot's pips where a settlement may stand by the distance rule, else -1
        spot_pips[v] = vertex_pips(s, v) if distance_ok(s, v) else -1.0
    reach[:n, :] = False  # reach[p, v]: seat p's road or building touches v
    for e in range(N_EDGES):
        owner = s[E_OWNER + e]
        if 0 <= owner < n:
            out[_seat_offset(owner, observer, n) + C_ROADS] += 1.0 / 15.0
            reach[owner, EDGE_VERTICES[e, 0]] = True
            reach[owner, EDGE_VERTICES[e, 1]] = True
    robber = s[ROBBER]
    for v in range(N_VERTICES):
        owner = s[V_OWNER + v]
        if not 0 <= owner < n:
            continue
        o = _seat_offset(owner, observer, n)
        level = s[V_LEVEL + v]
        reach[owner, v] = True
        if level == 1:
            out[o + C_SETTLEMENTS] += 1.0 / 5.0
        else:
            out[o + C_CITIES] += 1.0 / 4.0
        for k in range(3):
            h = VERTEX_HEXES[v, k]
            if h < 0 or s[HEX_TERRAIN + h] >= N_RES:
                continue
            cards = level * PIPS[s[HEX_NUMBER + h]] / 36.0 * 3.0
            if h == robber:
                out[o + C_ROBBED] += cards
            else:
                out[o + C_PROD + s[HEX_TERRAIN + h]] += cards
            out[o + C_NUMBERS + NUMBER_SLOT[s[HEX_NUMBER + h]]] += level / 3.0
    for k in range(n):
        o = F_SEATS + k * SEAT_WIDTH
        kinds = 0
        for r in range(N_RES):
            out[o + C_PROD_TOTAL] += out[o + C_PROD + r]
            if out[o + C_PROD + r] > 0.0:
                kinds += 1
        out[o + C_DIVERSITY] = kinds / 5.0
    for i in range(N_PORTS):
        e = s[PORT_EDGE + i]
        for j in range(2):
            owner = s[V_OWNER + EDGE_VERTICES[e, j]]
            if 0 <= owner < n:
                out[_seat_offset(owner, observer, n) + C_HARBOURS + s[PORT_TYPE + i]] = 1.0
    # spots: open now (a seat's road ends there), else one empty edge further (a seat's
    # road at the edge's far end; the tests of a building there are kept from the pass
    # per seat, though a building next to a spot breaks the distance rule)
    for v in range(N_VERTICES):
        pips = spot_pips[v]
        if pips < 0.0:
            continue
        now = 0  # bit p: seat p's road touches v
        for k in range(3):
            e = VERTEX_EDGES[v, k]
            if e >= 0 and 0 <= s[E_OWNER + e] < n:
                now |= 1 << s[E_OWNER + e]
        for p in range(n):
            o = _seat_offset(p, observer, n)
            if now & (1 << p):
                out[o + C_SPOTS] += 1.0 / 5.0
                out[o + C_SPOT_PIPS] = max(out[o + C_SPOT_PIPS], pips / 13.0)
                continue
            for k in range(3):
                e = VERTEX_EDGES[v, k]
                if e < 0 or s[E_OWNER + e] >= 0:
                    continue
                w = EDGE_VERTICES[e, 0] if EDGE_VERTICES[e, 1] == v else EDGE_VERTICES[e, 1]
                if reach[p, w] and (s[V_OWNER + w] < 0 or s[V_OWNER + w] == p):
                    out[o + C_SPOTS_NEAR] += 1.0 / 5.0
                    out[o + C_NEAR_PIPS] = max(out[o + C_NEAR_PIPS], pips / 13.0)
                    break


# Scratch the encoders write through (the observation tail, each spot's pips, which
# vertices each seat's pieces reach): one per evaluator, so that a leaf's features allocate nothing
FeatureScratch = namedtuple("FeatureScratch", ["vec", "pips", "reach"])


@njit(cache=True)
def new_feature_scratch() -> FeatureScratch:
    """Scratch for ``encode_features_into`` and ``encode_features_keyed``."""
    return FeatureScratch(np.zeros(VECTOR_SIZE, np.float32), np.zeros(N_VERTICES),
                          np.zeros((MAX_PLAYERS, N_VERTICES), np.bool_))


# Without numba's runtime (``**NO_RUNTIME``, here and on the keyed encoder and the column
# writers below; see ``core.jit_options``): these take only arrays they are given and
# allocate nothing, and the reference counts on the arrays a leaf passed around were about
# a quarter of a greedy decision's time (atomic NRT_incref/NRT_decref calls, 24%, 2026-12-01).
@njit(cache=True, **NO_RUNTIME)
def encode_features_into(s: np.ndarray, observer: int, out: np.ndarray, scratch: FeatureScratch) -> None:
    """The observer's features of state s into out (N_FEATURES float32, overwritten)."""
    out[:] = 0.0
    _seat_columns(s, observer, out, scratch.pips, scratch.reach)
    _other_columns(s, observer, out, scratch.vec)


@njit(cache=True)
def encode_features(s: np.ndarray, observer: int, out: np.ndarray) -> np.ndarray:
    """The observer's features of state s into out (N_FEATURES float32, overwritten);
    returns out.  (Allocates its scratch: a caller in a loop keeps a
    ``new_feature_scratch()`` and calls ``encode_features_into``.)"""
    encode_features_into(s, observer, out, new_feature_scratch())
    return out


# A position's seat key: its board (hexes, harbours, robber, pieces: one run of the state)
# with the player count and the observer.  Every per-seat column but the VP ones is read
# from these alone (``_seat_columns``), so a position with the seat key of one whose
# features are known copies them (``encode_features_keyed``).  An exact copy, valid across
# games; not ``batched.kernel.board_key``, a number that changes with the board within one game.
SEAT_KEY_FROM, SEAT_KEY_TO = HEX_TERRAIN, E_OWNER + N_EDGES
assert all(SEAT_KEY_FROM <= start and start + size <= SEAT_KEY_TO for start, size in (
    (HEX_TERRAIN, N_HEXES), (HEX_NUMBER, N_HEXES), (PORT_TYPE, N_PORTS), (PORT_EDGE, N_PORTS), (ROBBER, 1),
    (V_OWNER, N_VERTICES), (V_LEVEL, N_VERTICES), (E_OWNER, N_EDGES))), "the seat key holds every board field"
SEAT_KEY_SIZE = SEAT_KEY_TO - SEAT_KEY_FROM + 2


@njit(cache=True)
def new_seat_key() -> np.ndarray:
    """A seat key that matches no position (``set_seat_key`` fills it)."""
    return np.full(SEAT_KEY_SIZE, -2, np.int64)


@njit(cache=True, **NO_RUNTIME)
def set_seat_key(s: np.ndarray, observer: int, key: np.ndarray) -> None:
    """key := s's seat key for observer."""
    copy_into(key[:SEAT_KEY_SIZE - 2], s[SEAT_KEY_FROM:SEAT_KEY_TO])
    key[SEAT_KEY_SIZE - 2] = s[OPT_PLAYERS]
    key[SEAT_KEY_SIZE - 1] = observer


@njit(cache=True, **NO_RUNTIME)
def has_seat_key(s: np.ndarray, observer: int, key: np.ndarray) -> bool:
    """Whether s, seen by observer, has the seat key ``key``."""
    if key[SEAT_KEY_SIZE - 1] != observer or key[SEAT_KEY_SIZE - 2] != s[OPT_PLAYERS]:
        return False
    differ = 0
    for i in range(SEAT_KEY_SIZE - 2):  # no early exit: a branch-free pass the compiler vectorises
        differ += s[SEAT_KEY_FROM + i] != key[i]
    return differ == 0


@njit(cache=True, **NO_RUNTIME)
def encode_features_keyed(s: np.ndarray, observer: int, out: np.ndarray, key: np.ndarray,
                          known: np.ndarray, scratch: FeatureScratch) -> None:
    """encode_features(s, observer, out), the same floats; where s has the seat key
    ``key`` for observer, the per-seat columns but the VP ones are copied from ``known``
    (the features of a position with that key; not ``out`` itself) instead of computed.
    A leaf after a trade, a development card bought, a monopoly or year of plenty, or a
    dice roll keeps its root's seat key (``benchmarks/value_opponent_speed.py`` times both
    encodings, ``leaf_profile``)."""
    if not has_seat_key(s, observer, key):
        encode_features_into(s, observer, out, scratch)
        return
    out[:] = 0.0
    n = s[OPT_PLAYERS]
    copy_into(out[F_SEATS:F_SEATS + n * SEAT_WIDTH], known[F_SEATS:F_SEATS + n * SEAT_WIDTH])
    for k in range(n):
        _seat_vp(s, (observer + k) % n, observer, out, F_SEATS + k * SEAT_WIDTH)
    _other_columns(s, observer, out, scratch.vec)


@njit(cache=True, **NO_RUNTIME)
def _other_columns(s: np.ndarray, observer: int, out: np.ndarray, vec: np.ndarray) -> None:
    """Every feature but the per-seat columns into out (their slots zero on entry); vec:
    VECTOR_SIZE floats of scratch (the observation's tail is encoded there)."""
    encode_tail(s, observer, vec)
    copy_into(out[F_RAW:F_RAW + TAIL_SIZE], vec[BOARD_SIZE:])
    n = s[OPT_PLAYERS]
    out[F_TURN_PLAYER + (s[TURN_PLAYER] - observer) % n] = 1.0
    if s[DECIDER] >= 0:
        out[F_DECIDER + (s[DECIDER] - observer) % n] = 1.0
    out[F_PLAYERS + n - 2] = 1.0
    unseen = 0.0
    for t in range(N_DEV):
        c = s[DECK_START + t] - s[DEV_USED + t] - s[dev_i(observer, t)]
        out[F_UNSEEN_DEV + t] = c
        unseen += c
    for t in range(N_DEV):
        out[F_UNSEEN_DEV + t] = out[F_UNSEEN_DEV + t] / unseen if unseen > 0 else 0.0
    out[F_AFFORD] = _affords(s, observer, ROAD_COST)
    out[F_AFFORD + 1] = _affords(s, observer, SETTLEMENT_COST)
    out[F_AFFORD + 2] = _affords(s, observer, CITY_COST)
    out[F_AFFORD + 3] = _affords(s, observer, DEV_COST)
    out[F_OVER_SEVEN] = 1.0 if hand_size(s, observer) > s[OPT_DISCARD] else 0.0  # a 7 costs cards
    _rule_block(s, out)


@njit(cache=True, **NO_RUNTIME)
def _rule_block(s: np.ndarray, out: np.ndarray) -> None:
    """The game's rule options (public, constant through a game) into their slots."""
    for i in range(RULE_BIT_VALUES.shape[0]):
        out[F_RULES + i] = 1.0 if s[OPT_RULES] & RULE_BIT_VALUES[i] else 0.0
    out[F_SEVENS + s[OPT_SEVENS]] = 1.0
    for t in range(N_DEV):
        out[F_DECK + t] = s[DECK_START + t] / 25.0
    out[F_TABLE] = 1.0 if s[OPT_FRIENDLY] else 0.0
    out[F_TABLE + 1] = 1.0 if s[OPT_TRADE] else 0.0
    out[F_TABLE + 2] = s[OPT_DISCARD] / 10.0
    out[F_TABLE + 3] = s[OPT_MAX_OFFERS] / 10.0
