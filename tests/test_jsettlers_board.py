"""The JSettlers board decoder: a real classic board from a JSettlers2 2.7.00 server (message
1014) decodes to a board the core accepts, and its coordinates map onto the core's.

The checks use JSettlers' own rules, written out here from ``soc.game.SOCBoard`` and
``SOCBoard4p`` (adjacency arithmetic, land hexes, the ports' edges, the legal roads), and
pieces the server accepted in the same game."""
from collections import Counter

import pytest

from catan_env.core.board import validate_board
from catan_env.core.layout import RESOURCE_NAMES
from catan_env.core.topology import COAST_EDGES, EDGE_VERTICES, VERTEX_HEXES, VERTEX_VERTICES
from catan_env.apps.jsettlers_bridge.board import (CORE_TO_RESOURCE, RESOURCE_TO_CORE, BoardError,
                                              JSettlersBoard, parse_board_layout)

# received from the server after the game started (game ~botsOnly~1)
BOARD_MESSAGE = ("1014|~botsOnly~1,9,6,68,6,6,2,1,4,10,8,3,5,0,5,6,6,3,5,5,1,2,85,35,1,4,4,2,6,6,"
                 "3,4,3,97,7,6,98,6,-1,-1,-1,-1,-1,5,1,4,-1,-1,7,2,-1,0,-1,-1,6,3,8,6,3,-1,-1,9,4,"
                 "1,7,-1,-1,8,2,5,-1,-1,-1,-1,-1,121")
# the set-up in that game: each road was placed right after the settlement beside it
SETTLEMENTS = [107, 186, 167, 71, 165, 67, 118, 133]
ROADS = [106, 169, 150, 54, 148, 67, 118, 132]
# message 1057 before the game: the legal settlement nodes, every land node
LEGAL_NODES = [131, 133, 135, 137, 139, 141, 148, 150, 152, 154, 156, 35, 37, 165, 39, 167, 169,
               171, 173, 50, 52, 54, 182, 56, 184, 186, 188, 67, 69, 71, 199, 73, 201, 203, 205,
               82, 84, 86, 88, 216, 90, 218, 220, 99, 101, 103, 105, 107, 114, 116, 118, 120,
               122, 124]

# SOCBoard4p: the land hexes; each port's index in hexLayout and its edge
HEXCOORDS_LAND_V1 = [0x33, 0x35, 0x37, 0x53, 0x55, 0x57, 0x59, 0x73, 0x75, 0x77, 0x79, 0x7B,
                     0x95, 0x97, 0x99, 0x9B, 0xB7, 0xB9, 0xBB]
PORTS_HEXNUM_V1 = [0, 2, 8, 21, 32, 35, 33, 22, 9]
PORTS_EDGE_V1 = [0x27, 0x5A, 0x9C, 0xCC, 0xC9, 0xA5, 0x72, 0x42, 0x24]
JS_PORT_KIND = {0: "generic", 1: "brick", 2: "ore", 3: "wool", 4: "grain", 5: "lumber"}


def fields():
    return BOARD_MESSAGE.split("|", 1)[1].split(",")[1:]


def js_nodes_of_edge(edge):
    """SOCBoard.getAdjacentNodesToEdge_arr."""
    if ((edge & 0x0F) + (edge >> 4)) % 2 == 0:
        return {edge + 0x01, edge + 0x10}
    return {edge, edge + 0x11}


def js_edges_of_node(node):
    """SOCBoard.getAdjacentEdgeToNode, directions 0-2, bounds left out."""
    if (node >> 4) % 2 == 0:
        return [node - 0x11, node, node - 0x01]
    return [node - 0x11, node, node - 0x10]


def js_hexes_of_node(node):
    """SOCBoard.getAdjacentHexesToNode."""
    if (node >> 4) % 2 == 0:
        hexes = [node - 0x10, node + 0x10, node - 0x12]
    else:
        hexes = [node - 0x21, node + 0x01, node - 0x01]
    return [h for h in hexes if 0x11 <= h <= 0xDD]


def js_legal_roads():
    """SOCBoard.initPlayerLegalRoads on the 4-player board."""
    rows = [(0x27, 0x7C, 0x11), (0x26, 0x8C, 0x22), (0x25, 0x9C, 0x11), (0x24, 0xAC, 0x22),
            (0x23, 0xBC, 0x11), (0x22, 0xCC, 0x22), (0x32, 0xCB, 0x11), (0x42, 0xCA, 0x22),
            (0x52, 0xC9, 0x11), (0x62, 0xC8, 0x22), (0x72, 0xC7, 0x11)]
    return {e for start, stop, step in rows for e in range(start, stop + 1, step)}


@pytest.fixture(scope="module")
def board():
    return parse_board_layout(fields())


def test_the_resources_map_by_name():
    js_names = {1: "brick", 2: "ore", 3: "wool", 4: "grain", 5: "lumber"}  # clay, ore, sheep, wheat, wood
    assert {r: RESOURCE_NAMES[c] for r, c in RESOURCE_TO_CORE.items()} == js_names
    assert {c: r for r, c in CORE_TO_RESOURCE.items()} == RESOURCE_TO_CORE


def test_the_servers_board_decodes_to_a_classic_core_board(board):
    b = board.board
    assert validate_board(b) == b
    assert Counter(b["terrain"]) == {"hills": 3, "mountains": 3, "forest": 4, "pasture": 4,
                                     "fields": 4, "desert": 1}
    assert sorted(n for n in b["numbers"] if n) == [2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9, 10,
                                                   10, 11, 11, 12]
    desert = b["terrain"].index("desert")
    assert b["numbers"][desert] == 0
    assert board.robber_hex == desert and board.hex_coord(desert) == 121
    # each land value and its number as sent: e.g. index 5 (hex 0x37) is ore (2) with 5 -> 8
    hex_layout = [int(v) for v in fields()[:37]]
    number_layout = [int(v) for v in fields()[37:74]]
    assert b["terrain"][board.hex(0x37)] == "mountains" and b["numbers"][board.hex(0x37)] == 8
    for kind, terrain in ((1, "hills"), (2, "mountains"), (3, "pasture"), (4, "fields"), (5, "forest")):
        assert hex_layout.count(kind) == b["terrain"].count(terrain)
    assert sorted(n for n in number_layout if n >= 0) == [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6,
                                                          7, 7, 8, 8, 9]


def test_the_land_hexes_are_jsettlers_land_hexes(board):
    assert sorted(board.hex_coord(h) for h in range(19)) == HEXCOORDS_LAND_V1
    for coord in HEXCOORDS_LAND_V1:
        assert board.hex_coord(board.hex(coord)) == coord
    with pytest.raises(BoardError, match="not a land hex"):
        board.hex(0x17)  # the top-left port hex


def test_every_land_node_is_a_distinct_vertex_and_back(board):
    vertices = [board.vertex(n) for n in LEGAL_NODES]
    assert len(LEGAL_NODES) == 54 and len(set(vertices)) == 54
    assert all(board.node(board.vertex(n)) == n for n in LEGAL_NODES)
    with pytest.raises(BoardError, match="not a land node"):
        board.vertex(0x18)  # the north corner of the top-left port hex


def test_a_nodes_hexes_are_the_vertexs_hexes(board):
    land = set(HEXCOORDS_LAND_V1)
    for node in LEGAL_NODES:
        js = {board.hex(h) for h in js_hexes_of_node(node) if h in land}
        core = {int(h) for h in VERTEX_HEXES[board.vertex(node)] if h >= 0}
        assert js == core, hex(node)


def test_every_edge_at_a_land_node_round_trips(board):
    land = set(LEGAL_NODES)
    seen = set()
    for node in LEGAL_NODES:
        for coord in js_edges_of_node(node):
            ends = js_nodes_of_edge(coord)
            if not ends <= land:
                with pytest.raises(BoardError, match="not a land edge"):
                    board.edge(coord)
                continue
            e = board.edge(coord)
            assert board.edge_coord(e) == coord
            assert {int(v) for v in EDGE_VERTICES[e]} == {board.vertex(n) for n in ends}
            seen.add(coord)
    assert seen == js_legal_roads() and len({board.edge(c) for c in seen}) == 72


def test_the_servers_set_up_pieces_fit_the_core_board(board):
    settled = [board.vertex(n) for n in SETTLEMENTS]
    for node, road in zip(SETTLEMENTS, ROADS):
        assert board.vertex(node) in {int(v) for v in EDGE_VERTICES[board.edge(road)]}
    # the server enforced the distance rule: no two of them are neighbours in the core either
    for v in settled:
        assert not set(int(w) for w in VERTEX_VERTICES[v]) & set(settled)


def test_each_harbour_serves_the_nodes_jsettlers_gives_its_port(board):
    hex_layout = [int(v) for v in fields()[:37]]
    b = board.board
    coast = {int(e) for e in COAST_EDGES}
    slots = {frozenset(int(v) for v in EDGE_VERTICES[e]): k for k, e in enumerate(b["harbour_edges"])}
    assert set(b["harbour_edges"]) <= coast and len(slots) == 9
    for hexnum, edge in zip(PORTS_HEXNUM_V1, PORTS_EDGE_V1):
        value = hex_layout[hexnum]
        kind = 0 if 7 <= value <= 12 else value & 0x0F  # SOCBoard.getPortTypeFromHexType
        k = slots[frozenset(board.vertex(n) for n in js_nodes_of_edge(edge))]
        assert b["harbours"][k] == JS_PORT_KIND[kind]


def _with(index, value):
    f = fields()
    f[index] = str(value)
    return f


@pytest.mark.parametrize("bad, problem", [
    (fields()[:-1], "75 fields"),
    (fields() + ["0"], "75 fields"),
    (_with(0, "x"), "not a number"),
    (_with(0, 13), "unknown hex value 13"),
    (_with(2, (7 << 4) + 4), "unknown hex value 116"),   # a facing 7
    (_with(2, (4 << 4) + 6), "unknown hex value 70"),    # a 2:1 port of no resource
    (_with(12, 6), "not the classic 19-hex board: water"),  # the desert sunk
    (_with(1, 5), "not the classic 19-hex board: land"),   # a forest in the sea ring
    (_with(5, 7), "not the classic 19-hex board: a port"),
    (_with(0, 8), "port facing 2"),                      # the top-left port turned east
    (_with(0, 6), "8 ports"),
    (_with(6, 5), "expected 3 hills"),                   # a clay hex turned to wood
    (_with(37 + 12, 3), "hex 121 .* has no number token"),  # a number on the desert
    (_with(37 + 5, -1), "needs a dice number index"),
    (_with(37 + 5, 10), "needs a dice number index"),
    (_with(74, 0x17), "robber is on 23 .* not a land hex"),
])
def test_what_is_not_the_classic_board_is_refused_with_the_reason(bad, problem):
    with pytest.raises(BoardError, match=problem):
        parse_board_layout(bad)


def test_layouts_of_the_wrong_length_are_refused():
    values = [int(v) for v in fields()]
    with pytest.raises(BoardError, match="hexLayout needs 37 values, got 36"):
        JSettlersBoard(values[1:37], values[37:74], values[74])
    with pytest.raises(BoardError, match="numberLayout needs 37 values, got 38"):
        JSettlersBoard(values[:37], values[37:74] + [-1], values[74])
