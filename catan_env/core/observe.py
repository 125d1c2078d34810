"""Seat-relative observation encoders (observer = relative seat 0, then turn order).

They show public information and the observer's own private information only: other
hands appear as public counts plus the observer's knowledge (known cards per resource
and an unknown count); other development cards as a count.

Flat vector (float32, VECTOR_SIZE): the fields of ``OBS_FIELDS`` in order (name,
offset, shape, meaning; ``observation_table()`` prints them, ``obs_view(vec, name)``
reads one).  The board fields come first (BOARD_SIZE floats); the rest is the "vector
part" used beside the board planes.
Compact form (uint8, COMPACT_SIZE): the counts the floats are made of, slot for slot
(each float is its count divided by ``DIVISORS``), then the turn's high byte; the same
encoders write it when given a uint8 array, and ``expand`` turns it into the floats.
Board planes (float32, PLANES x 17 x 21; see topology.HEX_CELL etc. for the embedding):
  0-5 terrain one-hot, 6 pips / 5, 7 robber, 8-11 settlements by relative seat,
  12-15 cities by relative seat, 16-19 roads by relative seat, 20-25 harbour type on
  the two harbour vertices.
"""
from typing import List, Optional, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike
from numba import njit, types
from numba.extending import overload
from .jit_options import RUNTIME

from . import actions as A
from .layout import (
    N_DEV, N_RES, BANK, CITIES_LEFT, DECIDER, DECK, DEV_USED, DEV_PLAYED, DISCARDS, E_OWNER,
    FREE_ROADS, HEX_NUMBER, HEX_TERRAIN, KNIGHTS, LA_HOLDER, LAST_ROLL,
    LR_HOLDER, OFFERS_MADE, OPT_PLAYERS, PHASE, PORT_EDGE, PORT_TYPE, PUBLIC_VP, RESP_COUNTER,
    RESP_NOT_ASKED, ROAD_LEN, ROADS_LEFT, ROBBER, ROLLED, SETTLEMENTS_LEFT, TRADE_GET_N,
    TRADE_GET_RES, TRADE_GIVE_N, TRADE_GIVE_RES, TRADE_RESP, TURN, TURN_PLAYER, V_LEVEL,
    V_OWNER, MAX_PLAYERS, N_PHASES, PH_GAME_OVER, dev_i, dev_new_i, hand_i, know_i, relative_seat, seat_after,
)
from .cards import hand_size, total_vp
from .tables import DICE_WAYS
from .topology import (EDGE_CELL, GRID_H, GRID_W, HEX_CELL, N_EDGES, N_HEXES, N_PORTS,  # noqa: F401 (GRID_*)
                       N_VERTICES, VERTEX_CELL, EDGE_VERTICES)

PIPS = DICE_WAYS.astype(np.float64)  # pips on a number token = ways to roll it

# ---- the flat vector's fields: (name, offset, shape, meaning), defined once, in order.
# The encoders write through these offsets and the column constants below; consumers
# read with ``obs_view(vec, name)``; ``observation_table()`` prints them for the docs.
_obs_fields: List[Tuple[str, int, Tuple[int, ...], str]] = []
_field_scales: List[np.ndarray] = []  # per field: each float's divisor, flattened

# The divisors: each float of the vector is a count divided by one of these (one-hot and
# yes/no floats by 1).  The encoders divide by these names; the compact (uint8) form keeps
# the counts, and ``expand`` divides them by the same names (``DIVISORS``).
D_CARDS, D_VP, D_DEVS, D_KNIGHTS, D_ROAD_LEN = 10.0, 10.0, 5.0, 5.0, 15.0
D_ROADS, D_SETTLEMENTS, D_CITIES = 15.0, 5.0, 4.0
D_NUMBER, D_PIPS, D_BANK, D_DECK, D_DEV_USED = 12.0, 5.0, 19.0, 25.0, 14.0
D_FREE_ROADS, D_OFFERS, D_TURN, D_TRADE_N = 2.0, 3.0, 100.0, 2.0
MAX_TURN_SHOWN = 5000  # the turn float saturates here (two bytes in the compact form)


def _obs_field(name: str, shape: Tuple[int, ...], meaning: str, scale: Union[float, Tuple[float, ...]] = 1.0) -> int:
    """Append a field; scale: its floats' divisor, or one per column of its last axis."""
    offset = sum(int(np.prod(sh)) for _, _, sh, _ in _obs_fields)
    _obs_fields.append((name, offset, tuple(shape), meaning))
    _field_scales.append(np.broadcast_to(np.asarray(scale, np.float64), tuple(shape)).reshape(-1))
    return offset


# columns inside the per-item blocks
HEX_TERRAIN_COL, HEX_NUMBER_COL, HEX_PIPS_COL, HEX_ROBBER_COL = 0, 6, 7, 8
HEX_FEATURES = 9      # terrain one-hot (6: hills forest pasture fields mountains desert), number, pips, robber
PORT_FEATURES = 6     # harbour type one-hot (brick lumber wool grain ore generic)
VERTEX_FEATURES = 2 * MAX_PLAYERS  # settlement by relative seat, then city by relative seat
EDGE_FEATURES = MAX_PLAYERS        # road by relative seat
(P_VP, P_CARDS, P_DEVS, P_KNIGHTS, P_ROAD_LEN, P_HOLDS_LR, P_HOLDS_LA, P_ROADS_LEFT,
 P_SETTLEMENTS_LEFT, P_CITIES_LEFT, P_DISCARDS, P_KNOWN) = range(12)
PLAYER_FEATURES = P_KNOWN + N_RES + 1  # ... known cards per resource (5), unknown cards
A_RESP, A_GIVE, A_GIVE_N, A_GET, A_GET_N = 0, 4, 9, 10, 15
ANSWER_FEATURES = A_GET_N + 1          # answer one-hot (pending reject accept counter), counter offer
N_ROLLS = 11                           # dice totals 2..12

O_HEXES = _obs_field("hexes", (N_HEXES, HEX_FEATURES),
                     "per hex: terrain one-hot (hills forest pasture fields mountains desert), "
                     "number / 12, pips / 5, robber",
                     (1.0,) * HEX_NUMBER_COL + (D_NUMBER, D_PIPS, 1.0))
O_PORTS = _obs_field("harbours", (N_PORTS, PORT_FEATURES),
                     "per harbour slot: type one-hot (brick lumber wool grain ore generic)")
O_VERTICES = _obs_field("vertices", (N_VERTICES, VERTEX_FEATURES),
                        "per vertex: settlement of relative seat 0-3, city of relative seat 0-3")
O_EDGES = _obs_field("edges", (N_EDGES, EDGE_FEATURES), "per edge: road of relative seat 0-3")
BOARD_SIZE = O_EDGES + N_EDGES * EDGE_FEATURES  # the rest is the "vector part" beside board planes
O_OWN_HAND = _obs_field("own_hand", (N_RES,), "own resource cards / 10", D_CARDS)
O_OWN_DEVS = _obs_field("own_devs", (N_DEV,), "own unplayed development cards by type / 5", D_DEVS)
O_OWN_NEW_DEVS = _obs_field("own_new_devs", (N_DEV,), "of those, bought this turn / 5", D_DEVS)
O_OWN_VP = _obs_field("own_vp", (1,), "own victory points including VP cards / 10", D_VP)
O_PLAYERS = _obs_field("players", (MAX_PLAYERS, PLAYER_FEATURES),
                       "per relative seat: public VP / 10, cards / 10, development cards / 5, "
                       "knights / 5, longest-road length / 15, holds longest road, holds largest "
                       "army, roads / 15, settlements / 5, cities / 4 left, cards still to discard "
                       "/ 10, the observer's known cards per resource / 10 (5), unknown cards / 10",
                       (D_VP, D_CARDS, D_DEVS, D_KNIGHTS, D_ROAD_LEN, 1.0, 1.0, D_ROADS, D_SETTLEMENTS,
                        D_CITIES, D_CARDS) + (D_CARDS,) * (N_RES + 1))
O_BANK = _obs_field("bank", (N_RES,), "bank per resource / 19", D_BANK)
O_DECK = _obs_field("deck", (1,), "development cards left in the deck / 25", D_DECK)
O_DEV_USED = _obs_field("dev_used", (N_DEV,), "development cards played so far by type / 14", D_DEV_USED)
O_PHASE = _obs_field("phase", (N_PHASES,), "phase one-hot")
O_DECIDES = _obs_field("decides", (1,), "the observer decides now")
O_ROLLED = _obs_field("rolled", (1,), "the dice were rolled this turn")
O_DEV_PLAYED = _obs_field("dev_played", (1,), "a development card was played this turn")
O_LAST_ROLL = _obs_field("last_roll", (N_ROLLS,), "last dice total one-hot (2..12)")
O_FREE_ROADS = _obs_field("free_roads", (1,), "free roads left to place / 2", D_FREE_ROADS)
O_OFFERS_MADE = _obs_field("offers_made", (1,), "domestic offers made this turn / 3", D_OFFERS)
O_TURN = _obs_field("turn", (1,), "turn / 100", D_TURN)
O_OFFER_GIVE = _obs_field("offer_give", (N_RES,), "open offer: resource the proposer gives, one-hot")
O_OFFER_GIVE_N = _obs_field("offer_give_n", (1,), "open offer: cards given / 2", D_TRADE_N)
O_OFFER_GET = _obs_field("offer_get", (N_RES,), "open offer: resource the proposer asks for, one-hot")
O_OFFER_GET_N = _obs_field("offer_get_n", (1,), "open offer: cards asked / 2", D_TRADE_N)
O_OFFER_PROPOSER = _obs_field("offer_proposer", (MAX_PLAYERS,), "open offer: proposer's relative seat one-hot")
O_ANSWERS = _obs_field("answers", (MAX_PLAYERS, ANSWER_FEATURES),
                       "per relative seat: answer one-hot (pending, reject, accept, counter), counter "
                       "offer: give one-hot 5, give n / 2, get one-hot 5, get n / 2",
                       (1.0,) * A_GIVE_N + (D_TRADE_N,) + (1.0,) * (A_GET_N - A_GET) + (D_TRADE_N,))
VECTOR_SIZE = sum(int(np.prod(sh)) for _, _, sh, _ in _obs_fields)
TAIL_SIZE = VECTOR_SIZE - BOARD_SIZE
OBS_FIELDS = tuple(_obs_fields)  # (name, offset, shape, meaning), in order
_OBS_BY_NAME = {name: (off, shape) for name, off, shape, _ in OBS_FIELDS}
PLANES = 26
PIPS_PLANE = 6
# the compact (uint8) form: the vector's counts, and the turn's high byte after them
DIVISORS = np.concatenate(_field_scales)  # each float's divisor (1 for one-hot and yes/no)
COMPACT_SIZE = VECTOR_SIZE + 1
COMPACT_TURN_HIGH = VECTOR_SIZE
PLANE_DIVISORS = np.ones(PLANES)
PLANE_DIVISORS[PIPS_PLANE] = D_PIPS
DIVISORS.setflags(write=False)
PLANE_DIVISORS.setflags(write=False)
FULL_EXTRA = MAX_PLAYERS * (N_RES + N_DEV)
FULL_SIZE = VECTOR_SIZE + FULL_EXTRA


def obs_view(vec: ArrayLike, name: str) -> np.ndarray:
    """The named field of an observation vector (or of a batch, on the last axis) as a view
    of its shape: ``obs_view(obs, "players")[..., k, P_VP]``.  A vector part (``obs_type=
    "planes"``'s ``"vector"``, TAIL_SIZE floats) is read the same way."""
    try:
        off, shape = _OBS_BY_NAME[name]
    except KeyError:
        raise KeyError(f"unknown observation field {name!r}; fields: {', '.join(_OBS_BY_NAME)}") from None
    vec = np.asarray(vec)
    if vec.shape[-1] == TAIL_SIZE:
        if off < BOARD_SIZE:
            raise KeyError(f"{name!r} is a board field: the vector part starts after it")
        off -= BOARD_SIZE
    elif vec.shape[-1] != VECTOR_SIZE:
        raise ValueError(f"an observation has {VECTOR_SIZE} (or {TAIL_SIZE}) floats, got {vec.shape[-1]}")
    size = int(np.prod(shape))
    return vec[..., off:off + size].reshape(vec.shape[:-1] + shape)


def expand(compact: ArrayLike, out: Optional[np.ndarray] = None) -> np.ndarray:
    """The float32 observations of compact (uint8) ones: a vector (COMPACT_SIZE bytes, or a
    vector part: TAIL_SIZE + 1) or a batch of them on the last axis; equal to what the
    float encoders write for the same state and seat."""
    c = np.asarray(compact)
    width = c.shape[-1]
    if width == COMPACT_SIZE:
        divisors, turn = DIVISORS, O_TURN
    elif width == TAIL_SIZE + 1:
        divisors, turn = DIVISORS[BOARD_SIZE:], O_TURN - BOARD_SIZE
    else:
        raise ValueError(f"a compact observation has {COMPACT_SIZE} (or {TAIL_SIZE + 1}) bytes, got {width}")
    if c.dtype != np.uint8:
        raise ValueError(f"compact observations are uint8, got {c.dtype}")
    floats = c[..., :-1].astype(np.float64)
    floats[..., turn] += 256.0 * c[..., -1]  # the turn's high byte
    result = (floats / divisors).astype(np.float32)
    if out is None:
        return result
    out[...] = result
    return out


def expand_planes(compact: ArrayLike) -> np.ndarray:
    """The float32 board planes of compact (uint8) ones (PLANES x GRID_H x GRID_W, or a batch)."""
    c = np.asarray(compact)
    if c.dtype != np.uint8 or c.shape[-3:] != (PLANES, GRID_H, GRID_W):
        raise ValueError(f"compact planes are uint8 of shape (..., {PLANES}, {GRID_H}, {GRID_W}), "
                         f"got {c.dtype} {c.shape}")
    return (c / PLANE_DIVISORS[:, None, None]).astype(np.float32)


def _scaled(out: np.ndarray, count: int, divisor: float) -> float:
    """What the encoders store for a count: count / divisor in a float observation, the
    count itself in a compact (uint8) one (numba picks by out's dtype, below)."""
    return count if out.dtype.kind in "iu" else count * (1.0 / divisor)


@overload(_scaled)
def _scaled_numba(out, count, divisor):  # type: ignore[no-untyped-def]
    if isinstance(out.dtype, types.Integer):
        return lambda out, count, divisor: count
    # times the reciprocal (folded to a constant): the same float32 as dividing for every
    # count up to 100,000 and every divisor (a test checks them all), without a division
    return lambda out, count, divisor: count * (1.0 / divisor)


def _put_turn(out: np.ndarray, turn: int) -> None:
    """The turn (up to MAX_TURN_SHOWN) into out: turn / 100, or in a compact observation
    its low byte in the turn slot and its high byte at COMPACT_TURN_HIGH (numba picks by
    out's dtype, below)."""
    t = min(turn, MAX_TURN_SHOWN)
    if out.dtype.kind in "iu":
        out[O_TURN], out[COMPACT_TURN_HIGH] = t & 255, t >> 8
    else:
        out[O_TURN] = t / D_TURN


@overload(_put_turn)
def _put_turn_numba(out, turn):  # type: ignore[no-untyped-def]
    if isinstance(out.dtype, types.Integer):
        def compact(out, turn):  # type: ignore[no-untyped-def]
            t = min(turn, MAX_TURN_SHOWN)
            out[O_TURN] = t & 255
            out[COMPACT_TURN_HIGH] = t >> 8
        return compact

    def floats(out, turn):  # type: ignore[no-untyped-def]
        out[O_TURN] = min(turn, MAX_TURN_SHOWN) / D_TURN
    return floats


def observation_table() -> str:
    """The vector's fields as a Markdown table (name, floats, offset, meaning)."""
    rows = ["| field | floats | offset | meaning |", "|---|---:|---:|---|"]
    for name, off, shape, meaning in OBS_FIELDS:
        size = " x ".join(str(x) for x in shape)
        rows.append(f"| `{name}` | {size} | {off} | {meaning} |")
    return "\n".join(rows)


@njit(cache=True)
def _rel(s: np.ndarray, p: int, observer: int) -> int:
    return relative_seat(p, observer, s[OPT_PLAYERS])


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def encode_board(s: np.ndarray, observer: int, out: np.ndarray) -> None:
    """Board part of the vector (its first BOARD_SIZE slots: floats, or compact counts) into out."""
    out[:BOARD_SIZE] = 0.0
    for h in range(N_HEXES):
        o = O_HEXES + h * HEX_FEATURES
        out[o + HEX_TERRAIN_COL + s[HEX_TERRAIN + h]] = 1.0
        out[o + HEX_NUMBER_COL] = _scaled(out, s[HEX_NUMBER + h], D_NUMBER)
        out[o + HEX_PIPS_COL] = _scaled(out, DICE_WAYS[s[HEX_NUMBER + h]], D_PIPS)
        if s[ROBBER] == h:
            out[o + HEX_ROBBER_COL] = 1.0
    for i in range(N_PORTS):
        out[O_PORTS + i * PORT_FEATURES + s[PORT_TYPE + i]] = 1.0
    for v in range(N_VERTICES):
        owner = s[V_OWNER + v]
        if owner >= 0:
            lvl = s[V_LEVEL + v]
            out[O_VERTICES + v * VERTEX_FEATURES + (lvl - 1) * MAX_PLAYERS + _rel(s, owner, observer)] = 1.0
    for e in range(N_EDGES):
        owner = s[E_OWNER + e]
        if owner >= 0:
            out[O_EDGES + e * EDGE_FEATURES + _rel(s, owner, observer)] = 1.0


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def reseat_board(s: np.ndarray, old: int, new: int, out: np.ndarray) -> None:
    """Turn out's board part, encoded by ``encode_board`` for observer old, into observer
    new's for the same pieces: only the relative seats of buildings and roads move (the
    batched env's all-seats mode changes observer most steps; a test checks the result
    equals ``encode_board``)."""
    n = s[OPT_PLAYERS]
    # only the pieces on the board move (a few dozen of 126 places), and their relative
    # seats come without a modulo (an integer division costs more than the rest): 261 ns
    # per game on 1,024 games, against 462 for a branch-free pass over every place
    for v in range(N_VERTICES):
        owner = s[V_OWNER + v]
        if owner >= 0:
            base = O_VERTICES + v * VERTEX_FEATURES + (s[V_LEVEL + v] - 1) * MAX_PLAYERS
            out[base + relative_seat(owner, old, n)] = 0.0
            out[base + relative_seat(owner, new, n)] = 1.0
    for e in range(N_EDGES):
        owner = s[E_OWNER + e]
        if owner >= 0:
            base = O_EDGES + e * EDGE_FEATURES
            out[base + relative_seat(owner, old, n)] = 0.0
            out[base + relative_seat(owner, new, n)] = 1.0


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def encode_tail(s: np.ndarray, observer: int, out: np.ndarray) -> None:
    """The non-board ("vector part") features into out[BOARD_SIZE:VECTOR_SIZE] (a compact
    out, COMPACT_SIZE bytes, also gets the turn's high byte at COMPACT_TURN_HIGH)."""
    out[BOARD_SIZE:VECTOR_SIZE] = 0.0
    n = s[OPT_PLAYERS]
    for r in range(N_RES):
        out[O_OWN_HAND + r] = _scaled(out, s[hand_i(observer, r)], D_CARDS)
    for t in range(N_DEV):
        out[O_OWN_DEVS + t] = _scaled(out, s[dev_i(observer, t)], D_DEVS)
        out[O_OWN_NEW_DEVS + t] = _scaled(out, s[dev_new_i(observer, t)], D_DEVS)
    out[O_OWN_VP] = _scaled(out, total_vp(s, observer), D_VP)
    for k in range(n):
        b = O_PLAYERS + k * PLAYER_FEATURES
        p = seat_after(observer, k, n)
        dev = 0
        for t in range(N_DEV):
            dev += s[dev_i(p, t)]
        out[b + P_VP] = _scaled(out, s[PUBLIC_VP + p], D_VP)
        out[b + P_CARDS] = _scaled(out, hand_size(s, p), D_CARDS)
        out[b + P_DEVS] = _scaled(out, dev, D_DEVS)
        out[b + P_KNIGHTS] = _scaled(out, s[KNIGHTS + p], D_KNIGHTS)
        out[b + P_ROAD_LEN] = _scaled(out, s[ROAD_LEN + p], D_ROAD_LEN)
        out[b + P_HOLDS_LR] = 1.0 if s[LR_HOLDER] == p else 0.0
        out[b + P_HOLDS_LA] = 1.0 if s[LA_HOLDER] == p else 0.0
        out[b + P_ROADS_LEFT] = _scaled(out, s[ROADS_LEFT + p], D_ROADS)
        out[b + P_SETTLEMENTS_LEFT] = _scaled(out, s[SETTLEMENTS_LEFT + p], D_SETTLEMENTS)
        out[b + P_CITIES_LEFT] = _scaled(out, s[CITIES_LEFT + p], D_CITIES)
        out[b + P_DISCARDS] = _scaled(out, s[DISCARDS + p], D_CARDS)
        for r in range(N_RES + 1):
            out[b + P_KNOWN + r] = _scaled(out, s[know_i(observer, p, r)], D_CARDS)
    deck = 0
    for r in range(N_RES):
        out[O_BANK + r] = _scaled(out, s[BANK + r], D_BANK)
    for t in range(N_DEV):
        deck += s[DECK + t]
        out[O_DEV_USED + t] = _scaled(out, s[DEV_USED + t], D_DEV_USED)
    out[O_DECK] = _scaled(out, deck, D_DECK)
    out[O_PHASE + s[PHASE]] = 1.0
    if s[PHASE] != PH_GAME_OVER and s[DECIDER] == observer:
        out[O_DECIDES] = 1.0
    out[O_ROLLED] = s[ROLLED]
    out[O_DEV_PLAYED] = s[DEV_PLAYED]
    if s[LAST_ROLL] >= 2:
        out[O_LAST_ROLL + s[LAST_ROLL] - 2] = 1.0
    out[O_FREE_ROADS] = _scaled(out, s[FREE_ROADS], D_FREE_ROADS)
    out[O_OFFERS_MADE] = _scaled(out, s[OFFERS_MADE], D_OFFERS)
    _put_turn(out, s[TURN])
    if s[TRADE_GIVE_RES] >= 0:
        out[O_OFFER_GIVE + s[TRADE_GIVE_RES]] = 1.0
        out[O_OFFER_GIVE_N] = _scaled(out, s[TRADE_GIVE_N], D_TRADE_N)
        out[O_OFFER_GET + s[TRADE_GET_RES]] = 1.0
        out[O_OFFER_GET_N] = _scaled(out, s[TRADE_GET_N], D_TRADE_N)
        out[O_OFFER_PROPOSER + _rel(s, s[TURN_PLAYER], observer)] = 1.0
    for k in range(n):
        p = seat_after(observer, k, n)
        b = O_ANSWERS + k * ANSWER_FEATURES
        resp = s[TRADE_RESP + p]
        if resp == RESP_NOT_ASKED:
            continue
        if resp >= RESP_COUNTER:
            out[b + A_RESP + RESP_COUNTER] = 1.0
            m = resp - RESP_COUNTER
            out[b + A_GIVE + A.MENU_GIVE_RES[m]] = 1.0
            out[b + A_GIVE_N] = _scaled(out, A.MENU_GIVE_N[m], D_TRADE_N)
            out[b + A_GET + A.MENU_GET_RES[m]] = 1.0
            out[b + A_GET_N] = _scaled(out, A.MENU_GET_N[m], D_TRADE_N)
        else:
            out[b + A_RESP + resp] = 1.0


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def encode_vector(s: np.ndarray, observer: int, out: np.ndarray) -> None:
    """The full flat observation (VECTOR_SIZE float32) of observer into out."""
    encode_board(s, observer, out)
    encode_tail(s, observer, out)


@njit(cache=True, **RUNTIME)  # called by runtime-free kernels (batched.runtime_check)
def encode_planes(s: np.ndarray, observer: int, out: np.ndarray) -> None:
    """Board planes (PLANES x GRID_H x GRID_W) of observer into out."""
    out[:] = 0.0
    for h in range(N_HEXES):
        y = HEX_CELL[h, 0]
        x = HEX_CELL[h, 1]
        out[s[HEX_TERRAIN + h], y, x] = 1.0
        out[PIPS_PLANE, y, x] = _scaled(out, DICE_WAYS[s[HEX_NUMBER + h]], D_PIPS)
        if s[ROBBER] == h:
            out[7, y, x] = 1.0
    for v in range(N_VERTICES):
        owner = s[V_OWNER + v]
        if owner >= 0:
            c = 8 + (s[V_LEVEL + v] - 1) * 4 + _rel(s, owner, observer)
            out[c, VERTEX_CELL[v, 0], VERTEX_CELL[v, 1]] = 1.0
    for e in range(N_EDGES):
        owner = s[E_OWNER + e]
        if owner >= 0:
            out[16 + _rel(s, owner, observer), EDGE_CELL[e, 0], EDGE_CELL[e, 1]] = 1.0
    for i in range(N_PORTS):
        for j in range(2):
            v = EDGE_VERTICES[s[PORT_EDGE + i], j]
            out[20 + s[PORT_TYPE + i], VERTEX_CELL[v, 0], VERTEX_CELL[v, 1]] = 1.0


@njit(cache=True)
def encode_full(s: np.ndarray, out: np.ndarray) -> None:
    """Full-information tensor for centralised critics: seat 0's vector plus every
    player's exact hand and development cards (absolute seats)."""
    encode_vector(s, 0, out)
    o = VECTOR_SIZE
    for p in range(MAX_PLAYERS):
        b = o + p * (N_RES + N_DEV)
        for r in range(N_RES):
            out[b + r] = s[hand_i(p, r)] / D_CARDS
        for t in range(N_DEV):
            out[b + N_RES + t] = s[dev_i(p, t)] / D_DEVS
