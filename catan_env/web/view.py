"""What the browser page of one seat (or of a spectator) is sent, built from an InfoSet.

Every field comes from ``InfoSet.public_state()`` (other seats' hands and development
cards by type, the deck by type, what others know and the RNG blanked) or from the seat's
own cards, so no message carries hidden information (tested by comparing the messages of
two true states that differ only in it).  The board's drawing is the HTML replay's.
"""
from typing import Any, Dict, List, Optional

from ..core import layout as L
from ..core.actions import action_args, action_kind, action_name
from ..core.topology import EDGE_VERTICES, HEX_XY, VERTEX_XY
from ..html_replay import _px, _static_board
from ..infoset import InfoSet
from ..render import PLAYER_COLOURS, PLAYER_NAMES

RESOURCES = ("brick", "lumber", "wool", "grain", "ore")
DEV_CARDS = ("knight", "victory point", "road building", "year of plenty", "monopoly")


def board_message(info: InfoSet) -> Dict[str, Any]:
    """The static board (SVG of hexes, numbers and harbours) and the clickable geometry."""
    s = info.public_state()
    n = info.n_players
    return {"type": "board", "svg": _static_board(s),
            "vertices": [_px(*VERTEX_XY[v]) for v in range(len(VERTEX_XY))],
            "edges": [[int(a), int(b)] for a, b in EDGE_VERTICES],
            "hexes": [_px(*HEX_XY[h]) for h in range(len(HEX_XY))],
            "colours": [f"rgb({c[0]},{c[1]},{c[2]})" for c in PLAYER_COLOURS[:n]],
            "names": list(PLAYER_NAMES[:n]), "resources": list(RESOURCES), "dev_cards": list(DEV_CARDS)}


def _target(action: int) -> Optional[List[Any]]:
    """Where on the board an action is clicked: ["v", vertex], ["e", edge], ["h", hex]."""
    kind = action_kind(action)
    if kind == "BUILD_ROAD":
        return ["e", int(action_args(action)[0])]
    if kind in ("BUILD_SETTLEMENT", "BUILD_CITY"):
        return ["v", int(action_args(action)[0])]
    if kind == "MOVE_ROBBER":
        return ["h", int(action_args(action)[0])]
    return None


def state_message(info: InfoSet, log: List[Dict[str, Any]], spectator: bool = False) -> Dict[str, Any]:
    """One seat's view now: pieces, every player's public state, the seat's own cards and
    legal moves (a spectator gets the public part only)."""
    s = info.public_state()
    n = info.n_players
    hand_sizes, dev_counts = info.hand_sizes(), info.dev_counts()
    players = [{"vp": int(s[L.PUBLIC_VP + p]), "cards": hand_sizes[p], "devs": dev_counts[p],
                "knights": int(s[L.KNIGHTS + p]), "road": int(s[L.ROAD_LEN + p]),
                "longest_road": int(s[L.LR_HOLDER]) == p, "largest_army": int(s[L.LA_HOLDER]) == p,
                "pieces_left": [int(s[L.ROADS_LEFT + p]), int(s[L.SETTLEMENTS_LEFT + p]),
                                int(s[L.CITIES_LEFT + p])]} for p in range(n)]
    msg: Dict[str, Any] = {
        "type": "state", "seat": None if spectator else info.seat, "phase": info.phase,
        "decider": info.decider, "turn": int(s[L.TURN]), "turn_player": int(s[L.TURN_PLAYER]),
        "roll": int(s[L.LAST_ROLL]), "robber": int(s[L.ROBBER]), "winner": int(s[L.WINNER]),
        "v_owner": L.view(s, "v_owner").tolist(), "v_level": L.view(s, "v_level").tolist(),
        "e_owner": L.view(s, "e_owner").tolist(), "players": players,
        "bank": [int(x) for x in info.bank()], "deck": info.deck_size(), "log": log[-200:],
        "offer": _offer(s), "hand": None, "dev_hand": None, "dev_new": None, "legal": []}
    if not spectator:
        dev, new = info.dev_cards()
        msg.update(hand=[int(x) for x in info.hand()], dev_hand=[int(x) for x in dev],
                   dev_new=[int(x) for x in new],
                   legal=[{"id": int(a), "name": action_name(int(a)), "kind": action_kind(int(a)),
                           "target": _target(int(a))} for a in info.legal_actions()])
    return msg


def _offer(s: Any) -> Optional[Dict[str, Any]]:
    """The domestic offer on the table (public), in the proposer's terms."""
    if int(s[L.PHASE]) not in (L.PH_TRADE_RESPONSE, L.PH_TRADE_CONFIRM):
        return None
    return {"proposer": int(s[L.TURN_PLAYER]),
            "give": [int(s[L.TRADE_GIVE_N]), RESOURCES[int(s[L.TRADE_GIVE_RES])]],
            "get": [int(s[L.TRADE_GET_N]), RESOURCES[int(s[L.TRADE_GET_RES])]],
            "answers": [int(x) for x in L.view(s, "trade_resp")[:int(s[L.OPT_PLAYERS])]]}
