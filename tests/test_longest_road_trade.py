"""Longest road (trails, cuts, ties, set-aside), maritime and domestic trade, piece
limits and winning only on one's own turn."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from catan_env import core as C
from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core import placement as P
from catan_env.core import rules as R
from catan_env.core.invariants import problems
from catan_env.core.reference import ref_longest_road
from catan_env.core.topology import EDGE_VERTICES, VERTEX_EDGES, VERTEX_VERTICES, PORT_VERTICES
from helpers import game_after_setup, give, hand, legal, quiet_roll, take_all


def _path(s, start, n_edges):
    """A simple path of n_edges empty edges from start through empty vertices."""
    def dfs(v, edges, seen):
        if len(edges) == n_edges:
            return edges
        for e in VERTEX_EDGES[v]:
            if e < 0 or s[L.E_OWNER + e] >= 0 or e in edges:
                continue
            a, b = EDGE_VERTICES[e]
            w = int(b if a == v else a)
            if w in seen or s[L.V_OWNER + w] >= 0:
                continue
            found = dfs(w, edges + [int(e)], seen | {w})
            if found:
                return found
        return None
    return dfs(start, [], {start})


def _build_roads(s, p, edges):
    """Build roads for p through real BUILD_ROAD actions (resources given first)."""
    for e in edges:
        give(s, p, brick=1, lumber=1)
        C.step(s, A.ROAD0 + e)


def _path_vertices(start, edges):
    vs = [start]
    for e in edges:
        a, b = EDGE_VERTICES[e]
        vs.append(int(b if a == vs[-1] else a))
    return vs


def test_five_roads_take_longest_road():
    s = game_after_setup()
    quiet_roll(s)
    path = _path(s, 12, 4)
    _build_roads(s, 0, path)
    assert s[L.ROAD_LEN] == 5 and s[L.LR_HOLDER] == 0
    assert s[L.PUBLIC_VP] == 4
    assert not problems(s)


def test_road_loop_counts_every_segment():
    s = game_after_setup()
    # a hexagon loop of seat 0's roads (set by hand) around a hex free of buildings
    from catan_env.core.topology import HEX_EDGES, HEX_VERTICES
    h = next(h for h in range(19) if all(s[L.V_OWNER + v] < 0 for v in HEX_VERTICES[h])
             and all(s[L.E_OWNER + e] < 0 for e in HEX_EDGES[h]))
    for e in HEX_EDGES[h]:
        s[L.E_OWNER + e] = 0
    s[L.ROADS_LEFT] -= 6
    assert P.road_length(s, 0) == ref_longest_road(s, 0) >= 6


def test_tie_does_not_take_and_strictly_longer_does():
    s = game_after_setup()
    quiet_roll(s)
    _build_roads(s, 0, _path(s, 12, 4))
    assert s[L.LR_HOLDER] == 0
    # seat 1 gets a road of the same length (by hand), then one longer by a real build
    p1 = _path(s, 29, 6)
    assert p1 is not None
    for e in p1[:5]:
        s[L.E_OWNER + e] = 1
        s[L.ROADS_LEFT + 1] -= 1
    s[L.ROAD_LEN + 1] = P.road_length(s, 1)
    P.update_longest_road(s)
    assert s[L.ROAD_LEN + 1] == 6 and s[L.LR_HOLDER] == 1  # 6 > 5 strictly
    s2 = game_after_setup()
    quiet_roll(s2)
    _build_roads(s2, 0, _path(s2, 12, 4))
    for e in _path(s2, 29, 4):
        s2[L.E_OWNER + e] = 1
        s2[L.ROADS_LEFT + 1] -= 1
    s2[L.ROAD_LEN + 1] = P.road_length(s2, 1)
    P.update_longest_road(s2)
    assert s2[L.ROAD_LEN + 1] == s2[L.ROAD_LEN] == 5 and s2[L.LR_HOLDER] == 0  # tie: keeps


def _cut_scenario(path_edges, want):
    """Seat 0 holds longest road; seat 1 has a road touching a vertex v of seat 0's road
    such that settling there leaves seat 0 a longest trail satisfying want(len)."""
    s = game_after_setup()
    quiet_roll(s)
    path = _path(s, 20, path_edges)
    _build_roads(s, 0, path)
    assert s[L.LR_HOLDER] == 0
    for v in _path_vertices(20, path)[1:]:
        side = [int(e) for e in VERTEX_EDGES[v] if e >= 0 and s[L.E_OWNER + e] < 0]
        if not side or any(w >= 0 and s[L.V_OWNER + w] >= 0 for w in VERTEX_VERTICES[v]):
            continue
        t = s.copy()
        t[L.V_OWNER + v] = 1
        t[L.V_LEVEL + v] = 1
        if want(ref_longest_road(t, 0)):
            s[L.E_OWNER + side[0]] = 1
            s[L.ROADS_LEFT + 1] -= 1
            s[L.ROAD_LEN + 1] = P.road_length(s, 1)
            return s, v, ref_longest_road(t, 0)
    pytest.skip("no suitable cut vertex on this board")


def _give_road(s, p, start, length):
    """Hand seat p roads from start until its longest trail is exactly length."""
    for k in range(1, 12):
        t = s.copy()
        edges = _path(t, start, k)
        if edges is None:
            break
        for e in edges:
            t[L.E_OWNER + e] = p
            t[L.ROADS_LEFT + p] -= 1
        if ref_longest_road(t, p) == length:
            t[L.ROAD_LEN + p] = length
            s[:] = t
            return
    pytest.skip("cannot build the wanted road")


def _settle(s, p, v):
    """Seat p settles on v through a real action (its turn is faked by hand)."""
    s[L.TURN_PLAYER] = p
    s[L.DECIDER] = p
    give(s, p, brick=1, lumber=1, wool=1, grain=1)
    C.step(s, A.SETTLEMENT0 + v)


def test_cut_sets_card_aside_when_nobody_has_five():
    s, v, left = _cut_scenario(5, lambda n: n < 5)
    _settle(s, 1, v)
    assert s[L.ROAD_LEN] == left < 5 and s[L.LR_HOLDER] == -1
    assert s[L.PUBLIC_VP] == 2
    assert not problems(s)


def test_cut_gives_card_to_strictly_longest():
    s, v, left = _cut_scenario(5, lambda n: n < 5)
    _give_road(s, 2, 42, 5)
    P.update_longest_road(s)
    assert s[L.LR_HOLDER] == 0  # seat 0 still strictly longer
    _settle(s, 1, v)
    assert s[L.LR_HOLDER] == 2 and s[L.PUBLIC_VP + 2] == 4
    assert not problems(s)


def test_cut_with_others_tied_sets_aside():
    s, v, left = _cut_scenario(5, lambda n: n < 5)
    _give_road(s, 2, 42, 5)
    _give_road(s, 3, 44, 5)
    P.update_longest_road(s)
    _settle(s, 1, v)
    assert s[L.LR_HOLDER] == -1


def test_cut_holder_tied_keeps_card():
    s, v, left = _cut_scenario(8, lambda n: 5 <= n <= 7)
    _give_road(s, 2, 42, left)
    P.update_longest_road(s)
    assert s[L.LR_HOLDER] == 0
    _settle(s, 1, v)
    assert s[L.ROAD_LEN] == s[L.ROAD_LEN + 2] == left and s[L.LR_HOLDER] == 0


def test_maritime_rates():
    s = game_after_setup()  # seat 0's settlement on vertex 20 sits on a generic harbour
    quiet_roll(s)
    assert int(s[L.PORT_TYPE + 6]) == L.GENERIC_PORT and 20 in PORT_VERTICES[6]
    take_all(s, 0)
    give(s, 0, brick=3, wool=2)
    i_brick_ore = next(i for i in range(20) if A.MARITIME_GIVE[i] == 0 and A.MARITIME_GET[i] == 4)
    i_wool_ore = next(i for i in range(20) if A.MARITIME_GIVE[i] == 2 and A.MARITIME_GET[i] == 4)
    assert R.trade_rate(s, 0, 0) == 3
    assert A.MARITIME0 + i_brick_ore in legal(s) and A.MARITIME0 + i_wool_ore not in legal(s)
    C.step(s, A.MARITIME0 + i_brick_ore)
    assert hand(s, 0) == [0, 0, 2, 0, 1]
    # seat 1 has no harbour: 4:1
    assert R.trade_rate(s, 1, 0) == 4
    # a 2:1 harbour of its own resource beats the generic one
    slot = next(i for i in range(9) if s[L.PORT_TYPE + i] == 2)
    v = int(PORT_VERTICES[slot, 0])
    s[L.V_OWNER + v] = 0
    s[L.V_LEVEL + v] = 1
    assert R.trade_rate(s, 0, 2) == 2 and R.trade_rate(s, 0, 3) == 3
    assert A.MARITIME0 + i_wool_ore in legal(s)
    # the bank must hold the card taken
    give(s, 1, ore=int(s[L.BANK + 4]))
    assert A.MARITIME0 + i_wool_ore not in legal(s)


def test_domestic_trade_accept_confirm():
    s = game_after_setup()
    quiet_roll(s)
    for p in range(4):
        take_all(s, p)
    give(s, 0, brick=2)
    give(s, 2, ore=1)
    m = A.menu_index(1, 0, 1, 4)  # give 1 brick for 1 ore
    C.step(s, A.OFFER0 + m)
    assert s[L.PHASE] == L.PH_TRADE_RESPONSE
    answers = []
    while s[L.PHASE] == L.PH_TRADE_RESPONSE:
        p = C.decider(s)
        answers.append(p)
        if p == 2:
            assert A.TRADE_ACCEPT in legal(s)
            C.step(s, A.TRADE_ACCEPT)
        else:
            assert A.TRADE_ACCEPT not in legal(s)
            C.step(s, A.TRADE_REJECT)
    assert answers == [1, 2, 3]
    assert s[L.PHASE] == L.PH_TRADE_CONFIRM and C.decider(s) == 0
    assert legal(s) == {A.confirm_action(2), A.TRADE_CANCEL}
    C.step(s, A.confirm_action(2))
    assert hand(s, 0) == [1, 0, 0, 0, 1] and hand(s, 2) == [1, 0, 0, 0, 0]
    assert s[L.PHASE] == L.PH_MAIN
    assert not problems(s)


def test_domestic_trade_counter_and_cancel_and_cap():
    s = game_after_setup(max_offers_per_turn=2)
    quiet_roll(s)
    for p in range(4):
        take_all(s, p)
    give(s, 0, brick=2, grain=1)
    give(s, 1, wool=2)
    m = A.menu_index(1, 0, 1, 4)
    C.step(s, A.OFFER0 + m)
    counter = A.menu_index(2, 2, 1, 3)  # seat 1: "I give 2 wool for 1 grain"
    C.step(s, A.COUNTER0 + counter)
    C.step(s, A.TRADE_REJECT)
    C.step(s, A.TRADE_REJECT)
    assert A.confirm_action(1) in legal(s)
    C.step(s, A.confirm_action(1))
    assert hand(s, 0) == [2, 0, 2, 0, 0] and hand(s, 1) == [0, 0, 0, 1, 0]
    # nobody accepts: back to main without a confirm step
    C.step(s, A.OFFER0 + m)
    for _ in range(3):
        C.step(s, A.TRADE_REJECT)
    assert s[L.PHASE] == L.PH_MAIN and C.decider(s) == 0
    assert not any(A.OFFER0 <= a < A.TRADE_ACCEPT for a in legal(s))  # cap of 2 reached
    with pytest.raises(C.IllegalActionError, match="cap"):
        C.step(s, A.OFFER0 + m)


def test_trade_off_option_hides_offers():
    s = game_after_setup(domestic_trade=False)
    quiet_roll(s)
    give(s, 0, brick=2)
    assert not any(A.OFFER0 <= a < A.TRADE_ACCEPT for a in legal(s))


def test_piece_limits_and_city_returns_settlement():
    s = game_after_setup()
    quiet_roll(s)
    give(s, 0, grain=2, ore=3)
    C.step(s, A.CITY0 + 12)
    assert s[L.SETTLEMENTS_LEFT] == 4 and s[L.CITIES_LEFT] == 3 and s[L.PUBLIC_VP] == 3
    s[L.CITIES_LEFT] = 0
    give(s, 0, grain=2, ore=3)
    assert not any(A.CITY0 <= a < A.BUY_DEV for a in legal(s))
    s[L.ROADS_LEFT] = 0
    give(s, 0, brick=1, lumber=1)
    assert not any(A.ROAD0 <= a < A.SETTLEMENT0 for a in legal(s))


def test_win_only_on_own_turn():
    s = game_after_setup(vp_to_win=3)
    quiet_roll(s)
    C.step(s, A.END_TURN)
    # seat 1 reaches 3 VP during seat 1's own turn by a city: wins at once
    quiet_roll(s)
    give(s, 1, grain=2, ore=3)
    city = next(a for a in legal(s) if A.CITY0 <= a < A.BUY_DEV)
    C.step(s, city)
    assert C.is_over(s) and C.winner(s) == 1


def test_reaching_target_on_another_turn_wins_at_own_turn_start():
    s = game_after_setup(vp_to_win=4)
    quiet_roll(s)
    # seat 2 gets 2 extra VP during seat 0's turn (largest army handed over by hand)
    s[L.KNIGHTS + 2] = 3
    s[L.DEV_USED] = 3
    s[L.DECK] -= 3
    s[L.LA_HOLDER] = 2
    s[L.PUBLIC_VP + 2] += 2
    C.step(s, A.END_TURN)
    assert not C.is_over(s)  # seat 1's turn: nobody wins
    quiet_roll(s)
    C.step(s, A.END_TURN)
    assert C.is_over(s) and C.winner(s) == 2


def test_road_cannot_continue_through_an_opponents_building():
    s = game_after_setup()
    quiet_roll(s)
    path = _path(s, 20, 2)
    _build_roads(s, 0, path[:1])
    w = _path_vertices(20, path)[1]
    beyond = [int(e) for e in VERTEX_EDGES[w] if e >= 0 and s[L.E_OWNER + e] < 0]
    give(s, 0, brick=1, lumber=1)
    assert all(A.ROAD0 + e in legal(s) for e in beyond)
    s[L.V_OWNER + w] = 1  # an opponent settles at the end of the road (set by hand)
    s[L.V_LEVEL + w] = 1
    touching_other = {int(e) for v in range(54) if s[L.V_OWNER + v] == 0 for e in VERTEX_EDGES[v] if e >= 0}
    for e in beyond:
        if e not in touching_other:
            assert A.ROAD0 + e not in legal(s)
            with pytest.raises(C.IllegalActionError, match="does not connect"):
                C.step(s, A.ROAD0 + e)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10 ** 6), players=st.sampled_from([2, 3, 4]))
def test_a_random_answer_is_the_draw_from_the_list(seed, players):
    """``random_answer`` (the random policy's answer without building the list) makes the
    same draw and picks the same action as ``buf[randint(rng, legal_actions(s, buf))]``,
    at every answer of a random trading game, whatever the hand and the offer."""
    import numpy as np
    from catan_env.core.rng import randint
    s = C.new_game(seed=seed, players=players, domestic_trade=True)
    rng = np.random.default_rng(seed)
    policy = np.zeros(L.STATE_SIZE, np.int64)
    policy[L.RNG] = seed + 1
    buf = np.empty(A.N_ACTIONS, np.int64)
    answers = 0
    while not C.is_over(s) and s[L.TURN] < 150:
        if s[L.PHASE] == L.PH_TRADE_RESPONSE:
            for _ in range(3):  # three draws from this position
                listed, fast = policy.copy(), policy.copy()
                with np.errstate(over="ignore"):  # randint in Python: numpy warns of the wraparound it relies on
                    expected = buf[randint(listed, R.legal_actions(s, buf))]
                assert R.random_answer(s, fast) == expected
                assert (fast == listed).all()
                policy = fast
            answers += 1
        C.step(s, int(rng.choice(C.legal_actions(s))))
    assert answers > 0
