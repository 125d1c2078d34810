"""What the browser page of one seat (or of a spectator) is sent, built from an InfoSet.

Every field comes from ``InfoSet.public_state()`` (other seats' hands and development
cards by type, the deck by type, what others know and the RNG blanked) or from the seat's
own cards, so no message carries hidden information (tested by comparing the messages of
two true states that differ only in it).  Once the game is over everything is public, and
``final_message`` breaks each seat's VP down from the true state.  What a person reads
(moves, phases) is in words (``catan_env.words``); ids stay in data fields the page sends
back.  The board's drawing is the HTML replay's.
"""
from typing import Any, Dict, List, Optional

import numpy as np

from ... import words as W
from ...core import layout as L
from ...core.actions import DISCARD0, action_args, action_kind, robber_victim_seat
from ...core.topology import EDGE_VERTICES, HEX_XY, VERTEX_XY
from ..html_replay import board_svg, board_viewbox, pixel
from ...infoset import InfoSet
from ...render import PLAYER_COLOURS

# what the end screen's breakdown and statistics are called on the page
VP_PARTS = (("settlements", "settlements"), ("cities", "cities (2 VP each)"),
            ("longest_road", "longest road"), ("largest_army", "largest army"),
            ("vp_cards", "VP cards"), ("total", "total"))


def board_message(info: InfoSet) -> Dict[str, Any]:
    """The static board (SVG of hexes, numbers and harbours) and the clickable geometry."""
    s = info.public_state()
    n = info.n_players
    return {"type": "board", "svg": board_svg(s), "viewbox": board_viewbox(s),
            "vertices": [pixel(*VERTEX_XY[v]) for v in range(len(VERTEX_XY))],
            "edges": [[int(a), int(b)] for a, b in EDGE_VERTICES],
            "hexes": [pixel(*HEX_XY[h]) for h in range(len(HEX_XY))],
            "colours": [f"rgb({c[0]},{c[1]},{c[2]})" for c in PLAYER_COLOURS[:n]],
            "names": [W.player_name(p) for p in range(n)],
            "resources": list(W.RESOURCE_WORDS), "dev_cards": list(W.DEV_CARD_NAMES),
            "vp_parts": [list(p) for p in VP_PARTS]}


# What a log entry is about, for the page's filter: one category per action kind.
LOG_CATEGORIES = {
    "ROLL": "rolls", "END_TURN": "rolls",
    "BUILD_ROAD": "building", "BUILD_SETTLEMENT": "building", "BUILD_CITY": "building", "BUY_DEV": "cards",
    "MOVE_ROBBER": "robber", "DISCARD": "robber", "PLAY_KNIGHT": "robber",
    "PLAY_ROAD_BUILDING": "cards", "PLAY_YEAR_OF_PLENTY": "cards", "PLAY_MONOPOLY": "cards",
    "MARITIME_TRADE": "trades", "TRADE_OFFER": "trades", "TRADE_ACCEPT": "trades", "TRADE_REJECT": "trades",
    "TRADE_COUNTER": "trades", "TRADE_CONFIRM": "trades", "TRADE_CANCEL": "trades",
}


def log_category(action: int) -> str:
    """The filter category of a move's log lines: rolls, building, robber, cards or trades
    (the page files a roll of 7, with its discards due, under robber)."""
    return LOG_CATEGORIES[action_kind(action)]


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


def legal_moves(info: InfoSet) -> List[Dict[str, Any]]:
    """The seat's legal moves: id (sent back), words (shown), kind and board target
    (grouping), and for trades the terms that execute."""
    view = info.view
    moves = []
    for a in info.legal_actions():
        a = int(a)
        move = {"id": a, "words": W.action_words(view, a, info.seat), "kind": action_kind(a),
                "target": _target(a)}
        terms = W.trade_terms(view, a)
        if terms is not None:
            move["terms"] = terms
        if action_kind(a) == "DISCARD":
            move["resource"] = a - DISCARD0
        if action_kind(a) == "MOVE_ROBBER":
            victim = int(robber_victim_seat(a, info.seat, info.n_players))
            if victim >= 0:  # the chooser shows how many cards each victim holds
                move["victim"] = victim
        moves.append(move)
    return moves


def state_message(info: InfoSet, spectator: bool = False) -> Dict[str, Any]:
    """One seat's view now: pieces, every player's public state, the seat's own cards and
    legal moves (a spectator gets the public part only)."""
    s = info.public_state()
    n = info.n_players
    hand_sizes, dev_counts = info.hand_sizes(), info.dev_counts()
    players = [{"vp": int(s[L.PUBLIC_VP + p]), "cards": hand_sizes[p], "devs": dev_counts[p],
                "knights": int(s[L.KNIGHTS + p]), "road": int(s[L.ROAD_LEN + p]),
                "longest_road": int(s[L.LR_HOLDER]) == p, "largest_army": int(s[L.LA_HOLDER]) == p,
                "discards": int(s[L.DISCARDS + p]),
                "pieces_left": [int(s[L.ROADS_LEFT + p]), int(s[L.SETTLEMENTS_LEFT + p]),
                                int(s[L.CITIES_LEFT + p])]} for p in range(n)]
    viewer = None if spectator else info.seat
    msg: Dict[str, Any] = {
        "type": "state", "seat": viewer, "phase": W.phase_words(s, viewer),
        "decider": info.decider, "turn": int(s[L.TURN]), "turn_player": int(s[L.TURN_PLAYER]),
        "roll": int(s[L.LAST_ROLL]), "dice": [int(s[L.LAST_DIE1]), int(s[L.LAST_DIE2])],
        "robber": int(s[L.ROBBER]), "winner": int(s[L.WINNER]),
        "v_owner": L.view(s, "v_owner").tolist(), "v_level": L.view(s, "v_level").tolist(),
        "e_owner": L.view(s, "e_owner").tolist(), "players": players,
        "bank": [int(x) for x in info.bank()], "deck": info.deck_size(),
        "offer": _offer(s, viewer, None if spectator else info.hand()),
        "hand": None, "dev_hand": None, "dev_new": None, "legal": [],
        # the turn's domestic offers: made so far and the most a turn allows (the page says so)
        "offers_made": int(s[L.OFFERS_MADE]), "max_offers": int(s[L.OPT_MAX_OFFERS])}
    if not spectator:
        dev, new = info.dev_cards()
        msg.update(hand=[int(x) for x in info.hand()], dev_hand=[int(x) for x in dev],
                   dev_new=[int(x) for x in new], legal=legal_moves(info))
    return msg


def _offer(s: np.ndarray, viewer: Optional[int], hand: Optional[np.ndarray] = None) -> Optional[Dict[str, Any]]:
    """The domestic offer on the table (public), in words: the proposer's terms and each
    partner's answer, a counter with the terms it would execute for the proposer."""
    words = W.offer_words(s, viewer)
    if words is None:
        return None
    proposer = int(s[L.TURN_PLAYER])
    offer: Dict[str, Any] = {"proposer": proposer, "words": words,
                             "answers": [{"seat": p, "words": W.answer_words(s, p, viewer)}
                                         for p in range(int(s[L.OPT_PLAYERS])) if p != proposer]}
    if viewer is not None and viewer != proposer:
        r, n = int(s[L.TRADE_GET_RES]), int(s[L.TRADE_GET_N])  # what the proposer asks of us
        held = int(hand[r]) if hand is not None else n
        if held < n:  # why the page shows no Accept
            offer["cannot_accept"] = (f"You cannot accept: {W.player_name(proposer)} asks for "
                                      f"{W.cards_words(n, r)} and you have {held}")
    return offer


def final_message(state: np.ndarray, stats: Dict[str, Any]) -> Dict[str, Any]:
    """The end screen, from the true state (everything is public once the game is over):
    each seat's VP broken down, and the game's statistics, labelled."""
    n = int(state[L.OPT_PLAYERS])
    owner, level = L.view(state, "v_owner"), L.view(state, "v_level")
    rows = []
    for p in range(n):
        settlements = int(np.sum((owner == p) & (level == 1)))
        cities = int(np.sum((owner == p) & (level == 2)))
        lr = 2 if int(state[L.LR_HOLDER]) == p else 0
        la = 2 if int(state[L.LA_HOLDER]) == p else 0
        vp_cards = int(L.view(state, "dev_hand")[p, L.VICTORY_POINT]) + int(state[L.VP_REVEALED + p])
        total = int(stats["vp"][p])
        if settlements + 2 * cities + lr + la + vp_cards != total:  # the parts must add up
            raise ValueError(f"seat {p}'s VP do not add up: {total} counted, parts "
                             f"{settlements} + {2 * cities} + {lr} + {la} + {vp_cards}")
        rows.append({"settlements": settlements, "cities": 2 * cities, "longest_road": lr,
                     "largest_army": la, "vp_cards": vp_cards, "total": total})
    table = [("turns", stats["turns"]), ("moves", stats["moves"])]
    per_seat = [("trade offers made", stats["offers"]), ("trades between players", stats["trades"]),
                ("trades with the bank", stats["maritime"])]
    return {"winner": int(stats["winner"]), "vp": rows, "abandoned": bool(stats["abandoned"]),
            "game": [[label, int(v)] for label, v in table],
            "per_seat": [[label, [int(x) for x in v]] for label, v in per_seat]}
