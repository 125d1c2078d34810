"""Boards as data: the official random board, the beginner layout, or any dict/JSON.

A board dict has three lists, indexed like the topology (hexes row by row from the
top-left, harbour slots clockwise):

    {"terrain": ["hills", ...19 names], "numbers": [0 or 2..12, ...19],
     "harbours": ["generic" | "brick" | "lumber" | "wool" | "grain" | "ore", ...9]}

An optional fourth list, "harbour_edges", puts the 9 harbour slots on other coastal
edges (ids of the topology; default ``topology.PORT_EDGES``, the official frame); the
Pioneers server's maps need it.

The robber starts on the desert.  ``validate_board`` raises ValueError naming what is
wrong (wrong counts, a number on the desert, unknown terrain...).
"""
import json
from collections import Counter
from typing import Any, Dict, List, Mapping, Union

import numpy as np

from .layout import (HEX_NUMBER, HEX_TERRAIN, PORT_EDGE, PORT_NAMES, PORT_TYPE, ROBBER,
                     TERRAIN_NAMES, view)
from .tables import NUMBER_TOKENS, PORT_DECK, TERRAIN_DECK
from .topology import COAST_EDGES, EDGE_VERTICES, N_HEXES, N_PORTS, PORT_EDGES

# the official supply, as names (derived from the tables the random board deals from)
TERRAIN_COUNTS = dict(Counter(TERRAIN_NAMES[t] for t in TERRAIN_DECK))
NUMBER_COUNTS = Counter(int(n) for n in NUMBER_TOKENS)
HARBOUR_COUNTS = dict(Counter(PORT_NAMES[t] for t in PORT_DECK))

# The beginner layout of the 5th-edition rule book, rows 3-4-5-4-3 from the top.
BEGINNER_BOARD = {
    "terrain": ["mountains", "pasture", "forest",
                "fields", "hills", "pasture", "hills",
                "fields", "forest", "desert", "forest", "mountains",
                "forest", "mountains", "fields", "pasture",
                "hills", "fields", "pasture"],
    "numbers": [10, 2, 9,
                12, 6, 4, 10,
                9, 11, 0, 3, 8,
                8, 3, 4, 5,
                5, 6, 11],
    "harbours": ["generic", "grain", "ore", "generic", "wool",
                 "generic", "generic", "brick", "lumber"],
}


def validate_board(board: Union[str, Mapping[str, Any]]) -> Dict[str, Any]:
    """Check a board dict; return it normalised (lists of str/int).  Raises ValueError."""
    if isinstance(board, str):
        try:
            board = json.loads(board)
        except json.JSONDecodeError as exc:
            raise ValueError(f"board: not valid JSON ({exc})") from None
    if not isinstance(board, dict):
        raise ValueError(f"board: expected a dict with terrain/numbers/harbours, got {type(board).__name__}")
    missing = {"terrain", "numbers", "harbours"} - set(board)
    if missing:
        raise ValueError(f"board: missing keys {sorted(missing)}")
    extra = set(board) - {"terrain", "numbers", "harbours", "harbour_edges"}
    if extra:
        raise ValueError(f"board: unknown keys {sorted(extra)}")
    terrain, numbers, harbours = list(board["terrain"]), list(board["numbers"]), list(board["harbours"])
    if len(terrain) != N_HEXES:
        raise ValueError(f"board: terrain needs {N_HEXES} hexes, got {len(terrain)}")
    if len(numbers) != N_HEXES:
        raise ValueError(f"board: numbers needs {N_HEXES} entries, got {len(numbers)}")
    if len(harbours) != N_PORTS:
        raise ValueError(f"board: harbours needs {N_PORTS} slots, got {len(harbours)}")
    _check_counts(terrain, TERRAIN_COUNTS, "terrain", "hex", "hexes")
    for i, (t, n) in enumerate(zip(terrain, numbers)):
        if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
            raise ValueError(f"board: number at hex {i} must be an int, got {n!r}")
        if t == "desert" and n != 0:
            raise ValueError(f"board: the desert (hex {i}) must have number 0, got {n}")
        if t != "desert" and n not in NUMBER_COUNTS:
            raise ValueError(f"board: hex {i} ({t}) has invalid number {n}; allowed 2-6, 8-12")
    got_n = Counter(int(n) for n in numbers if n != 0)
    if got_n != NUMBER_COUNTS:
        raise ValueError(f"board: number tokens must be {sorted(NUMBER_COUNTS.elements())}, "
                         f"got {sorted(got_n.elements())}")
    _check_counts(harbours, HARBOUR_COUNTS, "harbour", "slot", "harbour(s)")
    out = {"terrain": terrain, "numbers": [int(n) for n in numbers], "harbours": harbours}
    edges = board.get("harbour_edges")
    if edges is not None:
        edges = _check_harbour_edges(edges)
        if edges != [int(e) for e in PORT_EDGES]:
            out["harbour_edges"] = edges
    return out


def _check_harbour_edges(edges: Any) -> List[int]:
    coast = set(int(e) for e in COAST_EDGES)
    if not isinstance(edges, (list, tuple)) or len(edges) != N_PORTS or \
            any(isinstance(e, bool) or not isinstance(e, (int, np.integer)) for e in edges):
        raise ValueError(f"board: harbour_edges needs {N_PORTS} edge ids, got {edges!r}")
    edges = [int(e) for e in edges]
    for e in edges:
        if e not in coast:
            raise ValueError(f"board: harbour edge {e} is not a coastal edge; coastal: {sorted(coast)}")
    vertices = [int(v) for e in edges for v in EDGE_VERTICES[e]]
    if len(set(vertices)) != len(vertices):
        raise ValueError(f"board: harbour edges {edges} share a vertex or repeat")
    return edges


def _check_counts(items: List[Any], expected: Mapping[Any, int], kind: str, place: str, plural: str) -> None:
    """Every item is a known name and each name appears as often as the official set says."""
    for i, x in enumerate(items):
        if x not in expected:
            raise ValueError(f"board: unknown {kind} {x!r} at {place} {i}; allowed: {list(expected)}")
    got = Counter(items)
    for x, c in expected.items():
        if got[x] != c:
            raise ValueError(f"board: expected {c} {x} {plural}, got {got[x]}")


def write_board(state: np.ndarray, board: Mapping[str, Any]) -> None:
    """Write a validated board dict into the board fields of a state vector."""
    board = validate_board(board)
    for h in range(N_HEXES):
        state[HEX_TERRAIN + h] = TERRAIN_NAMES.index(board["terrain"][h])
        state[HEX_NUMBER + h] = board["numbers"][h]
    edges = board.get("harbour_edges", PORT_EDGES)
    for i in range(N_PORTS):
        state[PORT_TYPE + i] = PORT_NAMES.index(board["harbours"][i])
        state[PORT_EDGE + i] = edges[i]
    state[ROBBER] = board["terrain"].index("desert")


def read_board(state: np.ndarray) -> Dict[str, Any]:
    """The board dict of a state vector (inverse of write_board)."""
    out = {
        "terrain": [TERRAIN_NAMES[int(t)] for t in view(state, "hex_terrain")],
        "numbers": [int(n) for n in view(state, "hex_number")],
        "harbours": [PORT_NAMES[int(t)] for t in view(state, "port_type")],
    }
    edges = [int(e) for e in view(state, "port_edge")]
    if edges != [int(e) for e in PORT_EDGES]:
        out["harbour_edges"] = edges
    return out


def port_vertices(state: np.ndarray) -> np.ndarray:
    """(9, 2) array: the two vertices of each harbour slot of this state's board."""
    return EDGE_VERTICES[view(state, "port_edge")]
