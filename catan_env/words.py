"""What people read: players, places, moves and events of a game in a Catan player's words.

The browser page and its log speak through this module ("Move the robber to grain 6 and
steal from Orange"), never through action ids ("MOVE_ROBBER(h7,+2)").  Pure Python over core
state vectors; every encoding is read through its name (``core.layout``, ``core.actions``),
and rates come from the rules' own kernel, so the words cannot drift from the rules.

Places: a hex is its resource and number ("grain 6", "the desert"; a twin gets "(upper)" or
"(left)"), a vertex the hexes around it ("grain 6, ore 8, brick 5", or "the top corner of
wool 4" on the coast), an edge the hexes along it.  Event lines (``event_words``) tell a
reader only what that reader may know: a stolen card is named to thief and victim alone, a
bought development card to its buyer alone.
"""
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .core import actions as A
from .core import cards as C
from .core import layout as L
from .core import rules as R
from .core.tables import GENERIC_PORT_RATE, SPECIAL_PORT_RATE
from .core.topology import EDGE_VERTICES, HEX_XY, N_HEXES, VERTEX_HEXES, VERTEX_XY
from .render import PLAYER_NAMES

RESOURCE_WORDS = L.RESOURCE_NAMES  # brick, lumber, wool, grain, ore
DEV_CARD_NAMES = tuple(name for _, name in sorted({   # by type, for cards and tables
    L.KNIGHT: "Knight", L.VICTORY_POINT: "Victory Point", L.ROAD_BUILDING: "Road Building",
    L.YEAR_OF_PLENTY: "Year of Plenty", L.MONOPOLY: "Monopoly"}.items()))
DEV_CARD_WORDS = {t: ("a Knight" if name == "Knight" else f"a {name} card")  # in a sentence
                  for t, name in enumerate(DEV_CARD_NAMES)}
Cards = Tuple[int, int]  # (count, resource)


# ---------------------------------------------------------------- players
def player_name(seat: int, viewer: Optional[int] = None, capital: bool = False) -> str:
    """A seat's colour ("Red"), or "you" ("You" with capital) when the reader is that seat."""
    if viewer is not None and int(seat) == int(viewer):
        return "You" if capital else "you"
    return PLAYER_NAMES[int(seat)].capitalize()


def possessive(seat: int, viewer: Optional[int] = None) -> str:
    """"your" for the reader's own seat, else "Red's"."""
    return "your" if viewer is not None and int(seat) == int(viewer) else f"{player_name(seat)}'s"


def _does(seat: int, viewer: Optional[int], verb: str) -> str:
    """"You get" / "Red gets": subject and a present-tense verb that agrees with it."""
    you = viewer is not None and int(seat) == int(viewer)
    return f"{player_name(seat, viewer, capital=True)} {verb if you else verb + 's'}"


# ---------------------------------------------------------------- cards
def cards_words(n: int, r: int) -> str:
    """"1 brick", "2 ore"."""
    return f"{int(n)} {RESOURCE_WORDS[int(r)]}"


def hand_words(counts: Sequence[int]) -> str:
    """Resource counts (brick..ore) as "1 brick, 2 grain"; "nothing" when all are zero."""
    parts = [cards_words(c, r) for r, c in enumerate(counts) if c > 0]
    return ", ".join(parts) if parts else "nothing"


def _count(n: int, thing: str) -> str:
    """"1 card", "4 cards"."""
    return f"{n} {thing}" if n == 1 else f"{n} {thing}s"


def _and(a: Cards, b: Cards) -> str:
    """"1 brick and 1 ore", or "2 ore" when both are the same resource."""
    if a[1] == b[1]:
        return cards_words(a[0] + b[0], a[1])
    return f"{cards_words(*a)} and {cards_words(*b)}"


def _terms(seat: int, viewer: Optional[int], give: Cards, get: Cards) -> str:
    """"you give 1 brick and get 1 grain" / "Red gives 1 brick and gets 1 grain"."""
    if viewer is not None and int(seat) == int(viewer):
        return f"you give {cards_words(*give)} and get {cards_words(*get)}"
    return f"{player_name(seat)} gives {cards_words(*give)} and gets {cards_words(*get)}"


# ---------------------------------------------------------------- places
def _side(dx: int, dy: int) -> str:
    """A direction on the screen (y grows downwards): "top", "bottom-left", "right"."""
    vertical = "top" if dy < 0 else "bottom" if dy > 0 else ""
    horizontal = "right" if dx > 0 else "left" if dx < 0 else ""
    return "-".join(w for w in (vertical, horizontal) if w)


def hex_words(state: np.ndarray, h: int) -> str:
    """A hex as players name it: "grain 6", "the desert"; when the board has a twin (same
    resource and number), "(upper)"/"(lower)" or "(left)"/"(right)" tells them apart:
    words relative to the twin ("top" would name a board row, and a twin may sit mid-board)."""
    h = int(h)
    terrain, number = int(state[L.HEX_TERRAIN + h]), int(state[L.HEX_NUMBER + h])
    if terrain == L.DESERT:
        return "the desert"
    text = f"{RESOURCE_WORDS[terrain]} {number}"
    for g in range(N_HEXES):
        if g != h and int(state[L.HEX_TERRAIN + g]) == terrain and int(state[L.HEX_NUMBER + g]) == number:
            dy = int(HEX_XY[h, 1] - HEX_XY[g, 1])
            side = ("upper" if dy < 0 else "lower") if dy else _side(int(HEX_XY[h, 0] - HEX_XY[g, 0]), 0)
            return f"{text} ({side})"
    return text


def _hexes_at(v: int) -> List[int]:
    return [int(h) for h in VERTEX_HEXES[v] if h >= 0]


def harbour_label(kind: int) -> str:
    """A harbour's short label for the board: "3:1", "2:1 wool"."""
    if kind == L.GENERIC_PORT:
        return f"{GENERIC_PORT_RATE}:1"
    return f"{SPECIAL_PORT_RATE}:1 {RESOURCE_WORDS[kind]}"


def _harbour(state: np.ndarray, i: int) -> str:
    """Harbour slot i as players name it: "3:1 harbour", "wool 2:1 harbour"."""
    kind = int(state[L.PORT_TYPE + i])
    if kind == L.GENERIC_PORT:
        return f"{GENERIC_PORT_RATE}:1 harbour"
    return f"{RESOURCE_WORDS[kind]} {SPECIAL_PORT_RATE}:1 harbour"


def harbour_words(state: np.ndarray, v: int) -> Optional[str]:
    """The harbour at vertex v ("3:1 harbour", "wool 2:1 harbour"), None if there is none."""
    for i in range(len(L.view(state, "port_edge"))):
        if int(v) in EDGE_VERTICES[int(state[L.PORT_EDGE + i])]:
            return _harbour(state, i)
    return None


def vertex_words(state: np.ndarray, v: int) -> str:
    """A corner by its hexes: "grain 6, ore 8, brick 5"; a corner on one hex only is "the
    top corner of wool 4"; a harbour there is added: "..., by the 3:1 harbour"."""
    v = int(v)
    hexes = _hexes_at(v)
    if len(hexes) == 1:
        h = hexes[0]
        text = (f"the {_side(*(VERTEX_XY[v] - HEX_XY[h]))} corner of "
                f"{hex_words(state, h)}")
    else:
        text = ", ".join(hex_words(state, h) for h in hexes)
    harbour = harbour_words(state, v)
    return f"{text}, by the {harbour}" if harbour else text


def edge_words(state: np.ndarray, e: int) -> str:
    """Where a road goes: "between grain 6 and ore 8", or on the coast "on the top-left side
    of wool 4"; a harbour edge adds ", by the 3:1 harbour"."""
    a, b = (int(x) for x in EDGE_VERTICES[int(e)])
    along = [h for h in _hexes_at(a) if h in _hexes_at(b)]
    if len(along) == 2:
        text = f"between {hex_words(state, along[0])} and {hex_words(state, along[1])}"
    else:
        h = along[0]
        dx, dy = VERTEX_XY[a] + VERTEX_XY[b] - 2 * HEX_XY[h]
        text = f"on the {_side(int(dx), int(dy))} side of {hex_words(state, h)}"
    for i in range(len(L.view(state, "port_edge"))):
        if int(state[L.PORT_EDGE + i]) == int(e):
            return f"{text}, by the {_harbour(state, i)}"
    return text


# ---------------------------------------------------------------- trade terms
def _writable(state: np.ndarray) -> np.ndarray:
    """The state as the kernels take it (a read-only array would compile a second kernel)."""
    return state if state.flags.writeable and state.dtype == np.int64 else np.array(state, dtype=np.int64)


def _menu_terms(m: int) -> Tuple[Cards, Cards]:
    """(give, get) of trade menu entry m, in the frame of whoever offers or counters it."""
    return (int(A.MENU_GIVE_N[m]), int(A.MENU_GIVE_RES[m])), (int(A.MENU_GET_N[m]), int(A.MENU_GET_RES[m]))


def offer_words(state: np.ndarray, viewer: Optional[int] = None) -> Optional[str]:
    """The domestic offer on the table ("Red offers 1 grain for 1 brick"), None if none."""
    s = state
    if int(s[L.PHASE]) not in (L.PH_TRADE_RESPONSE, L.PH_TRADE_CONFIRM):
        return None
    proposer = int(s[L.TURN_PLAYER])
    give = cards_words(int(s[L.TRADE_GIVE_N]), int(s[L.TRADE_GIVE_RES]))
    get = cards_words(int(s[L.TRADE_GET_N]), int(s[L.TRADE_GET_RES]))
    return f"{_does(proposer, viewer, 'offer')} {give} for {get}"


def answer_words(state: np.ndarray, seat: int, viewer: Optional[int] = None) -> str:
    """A partner's answer to the offer on the table, a counter with the terms it would
    execute for the proposer: "Orange counters: you would give 1 grain and get 1 wool"."""
    s = state
    code = int(s[L.TRADE_RESP + seat])
    name = player_name(seat, viewer, capital=True)
    if code == L.RESP_NOT_ASKED:
        return f"{name}: not asked yet"
    if code == L.RESP_PENDING:
        return f"{name}: {'your answer is awaited' if seat == viewer else 'thinking'}"
    if code == L.RESP_REJECT:
        return _does(seat, viewer, "decline")
    if code == L.RESP_ACCEPT:
        return _does(seat, viewer, "accept")
    partner_gives, partner_gets = _menu_terms(code - L.RESP_COUNTER)
    proposer = int(s[L.TURN_PLAYER])
    text = (f"{_does(seat, viewer, 'counter')}: {player_name(proposer, viewer)} would give "
            f"{cards_words(*partner_gets)} and get {cards_words(*partner_gives)}")
    if proposer == viewer and int(L.view(s, "hand")[proposer, partner_gets[1]]) < partner_gets[0]:
        text += " (you cannot pay it)"  # the proposer's own hand: no confirm button for it
    return text


def _trade(state: np.ndarray, action: int) -> Optional[Tuple[Optional[int], Cards, Cards, bool]]:
    """(partner, give, get, counter) of a trade action, from the decider's point of view."""
    s, a = state, int(action)
    kind = A.action_kind(a)
    p, n = int(s[L.DECIDER]), int(s[L.OPT_PLAYERS])
    offer_give = (int(s[L.TRADE_GIVE_N]), int(s[L.TRADE_GIVE_RES]))  # the proposer's frame
    offer_get = (int(s[L.TRADE_GET_N]), int(s[L.TRADE_GET_RES]))
    if kind in ("TRADE_OFFER", "TRADE_COUNTER"):  # menu m in the mover's own frame
        give, get = _menu_terms(a - (A.OFFER0 if kind == "TRADE_OFFER" else A.COUNTER0))
        partner = None if kind == "TRADE_OFFER" else int(s[L.TURN_PLAYER])
        return partner, give, get, kind == "TRADE_COUNTER"
    if kind == "TRADE_ACCEPT":
        return int(s[L.TURN_PLAYER]), offer_get, offer_give, False
    if kind == "TRADE_CONFIRM":
        partner = int(A.confirm_partner(a, p, n))
        resp = int(s[L.TRADE_RESP + partner])
        if resp == L.RESP_ACCEPT:
            return partner, offer_give, offer_get, False
        if resp >= L.RESP_COUNTER:
            partner_gives, partner_gets = _menu_terms(resp - L.RESP_COUNTER)
            return partner, partner_gets, partner_gives, True
        raise ValueError(f"{player_name(partner)} has not accepted or countered: no trade to confirm")
    if kind == "MARITIME_TRADE":
        r1, r2 = A.action_args(a)
        return None, (int(R.trade_rate(_writable(s), p, r1)), r1), (1, r2), False
    return None


def trade_terms(state: np.ndarray, action: int) -> Optional[Dict[str, Union[int, bool, None, List[Union[int, str]]]]]:
    """The terms a trade action stands for, from the deciding seat's point of view:
    {"partner": seat or None, "give": [n, "wool"], "get": [n, "ore"], "counter": bool,
    "bank": bool}.  For a confirm, the terms that will execute (the partner's counter when
    it countered); for a maritime trade, the rate the decider has.  None for other actions."""
    t = _trade(state, action)
    if t is None:
        return None
    partner, give, get, counter = t
    return {"partner": partner, "give": [give[0], RESOURCE_WORDS[give[1]]],
            "get": [get[0], RESOURCE_WORDS[get[1]]], "counter": counter,
            "bank": A.action_kind(int(action)) == "MARITIME_TRADE"}


# ---------------------------------------------------------------- action labels
def _in_setup(s: np.ndarray) -> bool:
    return int(s[L.PHASE]) in (L.PH_SETUP_SETTLEMENT, L.PH_SETUP_ROAD)


def _action_parts(s: np.ndarray, a: int, p: int, viewer: int) -> Tuple[str, str]:
    """(verb, the rest) of the label of action a by seat p, read by viewer."""
    kind, args = A.action_kind(a), A.action_args(a)
    you = viewer == p
    simple = {"ROLL": ("roll", "the dice"), "END_TURN": ("end", "your turn" if you else "their turn"),
              "BUY_DEV": ("buy", "a development card"), "PLAY_KNIGHT": ("play", "a Knight"),
              "PLAY_ROAD_BUILDING": ("play", "Road Building"), "TRADE_CANCEL": ("cancel", "the offer")}
    if kind in simple:
        return simple[kind]
    if kind == "BUILD_ROAD":
        verb = "place" if _in_setup(s) or int(s[L.PHASE]) == L.PH_ROAD_BUILDING else "build"
        free = "a free road" if int(s[L.PHASE]) == L.PH_ROAD_BUILDING else "a road"
        return verb, f"{free} {edge_words(s, args[0])}"
    if kind == "BUILD_SETTLEMENT":
        return ("place" if _in_setup(s) else "build"), f"a settlement at {vertex_words(s, args[0])}"
    if kind == "BUILD_CITY":
        if int(s[L.V_LEVEL + args[0]]) == 0:  # the direct-city variant
            return "build", f"a city at {vertex_words(s, args[0])}"
        return "upgrade", f"to a city at {vertex_words(s, args[0])}"
    if kind == "PLAY_YEAR_OF_PLENTY":
        return "play", f"Year of Plenty: take {_and((1, args[0]), (1, args[1]))}"
    if kind == "PLAY_MONOPOLY":
        return "play", f"Monopoly on {RESOURCE_WORDS[args[0]]}"
    if kind == "MOVE_ROBBER":
        victim = int(A.robber_victim_seat(a, p, int(s[L.OPT_PLAYERS])))
        where = hex_words(s, args[0])
        if victim < 0:
            return "move", f"the robber to {where} (nobody to steal from)"
        return "move", f"the robber to {where} and steal from {player_name(victim, viewer)}"
    if kind == "DISCARD":
        return "discard", cards_words(1, args[0])
    if kind == "TRADE_REJECT":
        return "decline", f"{possessive(int(s[L.TURN_PLAYER]), viewer)} offer"  # the log's and the checkbox's word
    trade = _trade(s, a)
    assert trade is not None, kind
    partner, give, get, counter = trade
    if kind == "MARITIME_TRADE":
        return "trade", f"{cards_words(*give)} for {cards_words(*get)} with the bank"
    if kind == "TRADE_OFFER":
        return "offer", f"{cards_words(*give)} for {cards_words(*get)}"
    assert partner is not None
    if kind == "TRADE_CONFIRM" and counter:
        return "accept", f"{possessive(partner, viewer)} counter: {_terms(p, viewer, give, get)}"
    if kind == "TRADE_CONFIRM":
        return "trade", f"with {player_name(partner, viewer)}: {_terms(p, viewer, give, get)}"
    verb = "counter" if counter else "accept"
    return verb, f"{possessive(partner, viewer)} offer: {_terms(p, viewer, give, get)}"


def action_words(state: np.ndarray, action: int, viewer: Optional[int] = None) -> str:
    """The label of a legal action of the deciding seat: "Roll the dice", "Build a road
    between grain 6 and ore 8", "Move the robber to ore 8 and steal from Orange".  Addressed
    to the decider (viewer None or the decider); another seat or onlooker reads what the
    decider may do: "Red may move the robber to ore 8 and steal from you"."""
    p = int(state[L.DECIDER])
    reader = p if viewer is None else int(viewer)
    verb, rest = _action_parts(state, int(action), p, reader)
    if reader == p:
        return f"{verb.capitalize()} {rest}"
    return f"{player_name(p, reader, capital=True)} may {verb} {rest}"


# ---------------------------------------------------------------- the log
def _hand_diff(before: np.ndarray, after: np.ndarray) -> np.ndarray:
    n = int(before[L.OPT_PLAYERS])
    return L.view(after, "hand")[:n] - L.view(before, "hand")[:n]


def _move_lines(before: np.ndarray, after: np.ndarray, seat: int, a: int, viewer: Optional[int]) -> List[str]:
    """The lines of the move itself (holders and the end of the game come after)."""
    s, kind, args = before, A.action_kind(a), A.action_args(a)
    who = player_name(seat, viewer, capital=True)
    n = int(s[L.OPT_PLAYERS])
    diff = _hand_diff(before, after)
    if kind == "ROLL":
        lines = [f"{who} rolled {int(after[L.LAST_ROLL])} "
                 f"({int(after[L.LAST_DIE1])} + {int(after[L.LAST_DIE2])})"]
        lines += [f"{_does(q, viewer, 'get')} {hand_words(np.maximum(diff[q], 0))}" for q in range(n) if diff[q].any()]
        lines += [f"{player_name(q, viewer, capital=True)} must discard {_count(int(after[L.DISCARDS + q]), 'card')}"
                  for q in range(n) if int(after[L.DISCARDS + q]) > 0]
        return lines
    if kind == "END_TURN":
        return [f"{who} ended {'your' if seat == viewer else 'their'} turn"]
    if kind in ("BUILD_ROAD", "BUILD_SETTLEMENT"):
        verb = "placed" if _in_setup(s) or int(s[L.PHASE]) == L.PH_ROAD_BUILDING else "built"
        free = "a free road" if int(s[L.PHASE]) == L.PH_ROAD_BUILDING else "a road"
        what = f"{free} {edge_words(s, args[0])}" if kind == "BUILD_ROAD" else \
            f"a settlement at {vertex_words(s, args[0])}"
        lines = [f"{who} {verb} {what}"]
        if _in_setup(s) and diff[seat].any():  # the second settlement's first cards
            lines.append(f"{_does(seat, viewer, 'get')} {hand_words(np.maximum(diff[seat], 0))}")
        return lines
    if kind == "BUILD_CITY":
        how = "upgraded to a city" if int(s[L.V_LEVEL + args[0]]) else "built a city"
        return [f"{who} {how} at {vertex_words(s, args[0])}"]
    if kind == "BUY_DEV":
        if viewer is not None and seat == viewer:  # the card's type is the buyer's secret
            return [f"You bought {DEV_CARD_WORDS[int(after[L.LAST_DRAW])]}"]
        return [f"{who} bought a development card"]
    if kind == "PLAY_KNIGHT":
        return [f"{who} played a Knight"]
    if kind == "PLAY_ROAD_BUILDING":
        return [f"{who} played Road Building"]
    if kind == "PLAY_YEAR_OF_PLENTY":
        return [f"{who} played Year of Plenty and took {_and((1, args[0]), (1, args[1]))}"]
    if kind == "PLAY_MONOPOLY":
        r = args[0]
        froms = [f"{-int(diff[q, r])} from {player_name(q, viewer)}" for q in range(n) if diff[q, r] < 0]
        if not froms:
            return [f"{who} played Monopoly on {RESOURCE_WORDS[r]}, but nobody had any"]
        return [f"{who} played Monopoly on {RESOURCE_WORDS[r]} and took {cards_words(diff[seat, r], r)} "
                f"({', '.join(froms)})"]
    if kind == "MOVE_ROBBER":
        victim = int(A.robber_victim_seat(a, seat, n))
        line = f"{who} moved the robber to {hex_words(s, args[0])}"
        if victim < 0:
            return [line]
        if viewer is not None and viewer in (seat, victim):  # only these two see the card
            card = cards_words(1, int(after[L.LAST_STEAL]))
        else:
            card = "a card"
        return [f"{line} and stole {card} from {player_name(victim, viewer)}"]
    if kind == "DISCARD":
        return [f"{who} discarded {cards_words(1, args[0])}"]
    if kind in ("MARITIME_TRADE", "TRADE_CONFIRM"):
        gave, got = hand_words(np.maximum(-diff[seat], 0)), hand_words(np.maximum(diff[seat], 0))
        partner = "the bank" if kind == "MARITIME_TRADE" else \
            player_name(int(A.confirm_partner(a, seat, n)), viewer)
        return [f"{who} traded {gave} for {got} with {partner}"]
    if kind == "TRADE_CANCEL":
        return [f"{who} cancelled the offer"]
    if kind == "TRADE_REJECT":
        lines = [f"{who} declined the offer"]  # the word the offer panel and its checkbox use
    else:
        trade = _trade(s, a)
        assert trade is not None, kind
        _, give, get, _ = trade
        if kind == "TRADE_OFFER":
            return [f"{who} offered {cards_words(*give)} for {cards_words(*get)}"]
        proposer = int(s[L.TURN_PLAYER])  # a counter in the proposer's terms, as the offer panel says it
        lines = [f"{who} accepted" if kind == "TRADE_ACCEPT" else
                 f"{who} countered: {player_name(proposer, viewer)} would give {cards_words(*get)} "
                 f"and get {cards_words(*give)}"]
    if int(after[L.PHASE]) == L.PH_MAIN:  # the last answer, and nothing the proposer can take
        lines.append(f"{possessive(int(s[L.TURN_PLAYER]), viewer).capitalize()} offer lapsed"
                     + _lapse_reason(s, seat, a, viewer))
    return lines


def _lapse_reason(s: np.ndarray, seat: int, action: int, viewer: Optional[int]) -> str:
    """Why an offer lapsed, as viewer may know it: nobody took it (public), or, told to the
    proposer only (its hand is its own), the counters it cannot pay."""
    proposer, n = int(s[L.TURN_PLAYER]), int(s[L.OPT_PLAYERS])
    counters = []  # (partner, cards the proposer would give)
    for p in range(n):
        code = int(s[L.TRADE_RESP + p])
        if p == seat and A.action_kind(action) == "TRADE_COUNTER":
            code = L.RESP_COUNTER + int(action - A.COUNTER0)
        if code >= L.RESP_COUNTER:
            counters.append((p, _menu_terms(code - L.RESP_COUNTER)[1]))
    if not counters:
        return ": nobody accepted"
    if viewer != proposer:
        return ""
    hand = L.view(s, "hand")[proposer]
    lacking = [f"{possessive(p, viewer)} counter asks for {cards_words(*get)} and you have {int(hand[get[1]])}"
               for p, get in counters]
    return f": you cannot pay the counter-offer{'s' if len(counters) > 1 else ''} ({'; '.join(lacking)})"


def event_words(before: np.ndarray, after: np.ndarray, seat: int, action: int,
                viewer: Optional[int] = None) -> List[str]:
    """The log lines of one move (seat played action, taking before to after), as viewer
    (a seat, or None for a spectator) may know it: "Red rolled 8 (3 + 5)", "Blue gets 1
    brick, 2 grain", "Red moved the robber to grain 6 and stole a card from Orange" (the
    card named only to thief and victim), "Blue bought a development card" (its type only
    to the buyer), holders of longest road / largest army when they change, the winner."""
    seat = int(seat)
    lines = _move_lines(before, after, seat, int(action), viewer)
    for field, what, count, unit in ((L.LR_HOLDER, "Longest road", L.ROAD_LEN, "roads"),
                                     (L.LA_HOLDER, "Largest army", L.KNIGHTS, "knights")):
        old, new = int(before[field]), int(after[field])
        if new != old:
            taken = f", taken from {player_name(old, viewer)}" if old >= 0 else ""  # ("from you": a banner)
            lines.append(f"{what} goes to {player_name(new, viewer)} ({int(after[count + new])} {unit}{taken})"
                         if new >= 0 else f"{what}: nobody holds it now")
    if int(after[L.PHASE]) == L.PH_GAME_OVER and int(before[L.PHASE]) != L.PH_GAME_OVER:
        w = int(after[L.WINNER])
        lines.append(f"{_does(w, viewer, 'win')} with {int(C.total_vp(_writable(after), w))} VP")
    return lines


# ---------------------------------------------------------------- what is going on
def phase_words(state: np.ndarray, viewer: Optional[int] = None) -> str:
    """One line on what the game waits for, as viewer reads it: "Your turn: roll the dice",
    "Blue must discard 4 cards", "Red offered 1 grain for 1 brick: waiting for Blue"."""
    s = state
    ph, d, tp = int(s[L.PHASE]), int(s[L.DECIDER]), int(s[L.TURN_PLAYER])
    you = viewer is not None and d == int(viewer)
    name = player_name(d, viewer, capital=True)
    if ph == L.PH_GAME_OVER:
        w = int(s[L.WINNER])
        # VP cards count where the state holds them (a seat's blanked public view does not:
        # pass the true state, public once the game is over)
        vp = int(s[L.PUBLIC_VP + w]) + max(0, int(L.view(s, "dev_hand")[w, L.VICTORY_POINT]))
        return f"Game over: {player_name(w, viewer)} won with {vp} VP"
    if ph == L.PH_SETUP_SETTLEMENT:
        which = "first" if int(s[L.SETUP_STEP]) < int(s[L.OPT_PLAYERS]) else "second"
        return f"Your turn: place your {which} settlement (set-up)" if you else \
            f"{name} is placing their {which} settlement (set-up)"
    if ph == L.PH_SETUP_ROAD:
        return "Your turn: place a road next to your new settlement (set-up)" if you else \
            f"{name} is placing a road (set-up)"
    if ph == L.PH_PRE_ROLL:
        return "Your turn: roll the dice" if you else f"{name} is about to roll the dice"
    if ph == L.PH_MAIN:
        roll = int(s[L.LAST_ROLL])
        return f"Your turn (you rolled {roll}): build, trade or end your turn" if you else \
            f"{name} rolled {roll} and is building and trading"
    if ph == L.PH_DISCARD:
        return f"{name} must discard {_count(int(s[L.DISCARDS + d]), 'card')}"
    if ph == L.PH_MOVE_ROBBER:
        return "Move the robber and steal a card" if you else f"{name} is moving the robber"
    if ph == L.PH_ROAD_BUILDING:
        roads = _count(int(s[L.FREE_ROADS]), "free road")
        return f"Place {roads}" if you else f"{name} is placing {roads}"
    offer = (f"{cards_words(int(s[L.TRADE_GIVE_N]), int(s[L.TRADE_GIVE_RES]))} for "
             f"{cards_words(int(s[L.TRADE_GET_N]), int(s[L.TRADE_GET_RES]))}")
    if ph == L.PH_TRADE_RESPONSE:
        if you:
            return f"{player_name(tp)} offers {offer}: accept, decline or counter"
        return f"{player_name(tp, viewer, capital=True)} offered {offer}: waiting for {player_name(d, viewer)}"
    return "Choose a trade partner or cancel the offer" if you else \
        f"{name} is choosing a trade partner (the offer: {offer})"
