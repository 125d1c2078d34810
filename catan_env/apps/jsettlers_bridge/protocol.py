"""The JSettlers2 (2.7.00) message texts the bridge reads and writes: type numbers, the
game states, card and piece codes, and the resource order.  Names follow
``soc.message.SOCMessage`` and ``soc.game.SOCGame``; the formats are those on the wire
(``TYPE|fields``), documented in the server's ``doc/Message-Sequences-for-Game-Actions.md``
and each message class."""
from typing import Dict, List, Sequence, Tuple

from ...core import layout as L


class ProtocolError(ValueError):
    """A message the bridge cannot read, or a game it cannot play."""


VERSION = "9998|2700,2.7.00,JM20260517,;6pl;sb;,en_US"
EMPTY = "\t"  # SOCMessage.EMPTYSTR: a blank field

# message types (soc.message.SOCMessage)
PUTPIECE, LEAVEGAME, SITDOWN, JOINGAME, BOARDLAYOUT = 1009, 1011, 1012, 1013, 1014
DELETEGAME, NEWGAME, STARTGAME, JOINGAMEAUTH = 1015, 1016, 1018, 1021
IMAROBOT, BOTJOINGAMEREQUEST, UPDATEROBOTPARAMS = 1022, 1023, 1071
PLAYERELEMENT, GAMESTATE, TURN, DICERESULT, DISCARDREQUEST = 1024, 1025, 1026, 1028, 1029
ROLLDICE, ENDTURN, DISCARD, MOVEROBBER, CHOOSEPLAYER, CHOOSEPLAYERREQUEST = 1031, 1032, 1033, 1034, 1035, 1036
REJECTOFFER, CLEAROFFER, ACCEPTOFFER, BANKTRADE, MAKEOFFER, CLEARTRADEMSG = 1037, 1038, 1039, 1040, 1041, 1042
CANCELBUILDREQUEST, BUYDEVCARDREQUEST, DEVCARDACTION, PLAYDEVCARDREQUEST = 1044, 1045, 1046, 1049
PICKRESOURCES, PICKRESOURCETYPE, GAMESTATS, RESOURCECOUNT = 1052, 1053, 1061, 1063
NEWGAMEWITHOPTIONSREQUEST, NEWGAMEWITHOPTIONS = 1078, 1079
PLAYERSTATS, PLAYERELEMENTS, SIMPLEREQUEST, SIMPLEACTION = 1085, 1086, 1089, 1090
GAMESERVERTEXT, DICERESULTRESOURCES, GAMEELEMENTS, ROBBERYRESULT = 1091, 1092, 1096, 1102
DECLINEPLAYERREQUEST, STATUSMESSAGE, REJECTCONNECTION, SERVERPING = 1104, 1069, 1059, 9999

# game states (soc.game.SOCGame)
START1A, START1B, START2A, START2B = 5, 6, 10, 11
ROLL_OR_CARD, PLAY1 = 15, 20
PLACING_ROAD, PLACING_SETTLEMENT, PLACING_CITY, PLACING_ROBBER = 30, 31, 32, 33
PLACING_FREE_ROAD1, PLACING_FREE_ROAD2 = 40, 41
WAITING_FOR_DISCARDS, WAITING_FOR_ROB_CHOOSE_PLAYER = 50, 51
WAITING_FOR_DISCOVERY, WAITING_FOR_MONOPOLY, OVER = 52, 53, 1000
SETUP_SETTLEMENT_STATES = (START1A, START2A)
SETUP_ROAD_STATES = (START1B, START2B)

# pieces (soc.game.SOCPlayingPiece), development cards (soc.game.SOCDevCardConstants)
ROAD, SETTLEMENT, CITY = 0, 1, 2
DEV_UNKNOWN, DEV_ROADS, DEV_DISCOVERY, DEV_MONOPOLY, DEV_KNIGHT = 0, 1, 2, 3, 9
DEV_VP = (4, 5, 6, 7, 8)
DEV_TO_CORE: Dict[int, int] = {DEV_ROADS: L.ROAD_BUILDING, DEV_DISCOVERY: L.YEAR_OF_PLENTY,
                               DEV_MONOPOLY: L.MONOPOLY, DEV_KNIGHT: L.KNIGHT,
                               **{c: L.VICTORY_POINT for c in DEV_VP}}
CORE_TO_DEV: Dict[int, int] = {L.ROAD_BUILDING: DEV_ROADS, L.YEAR_OF_PLENTY: DEV_DISCOVERY,
                               L.MONOPOLY: DEV_MONOPOLY, L.KNIGHT: DEV_KNIGHT}
# SOCDevCardAction action types; SOCPlayerElement actions and element types
DRAW, PLAY, ADD_NEW, ADD_OLD, CANNOT_PLAY = 0, 1, 2, 3, 4
SET, GAIN, LOSE = 100, 101, 102
UNKNOWN_RESOURCE, NUMKNIGHTS = 6, 15
# SOCGameElements types; SOCSimpleAction types
GE_CURRENT_PLAYER, GE_LARGEST_ARMY_PLAYER, GE_LONGEST_ROAD_PLAYER = 4, 5, 6
SA_DEVCARD_BOUGHT, SA_TRADE_SUCCESSFUL, SA_RSRC_TYPE_MONOPOLIZED = 1, 2, 3
PICK_REASON_DISCOVERY = 2

# resources: JSettlers' CLAY 1, ORE 2, SHEEP 3, WHEAT 4, WOOD 5 (lists in that order)
JS_TO_CORE_RES = {1: L.BRICK, 2: L.ORE, 3: L.WOOL, 4: L.GRAIN, 5: L.LUMBER}
CORE_TO_JS_RES = {c: j for j, c in JS_TO_CORE_RES.items()}

# the classic 4-player game the core plays (SOCGameOptionSet): 10 VP, no sevens rule,
# clumps broken up on the random board, the robber may go back to the desert
GAME_OPTIONS = "PL=4,VP=t10,N7=f7,RD=f,BC=t4,NT=f"


def split(text: str) -> Tuple[int, List[str]]:
    """(type, fields) of a message text; the fields split on ``,`` or, for the messages
    that use it, on ``|``."""
    head, _, body = text.partition("|")
    try:
        kind = int(head)
    except ValueError:
        raise ProtocolError(f"a message without a type number: {text[:80]!r}") from None
    if kind in (PLAYERELEMENTS, DICERESULTRESOURCES, GAMEELEMENTS):
        return kind, body.split("|")
    return kind, body.split(",")


def js_to_core(counts: Sequence[int]) -> List[int]:
    """Five JSettlers counts (clay, ore, sheep, wheat, wood) as the core's resource vector."""
    out = [0] * L.N_RES
    for i, n in enumerate(counts[:5]):
        out[JS_TO_CORE_RES[i + 1]] += int(n)
    return out


def core_to_js(vec: Sequence[int]) -> List[int]:
    """A core resource vector as JSettlers' five counts (clay, ore, sheep, wheat, wood)."""
    return [int(vec[JS_TO_CORE_RES[j]]) for j in range(1, 6)]


def ints(fields: Sequence[str]) -> List[int]:
    try:
        return [int(x) for x in fields]
    except ValueError:
        raise ProtocolError(f"expected numbers, got {list(fields)[:12]}") from None


# ---- messages the client sends
def new_game(nick: str, game: str, options: str = GAME_OPTIONS) -> str:
    return f"{NEWGAMEWITHOPTIONSREQUEST}|{nick},{EMPTY},-,{game},{options}"


def join_game(nick: str, game: str) -> str:
    return f"{JOINGAME}|{nick},{EMPTY},-,{game}"


def sit_down(game: str, nick: str, seat: int, robot: bool = False) -> str:
    return f"{SITDOWN}|{game},{nick},{seat},{'true' if robot else 'false'}"


def im_a_robot(nick: str, cookie: str, robot_class: str) -> str:
    return f"{IMAROBOT}|{nick},{cookie},{robot_class}"


def put_piece(game: str, seat: int, piece: int, coord: int) -> str:
    return f"{PUTPIECE}|{game},{seat},{piece},{coord}"


def resources(vec: Sequence[int]) -> str:
    """A core resource vector as the five comma-separated JSettlers counts."""
    return ",".join(str(x) for x in core_to_js(vec))


def make_offer(game: str, seat: int, to: Sequence[bool], give: Sequence[int], get: Sequence[int]) -> str:
    """An offer from seat to the seats marked in ``to``: seat gives ``give``, gets ``get``
    (core vectors)."""
    flags = ",".join("true" if t else "false" for t in to)
    return f"{MAKEOFFER}|{game},{seat},{flags},{resources(give)},{resources(get)}"


def bank_trade(game: str, give: Sequence[int], get: Sequence[int]) -> str:
    return f"{BANKTRADE}|{game},{resources(give)},{resources(get)}"


def discard(game: str, vec: Sequence[int]) -> str:
    return f"{DISCARD}|{game},{resources(vec)},0"


def pick_resources(game: str, vec: Sequence[int]) -> str:
    return f"{PICKRESOURCES}|{game},{resources(vec)}"
