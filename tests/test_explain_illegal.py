"""One refusal message per action kind: ``explain_illegal`` asks the legality kernel
(relaxing one obstacle at a time), so each message names the obstacle that is really
there, and stepping the illegal action raises it and leaves the state unchanged."""
import numpy as np
import pytest

from catan_env import core as C
from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core.topology import HEX_VERTICES, VERTEX_VERTICES
from helpers import game_after_setup, give, give_dev, quiet_roll, take_all


def _main(**kw):
    s = game_after_setup(**kw)
    quiet_roll(s)
    for p in range(int(s[L.OPT_PLAYERS])):
        take_all(s, p)
    return s


def _offer_open():
    s = _main()
    give(s, 0, brick=1)
    C.step(s, A.OFFER0 + A.menu_index(1, 0, 1, 4))  # brick for ore
    assert s[L.PHASE] == L.PH_TRADE_RESPONSE
    return s


def _confirm_step():
    s = _offer_open()
    give(s, 2, ore=1)
    for answer in (A.TRADE_REJECT, A.TRADE_ACCEPT, A.TRADE_REJECT):  # seats 1, 2, 3
        C.step(s, answer)
    assert s[L.PHASE] == L.PH_TRADE_CONFIRM
    return s


def _robber_phase():
    s = game_after_setup()
    C.step(s, A.ROLL, outcome=7)
    while s[L.PHASE] == L.PH_DISCARD:
        C.step(s, int(C.legal_actions(s)[0]))
    assert s[L.PHASE] == L.PH_MOVE_ROBBER
    return s


def _setup_road():
    s = C.new_game(seed=0, board="beginner")
    C.step(s, A.SETTLEMENT0 + 12)
    return s


def _other_dev(s, card):
    give_dev(s, 0, card, old=False)
    return s


CASES = {
    "ROLL": (lambda: _main(), A.ROLL, r"ROLL is not allowed in phase main"),
    "END_TURN": (lambda: game_after_setup(), A.END_TURN, r"END_TURN is not allowed in phase pre_roll"),
    "BUILD_ROAD": (_main, A.ROAD0 + 5, r"cannot afford it .*cost \[1, 1, 0, 0, 0\]"),
    "BUILD_SETTLEMENT": (_setup_road, None, None),  # the set-up road rule: below
    "BUILD_CITY": (_main, A.CITY0 + 3, r"vertex 3 holds no settlement of seat 0"),
    "BUY_DEV": (_main, A.BUY_DEV, r"cannot afford it"),
    "PLAY_KNIGHT": (_main, A.PLAY_KNIGHT, r"holds no knight card"),
    "PLAY_ROAD_BUILDING": (lambda: _other_dev(_main(), "road_building"), A.PLAY_ROAD_BUILDING,
                           r"road_building card was bought this turn"),
    "PLAY_YEAR_OF_PLENTY": (lambda: _main(), A.YOP0, r"holds no year_of_plenty card"),
    "PLAY_MONOPOLY": (lambda: _main(), A.MONOPOLY0, r"holds no monopoly card"),
    "MOVE_ROBBER": (_robber_phase, None, r"the robber is already on hex \d+; it must move"),
    "DISCARD": (_main, A.DISCARD0, r"DISCARD is not allowed in phase main"),
    "MARITIME_TRADE": (_main, A.maritime_action(0, 1), r"needs [234] brick for this trade \(holds 0\)"),
    "TRADE_OFFER": (lambda: _main(domestic_trade=False), A.OFFER0,
                    r"seat 0 does not hold what it would give .*; domestic trade is off in this game"),
    "TRADE_ACCEPT": (_offer_open, A.TRADE_ACCEPT, r"seat 1 does not hold what it would give"),
    "TRADE_REJECT": (_main, A.TRADE_REJECT, r"TRADE_REJECT is not allowed in phase main"),
    "TRADE_COUNTER": (_offer_open, A.COUNTER0 + A.menu_index(1, 4, 1, 0),
                      r"counter-offer equal to the offer is an accept"),
    "TRADE_CONFIRM": (_confirm_step, A.confirm_action(1), r"partner \+1 neither accepted nor countered"),
    "TRADE_CANCEL": (_main, A.TRADE_CANCEL, r"TRADE_CANCEL is not allowed in phase main"),
}


def _check(s, action, pattern):
    assert action not in C.legal_actions(s)
    before = s.copy()
    with pytest.raises(C.IllegalActionError, match=pattern):
        C.step(s, action)
    assert (s == before).all()


@pytest.mark.parametrize("kind", sorted(CASES))
def test_one_message_per_action_kind(kind):
    build, action, pattern = CASES[kind]
    s = build()
    if kind == "MOVE_ROBBER":
        action = A.robber_action(int(s[L.ROBBER]), 0)
    if kind == "BUILD_SETTLEMENT":
        s = C.new_game(seed=0, board="beginner")
        C.step(s, A.SETTLEMENT0 + 12)
        C.step(s, int(C.legal_actions(s)[0]))
        w = int(next(w for w in VERTEX_VERTICES[12] if w >= 0))
        action, pattern = A.SETTLEMENT0 + w, rf"vertex {w} breaks the distance rule"
    assert C.action_kind(action) == kind
    _check(s, action, pattern)


def test_every_kind_is_covered():
    assert set(CASES) == {kind for kind, _ in A.RANGES}


def test_set_up_road_names_the_rule():
    s = _setup_road()
    e = next(e for e in range(72) if A.ROAD0 + e not in C.legal_actions(s) and s[L.E_OWNER + e] < 0)
    _check(s, A.ROAD0 + e, r"a set-up road must touch the settlement just placed \(vertex 12\)")


def test_several_obstacles_are_all_named_and_board_reasons_follow_the_rules():
    s = _main()
    s[L.ROADS_LEFT] = 0
    msg = C.explain_illegal(s, A.ROAD0 + 5)
    assert "cannot afford" in msg and "has no roads left" in msg
    # a robber victim without a building on the hex
    s = _robber_phase()
    mover = int(s[L.DECIDER])
    h = next(h for h in range(19) if h != s[L.ROBBER]
             and all(s[L.V_OWNER + v] < 0 for v in HEX_VERTICES[h]))
    _check(s, A.robber_action(h, 1), rf"seat \+1 has no building on hex {h}")
    assert mover == int(s[L.DECIDER])
    assert C.explain_illegal(s, A.robber_action(h, 0)) == "it is legal"
    # a road that does not connect
    s = _main()
    give(s, 0, brick=1, lumber=1)
    far = next(e for e in range(72) if A.ROAD0 + e not in C.legal_actions(s) and s[L.E_OWNER + e] < 0)
    _check(s, A.ROAD0 + far, rf"edge {far} does not connect to seat 0's network")
    assert np.all(L.view(s, "hand")[0][:2] == 1)
