"""Static board topology: 19 land hexes, 54 vertices, 72 edges, 9 harbour slots.

Built once at import with numpy (cheap, no numba) into read-only, -1 padded tables
that the jitted rules read as compile-time constants.

Coordinates: pointy-top hexes in axial (q, r) with |q|, |r|, |q + r| <= 2.  In the
integer "half-unit" plane, hex (q, r) has centre (2q + r, 3r) and corners at offsets
(0,-2) (1,-1) (1,1) (0,2) (-1,1) (-1,-1); x grows to the right, y downwards.
Hexes, vertices and edges are numbered row by row (top to bottom, left to right), so
hex 0 is the top-left land hex and hex 18 the bottom-right one.
"""
from typing import List, Tuple

import numpy as np

N_HEXES = 19
N_VERTICES = 54
N_EDGES = 72
N_PORTS = 9

_CORNER_OFFSETS = ((0, -2), (1, -1), (1, 1), (0, 2), (-1, 1), (-1, -1))


def _axial_hexes() -> List[Tuple[int, int]]:
    cells = [(q, r) for r in range(-2, 3) for q in range(-2, 3) if abs(q + r) <= 2]
    cells.sort(key=lambda c: (c[1], c[0]))
    return cells


def _build() -> Tuple[List[Tuple[int, int]], List[Tuple[int, int]], List[Tuple[int, int]], np.ndarray,
                      List[Tuple[int, int]]]:
    hexes = _axial_hexes()
    centres = [(2 * q + r, 3 * r) for q, r in hexes]
    corner_pts = set()
    for cx, cy in centres:
        for dx, dy in _CORNER_OFFSETS:
            corner_pts.add((cx + dx, cy + dy))
    vertex_xy = sorted(corner_pts, key=lambda p: (p[1], p[0]))
    vid = {p: i for i, p in enumerate(vertex_xy)}
    hex_vertices = np.array(
        [[vid[(cx + dx, cy + dy)] for dx, dy in _CORNER_OFFSETS] for cx, cy in centres],
        dtype=np.int64)
    edge_set = set()
    for h in range(len(hexes)):
        for k in range(6):
            a, b = hex_vertices[h, k], hex_vertices[h, (k + 1) % 6]
            edge_set.add((min(a, b), max(a, b)))

    def edge_key(e: Tuple[int, int]) -> Tuple[int, int]:
        (ax, ay), (bx, by) = vertex_xy[e[0]], vertex_xy[e[1]]
        return (ay + by, ax + bx)

    edges = sorted(edge_set, key=edge_key)
    return hexes, centres, vertex_xy, hex_vertices, edges


_HEXES, _CENTRES, _VERTEX_XY, HEX_VERTICES, _EDGE_LIST = _build()
HEX_XY = np.array(_CENTRES, dtype=np.int64)           # (19, 2) centre in half units
VERTEX_XY = np.array(_VERTEX_XY, dtype=np.int64)      # (54, 2)
EDGE_VERTICES = np.array(_EDGE_LIST, dtype=np.int64)  # (72, 2) endpoints, sorted


def _adjacency() -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    vertex_edges = -np.ones((N_VERTICES, 3), dtype=np.int64)
    vertex_vertices = -np.ones((N_VERTICES, 3), dtype=np.int64)
    vertex_hexes = -np.ones((N_VERTICES, 3), dtype=np.int64)
    for e, (a, b) in enumerate(EDGE_VERTICES):
        for v, w in ((a, b), (b, a)):
            k = int(np.argmax(vertex_edges[v] < 0))
            vertex_edges[v, k] = e
            vertex_vertices[v, k] = w
    for h in range(N_HEXES):
        for v in HEX_VERTICES[h]:
            k = int(np.argmax(vertex_hexes[v] < 0))
            vertex_hexes[v, k] = h
    edge_edges = -np.ones((N_EDGES, 4), dtype=np.int64)
    for e, (a, b) in enumerate(EDGE_VERTICES):
        k = 0
        for v in (a, b):
            for f in vertex_edges[v]:
                if f >= 0 and f != e:
                    edge_edges[e, k] = f
                    k += 1
    hex_edges = -np.ones((N_HEXES, 6), dtype=np.int64)
    for h in range(N_HEXES):
        for k in range(6):
            a, b = HEX_VERTICES[h, k], HEX_VERTICES[h, (k + 1) % 6]
            hex_edges[h, k] = _edge_index(min(a, b), max(a, b))
    return vertex_edges, vertex_vertices, vertex_hexes, edge_edges, hex_edges


def _edge_index(a: int, b: int) -> int:
    hits = np.nonzero((EDGE_VERTICES[:, 0] == a) & (EDGE_VERTICES[:, 1] == b))[0]
    return int(hits[0])


VERTEX_EDGES, VERTEX_VERTICES, VERTEX_HEXES, EDGE_EDGES, HEX_EDGES = _adjacency()


def _coast() -> np.ndarray:
    """Coastal edges (on exactly one land hex) in clockwise order from the top."""
    count = np.zeros(N_EDGES, dtype=np.int64)
    for h in range(N_HEXES):
        count[HEX_EDGES[h]] += 1
    coastal = [e for e in range(N_EDGES) if count[e] == 1]
    # walk the perimeter: start at the top-left hex's top-left edge, go clockwise
    angles = []
    for e in coastal:
        (ax, ay), (bx, by) = VERTEX_XY[EDGE_VERTICES[e, 0]], VERTEX_XY[EDGE_VERTICES[e, 1]]
        mx, my = (ax + bx) / 2.0, (ay + by) / 2.0
        angles.append(np.arctan2(mx * np.sqrt(3.0) / 2.0, -my * 0.5))  # 0 = up, clockwise
    order = np.argsort(angles)
    return np.array([coastal[i] for i in order], dtype=np.int64)


COAST_EDGES = _coast()  # (30,) clockwise from the top


def _port_slots() -> np.ndarray:
    """The 9 harbour slots of the standard frame: gaps of 2, 2, 3 coastal edges repeating."""
    slots, pos = [], 0
    for gap in (2, 2, 3) * 3:
        slots.append(int(COAST_EDGES[pos % len(COAST_EDGES)]))
        pos += 1 + gap
    return np.array(slots, dtype=np.int64)


PORT_EDGES = _port_slots()                      # (9,) the coastal edge of each slot
PORT_VERTICES = EDGE_VERTICES[PORT_EDGES].copy()  # (9, 2) the two harbour vertices


def _grid() -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Hex-to-grid embedding for board planes (H=17 rows, W=21 columns).

    Column = 2*x + 10 (x in half units), row = y + 8; diagonal edges (half-integer
    midpoint) take the row below their midpoint.  Each kind gets distinct cells.
    """
    hex_cell = np.stack([HEX_XY[:, 1] + 8, 2 * HEX_XY[:, 0] + 10], axis=1)
    vertex_cell = np.stack([VERTEX_XY[:, 1] + 8, 2 * VERTEX_XY[:, 0] + 10], axis=1)
    a, b = VERTEX_XY[EDGE_VERTICES[:, 0]], VERTEX_XY[EDGE_VERTICES[:, 1]]
    sx, sy = a[:, 0] + b[:, 0], a[:, 1] + b[:, 1]  # doubled midpoints
    edge_cell = np.stack([(sy + 1) // 2 + 8, sx + 10], axis=1)
    for cells in (hex_cell, vertex_cell, edge_cell):
        assert len({tuple(c) for c in cells}) == len(cells)
        assert cells[:, 0].min() >= 0 and cells[:, 0].max() < 17
        assert cells[:, 1].min() >= 0 and cells[:, 1].max() < 21
    return hex_cell.astype(np.int64), vertex_cell.astype(np.int64), edge_cell.astype(np.int64)


GRID_H, GRID_W = 17, 21
HEX_CELL, VERTEX_CELL, EDGE_CELL = _grid()


def _hex_neighbours() -> np.ndarray:
    out = -np.ones((N_HEXES, 6), dtype=np.int64)
    index = {tuple(c): i for i, c in enumerate(_HEXES)}
    for i, (q, r) in enumerate(_HEXES):
        k = 0
        for dq, dr in ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1)):
            j = index.get((q + dq, r + dr))
            if j is not None:
                out[i, k] = j
                k += 1
    return out


HEX_NEIGHBOURS = _hex_neighbours()

for _arr in (HEX_VERTICES, HEX_XY, VERTEX_XY, EDGE_VERTICES, VERTEX_EDGES,
             VERTEX_VERTICES, VERTEX_HEXES, EDGE_EDGES, HEX_EDGES, COAST_EDGES,
             PORT_EDGES, PORT_VERTICES, HEX_CELL, VERTEX_CELL, EDGE_CELL, HEX_NEIGHBOURS):
    _arr.setflags(write=False)
