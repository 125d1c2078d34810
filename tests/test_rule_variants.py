"""The rule variants (the Pioneers server's rules), each against the official rule in
the same position."""
import numpy as np
import pytest

from catan_env import core as C
from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core.invariants import problems
from catan_env.core.options import PIONEERS_RULES, GameOptions
from catan_env.core.reference import ref_production
from catan_env.core.topology import HEX_VERTICES
from helpers import game_after_setup, give, give_dev, hand, legal, quiet_roll, take_all


def _to_main(**rules):
    s = game_after_setup(**rules)
    quiet_roll(s)
    return s


def test_the_pioneers_deck_has_24_cards_and_13_knights():
    s = C.new_game(seed=1, **PIONEERS_RULES)
    assert L.view(s, "deck").tolist() == [13, 5, 2, 2, 2]
    assert L.view(C.new_game(seed=1), "deck").tolist() == [14, 5, 2, 2, 2]
    s = C.new_game(seed=1, dev_deck=[3, 0, 1, 1, 1])
    assert L.view(s, "deck").tolist() == [3, 0, 1, 1, 1]


@pytest.mark.parametrize("bad", [dict(dev_deck="big"), dict(dev_deck=[1, 2]), dict(sevens_rule=3),
                                 dict(bank_shortage="never"), dict(vp_cards="x"), dict(strict_trade=1)])
def test_bad_variant_values_name_the_option(bad):
    with pytest.raises(ValueError, match=list(bad)[0]):
        GameOptions(**bad)


@pytest.mark.parametrize("on_desert", [True, False])
def test_robber_and_the_desert(on_desert):
    s = _to_main(robber_on_desert=on_desert)
    desert = int(np.flatnonzero(L.view(s, "hex_terrain") == L.DESERT)[0])
    s[L.ROBBER] = 0 if desert else 1  # robber away from the desert
    s[L.PHASE] = L.PH_MOVE_ROBBER
    targets = {A.robber_hex(a) for a in legal(s)}
    assert (desert in targets) == on_desert
    assert len(targets) == 18 - (not on_desert)


@pytest.mark.parametrize("shortage", ["official", "in_order"])
def test_bank_shortage(shortage):
    """Two seats owed one resource, one card left: the official rule pays nobody, the
    Pioneers rule pays seats in order from the roller."""
    s = game_after_setup(bank_shortage=shortage)
    numbers = L.view(s, "hex_number")
    terrain = L.view(s, "hex_terrain")
    owner = L.view(s, "v_owner")
    for h in range(19):
        seats = {int(owner[v]) for v in HEX_VERTICES[h] if owner[v] >= 0}
        if len(seats) >= 2 and terrain[h] != L.DESERT and h != s[L.ROBBER]:
            break
    else:
        pytest.skip("no shared hex on this board")
    r, n = int(terrain[h]), int(numbers[h])
    owed = [o[r] for o in ref_production(s, n)]
    takers = [p for p in range(4) if owed[p] > 0]
    bank_r = 1
    moved = int(s[L.BANK + r]) - bank_r
    # park the surplus with a seat that is owed nothing of r (cards are conserved)
    keeper = next(p for p in range(4) if owed[p] == 0)
    L.view(s, "hand")[keeper, r] += moved
    L.view(s, "know")[:, keeper, r] += moved
    s[L.BANK + r] = bank_r
    before = [hand(s, p)[r] for p in range(4)]
    C.step(s, A.ROLL, outcome=n)
    got = [hand(s, p)[r] - before[p] for p in range(4)]
    if shortage == "official" and len(takers) > 1 and sum(owed) > bank_r:
        assert got == [0, 0, 0, 0]
    if shortage == "in_order":
        first = min(takers, key=lambda p: (p - int(s[L.TURN_PLAYER])) % 4)
        assert got[first] == 1 and sum(got) == 1


@pytest.mark.parametrize("strict", [False, True])
def test_strict_trade_forbids_trading_after_building(strict):
    s = _to_main(strict_trade=strict)
    take_all(s, 0)
    give(s, 0, brick=5, lumber=5)
    maritime = {a for a in legal(s) if A.MARITIME0 <= a < A.OFFER0}
    assert maritime  # 4:1 lumber or brick
    road = min(a for a in legal(s) if A.ROAD0 <= a < A.SETTLEMENT0)
    C.step(s, road)
    after = {a for a in legal(s) if A.MARITIME0 <= a < A.TRADE_ACCEPT}
    assert (not after) == strict
    C.step(s, A.END_TURN)  # the next turn trades again
    assert s[L.BUILT] == 0


@pytest.mark.parametrize("direct", [False, True])
def test_a_city_straight_on_an_empty_spot(direct):
    s = _to_main(direct_city=direct)
    take_all(s, 0)
    give(s, 0, brick=2, lumber=2)
    # two roads out from a settlement of seat 0 make a legal empty spot
    for _ in range(2):
        C.step(s, min(a for a in legal(s) if A.ROAD0 <= a < A.SETTLEMENT0))
    give(s, 0, brick=1, lumber=1, wool=1, grain=3, ore=3)
    spots = {a - A.SETTLEMENT0 for a in legal(s) if A.SETTLEMENT0 <= a < A.CITY0}
    cities = {a - A.CITY0 for a in legal(s) if A.CITY0 <= a < A.BUY_DEV}
    assert bool(spots & cities) == direct
    if direct:
        v = min(spots & cities)
        left = (int(s[L.SETTLEMENTS_LEFT]), int(s[L.CITIES_LEFT]), int(s[L.PUBLIC_VP]))
        C.step(s, A.CITY0 + v)
        assert s[L.V_LEVEL + v] == 2 and hand(s, 0) == [0, 0, 0, 0, 0]
        assert (int(s[L.SETTLEMENTS_LEFT]), int(s[L.CITIES_LEFT]), int(s[L.PUBLIC_VP])) == \
            (left[0], left[1] - 1, left[2] + 2)
        assert problems(s) == []


@pytest.mark.parametrize("vp_cards", ["held", "played"])
def test_victory_point_cards_at_the_win(vp_cards):
    s = _to_main(vp_cards=vp_cards, vp_to_win=5)
    give_dev(s, 0, "victory_point")
    give_dev(s, 0, "victory_point")
    # 2 settlements (2 VP) + 2 VP cards = 4: one more settlement wins
    take_all(s, 0)
    give(s, 0, brick=3, lumber=3)
    for _ in range(2):
        C.step(s, min(a for a in legal(s) if A.ROAD0 <= a < A.SETTLEMENT0))
    give(s, 0, brick=1, lumber=1, wool=1, grain=1)
    C.step(s, min(a for a in legal(s) if A.SETTLEMENT0 <= a < A.CITY0))
    assert C.is_over(s) and C.winner(s) == 0
    shown = vp_cards == "played"
    assert int(s[L.VP_REVEALED]) == (2 if shown else 0)
    assert int(s[L.PUBLIC_VP]) == (5 if shown else 3)
    assert problems(s) == []


@pytest.mark.parametrize("rule", [0, 2])
def test_the_sevens_rule_rerolls(rule):
    sevens = 0
    for seed in range(150):
        s = game_after_setup(seed=seed, sevens_rule=rule)
        C.step(s, A.ROLL)
        sevens += int(s[L.LAST_ROLL]) == 7
    assert (sevens == 0) == (rule == 2)
    assert rule == 2 or sevens > 10


from hypothesis import given, settings, strategies as st  # noqa: E402

OPTION_VALUES = dict(
    players=st.integers(2, 4), vp_to_win=st.integers(3, 20), discard_limit=st.integers(3, 40),
    friendly_robber=st.booleans(), domestic_trade=st.booleans(), max_offers_per_turn=st.integers(0, 20),
    robber_on_desert=st.booleans(), bank_shortage=st.sampled_from(["official", "in_order"]),
    strict_trade=st.booleans(), direct_city=st.booleans(), vp_cards=st.sampled_from(["held", "played"]),
    sevens_rule=st.integers(0, 2),
    dev_deck=st.one_of(st.sampled_from(["official", "pioneers"]),
                       st.tuples(*[st.integers(0, 30)] * 5).filter(lambda d: sum(d) > 0)))


@settings(max_examples=60, deadline=None)
@given(st.fixed_dictionaries({}, optional=OPTION_VALUES), st.sampled_from(["random", "beginner"]), st.integers(0, 99))
def test_options_round_trip_through_the_state_for_every_variant(options, board, seed):
    """options_of(new_game(options)) gives back every option, alone or together (the board
    as the state holds it), and a second game made from them is the same game."""
    s = C.new_game(seed=seed, board=board, **options)
    back = C.options_of(s)
    expected = GameOptions(board=board, **options).to_dict()
    got = back.to_dict()
    got.pop("board"), expected.pop("board")
    assert got == expected
    again = C.new_game(seed=seed, **back.to_dict())
    assert np.array_equal(again, s)
