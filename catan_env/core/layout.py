"""State-vector layout: every field of a game lives in one flat int64 array.

Offsets are module-level ints (numba folds them as constants).  Per-player blocks are
indexed ``OFF + player * WIDTH + k``.  Field list (name: size  meaning):

Board
  HEX_TERRAIN: 19     terrain per hex (0 hills/brick, 1 forest/lumber, 2 pasture/wool,
                      3 fields/grain, 4 mountains/ore, 5 desert)
  HEX_NUMBER: 19      number token (2..12), 0 on the desert
  PORT_TYPE: 9        harbour per slot: 0..4 = 2:1 of that resource, 5 = generic 3:1
  PORT_EDGE: 9        the coastal edge of each harbour slot (topology.PORT_EDGES on the
                      official frame; a Pioneers map puts them elsewhere)
  ROBBER: 1           hex holding the robber
Pieces
  V_OWNER: 54         owner of the building on a vertex, -1 if empty
  V_LEVEL: 54         0 empty, 1 settlement, 2 city
  E_OWNER: 72         owner of the road on an edge, -1 if empty
Cards
  HAND: 4x5           resource cards per player (brick, lumber, wool, grain, ore)
  BANK: 5             resource cards in the bank
  DEV_HAND: 4x5       unplayed development cards per player by type (knight, VP,
                      road building, year of plenty, monopoly), bought-this-turn included
  DEV_NEW: 4x5        of those, bought during the current turn
  DECK: 5             development cards left in the deck, by type (drawn at random)
  KNIGHTS: 4          knights played
Pieces left and caches (checked against slow references in the tests)
  ROADS_LEFT, SETTLEMENTS_LEFT, CITIES_LEFT: 4 each
  ROAD_LEN: 4         longest trail of each player's roads
  PUBLIC_VP: 4        VP visible to all (buildings + longest road + largest army)
  LR_HOLDER, LA_HOLDER: 1 each   seat holding the card, -1 if none
Flow
  PHASE: 1            see PH_* below
  TURN_PLAYER: 1      seat whose turn it is
  DECIDER: 1          seat that decides next (always exactly one while not over)
  TURN: 1             turn counter (0 during set-up, 1 for the first normal turn)
  SETUP_STEP: 1       0..2n-1 index into the snake order during set-up
  SETUP_VERTEX: 1     settlement just placed in set-up (the road must touch it)
  ROLLED: 1           1 once the turn player rolled this turn
  DEV_PLAYED: 1       1 once a development card was played this turn
  LAST_ROLL: 1        last dice total (0 before any roll)
  RETURN_PHASE: 1     phase to resume after robber / road building
  FREE_ROADS: 1       roads left to place in road building
  DISCARDS: 4         cards each player still has to discard
  WINNER: 1           seat of the winner, -1 while none
  OFFERS_MADE: 1      domestic trade offers made this turn
Domestic trade (while an offer is open)
  TRADE_GIVE_RES, TRADE_GIVE_N, TRADE_GET_RES, TRADE_GET_N: 1 each (proposer's frame)
  TRADE_RESP: 4       per seat: -1 not asked, 0 pending, 1 reject, 2 accept, 3+m counter m
  TRADE_ASKED: 1      number of opponents that answered so far
Hidden-information tracking
  KNOW: 5x4x6         KNOW[o, t, r] (r < 5): cards of resource r that observer o knows
                      target t holds; KNOW[o, t, 5]: t's cards unknown to o.
                      Observer PUBLIC (= 4) is an onlooker who saw only public events:
                      what every seat knows of t, which determinization rebuilds the
                      other seats' private rows from.
                      For every o, t: sum(KNOW[o, t, :]) == hand size of t.
Chance
  RNG: 1              splitmix64 state
  LAST_DIE1, LAST_DIE2: 1 each   the two dice of the last roll
  LAST_STEAL: 1       resource stolen by the last robber move, -1 if none
  LAST_DRAW: 1        type of the last development card drawn, -1 if none
Options (copied in so a state is self-contained)
  OPT_PLAYERS, OPT_VP, OPT_DISCARD, OPT_FRIENDLY, OPT_TRADE, OPT_MAX_OFFERS: 1 each
  DEV_USED: 5         development cards played so far, by type (all players)
  STEPS: 1            actions applied so far
Rule variants (all zero / the official values by default; see ``options.GameOptions``)
  OPT_RULES: 1        bit set of RULE_* flags below
  OPT_SEVENS: 1       sevens rule: 0 normal, 1 re-roll 7s in rounds 1-2, 2 re-roll every 7
  DECK_START: 5       the development deck the game started with, by type
  VP_REVEALED: 4      Victory Point cards each seat has played face up (in PUBLIC_VP)
  BUILT: 1            1 once the turn player built or bought this turn (strict trade)

Python code reads fields through ``view(s, name)``; jitted code through the offsets and
the index helpers below (``hand_i``, ``dev_i``, ``dev_new_i``, ``know_i``), so that each
field's shape and stride is written once, here.
"""
from typing import List, Tuple

import numpy as np
from numba import njit
from .jit_options import NO_RUNTIME, helper

from .topology import N_EDGES, N_HEXES, N_PORTS, N_VERTICES

MAX_PLAYERS = 4
N_RES = 5
N_DEV = 5
KNOW_W = 6               # 5 resources + the unknown count
UNKNOWN = N_RES          # KNOW[o, t, UNKNOWN]: cards of t that o cannot place
PUBLIC = MAX_PLAYERS     # the knowledge row of an onlooker who saw only public events
N_KNOW_OBSERVERS = MAX_PLAYERS + 1

BRICK, LUMBER, WOOL, GRAIN, ORE = 0, 1, 2, 3, 4
DESERT = 5
KNIGHT, VICTORY_POINT, ROAD_BUILDING, YEAR_OF_PLENTY, MONOPOLY = 0, 1, 2, 3, 4
GENERIC_PORT = 5

RESOURCE_NAMES = ("brick", "lumber", "wool", "grain", "ore")
TERRAIN_NAMES = ("hills", "forest", "pasture", "fields", "mountains", "desert")
DEV_NAMES = ("knight", "victory_point", "road_building", "year_of_plenty", "monopoly")
PORT_NAMES = ("brick", "lumber", "wool", "grain", "ore", "generic")

# phases
PH_SETUP_SETTLEMENT = 0
PH_SETUP_ROAD = 1
PH_PRE_ROLL = 2
PH_MAIN = 3
PH_DISCARD = 4
PH_MOVE_ROBBER = 5
PH_ROAD_BUILDING = 6
PH_TRADE_RESPONSE = 7
PH_TRADE_CONFIRM = 8
PH_GAME_OVER = 9
PHASE_NAMES = ("setup_settlement", "setup_road", "pre_roll", "main", "discard",
               "move_robber", "road_building", "trade_response", "trade_confirm",
               "game_over")
N_PHASES = 10

_fields: List[Tuple[str, int, Tuple[int, ...]]] = []  # (name, offset, shape), in order


def _field(name: str, *shape: int) -> int:
    """Append a field of the given shape; return its offset."""
    start = sum(int(np.prod(sh)) for _, _, sh in _fields)
    _fields.append((name, start, tuple(shape)))
    return start


HEX_TERRAIN = _field("hex_terrain", N_HEXES)
HEX_NUMBER = _field("hex_number", N_HEXES)
PORT_TYPE = _field("port_type", N_PORTS)
PORT_EDGE = _field("port_edge", N_PORTS)
ROBBER = _field("robber", 1)
BOARD_END = ROBBER + 1  # the board fields are s[:BOARD_END]
V_OWNER = _field("v_owner", N_VERTICES)
V_LEVEL = _field("v_level", N_VERTICES)
E_OWNER = _field("e_owner", N_EDGES)
HAND = _field("hand", MAX_PLAYERS, N_RES)
BANK = _field("bank", N_RES)
DEV_HAND = _field("dev_hand", MAX_PLAYERS, N_DEV)
DEV_NEW = _field("dev_new", MAX_PLAYERS, N_DEV)
DECK = _field("deck", N_DEV)
KNIGHTS = _field("knights", MAX_PLAYERS)
ROADS_LEFT = _field("roads_left", MAX_PLAYERS)
SETTLEMENTS_LEFT = _field("settlements_left", MAX_PLAYERS)
CITIES_LEFT = _field("cities_left", MAX_PLAYERS)
ROAD_LEN = _field("road_len", MAX_PLAYERS)
PUBLIC_VP = _field("public_vp", MAX_PLAYERS)
LR_HOLDER = _field("lr_holder", 1)
LA_HOLDER = _field("la_holder", 1)
PHASE = _field("phase", 1)
TURN_PLAYER = _field("turn_player", 1)
DECIDER = _field("decider", 1)
TURN = _field("turn", 1)
SETUP_STEP = _field("setup_step", 1)
SETUP_VERTEX = _field("setup_vertex", 1)
ROLLED = _field("rolled", 1)
DEV_PLAYED = _field("dev_played", 1)
LAST_ROLL = _field("last_roll", 1)
RETURN_PHASE = _field("return_phase", 1)
FREE_ROADS = _field("free_roads", 1)
DISCARDS = _field("discards", MAX_PLAYERS)
WINNER = _field("winner", 1)
OFFERS_MADE = _field("offers_made", 1)
TRADE_GIVE_RES = _field("trade_give_res", 1)
TRADE_GIVE_N = _field("trade_give_n", 1)
TRADE_GET_RES = _field("trade_get_res", 1)
TRADE_GET_N = _field("trade_get_n", 1)
TRADE_RESP = _field("trade_resp", MAX_PLAYERS)
TRADE_ASKED = _field("trade_asked", 1)
KNOW = _field("know", N_KNOW_OBSERVERS, MAX_PLAYERS, KNOW_W)
RNG = _field("rng", 1)
LAST_DIE1 = _field("last_die1", 1)
LAST_DIE2 = _field("last_die2", 1)
LAST_STEAL = _field("last_steal", 1)
LAST_DRAW = _field("last_draw", 1)
OPT_PLAYERS = _field("opt_players", 1)
OPT_VP = _field("opt_vp", 1)
OPT_DISCARD = _field("opt_discard", 1)
OPT_FRIENDLY = _field("opt_friendly", 1)
OPT_TRADE = _field("opt_trade", 1)
OPT_MAX_OFFERS = _field("opt_max_offers", 1)
DEV_USED = _field("dev_used", N_DEV)
STEPS = _field("steps", 1)
OPT_RULES = _field("opt_rules", 1)
OPT_SEVENS = _field("opt_sevens", 1)
DECK_START = _field("deck_start", N_DEV)
VP_REVEALED = _field("vp_revealed", MAX_PLAYERS)
BUILT = _field("built", 1)

# rule variant bits (OPT_RULES); the official game has none set
RULE_NO_DESERT_ROBBER = 1   # the robber may never move to the desert
RULE_SHORTAGE_IN_ORDER = 2  # bank shortage: pay in seat order from the roller, partially
RULE_STRICT_TRADE = 4       # no trading after building or buying in a turn
RULE_DIRECT_CITY = 8        # a city may be built straight on an empty settlement spot
RULE_VP_PLAYED = 16         # VP cards count once played (the owner plays them to win)

STATE_SIZE = sum(int(np.prod(sh)) for _, _, sh in _fields)
_SHAPES = {name: (off, int(np.prod(sh)), sh) for name, off, sh in _fields}


def view(s: np.ndarray, name: str) -> np.ndarray:
    """The named field of state s as a numpy view of its shape (writes go to s):
    ``view(s, "hand")[p, r]``, ``view(s, "know")[o, t]``.  Python-side code only."""
    try:
        off, size, shape = _SHAPES[name]
    except KeyError:
        raise KeyError(f"unknown state field {name!r}; fields: {', '.join(_SHAPES)}") from None
    return s[off:off + size].reshape(shape)


# ---- index helpers for the jitted code: the one place that knows each stride
@helper
def seat_after(p: int, k: int, n: int) -> int:
    """The seat k places after seat p among n, i.e. (p + k) % n for k >= 0, with compares
    instead of an integer division (tens of cycles on the answer and robber paths)."""
    q = p + k
    while q >= n:
        q -= n
    return q


@helper
def relative_seat(p: int, observer: int, n: int) -> int:
    """How many places after observer seat p sits (both in 0..n-1): the inverse of
    ``seat_after``, with a compare instead of a modulo."""
    r = p - observer
    return r + n if r < 0 else r


@helper
def hand_i(p: int, r: int) -> int:
    """Index of seat p's count of resource r."""
    return HAND + p * N_RES + r


@helper
def dev_i(p: int, t: int) -> int:
    """Index of seat p's unplayed development cards of type t."""
    return DEV_HAND + p * N_DEV + t


@helper
def dev_new_i(p: int, t: int) -> int:
    """Index of seat p's development cards of type t bought this turn."""
    return DEV_NEW + p * N_DEV + t


@helper
def know_i(o: int, t: int, r: int) -> int:
    """Index of KNOW[o, t, r]: what observer o (a seat, or PUBLIC) knows of t's hand."""
    return KNOW + (o * MAX_PLAYERS + t) * KNOW_W + r


# trade response codes
RESP_NOT_ASKED = -1
RESP_PENDING = 0
RESP_REJECT = 1
RESP_ACCEPT = 2
RESP_COUNTER = 3  # + menu index

