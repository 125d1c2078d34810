"""Seat-relative observation encoders (observer = relative seat 0, then turn order).

They show public information and the observer's own private information only: other
hands appear as public counts plus the observer's knowledge (known cards per resource
and an unknown count); other development cards as a count.

Flat vector (float32, VECTOR_SIZE), in order:
  hexes       19 x 9   terrain one-hot (6: hills forest pasture fields mountains desert),
                       number / 12, pips / 5, robber flag
  harbours     9 x 6   harbour type one-hot per slot (brick lumber wool grain ore generic)
  vertices    54 x 8   settlement of relative seat 0-3, city of relative seat 0-3
  edges       72 x 4   road of relative seat 0-3
  --- BOARD_SIZE = 945; the rest is the "vector part" used beside board planes ---
  own hand     5       resource counts / 10
  own cards   10       unplayed development cards by type / 5, of which bought this turn / 5
  own vp       1       victory points including VP cards / 10
  players  4 x 17      per relative seat: public VP / 10, cards / 10, development cards / 5,
                       knights / 5, longest-road length / 15, holds longest road,
                       holds largest army, roads / 15, settlements / 5, cities / 4 left,
                       cards still to discard / 10, known cards per resource / 10 (5),
                       unknown cards / 10
  bank        11       bank per resource / 19, development deck size / 25, development
                       cards played so far by type / 14 (public: knights, road building,
                       year of plenty, monopoly; VP cards are never played, so 0)
  flow        27       phase one-hot (10), observer decides, rolled, card played this turn,
                       last roll one-hot (11, 2..12), free roads / 2, offers made / 3,
                       turn / 100
  trade       80       open offer: give one-hot 5, give n / 2, get one-hot 5, get n / 2,
                       proposer relative seat one-hot 4; per relative seat: answer one-hot
                       (pending, reject, accept, counter) 4, counter give one-hot 5,
                       give n / 2, get one-hot 5, get n / 2
Board planes (float32, PLANES x 17 x 21; see topology.HEX_CELL etc. for the embedding):
  0-5 terrain one-hot, 6 pips / 5, 7 robber, 8-11 settlements by relative seat,
  12-15 cities by relative seat, 16-19 roads by relative seat, 20-25 harbour type on
  the two harbour vertices.
"""
import numpy as np
from numba import njit

from . import actions as A
from .layout import (
    BANK, CITIES_LEFT, DECIDER, DECK, DEV_USED, DEV_PLAYED, DISCARDS, E_OWNER,
    FREE_ROADS, HEX_NUMBER, HEX_TERRAIN, KNIGHTS, LA_HOLDER, LAST_ROLL,
    LR_HOLDER, OFFERS_MADE, OPT_PLAYERS, PHASE, PORT_EDGE, PORT_TYPE, PUBLIC_VP, RESP_COUNTER,
    RESP_NOT_ASKED, ROAD_LEN, ROADS_LEFT, ROBBER, ROLLED, SETTLEMENTS_LEFT, TRADE_GET_N,
    TRADE_GET_RES, TRADE_GIVE_N, TRADE_GIVE_RES, TRADE_RESP, TURN, TURN_PLAYER, V_LEVEL,
    V_OWNER, MAX_PLAYERS, N_PHASES, PH_GAME_OVER, dev_i, dev_new_i, hand_i, know_i,
)
from .cards import hand_size, total_vp
from .tables import DICE_WAYS
from .topology import (EDGE_CELL, GRID_H, GRID_W, HEX_CELL, N_EDGES, N_HEXES, N_PORTS,  # noqa: F401 (GRID_*)
                       N_VERTICES, VERTEX_CELL, EDGE_VERTICES)

PIPS = DICE_WAYS.astype(np.float64)  # pips on a number token = ways to roll it

HEX_FEATURES = 9      # terrain one-hot (6), number, pips, robber
PORT_FEATURES = 6     # harbour type one-hot
VERTEX_FEATURES = 8   # settlement / city by relative seat
EDGE_FEATURES = 4     # road by relative seat
BOARD_SIZE = (N_HEXES * HEX_FEATURES + N_PORTS * PORT_FEATURES + N_VERTICES * VERTEX_FEATURES
              + N_EDGES * EDGE_FEATURES)
PLAYER_FEATURES = 17
TAIL_PLAYERS = 5 + 10 + 1  # the per-player blocks' offset in the tail: after own hand, cards, VP
TAIL_SIZE = TAIL_PLAYERS + 4 * PLAYER_FEATURES + 11 + 27 + 80
VECTOR_SIZE = BOARD_SIZE + TAIL_SIZE
PLANES = 26
FULL_EXTRA = 4 * 10
FULL_SIZE = VECTOR_SIZE + FULL_EXTRA


@njit(cache=True)
def _rel(s, p, observer):
    n = s[OPT_PLAYERS]
    return (p - observer + n) % n


@njit(cache=True)
def encode_board(s, observer, out):
    """Board part of the vector (BOARD_SIZE floats) into out."""
    out[:BOARD_SIZE] = 0.0
    for h in range(N_HEXES):
        o = h * HEX_FEATURES
        out[o + s[HEX_TERRAIN + h]] = 1.0
        out[o + 6] = s[HEX_NUMBER + h] / 12.0
        out[o + 7] = PIPS[s[HEX_NUMBER + h]] / 5.0
        if s[ROBBER] == h:
            out[o + 8] = 1.0
    base = N_HEXES * HEX_FEATURES
    for i in range(N_PORTS):
        out[base + i * PORT_FEATURES + s[PORT_TYPE + i]] = 1.0
    base += N_PORTS * PORT_FEATURES
    for v in range(N_VERTICES):
        owner = s[V_OWNER + v]
        if owner >= 0:
            lvl = s[V_LEVEL + v]
            out[base + v * VERTEX_FEATURES + (lvl - 1) * MAX_PLAYERS + _rel(s, owner, observer)] = 1.0
    base += N_VERTICES * VERTEX_FEATURES
    for e in range(N_EDGES):
        owner = s[E_OWNER + e]
        if owner >= 0:
            out[base + e * EDGE_FEATURES + _rel(s, owner, observer)] = 1.0


@njit(cache=True)
def encode_tail(s, observer, out, o):
    """The non-board ("vector part") features into out[o:o + TAIL_SIZE]."""
    out[o:o + TAIL_SIZE] = 0.0
    n = s[OPT_PLAYERS]
    for r in range(5):
        out[o + r] = s[hand_i(observer, r)] / 10.0
    o += 5
    for t in range(5):
        out[o + t] = s[dev_i(observer, t)] / 5.0
        out[o + 5 + t] = s[dev_new_i(observer, t)] / 5.0
    o += 10
    out[o] = total_vp(s, observer) / 10.0
    o += 1
    for k in range(4):
        b = o + k * PLAYER_FEATURES
        if k >= n:
            continue
        p = (observer + k) % n
        dev = 0
        for t in range(5):
            dev += s[dev_i(p, t)]
        out[b + 0] = s[PUBLIC_VP + p] / 10.0
        out[b + 1] = hand_size(s, p) / 10.0
        out[b + 2] = dev / 5.0
        out[b + 3] = s[KNIGHTS + p] / 5.0
        out[b + 4] = s[ROAD_LEN + p] / 15.0
        out[b + 5] = 1.0 if s[LR_HOLDER] == p else 0.0
        out[b + 6] = 1.0 if s[LA_HOLDER] == p else 0.0
        out[b + 7] = s[ROADS_LEFT + p] / 15.0
        out[b + 8] = s[SETTLEMENTS_LEFT + p] / 5.0
        out[b + 9] = s[CITIES_LEFT + p] / 4.0
        out[b + 10] = s[DISCARDS + p] / 10.0
        for r in range(6):
            out[b + 11 + r] = s[know_i(observer, p, r)] / 10.0
    o += 4 * PLAYER_FEATURES
    for r in range(5):
        out[o + r] = s[BANK + r] / 19.0
    out[o + 5] = (s[DECK] + s[DECK + 1] + s[DECK + 2] + s[DECK + 3] + s[DECK + 4]) / 25.0
    for t in range(5):
        out[o + 6 + t] = s[DEV_USED + t] / 14.0
    o += 11
    out[o + s[PHASE]] = 1.0
    if s[PHASE] != PH_GAME_OVER and s[DECIDER] == observer:
        out[o + N_PHASES] = 1.0
    out[o + 11] = s[ROLLED]
    out[o + 12] = s[DEV_PLAYED]
    if s[LAST_ROLL] >= 2:
        out[o + 13 + s[LAST_ROLL] - 2] = 1.0
    out[o + 24] = s[FREE_ROADS] / 2.0
    out[o + 25] = s[OFFERS_MADE] / 3.0
    out[o + 26] = min(s[TURN], 5000) / 100.0
    o += 27
    if s[TRADE_GIVE_RES] >= 0:
        out[o + s[TRADE_GIVE_RES]] = 1.0
        out[o + 5] = s[TRADE_GIVE_N] / 2.0
        out[o + 6 + s[TRADE_GET_RES]] = 1.0
        out[o + 11] = s[TRADE_GET_N] / 2.0
        out[o + 12 + _rel(s, s[TURN_PLAYER], observer)] = 1.0
    o += 16
    for k in range(4):
        if k >= n:
            continue
        p = (observer + k) % n
        b = o + k * 16
        resp = s[TRADE_RESP + p]
        if resp == RESP_NOT_ASKED:
            continue
        if resp >= RESP_COUNTER:
            out[b + 3] = 1.0
            m = resp - RESP_COUNTER
            out[b + 4 + A.MENU_GIVE_RES[m]] = 1.0
            out[b + 9] = A.MENU_GIVE_N[m] / 2.0
            out[b + 10 + A.MENU_GET_RES[m]] = 1.0
            out[b + 15] = A.MENU_GET_N[m] / 2.0
        else:
            out[b + resp] = 1.0


@njit(cache=True)
def encode_vector(s, observer, out):
    """The full flat observation (VECTOR_SIZE float32) of observer into out."""
    encode_board(s, observer, out)
    encode_tail(s, observer, out, BOARD_SIZE)


@njit(cache=True)
def encode_planes(s, observer, out):
    """Board planes (PLANES x GRID_H x GRID_W) of observer into out."""
    out[:] = 0.0
    for h in range(N_HEXES):
        y = HEX_CELL[h, 0]
        x = HEX_CELL[h, 1]
        out[s[HEX_TERRAIN + h], y, x] = 1.0
        out[6, y, x] = PIPS[s[HEX_NUMBER + h]] / 5.0
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
def encode_full(s, out):
    """Full-information tensor for centralised critics: seat 0's vector plus every
    player's exact hand and development cards (absolute seats)."""
    encode_vector(s, 0, out)
    o = VECTOR_SIZE
    for p in range(4):
        for r in range(5):
            out[o + p * 10 + r] = s[hand_i(p, r)] / 10.0
            out[o + p * 10 + 5 + r] = s[dev_i(p, r)] / 5.0
