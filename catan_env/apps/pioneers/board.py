"""The Pioneers board as the core's board: map rows and chits to a board dict, and the
coordinate tables between Pioneers' (x, y, pos) names and the core's hex, vertex and
edge ids.

Pioneers uses pointy-topped hexes on a grid whose odd rows are shifted half a hex right.
In the half-unit lattice (x to the right, y down) hex (x, y) has centre
(2x + y mod 2, 3y): the same plane the core's topology uses, translated.  So each
Pioneers corner and side is identified with a core vertex and edge by geometry; any
name (every alias) of a land node or side maps to its id, and ``canonical`` gives the
name the official clients send.
"""
from typing import Any, Dict, FrozenSet, List, Optional, Sequence, Tuple

from ...core.board import validate_board
from ...core.topology import COAST_EDGES, EDGE_VERTICES, HEX_XY, N_PORTS, VERTEX_XY
from .protocol import ProtocolError

# corner p of a hex, as an offset from its centre (0 upper-right, 1 top, ... 5 lower-right)
CORNER_OFFSETS = ((1, -1), (0, -2), (-1, -1), (-1, 1), (0, 2), (1, 1))
TERRAIN_LETTERS = {"h": "hills", "t": "forest", "p": "pasture", "f": "fields",
                   "m": "mountains", "d": "desert"}
PORT_LETTERS = {"b": "brick", "g": "grain", "o": "ore", "w": "wool", "l": "lumber",
                "?": "generic"}

XY = Tuple[int, int]            # a grid hex (x, y), or a lattice point
XYP = Tuple[int, int, int]      # a corner or side name (x, y, pos)


def _centre(x: int, y: int) -> XY:
    return 2 * x + (y & 1), 3 * y


def _corner(x: int, y: int, p: int) -> XY:
    cx, cy = _centre(x, y)
    return cx + CORNER_OFFSETS[p][0], cy + CORNER_OFFSETS[p][1]


def _side(x: int, y: int, p: int) -> XY:
    """A side's key: the sum of its two corners (side p joins corners p and p-1)."""
    a, b = _corner(x, y, p), _corner(x, y, (p + 5) % 6)
    return a[0] + b[0], a[1] + b[1]


class PioneersBoard:
    """A decoded Pioneers map: ``board`` (the core's board dict) and the name tables.

    Raises ProtocolError naming the problem when the map is not the standard 19-hex
    island with 9 harbours on the standard frame (the only board the core represents).
    """

    def __init__(self, map_rows: Sequence[str], chits: str) -> None:
        cells: Dict[XY, str] = {}
        for y, row in enumerate(map_rows):
            for x, cell in enumerate(row.split(",")):
                cell = cell.strip().rstrip("+")
                if cell and cell != "-":
                    cells[(x, y)] = cell
        land = {xy: c for xy, c in cells.items() if c[0] in TERRAIN_LETTERS}
        odd = [c for c in cells.values() if c[0] not in TERRAIN_LETTERS and c[0] != "s"]
        if odd:
            raise ProtocolError(f"unsupported map: hexes {sorted(set(odd))} (gold fields and "
                                f"other Seafarers terrain are not in the base game)")
        if len(land) != len(HEX_XY):
            raise ProtocolError(f"unsupported map: {len(land)} land hexes; the core plays the "
                                f"standard 19-hex board")
        # translate the lattice so that the land's centroid sits at the core's origin
        sx = sum(_centre(*xy)[0] for xy in land)
        sy = sum(_centre(*xy)[1] for xy in land)
        if sx % len(land) or sy % len(land):
            raise ProtocolError("unsupported map: the land is not the standard hexagon")
        origin = (sx // len(land), sy // len(land))

        def to_core(key: XY, weight: int = 1) -> XY:  # a lattice point (weight 1) or a side key (weight 2)
            return key[0] - weight * origin[0], key[1] - weight * origin[1]
        hex_at = {tuple(p): h for h, p in enumerate(HEX_XY.tolist())}
        vertex_at = {tuple(p): v for v, p in enumerate(VERTEX_XY.tolist())}
        edge_at: Dict[XY, int] = {}
        for eid, (a, b) in enumerate(EDGE_VERTICES.tolist()):
            (ax, ay), (bx, by) = VERTEX_XY[a], VERTEX_XY[b]
            edge_at[(int(ax + bx), int(ay + by))] = eid
        self.hex_of: Dict[XY, int] = {}    # (x, y) -> core hex, land only
        self.hex_name: Dict[int, XY] = {}  # core hex -> (x, y)
        for xy in land:
            h = hex_at.get(to_core(_centre(*xy)))
            if h is None:
                raise ProtocolError("unsupported map: the land is not the standard hexagon")
            self.hex_of[xy] = h
            self.hex_name[h] = xy
        # every (x, y, pos) of every grid hex that names a land corner / side
        self.vertex_of: Dict[XYP, int] = {}
        self.edge_of: Dict[XYP, int] = {}
        self.vertex_name: Dict[int, XYP] = {}
        self.edge_name: Dict[int, XYP] = {}
        for (x, y) in sorted(cells):  # x-major order: the first name met is canonical
            for p in range(6):
                v = vertex_at.get(to_core(_corner(x, y, p)))
                if v is not None:
                    self.vertex_of[(x, y, p)] = v
                    self.vertex_name.setdefault(v, (x, y, p))
                e = edge_at.get(to_core(_side(x, y, p), 2))
                if e is not None:
                    self.edge_of[(x, y, p)] = e
                    self.edge_name.setdefault(e, (x, y, p))
        if len(self.vertex_name) != len(VERTEX_XY) or len(self.edge_name) != len(EDGE_VERTICES):
            raise ProtocolError("unsupported map: the sea ring does not name every node")
        self.board: Dict[str, Any] = self._board(cells, land, chits)
        self.robber_hex: int = self.board["terrain"].index("desert")

    def _board(self, cells: Dict[XY, str], land: Dict[XY, str], chits: str) -> Dict[str, Any]:
        terrain: List[Optional[str]] = [None] * len(HEX_XY)
        numbers = [0] * len(HEX_XY)
        walk = sorted(land, key=lambda xy: int(land[xy][1:] or 0))
        chit_values = [int(c) for c in chits.split(",")]
        j = 0
        for xy in walk:
            h = self.hex_of[xy]
            terrain[h] = TERRAIN_LETTERS[land[xy][0]]
            if terrain[h] != "desert":
                if j >= len(chit_values):
                    raise ProtocolError("unsupported map: fewer chits than numbered hexes")
                numbers[h] = chit_values[j]
                j += 1
        found: List[Tuple[int, int, str]] = []  # (coast slot, coastal edge, kind)
        edge_of_pair: Dict[FrozenSet[int], int] = {frozenset(map(int, ab)): e
                                                    for e, ab in enumerate(EDGE_VERTICES.tolist())}
        coast = [int(e) for e in COAST_EDGES]
        for (x, y), cell in cells.items():
            if cell[0] != "s" or len(cell) < 3:
                continue
            kind, facing = cell[1], cell[2]
            if kind not in PORT_LETTERS or not facing.isdigit():
                raise ProtocolError(f"unsupported map: sea hex {cell!r} at {x},{y}")
            f = int(facing)
            va, vb = self.vertex_of.get((x, y, f)), self.vertex_of.get((x, y, (f + 5) % 6))
            e = edge_of_pair.get(frozenset((va, vb))) if va is not None and vb is not None else None
            if e is None or e not in coast:
                raise ProtocolError(f"unsupported map: the harbour at {x},{y} facing {f} is not "
                                    f"on the island's coast")
            found.append((coast.index(e), e, PORT_LETTERS[kind]))
        if len(found) != N_PORTS:
            raise ProtocolError(f"unsupported map: {len(found)} harbours; the core has {N_PORTS}")
        found.sort()  # slots clockwise from the top, as on the official frame
        try:
            return validate_board({"terrain": terrain, "numbers": numbers,
                                   "harbours": [k for _, _, k in found],
                                   "harbour_edges": [e for _, e, _ in found]})
        except ValueError as exc:
            raise ProtocolError(f"unsupported map: {exc}") from None

    # ---- names <-> ids
    def vertex(self, x: int, y: int, p: int) -> int:
        return self.vertex_of[(int(x), int(y), int(p))]

    def edge(self, x: int, y: int, p: int) -> int:
        return self.edge_of[(int(x), int(y), int(p))]

    def hex(self, x: int, y: int) -> int:
        return self.hex_of[(int(x), int(y))]

    def vertex_text(self, v: int) -> str:
        return "%d %d %d" % self.vertex_name[v]

    def edge_text(self, e: int) -> str:
        return "%d %d %d" % self.edge_name[e]

    def hex_text(self, h: int) -> str:
        return "%d %d" % self.hex_name[h]


DEFAULT_MAP = ["-,-,sw5,s,s?4,s,-", "-,s,t0,p1,f2,sg4,-", "-,s?0,h3,m4,h5,p6,s",
               "s,d7,t8,f9,t10,f11,sl3", "-,s?0,h12,p13,p14,m15,s", "-,s,m16,f17,t18,s?2,-",
               "-,-,so1,s,sb2,s,-"]
DEFAULT_CHITS = "11,12,9,4,6,5,10,3,11,4,8,8,10,9,3,5,2,6"
