"""The flat action space: stable id ranges, and a table of kind / arguments / name.

The id ranges follow from the ``_range`` calls below, in order (one place to add an action
kind); ``action_table()`` prints them as the Markdown table the docs show
(docs/observations-actions.md).

Trade menu index m = (pattern * 5 + r1) * 4 + j, pattern 0..2 for (a, b) in
((1, 1), (2, 1), (1, 2)), r2 = the j-th resource other than r1.
Resources: 0 brick, 1 lumber, 2 wool, 3 grain, 4 ore.
"""
from typing import List, Optional, Tuple

import numpy as np
from numba import njit
from .jit_options import NO_RUNTIME, helper

from .layout import MAX_PLAYERS, N_RES, RESOURCE_NAMES
from .topology import N_EDGES, N_HEXES, N_VERTICES

TRADE_PATTERNS = np.array([[1, 1], [2, 1], [1, 2]], dtype=np.int64)
N_MENU = len(TRADE_PATTERNS) * N_RES * (N_RES - 1)  # 60 offers
N_YOP = N_RES * (N_RES + 1) // 2                     # 15 unordered pairs r1 <= r2
N_MARITIME = N_RES * (N_RES - 1)                     # 20 ordered pairs r1 != r2

_ranges: List[Tuple[str, int]] = []
_arguments: List[str] = []


def _range(name: str, size: int, arguments: str = "") -> int:
    """Append an id range of the given size (its arguments described for the docs'
    table); return its first id.  The ids of the table above follow from these sizes, in
    this order: one place to add an action kind."""
    start = sum(n for _, n in _ranges)
    _ranges.append((name, size))
    _arguments.append(arguments)
    return start


ROLL = _range("ROLL", 1)
END_TURN = _range("END_TURN", 1)
ROAD0 = _range("BUILD_ROAD", N_EDGES, "edge e (0-71)")
SETTLEMENT0 = _range("BUILD_SETTLEMENT", N_VERTICES, "vertex v (0-53)")
CITY0 = _range("BUILD_CITY", N_VERTICES, "vertex v (0-53)")
BUY_DEV = _range("BUY_DEV", 1)
PLAY_KNIGHT = _range("PLAY_KNIGHT", 1)
PLAY_ROAD_BUILDING = _range("PLAY_ROAD_BUILDING", 1)
YOP0 = _range("PLAY_YEAR_OF_PLENTY", N_YOP, "resources r1 <= r2")
MONOPOLY0 = _range("PLAY_MONOPOLY", N_RES, "resource r")
ROBBER0 = _range("MOVE_ROBBER", N_HEXES * MAX_PLAYERS,  # robber_action(h, k)
                 "hex h (0-18), victim k: 0 nobody, 1-3 the seat k places after the mover")
DISCARD0 = _range("DISCARD", N_RES, "resource r (one card per action)")
MARITIME0 = _range("MARITIME_TRADE", N_MARITIME, "give r1, get r2 (r1 != r2), at the best rate owned")
OFFER0 = _range("TRADE_OFFER", N_MENU, "menu m: give a x r1 for b x r2, (a, b) in (1, 1), (2, 1), (1, 2)")
TRADE_ACCEPT = _range("TRADE_ACCEPT", 1)
TRADE_REJECT = _range("TRADE_REJECT", 1)
COUNTER0 = _range("TRADE_COUNTER", N_MENU, "menu m, in the responder's frame")
CONFIRM0 = _range("TRADE_CONFIRM", MAX_PLAYERS - 1,  # confirm_action(k)
                  "partner k places after the proposer (1-3)")
TRADE_CANCEL = _range("TRADE_CANCEL", 1)
N_ACTIONS = sum(n for _, n in _ranges)
RANGES = tuple(_ranges)  # (kind, size) in id order
RANGE_ARGUMENTS = tuple(_arguments)  # what each range's ids encode, in RANGES order


def _menu() -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    give_res = np.zeros(N_MENU, np.int64)
    give_n = np.zeros(N_MENU, np.int64)
    get_res = np.zeros(N_MENU, np.int64)
    get_n = np.zeros(N_MENU, np.int64)
    for p in range(len(TRADE_PATTERNS)):
        for r1 in range(N_RES):
            others = [r for r in range(N_RES) if r != r1]
            for j, r2 in enumerate(others):
                m = (p * N_RES + r1) * (N_RES - 1) + j
                give_res[m], get_res[m] = r1, r2
                give_n[m], get_n[m] = TRADE_PATTERNS[p]
    return give_res, give_n, get_res, get_n


MENU_GIVE_RES, MENU_GIVE_N, MENU_GET_RES, MENU_GET_N = _menu()
MENU_RUN = N_RES - 1  # menu entries come in runs of this many giving the same cards
MAX_TRADE_N = int(TRADE_PATTERNS.max())
# the menu entry of each trade (give res, give n - 1, get res, get n - 1), -1 where none
MENU_INDEX = np.full((N_RES, MAX_TRADE_N, N_RES, MAX_TRADE_N), -1, np.int64)
MENU_INDEX[MENU_GIVE_RES, MENU_GIVE_N - 1, MENU_GET_RES, MENU_GET_N - 1] = np.arange(N_MENU)

YOP_R1 = np.array([a for a in range(N_RES) for b in range(a, N_RES)], dtype=np.int64)
YOP_R2 = np.array([b for a in range(N_RES) for b in range(a, N_RES)], dtype=np.int64)
MARITIME_GIVE = np.array([a for a in range(N_RES) for b in range(N_RES) if a != b], dtype=np.int64)
MARITIME_GET = np.array([b for a in range(N_RES) for b in range(N_RES) if a != b], dtype=np.int64)

for _a in (MENU_GIVE_RES, MENU_GIVE_N, MENU_GET_RES, MENU_GET_N, MENU_INDEX, YOP_R1, YOP_R2,
           MARITIME_GIVE, MARITIME_GET, TRADE_PATTERNS):
    _a.setflags(write=False)


# ---- decoding and encoding the families with two arguments: the one place that knows
# their strides (jitted, so kernels and Python code share them)
@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def is_robber(a: int) -> bool:
    """True for a MOVE_ROBBER id."""
    return ROBBER0 <= a < ROBBER0 + N_HEXES * MAX_PLAYERS


@helper
def robber_action(h: int, k: int) -> int:
    """The MOVE_ROBBER id for hex h and victim k (0 nobody, else k places after the mover)."""
    return ROBBER0 + MAX_PLAYERS * h + k


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def robber_hex(a: int) -> int:
    """The hex of a MOVE_ROBBER id."""
    return (a - ROBBER0) // MAX_PLAYERS


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def robber_victim(a: int) -> int:
    """The victim of a MOVE_ROBBER id, relative to the mover (0: nobody)."""
    return (a - ROBBER0) % MAX_PLAYERS


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def robber_victim_seat(a: int, mover: int, n_players: int) -> int:
    """The seat a MOVE_ROBBER id by mover steals from, or -1 for nobody."""
    k = (a - ROBBER0) % MAX_PLAYERS
    return (mover + k) % n_players if k > 0 else -1


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def confirm_action(k: int) -> int:
    """The TRADE_CONFIRM id for the partner k places after the proposer (1-3)."""
    return CONFIRM0 + k - 1


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def confirm_partner(a: int, proposer: int, n_players: int) -> int:
    """The seat a TRADE_CONFIRM id by proposer trades with."""
    return (proposer + a - CONFIRM0 + 1) % n_players


@njit(cache=True, **NO_RUNTIME)  # no reference counting (batched.runtime_check)
def maritime_action(give: int, get: int) -> int:
    """The MARITIME_TRADE id giving resource give for resource get (give != get)."""
    return MARITIME0 + give * (N_RES - 1) + (get if get < give else get - 1)


def menu_index(give_n: int, give_res: int, get_n: int, get_res: int) -> int:
    """Menu index of the offer 'give give_n x give_res for get_n x get_res'."""
    for m in range(N_MENU):
        if (MENU_GIVE_N[m], MENU_GIVE_RES[m], MENU_GET_N[m], MENU_GET_RES[m]) == (
                give_n, give_res, get_n, get_res):
            return m
    raise ValueError(f"no trade menu entry gives {give_n} x {give_res} for {get_n} x {get_res}")


def _menu_text(m: int) -> str:
    return (f"{MENU_GIVE_N[m]}x{RESOURCE_NAMES[MENU_GIVE_RES[m]]}->"
            f"{MENU_GET_N[m]}x{RESOURCE_NAMES[MENU_GET_RES[m]]}")


def _build_table() -> Tuple[Tuple[str, Tuple[int, ...], str], ...]:
    """(kind, args, name) for every id."""
    table: List[Optional[Tuple[str, Tuple[int, ...], str]]] = [None] * N_ACTIONS
    table[ROLL] = ("ROLL", (), "ROLL")
    table[END_TURN] = ("END_TURN", (), "END_TURN")
    for e in range(N_EDGES):
        table[ROAD0 + e] = ("BUILD_ROAD", (e,), f"BUILD_ROAD(e{e})")
    for v in range(N_VERTICES):
        table[SETTLEMENT0 + v] = ("BUILD_SETTLEMENT", (v,), f"BUILD_SETTLEMENT(v{v})")
        table[CITY0 + v] = ("BUILD_CITY", (v,), f"BUILD_CITY(v{v})")
    table[BUY_DEV] = ("BUY_DEV", (), "BUY_DEV")
    table[PLAY_KNIGHT] = ("PLAY_KNIGHT", (), "PLAY_KNIGHT")
    table[PLAY_ROAD_BUILDING] = ("PLAY_ROAD_BUILDING", (), "PLAY_ROAD_BUILDING")
    for i in range(N_YOP):
        a, b = int(YOP_R1[i]), int(YOP_R2[i])
        table[YOP0 + i] = ("PLAY_YEAR_OF_PLENTY", (a, b),
                           f"PLAY_YEAR_OF_PLENTY({RESOURCE_NAMES[a]},{RESOURCE_NAMES[b]})")
    for r in range(N_RES):
        table[MONOPOLY0 + r] = ("PLAY_MONOPOLY", (r,), f"PLAY_MONOPOLY({RESOURCE_NAMES[r]})")
        table[DISCARD0 + r] = ("DISCARD", (r,), f"DISCARD({RESOURCE_NAMES[r]})")
    for h in range(N_HEXES):
        for k in range(MAX_PLAYERS):
            victim = "nobody" if k == 0 else f"+{k}"
            table[robber_action(h, k)] = ("MOVE_ROBBER", (h, k), f"MOVE_ROBBER(h{h},{victim})")
    for i in range(N_MARITIME):
        a, b = int(MARITIME_GIVE[i]), int(MARITIME_GET[i])
        table[maritime_action.py_func(a, b)] = ("MARITIME_TRADE", (a, b),
                                f"MARITIME_TRADE({RESOURCE_NAMES[a]}->{RESOURCE_NAMES[b]})")
    for m in range(N_MENU):
        args = (int(MENU_GIVE_N[m]), int(MENU_GIVE_RES[m]), int(MENU_GET_N[m]), int(MENU_GET_RES[m]))
        table[OFFER0 + m] = ("TRADE_OFFER", args, f"TRADE_OFFER({_menu_text(m)})")
        table[COUNTER0 + m] = ("TRADE_COUNTER", args, f"TRADE_COUNTER({_menu_text(m)})")
    table[TRADE_ACCEPT] = ("TRADE_ACCEPT", (), "TRADE_ACCEPT")
    table[TRADE_REJECT] = ("TRADE_REJECT", (), "TRADE_REJECT")
    for k in range(1, MAX_PLAYERS):
        table[confirm_action.py_func(k)] = ("TRADE_CONFIRM", (k,), f"TRADE_CONFIRM(+{k})")
    table[TRADE_CANCEL] = ("TRADE_CANCEL", (), "TRADE_CANCEL")
    done = [t for t in table if t is not None]
    assert len(done) == N_ACTIONS
    return tuple(done)


ACTION_TABLE = _build_table()
_BY_NAME = {name: i for i, (_, _, name) in enumerate(ACTION_TABLE)}
assert len(_BY_NAME) == N_ACTIONS


def _check_id(action: int) -> int:
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        raise TypeError(f"action id must be an int, got {type(action).__name__}")
    if not 0 <= int(action) < N_ACTIONS:
        raise ValueError(f"action id {action} out of range 0..{N_ACTIONS - 1}")
    return int(action)


def action_table() -> str:
    """The action space as a Markdown table (ids, kind, arguments), generated from
    :data:`RANGES`; the docs' page shows it and a test keeps the two equal."""
    rows = ["| ids | kind | arguments |", "|---|---|---|"]
    start = 0
    for (kind, size), arguments in zip(RANGES, RANGE_ARGUMENTS):
        ids = str(start) if size == 1 else f"{start}-{start + size - 1}"
        rows.append(f"| {ids} | `{kind}` | {arguments} |")
        start += size
    return "\n".join(rows) + "\n"


def action_name(action: int) -> str:
    """Readable name of an action id, e.g. ``BUILD_ROAD(e17)``."""
    return ACTION_TABLE[_check_id(action)][2]


def action_kind(action: int) -> str:
    """The family of an action id, e.g. ``"BUILD_ROAD"``."""
    return ACTION_TABLE[_check_id(action)][0]


def action_args(action: int) -> Tuple[int, ...]:
    """The arguments of an action id within its family, e.g. ``(edge,)`` for a road."""
    return ACTION_TABLE[_check_id(action)][1]


def action_id(name: str) -> int:
    """Reverse of :func:`action_name`."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise ValueError(f"unknown action name {name!r}") from None
