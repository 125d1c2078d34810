"""Why an action is illegal, asked of the legality kernel itself.

There is one legality model, ``rules.legal_actions``.  To explain a refusal this module
does not restate it: it *relaxes* the state one obstacle at a time (give the decider the
cards, refill the bank, give back a piece, reopen trading, ...) and asks the kernel
again.  An obstacle whose removal is needed for the action to become legal is named,
with the numbers that matter.  When no relaxation helps, the action is either not one
this phase allows (asked of the kernel on a fully relaxed copy) or it fails on the board
itself: the last relaxation frees the board around the target (the placement rules are
not relaxed), and the board messages come from the placement predicates the kernel uses.
"""
from typing import List

import numpy as np

from . import actions as A
from . import layout as L
from . import placement as P
from . import rules as R
from . import tables as T
from .topology import EDGE_VERTICES, HEX_VERTICES, N_HEXES, VERTEX_EDGES, VERTEX_VERTICES

_RELAX_CARDS = 30  # more of every resource than any action takes


def _legal(t: np.ndarray, action: int) -> bool:
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    n = R.legal_actions(t, buf)
    return action in buf[:n]


def _cards(t: np.ndarray, p: int, a: int) -> None:
    L.view(t, "hand")[p] = _RELAX_CARDS


def _bank(t: np.ndarray, p: int, a: int) -> None:
    L.view(t, "bank")[:] = T.CARDS_PER_RESOURCE


def _pieces(t: np.ndarray, p: int, a: int) -> None:
    t[L.ROADS_LEFT + p] = max(int(t[L.ROADS_LEFT + p]), 1)
    t[L.SETTLEMENTS_LEFT + p] = max(int(t[L.SETTLEMENTS_LEFT + p]), 1)
    t[L.CITIES_LEFT + p] = max(int(t[L.CITIES_LEFT + p]), 1)


def _deck(t: np.ndarray, p: int, a: int) -> None:
    deck = L.view(t, "deck")
    deck[:] = np.maximum(deck, 1)


def _card_held(t: np.ndarray, p: int, a: int) -> None:
    dev = L.view(t, "dev_hand")[p]
    dev[:] = np.maximum(dev, 1)


def _card_old(t: np.ndarray, p: int, a: int) -> None:
    L.view(t, "dev_new")[p] = 0


def _no_card_played(t: np.ndarray, p: int, a: int) -> None:
    t[L.DEV_PLAYED] = 0


def _offer_cap(t: np.ndarray, p: int, a: int) -> None:
    t[L.OFFERS_MADE] = 0


def _trade_on(t: np.ndarray, p: int, a: int) -> None:
    t[L.OPT_TRADE] = 1


def _nothing_built(t: np.ndarray, p: int, a: int) -> None:
    t[L.BUILT] = 0


def _answers_accept(t: np.ndarray, p: int, a: int) -> None:
    n = int(t[L.OPT_PLAYERS])
    for q in range(n):
        if q != p and t[L.TRADE_RESP + q] != L.RESP_NOT_ASKED:
            t[L.TRADE_RESP + q] = L.RESP_ACCEPT


def _victims_hold_cards(t: np.ndarray, p: int, a: int) -> None:
    hand = L.view(t, "hand")
    for q in range(int(t[L.OPT_PLAYERS])):
        if q != p:
            hand[q] = np.maximum(hand[q], 1)


def _robber_unfriendly(t: np.ndarray, p: int, a: int) -> None:
    t[L.OPT_FRIENDLY] = 0


def _desert_allowed(t: np.ndarray, p: int, a: int) -> None:
    t[L.OPT_RULES] &= ~L.RULE_NO_DESERT_ROBBER


def _board(t: np.ndarray, p: int, a: int) -> None:
    """Make the board suit the action: free its edge or vertex and give p what it must
    connect to (the placement rules themselves are not relaxed)."""
    kind, args, _ = A.ACTION_TABLE[a]
    if kind == "BUILD_ROAD":
        e = args[0]
        v = EDGE_VERTICES[e, 0]
        t[L.E_OWNER + e] = -1
        t[L.V_OWNER + v], t[L.V_LEVEL + v] = p, 1
        t[L.SETUP_VERTEX] = v
    elif kind in ("BUILD_SETTLEMENT", "BUILD_CITY"):
        v = args[0]
        for w in [v] + [int(w) for w in VERTEX_VERTICES[v] if w >= 0]:
            t[L.V_OWNER + w], t[L.V_LEVEL + w] = -1, 0
        e = int(VERTEX_EDGES[v, 0])
        t[L.E_OWNER + e] = p
        if kind == "BUILD_CITY":
            t[L.V_OWNER + v], t[L.V_LEVEL + v] = p, 1
    elif kind == "MOVE_ROBBER":
        h, k = int(A.robber_hex(a)), int(A.robber_victim(a))
        if t[L.ROBBER] == h:
            t[L.ROBBER] = (h + 1) % N_HEXES
        n = int(t[L.OPT_PLAYERS])
        for j, v in enumerate(HEX_VERTICES[h]):
            if t[L.V_OWNER + v] >= 0 and t[L.V_OWNER + v] != p:
                t[L.V_OWNER + v], t[L.V_LEVEL + v] = -1, 0
            if j == 0 and 0 < k < n:
                t[L.V_OWNER + v], t[L.V_LEVEL + v] = (p + k) % n, 1
    elif kind == "PLAY_ROAD_BUILDING":
        e = int(np.flatnonzero(L.view(t, "e_owner") < 0)[0])
        v = EDGE_VERTICES[e, 0]
        t[L.V_OWNER + v], t[L.V_LEVEL + v] = p, 1


def _kind_of(action: int) -> str:
    return A.ACTION_TABLE[action][0]


def _msg_cards(s: np.ndarray, p: int, action: int) -> str:
    hand = L.view(s, "hand")[p].tolist()
    kind, args, _ = A.ACTION_TABLE[action]
    if kind == "MARITIME_TRADE":
        r = args[0]
        return (f"seat {p} needs {int(R.trade_rate(s, p, r))} {L.RESOURCE_NAMES[r]} for this trade "
                f"(holds {hand[r]})")
    if kind == "DISCARD":
        return f"seat {p} holds no {L.RESOURCE_NAMES[args[0]]}"
    if kind in ("TRADE_OFFER", "TRADE_ACCEPT", "TRADE_COUNTER"):
        return f"seat {p} does not hold what it would give (hand {hand})"
    if kind == "TRADE_CONFIRM":
        return f"seat {p} cannot pay what partner +{args[0]} asks in its counter (hand {hand})"
    cost = R.action_cost(action)
    if kind == "BUILD_CITY" and s[L.V_OWNER + args[0]] < 0 and R.rule_on(s, L.RULE_DIRECT_CITY):
        cost = R.DIRECT_CITY_COST
    return f"seat {p} cannot afford it (hand {hand}, cost {cost.tolist()})"


def _msg_bank(s: np.ndarray, p: int, action: int) -> str:
    return f"the bank lacks the cards (bank {L.view(s, 'bank').tolist()})"


def _msg_pieces(s: np.ndarray, p: int, action: int) -> str:
    kind = _kind_of(action)
    piece = {"BUILD_ROAD": "roads", "PLAY_ROAD_BUILDING": "roads", "BUILD_SETTLEMENT": "settlements",
             "BUILD_CITY": "cities"}.get(kind, "pieces")
    if kind == "BUILD_CITY" and s[L.CITIES_LEFT + p] > 0:
        piece = "settlements (a direct city uses one)"
    return f"seat {p} has no {piece} left"


def _msg_card(s: np.ndarray, p: int, action: int) -> str:
    return f"seat {p} holds no {_card_name(action)} card"


def _msg_card_new(s: np.ndarray, p: int, action: int) -> str:
    return f"seat {p}'s {_card_name(action)} card was bought this turn (playable from the next turn)"


def _card_name(action: int) -> str:
    kind = _kind_of(action)
    t = {"PLAY_KNIGHT": L.KNIGHT, "PLAY_ROAD_BUILDING": L.ROAD_BUILDING,
         "PLAY_YEAR_OF_PLENTY": L.YEAR_OF_PLENTY, "PLAY_MONOPOLY": L.MONOPOLY}.get(kind)
    return L.DEV_NAMES[t] if t is not None else "development"


# (relaxation, message) in the order the messages are reported
OBSTACLES = (
    (_cards, _msg_cards),
    (_bank, _msg_bank),
    (_pieces, _msg_pieces),
    (_deck, lambda s, p, a: "the development deck is empty"),
    (_card_held, _msg_card),
    (_card_old, _msg_card_new),
    (_no_card_played, lambda s, p, a: "a development card was already played this turn"),
    (_offer_cap, lambda s, p, a: f"the cap of {int(s[L.OPT_MAX_OFFERS])} offers this turn is reached"),
    (_trade_on, lambda s, p, a: "domestic trade is off in this game"),
    (_nothing_built, lambda s, p, a: "strict trade rules: no trading after building or buying this turn"),
    (_answers_accept, lambda s, p, a: f"partner +{A.ACTION_TABLE[a][1][0]} neither accepted nor countered"),
    (_victims_hold_cards, lambda s, p, a: f"seat +{A.robber_victim(a)} holds no cards to steal"),
    (_robber_unfriendly, lambda s, p, a: "the friendly robber protects seats with 2 VP or fewer"),
    (_desert_allowed, lambda s, p, a: "the robber may not go to the desert in this game"),
    (_board, lambda s, p, a: _board_reason(s, p, a)),
)


def _relaxed(state: np.ndarray, p: int, action: int, skip: int = -1) -> np.ndarray:
    t = state.copy()
    for i, (relax, _) in enumerate(OBSTACLES):
        if i != skip:
            relax(t, p, action)
    return t


def kinds_possible_in_phase(state: np.ndarray) -> List[str]:
    """Action kinds the decider could take in this phase were every obstacle removed."""
    p = int(state[L.DECIDER])
    kinds: List[str] = []
    for a in range(A.N_ACTIONS):
        kind = _kind_of(a)
        if kind not in kinds and _legal(_relaxed(state, p, a), a):
            kinds.append(kind)
    return kinds


def explain_illegal(state: np.ndarray, action: int) -> str:
    """A one-line reason why action is not legal for the decider in state."""
    ph = int(state[L.PHASE])
    if ph == L.PH_GAME_OVER:
        return "the game is over"
    action = int(action)
    if _legal(state, action):
        return "it is legal"
    p = int(state[L.DECIDER])
    if _legal(_relaxed(state, p, action), action):
        needed = [msg(state, p, action) for i, (_, msg) in enumerate(OBSTACLES)
                  if not _legal(_relaxed(state, p, action, skip=i), action)]
        return "; ".join(needed) if needed else "several obstacles at once"
    allowed = kinds_possible_in_phase(state)
    if _kind_of(action) in allowed:  # a rule of the board or the offer no relaxation lifts
        return _board_reason(state, p, action)
    return (f"{_kind_of(action)} is not allowed in phase {L.PHASE_NAMES[ph]} (seat {p} decides; "
            f"allowed: {', '.join(allowed)})")


def _board_reason(s: np.ndarray, p: int, action: int) -> str:
    """The board obstacle, read with the placement predicates the kernel uses."""
    kind, args, name = A.ACTION_TABLE[action]
    ph = int(s[L.PHASE])
    if kind == "BUILD_ROAD":
        e = args[0]
        if s[L.E_OWNER + e] >= 0:
            return f"edge {e} already has a road"
        if ph == L.PH_SETUP_ROAD:
            return f"a set-up road must touch the settlement just placed (vertex {int(s[L.SETUP_VERTEX])})"
        return (f"edge {e} does not connect to seat {p}'s network (a road continues from the seat's "
                "building or road, not through another seat's building)")
    if kind in ("BUILD_SETTLEMENT", "BUILD_CITY"):
        v = args[0]
        if kind == "BUILD_CITY" and not (s[L.V_OWNER + v] < 0 and R.rule_on(s, L.RULE_DIRECT_CITY)):
            return f"vertex {v} holds no settlement of seat {p}"
        if s[L.V_OWNER + v] >= 0:
            return f"vertex {v} is occupied"
        if not P.distance_ok(s, v):
            return f"vertex {v} breaks the distance rule (a neighbouring vertex is built on)"
        return f"vertex {v} does not touch a road of seat {p}"
    if kind == "MOVE_ROBBER":
        h, k = int(A.robber_hex(action)), int(A.robber_victim(action))
        if h == s[L.ROBBER]:
            return f"the robber is already on hex {h}; it must move"
        if k == 0:
            return f"someone on hex {h} can be robbed, so a victim must be chosen"
        if k >= int(s[L.OPT_PLAYERS]):
            return f"there is no seat +{k} in a {int(s[L.OPT_PLAYERS])}-player game"
        return f"seat +{k} has no building on hex {h}"
    if kind == "PLAY_ROAD_BUILDING":
        return f"seat {p} has nowhere to build a road"
    if kind == "TRADE_COUNTER":
        return "a counter-offer equal to the offer is an accept (TRADE_ACCEPT)"
    if kind == "TRADE_CONFIRM":
        return f"there is no seat +{args[0]} in this game"
    return f"{name} is not legal here"
