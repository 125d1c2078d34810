"""Set-up (snake order, distance rule, starting resources) and production."""
import numpy as np
import pytest

from catan_env import core as C
from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core.reference import ref_production
from catan_env.core.topology import HEX_VERTICES, VERTEX_HEXES, VERTEX_VERTICES
from helpers import game_after_setup, give, hand, legal, roll, setup


@pytest.mark.parametrize("players", [2, 3, 4])
def test_snake_order_and_first_turn(players):
    s = C.new_game(seed=3, players=players, board="beginner")
    spots = [12, 29, 42, 24, 44, 0, 50, 20][:2 * players]
    deciders = []
    for v in spots:
        deciders.append(C.decider(s))
        C.step(s, A.SETTLEMENT0 + v)
        assert s[L.PHASE] == L.PH_SETUP_ROAD
        C.step(s, int(C.legal_actions(s)[0]))
    assert deciders == list(range(players)) + list(reversed(range(players)))
    assert s[L.PHASE] == L.PH_PRE_ROLL and C.decider(s) == 0 and s[L.TURN] == 1
    assert legal(s) == {A.ROLL}


def test_distance_rule_in_setup():
    s = C.new_game(seed=0, board="beginner")
    C.step(s, A.SETTLEMENT0 + 12)
    C.step(s, int(C.legal_actions(s)[0]))
    for w in VERTEX_VERTICES[12]:
        if w >= 0:
            assert A.SETTLEMENT0 + w not in legal(s)
            with pytest.raises(C.IllegalActionError, match="distance rule"):
                C.step(s, A.SETTLEMENT0 + int(w))


def test_setup_road_must_touch_new_settlement():
    s = C.new_game(seed=0, board="beginner")
    C.step(s, A.SETTLEMENT0 + 12)
    roads = legal(s)
    assert roads and all(12 in __import__("catan_env.core.topology", fromlist=["x"]).EDGE_VERTICES[a - A.ROAD0]
                         for a in roads)


def test_second_settlement_gives_resources():
    s = C.new_game(seed=0, board="beginner")
    spots = [12, 29, 42, 24, 44, 0, 50, 20]
    setup(s, spots)
    terrain = s[L.HEX_TERRAIN:L.HEX_TERRAIN + 19]
    for seat, v in ((3, 44), (2, 0), (1, 50), (0, 20)):  # second round
        expected = [0] * 5
        for h in VERTEX_HEXES[v]:
            if h >= 0 and terrain[h] != L.DESERT:
                expected[terrain[h]] += 1
        assert hand(s, seat) == expected


def test_production_settlement_city_and_robber():
    s = game_after_setup(seed=1)
    # find a hex adjacent to seat 0's settlement at vertex 12 with a number
    h = next(int(h) for h in VERTEX_HEXES[12] if h >= 0 and s[L.HEX_NUMBER + h] > 0)
    number = int(s[L.HEX_NUMBER + h])
    r = int(s[L.HEX_TERRAIN + h])
    before = np.array([hand(s, p) for p in range(4)])
    expected = np.array(ref_production(s, number))
    roll(s, number)
    after = np.array([hand(s, p) for p in range(4)])
    assert (after - before).tolist() == expected.tolist()
    assert expected[0, r] >= 1
    # city doubles
    s2 = game_after_setup(seed=1)
    s2[L.V_LEVEL + 12] = 2
    s2[L.SETTLEMENTS_LEFT] += 1
    s2[L.CITIES_LEFT] -= 1
    s2[L.PUBLIC_VP] += 1
    b0 = hand(s2, 0)[r]
    roll(s2, number)
    gained_city = hand(s2, 0)[r] - b0
    assert gained_city == 2 * expected[0, r]
    # robber blocks
    s3 = game_after_setup(seed=1)
    s3[L.ROBBER] = h
    b0 = hand(s3, 0)[r]
    roll(s3, number)
    assert hand(s3, 0)[r] - b0 == ref_production(s3, number)[0][r]
    assert ref_production(s3, number)[0][r] == expected[0, r] - sum(
        1 for hh in VERTEX_HEXES[12] if hh == h)


def _single_taker_case(s):
    """A (number, resource, hex) where only seat 0 is owed that resource on that roll."""
    for h in range(19):
        number = int(s[L.HEX_NUMBER + h])
        if number == 0 or not any(s[L.V_OWNER + v] == 0 for v in HEX_VERTICES[h]):
            continue
        r = int(s[L.HEX_TERRAIN + h])
        owed = ref_production(s, number)
        if [p for p in range(4) if owed[p][r] > 0] == [0]:
            return number, r, h
    raise AssertionError("no single-taker hex")


def test_bank_shortage_several_players_get_nothing():
    s = game_after_setup(seed=2)
    number, r, h = _single_taker_case(s)
    # add a settlement of seat 1 on a free corner of h (scenario set by hand)
    free = [int(v) for v in HEX_VERTICES[h] if s[L.V_OWNER + v] < 0 and all(
        w < 0 or s[L.V_OWNER + w] < 0 for w in VERTEX_VERTICES[v])]
    if not free:
        pytest.skip("no free corner")
    v = free[0]
    s[L.V_OWNER + v] = 1
    s[L.V_LEVEL + v] = 1
    s[L.SETTLEMENTS_LEFT + 1] -= 1
    s[L.PUBLIC_VP + 1] += 1
    give(s, 3, **{L.RESOURCE_NAMES[r]: int(s[L.BANK + r]) - 1})
    before = [hand(s, p)[r] for p in range(4)]
    roll(s, number)
    assert [hand(s, p)[r] for p in range(4)] == before
    assert s[L.BANK + r] == 1


def test_bank_shortage_single_player_takes_the_rest():
    s = game_after_setup(seed=2)
    number, r, h = _single_taker_case(s)
    v = next(int(v) for v in HEX_VERTICES[h] if s[L.V_OWNER + v] == 0)
    s[L.V_LEVEL + v] = 2  # a city, so seat 0 is owed at least 2
    s[L.SETTLEMENTS_LEFT] += 1
    s[L.CITIES_LEFT] -= 1
    s[L.PUBLIC_VP] += 1
    owed0 = ref_production(s, number)[0][r]
    assert owed0 >= 2
    give(s, 3, **{L.RESOURCE_NAMES[r]: int(s[L.BANK + r]) - (owed0 - 1)})
    assert s[L.BANK + r] == owed0 - 1
    b0 = hand(s, 0)[r]
    roll(s, number)
    assert hand(s, 0)[r] == b0 + owed0 - 1 and s[L.BANK + r] == 0
