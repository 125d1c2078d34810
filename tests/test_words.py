"""catan_env.words: what the page and its log say, checked against the board, against what
the core actually executes, and against what each reader may know.

The games are random (fixed seeds), biased towards building and playing cards so that they
end, with domestic trade on: the random answers counter often, so confirms of counters
come up by themselves."""
import re

import numpy as np
import pytest

from catan_env import words as W
from catan_env.core import actions as A
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.core.topology import EDGE_VERTICES, N_EDGES, N_HEXES, N_VERTICES, VERTEX_HEXES
from catan_env.render import PLAYER_NAMES

COLOURS = [c.capitalize() for c in PLAYER_NAMES]
RES = {name: r for r, name in enumerate(L.RESOURCE_NAMES)}
# what an id or an encoding looks like: v45, h0, e17, (+1), +2, MOVE_ROBBER, P0, player_1, -1, None
ID_LIKE = re.compile(r"\b[vehVEH]\d+\b|\(\+\d\)|\+\d|\b[A-Z]{2,}(?:_[A-Z]+)+\b|\bP\d\b|player_\d|"
                     r"\bseat\b|\bNone\b|-1\b|\bid\b|\[|\]")
PLACE = re.compile(r"\b(brick|lumber|wool|grain|ore) (\d+)\b(?!:)")  # "grain 6", not "wool 2:1"
TERMS = re.compile(r"you give (\d+) (\w+) and get (\d+) (\w+)$")
NAME = re.compile(r"\b(Red|Blue|Orange|White)\b")
PRODUCTIVE = ("BUILD_ROAD", "BUILD_SETTLEMENT", "BUILD_CITY", "BUY_DEV", "PLAY_KNIGHT",
              "PLAY_ROAD_BUILDING", "PLAY_YEAR_OF_PLENTY", "PLAY_MONOPOLY")
STEPS = 3000
VP = 6  # short games, so that several end within the steps
BIAS = 0.85  # how often a random move builds or plays a card when it can (games end)


def play(players, seed, steps=STEPS):
    """(before, seat, action, after) for `steps` random moves, new games as games end."""
    rng = np.random.default_rng(seed)
    s = G.new_game(seed=seed, players=players, domestic_trade=True, vp_to_win=VP)
    out = []
    while len(out) < steps:
        if G.is_over(s):
            s = G.new_game(seed=seed + len(out), players=players, domestic_trade=True, vp_to_win=VP)
        legal = [int(a) for a in G.legal_actions(s)]
        productive = [a for a in legal if A.action_kind(a) in PRODUCTIVE]
        a = int(rng.choice(productive if productive and rng.random() < BIAS else legal))
        before, seat = s.copy(), G.decider(s)
        G.step(s, a)
        out.append((before, seat, a, s.copy()))
    return out


@pytest.fixture(scope="module")
def games():
    return {n: play(n, 100 + n) for n in (2, 3, 4)}


def expected_places(s, hexes):
    """The (resource, number) pairs and whether the desert is among hexes, from the board."""
    pairs = sorted((L.RESOURCE_NAMES[int(s[L.HEX_TERRAIN + h])], int(s[L.HEX_NUMBER + h]))
                   for h in hexes if int(s[L.HEX_TERRAIN + h]) != L.DESERT)
    return pairs, any(int(s[L.HEX_TERRAIN + h]) == L.DESERT for h in hexes)


def said_places(text):
    return sorted((r, int(n)) for r, n in PLACE.findall(text)), "the desert" in text


def hand_delta(before, after, seat):
    return L.view(after, "hand")[seat] - L.view(before, "hand")[seat]


def delta_of(give, get):
    """The hand change of a seat that gives [n, res] and gets [n, res]."""
    d = np.zeros(L.N_RES, np.int64)
    d[RES[give[1]]] -= give[0]
    d[RES[get[1]]] += get[0]
    return d


def parse_cards(text):
    """"1 brick, 2 grain" -> counts per resource."""
    d = np.zeros(L.N_RES, np.int64)
    for n, r in re.findall(r"(\d+) (brick|lumber|wool|grain|ore)", text):
        d[RES[r]] += int(n)
    return d


# ---------------------------------------------------------------- names and places
def test_player_names_say_you_to_the_reader():
    assert [W.player_name(p) for p in range(4)] == ["Red", "Blue", "Orange", "White"]
    assert W.player_name(2, viewer=2) == "you" and W.player_name(2, 2, capital=True) == "You"
    assert W.player_name(1, viewer=2) == "Blue" and W.player_name(1, None, capital=True) == "Blue"
    assert W.possessive(0, 0) == "your" and W.possessive(3, 0) == "White's"


def test_beginner_board_reads_as_on_the_box():
    s = G.new_game(seed=0, board="beginner")
    assert W.hex_words(s, 0) == "ore 10" and W.hex_words(s, 9) == "the desert"
    v = int(EDGE_VERTICES[int(s[L.PORT_EDGE]), 0])
    assert W.harbour_words(s, v) == "3:1 harbour"  # slot 0 of the beginner board is generic
    inner = int(np.flatnonzero((VERTEX_HEXES == 0).any(axis=1) & (VERTEX_HEXES >= 0).all(axis=1))[0])
    assert W.vertex_words(s, inner).count(",") == 2  # three hexes around an inland corner


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 5, 8, 13, 21])
def test_places_are_unique_and_name_the_board(seed):
    s = G.new_game(seed=seed, players=4) if seed else G.new_game(seed=0, board="beginner")
    vertices = [W.vertex_words(s, v) for v in range(N_VERTICES)]
    edges = [W.edge_words(s, e) for e in range(N_EDGES)]
    hexes = [W.hex_words(s, h) for h in range(N_HEXES)]
    for words in (vertices, edges, hexes):
        assert len(set(words)) == len(words), sorted(words)
        assert not any(ID_LIKE.search(w) for w in words)
    for v, text in enumerate(vertices):
        assert said_places(text) == expected_places(s, [h for h in VERTEX_HEXES[v] if h >= 0]), text
    for e, text in enumerate(edges):
        a, b = EDGE_VERTICES[e]
        along = set(VERTEX_HEXES[a]) & set(VERTEX_HEXES[b]) - {-1}
        assert said_places(text) == expected_places(s, along), text
    harbour_vertices = {int(v) for e in L.view(s, "port_edge") for v in EDGE_VERTICES[e]}
    assert {v for v, t in enumerate(vertices) if "harbour" in t} == harbour_vertices


# ---------------------------------------------------------------- action labels
def check_label(s, a, text):
    """A label is words, names only real seats (never the decider itself) and the right places."""
    n, d = int(s[L.OPT_PLAYERS]), int(s[L.DECIDER])
    kind, args = A.action_kind(a), A.action_args(a)
    assert text and text[0].isupper() and not ID_LIKE.search(text), text
    names = set(NAME.findall(text))
    assert names <= set(COLOURS[:n]) - {COLOURS[d]}, text
    if kind in ("BUILD_SETTLEMENT", "BUILD_CITY"):
        assert said_places(text) == expected_places(s, [h for h in VERTEX_HEXES[args[0]] if h >= 0]), text
    elif kind == "BUILD_ROAD":
        a0, b0 = EDGE_VERTICES[args[0]]
        assert said_places(text) == expected_places(s, set(VERTEX_HEXES[a0]) & set(VERTEX_HEXES[b0]) - {-1}), text
    elif kind == "MOVE_ROBBER":
        assert said_places(text) == expected_places(s, [args[0]]), text
        victim = int(A.robber_victim_seat(a, d, n))
        assert names == ({COLOURS[victim]} if victim >= 0 else set()), text
        assert ("nobody" in text) == (victim < 0), text
    elif kind in ("TRADE_ACCEPT", "TRADE_REJECT", "TRADE_COUNTER"):
        assert names == {COLOURS[int(s[L.TURN_PLAYER])]}, text
    elif kind == "TRADE_CONFIRM":
        assert names == {COLOURS[int(A.confirm_partner(a, d, n))]}, text
    elif kind == "PLAY_YEAR_OF_PLENTY":
        assert parse_cards(text).tolist() == np.bincount(args, minlength=L.N_RES).tolist(), text
    elif kind in ("DISCARD", "PLAY_MONOPOLY"):
        assert L.RESOURCE_NAMES[args[0]] in text
    else:
        assert not names and not PLACE.search(text), text


def test_every_legal_action_reads_as_words(games):
    kinds = set()
    for n, moves in games.items():
        for i, (s, seat, _, _) in enumerate(moves):
            for a in G.legal_actions(s):
                a = int(a)
                kinds.add(A.action_kind(a))
                text = W.action_words(s, a)
                check_label(s, a, text)
                assert W.action_words(s, a, viewer=seat) == text
                if i % 25 == 0:  # another reader sees what the decider may do
                    other = (seat + 1) % n
                    third = W.action_words(s, a, viewer=other)
                    assert third.startswith(f"{COLOURS[seat]} may ") and not ID_LIKE.search(third), third
    assert kinds == {k for k, _ in A.RANGES}  # every kind of action was read at least once


# ---------------------------------------------------------------- trades: words == execution
def answer_then_confirm(s, a):
    """Play the responder's answer a, the others' rejections, then the proposer's confirm
    with that responder; the state after it (None when the proposer cannot take it)."""
    q, tp, n = int(s[L.DECIDER]), int(s[L.TURN_PLAYER]), int(s[L.OPT_PLAYERS])
    s = s.copy()
    G.step(s, a)
    while int(s[L.PHASE]) == L.PH_TRADE_RESPONSE:
        G.step(s, A.TRADE_REJECT)
    confirm = A.confirm_action((q - tp) % n)
    if int(s[L.PHASE]) != L.PH_TRADE_CONFIRM or confirm not in G.legal_actions(s):
        return None
    G.step(s, confirm)
    return s


def test_trade_words_and_terms_match_what_the_core_executes(games):
    seen = {"accept": 0, "counter": 0, "confirm_accept": 0, "confirm_counter": 0, "maritime": 0,
            "harbour_rate": 0, "offer": 0}
    for n, moves in games.items():
        for s, seat, _, _ in moves:
            tp = int(s[L.TURN_PLAYER])
            offer = ([int(s[L.TRADE_GIVE_N]), L.RESOURCE_NAMES[int(s[L.TRADE_GIVE_RES])]]
                     if int(s[L.TRADE_GIVE_RES]) >= 0 else None,
                     [int(s[L.TRADE_GET_N]), L.RESOURCE_NAMES[int(s[L.TRADE_GET_RES])]]
                     if int(s[L.TRADE_GET_RES]) >= 0 else None)
            for a in G.legal_actions(s):
                a, kind = int(a), A.action_kind(int(a))
                terms, text = W.trade_terms(s, a), W.action_words(s, a)
                if kind not in ("TRADE_OFFER", "TRADE_ACCEPT", "TRADE_COUNTER", "TRADE_CONFIRM",
                                "MARITIME_TRADE"):
                    assert terms is None
                    continue
                give, get = terms["give"], terms["get"]
                if kind == "MARITIME_TRADE":
                    m = re.fullmatch(r"Trade (\d+) (\w+) for (\d+) (\w+) with the bank", text)
                    assert m and [int(m[1]), m[2], int(m[3]), m[4]] == give + get, (text, terms)
                    assert terms["partner"] is None and terms["bank"] and not terms["counter"]
                    after = s.copy()
                    G.step(after, a)
                    assert hand_delta(s, after, seat).tolist() == delta_of(give, get).tolist(), text
                    seen["maritime"] += 1
                    seen["harbour_rate"] += give[0] < 4
                    continue
                if kind == "TRADE_OFFER":
                    after = s.copy()
                    G.step(after, a)
                    assert give == [int(after[L.TRADE_GIVE_N]), L.RESOURCE_NAMES[int(after[L.TRADE_GIVE_RES])]]
                    assert get == [int(after[L.TRADE_GET_N]), L.RESOURCE_NAMES[int(after[L.TRADE_GET_RES])]]
                    assert text == f"Offer {give[0]} {give[1]} for {get[0]} {get[1]}"
                    seen["offer"] += 1
                    continue
                m = TERMS.search(text)
                assert m and [int(m[1]), m[2], int(m[3]), m[4]] == give + get, (text, terms)
                assert ("counter" in text.lower()) == terms["counter"] and not terms["bank"], text
                if kind == "TRADE_CONFIRM":
                    after = s.copy()
                    G.step(after, a)
                    partner = int(A.confirm_partner(a, seat, n))
                    assert terms["partner"] == partner
                    assert hand_delta(s, after, seat).tolist() == delta_of(give, get).tolist(), text
                    assert hand_delta(s, after, partner).tolist() == (-delta_of(give, get)).tolist(), text
                    # a counter never repeats the offer (its mirror is the accept), so the
                    # executed terms differ from the offer exactly when they are a counter's
                    assert terms["counter"] == ((give, get) != offer), (text, offer)
                    seen["confirm_counter" if terms["counter"] else "confirm_accept"] += 1
                    continue
                assert terms["partner"] == tp and terms["counter"] == (kind == "TRADE_COUNTER")
                if kind == "TRADE_ACCEPT":  # the responder's side is the offer mirrored
                    assert (get, give) == offer, (text, offer)
                after = answer_then_confirm(s, a)
                if after is not None:
                    assert hand_delta(s, after, seat).tolist() == delta_of(give, get).tolist(), text
                    seen["counter" if kind == "TRADE_COUNTER" else "accept"] += 1
    assert min(seen.values()) >= 10, seen


# ---------------------------------------------------------------- the log
def test_event_words_tell_each_move(games):
    counts = {"roll": 0, "steal": 0, "trade": 0, "holder": 0, "win": 0, "buy": 0}
    for n, moves in games.items():
        for before, seat, a, after in moves:
            kind = A.action_kind(a)
            diff = L.view(after, "hand")[:n] - L.view(before, "hand")[:n]
            for viewer in [None] + list(range(n)):
                lines = W.event_words(before, after, seat, a, viewer)
                who = "You" if viewer == seat else COLOURS[seat]
                assert lines and lines[0].startswith(who + " "), (lines, viewer)
                for line in lines:
                    assert line[0].isupper() and not ID_LIKE.search(line), line
                    own = {COLOURS[viewer]} if viewer is not None else set()
                    assert set(NAME.findall(line)) <= set(COLOURS[:n]) - own, line
                text = " | ".join(lines)
                if kind == "ROLL":
                    d1, d2 = int(after[L.LAST_DIE1]), int(after[L.LAST_DIE2])
                    assert lines[0] == f"{who} rolled {d1 + d2} ({d1} + {d2})" and d1 + d2 == after[L.LAST_ROLL]
                    gets = {}
                    for line in lines[1:]:
                        m = re.fullmatch(r"(\w+) gets? (.*)", line)
                        if m:
                            q = viewer if m[1] == "You" else COLOURS.index(m[1])
                            gets[q] = parse_cards(m[2]).tolist()
                    assert gets == {q: diff[q].tolist() for q in range(n) if diff[q].any()}, lines
                    counts["roll"] += 1
                elif kind in ("MARITIME_TRADE", "TRADE_CONFIRM"):
                    m = re.fullmatch(r"\w+ traded (.*) for (.*) with (.*)", lines[0])
                    assert m and (parse_cards(m[2]) - parse_cards(m[1])).tolist() == diff[seat].tolist(), lines
                    if kind == "TRADE_CONFIRM":
                        partner = int(A.confirm_partner(a, seat, n))
                        assert m[3] == ("you" if viewer == partner else COLOURS[partner]), lines
                        assert diff[partner].tolist() == (-diff[seat]).tolist()
                    counts["trade"] += 1
                elif kind == "BUY_DEV":
                    if viewer == seat:
                        t = int(np.flatnonzero(L.view(after, "dev_hand")[seat] - L.view(before, "dev_hand")[seat])[0])
                        assert lines[0] == f"You bought {W.DEV_CARD_WORDS[t]}", lines
                    else:
                        assert lines[0] == f"{COLOURS[seat]} bought a development card", lines
                    counts["buy"] += 1
                elif kind == "MOVE_ROBBER":
                    assert said_places(lines[0]) == expected_places(before, [int(after[L.ROBBER])]), lines
                    victim = int(A.robber_victim_seat(a, seat, n))
                    if victim >= 0:
                        stolen = L.RESOURCE_NAMES[int(np.flatnonzero(diff[seat] > 0)[0])]
                        told = f"stole 1 {stolen} from " if viewer in (seat, victim) else "stole a card from "
                        assert lines[0].endswith(told + ("you" if viewer == victim else COLOURS[victim])), lines
                        counts["steal"] += 1
                elif kind == "PLAY_MONOPOLY" and diff[seat].any():
                    assert parse_cards(lines[0].split(" took ")[1].split(" (")[0]).tolist() == diff[seat].tolist()
                for field, words in ((L.LR_HOLDER, "Longest road"), (L.LA_HOLDER, "Largest army")):
                    changed = int(before[field]) != int(after[field])
                    assert (words in text) == changed, (text, before[field], after[field])
                    counts["holder"] += changed
                assert (" VP" in text) == G.is_over(after), text
            counts["win"] += G.is_over(after)
    assert min(counts.values()) >= 3, counts


def test_a_stolen_card_is_named_to_thief_and_victim_only(games):
    cases = 0
    for n, moves in games.items():
        for s, _, _, _ in moves:
            if int(s[L.PHASE]) != L.PH_MOVE_ROBBER:
                continue
            thief = int(s[L.DECIDER])
            for a in G.legal_actions(s):
                victim = int(A.robber_victim_seat(int(a), thief, n))
                held = np.flatnonzero(L.view(s, "hand")[victim]) if victim >= 0 else []
                if len(held) < 2:
                    continue
                by_viewer = {v: set() for v in [None] + list(range(n))}
                for r in held:
                    after = s.copy()
                    G.step(after, int(a), int(r))
                    assert int(after[L.LAST_STEAL]) == r
                    assert hand_delta(s, after, thief)[r] == 1 and hand_delta(s, after, victim)[r] == -1
                    for v in by_viewer:
                        lines = W.event_words(s, after, thief, int(a), v)
                        by_viewer[v].add(tuple(lines))
                        told = f"stole 1 {L.RESOURCE_NAMES[r]} from" in lines[0]
                        assert told == (v in (thief, victim)), (lines, v)
                for v, seen in by_viewer.items():
                    assert len(seen) == (len(held) if v in (thief, victim) else 1), (v, seen)
                cases += 1
    assert cases >= 10


def test_a_bought_card_is_named_to_the_buyer_only(games):
    cases = 0
    for n, moves in games.items():
        for s, seat, _, _ in moves[::3]:
            deck = np.flatnonzero(L.view(s, "deck"))
            if A.BUY_DEV not in G.legal_actions(s) or len(deck) < 2:
                continue
            by_viewer = {v: set() for v in [None] + list(range(n))}
            for t in deck:
                after = s.copy()
                G.step(after, A.BUY_DEV, int(t))
                for v in by_viewer:
                    lines = W.event_words(s, after, seat, A.BUY_DEV, v)
                    by_viewer[v].add(lines[0])  # (a Victory Point that wins ends the game: public)
                    assert (W.DEV_CARD_WORDS[int(t)] in lines[0]) == (v == seat), (lines, v)
            for v, seen in by_viewer.items():
                assert len(seen) == (len(deck) if v == seat else 1), (v, seen)
            cases += 1
    assert cases >= 10


# ---------------------------------------------------------------- what the game waits for
def test_phase_words_name_who_the_game_waits_for(games):
    phases = set()
    for n, moves in games.items():
        for _, _, _, s in moves:
            ph, d = int(s[L.PHASE]), int(s[L.DECIDER])
            phases.add(ph)
            for viewer in [None] + list(range(n)):
                text = W.phase_words(s, viewer)
                assert text[0].isupper() and not ID_LIKE.search(text), text
                if ph == L.PH_GAME_OVER:
                    w = int(s[L.WINNER])
                    assert ("you won" if viewer == w else f"{COLOURS[w]} won") in text, text
                    continue
                if viewer == d:
                    assert COLOURS[d] not in text and re.match(r"(Your?|Move|Place|Choose|\w+ offers)\b", text), text
                else:
                    assert COLOURS[d] in text, text
                if ph == L.PH_DISCARD:
                    assert f"discard {int(s[L.DISCARDS + d])} card" in text, text
                if ph in (L.PH_TRADE_RESPONSE, L.PH_TRADE_CONFIRM):
                    assert (f"{int(s[L.TRADE_GIVE_N])} {L.RESOURCE_NAMES[int(s[L.TRADE_GIVE_RES])]} for "
                            f"{int(s[L.TRADE_GET_N])} {L.RESOURCE_NAMES[int(s[L.TRADE_GET_RES])]}" in text
                            or ph == L.PH_TRADE_CONFIRM and viewer == d), text
    assert phases == set(range(L.N_PHASES))


def test_twin_hexes_are_told_apart_by_words_relative_to_each_other():
    import catan_env.core as C
    from catan_env.core import layout as L
    from catan_env.core.topology import HEX_XY
    from catan_env.words import hex_words
    seen = 0
    for seed in range(40):
        s = C.new_game(seed=seed)
        for h in range(19):
            for g in range(19):
                if g != h and s[L.HEX_TERRAIN + h] == s[L.HEX_TERRAIN + g] != L.DESERT \
                        and s[L.HEX_NUMBER + h] == s[L.HEX_NUMBER + g]:
                    a, b = hex_words(s, h), hex_words(s, g)
                    assert a != b and "top" not in a and "bottom" not in a
                    if HEX_XY[h, 1] < HEX_XY[g, 1]:
                        assert a.endswith("(upper)") and b.endswith("(lower)")
                    seen += 1
    assert seen > 0


def test_a_lapsed_offer_says_why_and_only_the_proposer_hears_about_its_hand():
    import numpy as np
    import catan_env.core as C
    from catan_env.core import actions as A
    from catan_env.core import layout as L
    from catan_env.words import event_words
    told = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        s = C.new_game(seed=seed)
        for _ in range(3000):
            if C.is_over(s):
                break
            a = int(rng.choice(C.legal_actions(s)))
            before, seat = s.copy(), int(s[L.DECIDER])
            C.step(s, a)
            if A.action_kind(a) in ("TRADE_REJECT", "TRADE_COUNTER", "TRADE_ACCEPT") and int(s[L.PHASE]) == L.PH_MAIN:
                proposer = int(before[L.TURN_PLAYER])
                for viewer in (*range(4), None):
                    lapsed = [line for line in event_words(before, s, seat, a, viewer) if "offer lapsed" in line]
                    assert len(lapsed) == 1
                    line = lapsed[0]
                    if "cannot pay" in line:
                        assert viewer == proposer and "you have" in line
                        told += 1
                    else:
                        assert line.endswith("offer lapsed") or line.endswith(": nobody accepted")
    assert told > 0
