"""The classic JSettlers2 board as the core's board: decode the v1 board layout (message
1014, SOCBoardLayout) into a board dict, and the coordinate tables between JSettlers' hex,
node and edge coordinates and the core's hex, vertex and edge ids.

JSettlers' v1 encoding (RST's dissertation, appendix A) names hexes, nodes and edges by two
hex digits 0xAB on diagonal axes: A grows to the south-east, B to the north-east, a hex step
being 2 units (east is +0x22; the centre hex is 0x77).  Hex (A, B) has its centre at
((A + B - 14) / 2, 3 (A - B) / 2) in the core's half-unit plane, and its corners north,
north-east, ... north-west (clockwise from the top) are the nodes hex + 0x01, 0x12, 0x21,
0x10, -0x01, -0x10: the order of the rows of the core's ``HEX_VERTICES``.  Edge c joins the
nodes c + 0x01 and c + 0x10 when its digits add up to an even number (a '|' edge), else c
and c + 0x11.  So each land node is identified with a core vertex through a land hex it is a
corner of, and each edge by its two nodes.  These tables are the same on every classic
board (module constants); a ``JSettlersBoard`` adds the dealt terrain, numbers and harbours.

On the wire the hex values are 6 water, 0 desert, 1..5 land of that resource, 7..12 a 3:1
port facing land in direction 1..6 (NE, E, SE, SW, W, NW), and (facing << 4) + resource a
2:1 port; the number values are indexes into the dice numbers 2..6, 8..12, -1 where none.
"""
from types import MappingProxyType
from typing import Any, Dict, FrozenSet, List, Mapping, Optional, Sequence, Tuple

from ...core.board import validate_board
from ...core.layout import (BRICK, DESERT, GENERIC_PORT, GRAIN, LUMBER, ORE, PORT_NAMES, TERRAIN_NAMES,
                           WOOL)
from ...core.topology import (COAST_EDGES, EDGE_VERTICES, HEX_VERTICES, HEX_XY, N_EDGES, N_HEXES,
                             N_PORTS, N_VERTICES)

RESOURCE_TO_CORE: Dict[int, int] = {1: BRICK, 2: ORE, 3: WOOL, 4: GRAIN, 5: LUMBER}  # CLAY..WOOD
CORE_TO_RESOURCE: Dict[int, int] = {c: j for j, c in RESOURCE_TO_CORE.items()}

# the hex coordinate of each hexLayout / numberLayout index (SOCBoard.numToHexID): rows of
# 4, 5, 6, 7, 6, 5, 4 hexes from the top, land inside a ring of water and port hexes
_ROW_STARTS = ((0x17, 4), (0x15, 5), (0x13, 6), (0x11, 7), (0x31, 6), (0x51, 5), (0x71, 4))
HEX_COORDS: Tuple[int, ...] = tuple(start + 0x22 * k for start, n in _ROW_STARTS for k in range(n))
# node offsets of a hex's corners N, NE, SE, S, SW, NW (SOCBoard.HEXNODES)
HEX_NODE_OFFSETS = (0x01, 0x12, 0x21, 0x10, -0x01, -0x10)
DICE_NUMBERS = (2, 3, 4, 5, 6, 8, 9, 10, 11, 12)  # the sent number values index these
SENT_WATER, SENT_DESERT = 6, 0
MISC_PORT_FIRST, MISC_PORT_LAST = 7, 12           # 3:1 port: 6 + facing
# The classic frame: each port hex and the facing the server always gives it
# (SOCBoard4p.PORTS_HEXNUM_V1 / PORTS_FACING_V1).  JSettlers' clients put a v1 board's
# ports on these fixed edges whatever facing is sent, so any other port is refused.
CLASSIC_PORT_FACING: Mapping[int, int] = MappingProxyType(
    {0x17: 3, 0x5B: 4, 0x9D: 4, 0xDD: 5, 0xD9: 6, 0xB5: 6, 0x71: 1, 0x31: 2, 0x13: 2})
N_FIELDS = 2 * len(HEX_COORDS) + 1  # a 1014 message's fields after the game name


class BoardError(ValueError):
    """A board layout the core cannot play: it names what is wrong (a bad length, an unknown
    hex value, not the classic 19-hex board)."""


def _hex_centre(coord: int) -> Tuple[int, int]:
    """A hex coordinate's centre in the core's half-unit plane (0x77 at the origin)."""
    a, b = coord >> 4, coord & 0xF
    return (a + b - 14) // 2, 3 * (a - b) // 2


def edge_nodes(coord: int) -> Tuple[int, int]:
    """The two node coordinates an edge joins (SOCBoard.getAdjacentNodesToEdge_arr)."""
    if ((coord >> 4) + (coord & 0xF)) % 2 == 0:
        return coord + 0x01, coord + 0x10  # '|'
    return coord, coord + 0x11            # '/' or '\'


def node_edges(node: int) -> Tuple[int, int, int]:
    """The three edge coordinates at a node, land or not (SOCBoard.getAdjacentEdgeToNode
    without its bounds checks)."""
    if (node >> 4) % 2 == 0:                 # a 'Y' node: edges NW, NE and S
        return node - 0x11, node, node - 0x01
    return node - 0x11, node, node - 0x10    # an upside-down 'Y': SW, SE and N


_EDGE_OF_PAIR: Dict[FrozenSet[int], int] = {frozenset((int(a), int(b))): e
                                            for e, (a, b) in enumerate(EDGE_VERTICES.tolist())}


def _tables() -> Tuple[Dict[int, int], Dict[int, int], Dict[int, int]]:
    """(hex coord -> core hex, node -> core vertex, edge coord -> core edge), land only."""
    hex_at = {(int(x), int(y)): h for h, (x, y) in enumerate(HEX_XY.tolist())}
    hexes: Dict[int, int] = {}
    vertices: Dict[int, int] = {}
    for coord in HEX_COORDS:
        h = hex_at.get(_hex_centre(coord))
        if h is None:
            continue  # the ring of water and ports
        hexes[coord] = h
        for d, offset in enumerate(HEX_NODE_OFFSETS):
            v = int(HEX_VERTICES[h, d])
            if vertices.setdefault(coord + offset, v) != v:
                raise AssertionError(f"node {coord + offset:#x} is two core vertices")
    edges: Dict[int, int] = {}
    for node in vertices:
        for coord in node_edges(node):
            a, b = edge_nodes(coord)
            if a in vertices and b in vertices:
                edges[coord] = _EDGE_OF_PAIR[frozenset((vertices[a], vertices[b]))]
    for name, table, n in (("hexes", hexes, N_HEXES), ("nodes", vertices, N_VERTICES),
                           ("edges", edges, N_EDGES)):
        if len(table) != n or len(set(table.values())) != n:
            raise AssertionError(f"the JSettlers {name} do not match the core's one to one")
    return hexes, vertices, edges


_HEX_OF, _VERTEX_OF, _EDGE_OF = _tables()
# the same for every classic board: land hex / node / edge coordinate <-> core id
HEX_OF_COORD: Mapping[int, int] = MappingProxyType(_HEX_OF)
VERTEX_OF_NODE: Mapping[int, int] = MappingProxyType(_VERTEX_OF)
EDGE_OF_COORD: Mapping[int, int] = MappingProxyType(_EDGE_OF)
COORD_OF_HEX: Tuple[int, ...] = tuple(sorted(_HEX_OF, key=_HEX_OF.__getitem__))
NODE_OF_VERTEX: Tuple[int, ...] = tuple(sorted(_VERTEX_OF, key=_VERTEX_OF.__getitem__))
COORD_OF_EDGE: Tuple[int, ...] = tuple(sorted(_EDGE_OF, key=_EDGE_OF.__getitem__))


def _name(coord: int) -> str:
    return f"{coord} (0x{coord:02X})"


def _port(value: int) -> Optional[Tuple[int, str]]:
    """(facing, core harbour name) of a sent port hex value; None if not a port value."""
    if MISC_PORT_FIRST <= value <= MISC_PORT_LAST:
        return value - MISC_PORT_FIRST + 1, PORT_NAMES[GENERIC_PORT]
    facing, kind = value >> 4, value & 0xF
    if 1 <= facing <= 6 and kind in RESOURCE_TO_CORE:
        return facing, PORT_NAMES[RESOURCE_TO_CORE[kind]]
    return None


class JSettlersBoard:
    """A decoded classic (v1) JSettlers board: ``board`` (the core's board dict),
    ``robber_hex`` (the core hex the server put the robber on) and the coordinate tables.

    ``hex_layout`` and ``number_layout`` are the 37 values as sent (index i is hex
    ``HEX_COORDS[i]``), ``robber_hex`` the robber's hex coordinate.  Raises BoardError naming
    the problem when they are not the classic 19-hex board with 9 harbours on its frame.
    """

    def __init__(self, hex_layout: Sequence[int], number_layout: Sequence[int], robber_hex: int) -> None:
        n = len(HEX_COORDS)
        for what, values in (("hexLayout", hex_layout), ("numberLayout", number_layout)):
            if len(values) != n:
                raise BoardError(f"{what} needs {n} values, got {len(values)}")
        terrain: List[Optional[str]] = [None] * N_HEXES
        numbers = [0] * N_HEXES
        found: List[Tuple[int, int, str]] = []  # (coast slot, coastal edge, harbour)
        coast = [int(e) for e in COAST_EDGES]
        for i, (coord, value, number) in enumerate(zip(HEX_COORDS, hex_layout, number_layout)):
            value, number = int(value), int(number)
            where = f"hex {_name(coord)} (index {i})"
            port = _port(value)
            if value not in (SENT_WATER, SENT_DESERT, *RESOURCE_TO_CORE) and port is None:
                raise BoardError(f"unknown hex value {value} at {where}")
            land = value == SENT_DESERT or value in RESOURCE_TO_CORE
            if land != (coord in HEX_OF_COORD):
                kind = "land" if land else "water" if port is None else "a port"
                raise BoardError(f"not the classic 19-hex board: {kind} (value {value}) at {where}")
            if land and value != SENT_DESERT:
                if not 0 <= number < len(DICE_NUMBERS):
                    raise BoardError(f"numberLayout: {where} needs a dice number index 0-9, got {number}")
                numbers[HEX_OF_COORD[coord]] = DICE_NUMBERS[number]
            elif number != -1:
                raise BoardError(f"numberLayout: {where} has no number token, got {number}")
            if land:
                h = HEX_OF_COORD[coord]
                terrain[h] = TERRAIN_NAMES[DESERT if value == SENT_DESERT else RESOURCE_TO_CORE[value]]
            elif port is not None:
                facing, harbour = port
                if CLASSIC_PORT_FACING.get(coord) != facing:
                    raise BoardError(f"not the classic board: a port facing {facing} at {where}; the "
                                     f"classic frame's ports are {self._frame_text()}")
                a, b = (coord + HEX_NODE_OFFSETS[facing - 1], coord + HEX_NODE_OFFSETS[facing % 6])
                edge = _EDGE_OF_PAIR[frozenset((VERTEX_OF_NODE[a], VERTEX_OF_NODE[b]))]
                found.append((coast.index(edge), edge, harbour))
        if len(found) != N_PORTS:
            raise BoardError(f"not the classic board: {len(found)} ports; it has {N_PORTS}")
        found.sort()  # clockwise from the top, as the core lists harbour slots
        try:
            self.board: Dict[str, Any] = validate_board(
                {"terrain": terrain, "numbers": numbers, "harbours": [k for _, _, k in found],
                 "harbour_edges": [e for _, e, _ in found]})
        except ValueError as exc:
            raise BoardError(f"not the classic board: {exc}") from None
        if int(robber_hex) not in HEX_OF_COORD:
            raise BoardError(f"the robber is on {_name(int(robber_hex))}, not a land hex")
        self.robber_hex: int = HEX_OF_COORD[int(robber_hex)]

    @staticmethod
    def _frame_text() -> str:
        return ", ".join(f"0x{c:02X} facing {f}" for c, f in CLASSIC_PORT_FACING.items())

    # ---- JSettlers coordinates <-> core ids
    def vertex(self, node: int) -> int:
        """The core vertex of a JSettlers node coordinate (BoardError if not a land node)."""
        return _land(VERTEX_OF_NODE, node, "node", "a land node")

    def node(self, vertex: int) -> int:
        """The JSettlers node coordinate of a core vertex."""
        return NODE_OF_VERTEX[int(vertex)]

    def edge(self, coord: int) -> int:
        """The core edge of a JSettlers edge coordinate (BoardError if not a land edge)."""
        return _land(EDGE_OF_COORD, coord, "edge", "a land edge")

    def edge_coord(self, edge: int) -> int:
        """The JSettlers edge coordinate of a core edge."""
        return COORD_OF_EDGE[int(edge)]

    def hex(self, coord: int) -> int:
        """The core hex of a JSettlers land hex coordinate (BoardError if not land)."""
        return _land(HEX_OF_COORD, coord, "hex", "a land hex")

    def hex_coord(self, h: int) -> int:
        """The JSettlers hex coordinate of a core hex."""
        return COORD_OF_HEX[int(h)]


def _land(table: Mapping[int, int], coord: int, kind: str, what: str) -> int:
    """table[coord], or a BoardError naming the coordinate that is not on the land."""
    try:
        return table[int(coord)]
    except KeyError:
        raise BoardError(f"{kind} {_name(int(coord))} is not {what}") from None


def parse_board_layout(fields: Sequence[str]) -> JSettlersBoard:
    """The board of a 1014 (SOCBoardLayout) message from its fields after the game name:
    37 hexLayout values, 37 numberLayout values and the robber's hex, in decimal."""
    if len(fields) != N_FIELDS:
        raise BoardError(f"a board layout needs {N_FIELDS} fields after the game name (37 hexLayout, "
                         f"37 numberLayout, the robber hex), got {len(fields)}")
    try:
        values = [int(f) for f in fields]
    except ValueError:
        raise BoardError(f"a board layout field is not a number: {list(fields)!r}") from None
    n = len(HEX_COORDS)
    return JSettlersBoard(values[:n], values[n:2 * n], values[2 * n])
