"""The 7 (discards, robber, steal), development cards and largest army."""
import pytest

from catan_env import core as C
from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core.topology import HEX_VERTICES
from helpers import game_after_setup, give, give_dev, hand, legal, quiet_roll, roll, take_all


def test_seven_discards_half_rounded_down_in_seat_order():
    s = game_after_setup()
    for p in range(4):
        take_all(s, p)
    give(s, 1, brick=5, wool=4)        # 9 cards -> discard 4
    give(s, 2, ore=7)                  # 7 cards -> keep all
    give(s, 3, grain=8, lumber=3)      # 11 -> discard 5
    roll(s, 7)
    assert s[L.PHASE] == L.PH_DISCARD
    assert s[L.DISCARDS + 1:L.DISCARDS + 4].tolist() == [4, 0, 5]
    order = []
    while s[L.PHASE] == L.PH_DISCARD:
        p = C.decider(s)
        order.append(p)
        acts = legal(s)
        assert acts <= set(range(A.DISCARD0, A.DISCARD0 + 5))
        C.step(s, min(acts))
    assert order == [1] * 4 + [3] * 5
    assert sum(hand(s, 1)) == 5 and sum(hand(s, 2)) == 7 and sum(hand(s, 3)) == 6
    assert s[L.PHASE] == L.PH_MOVE_ROBBER and C.decider(s) == 0


def test_robber_must_move_and_steal_only_from_eligible():
    s = game_after_setup()
    for p in range(4):
        take_all(s, p)
    give(s, 1, ore=1)
    roll(s, 7)
    acts = legal(s)
    robber = int(s[L.ROBBER])
    assert not any(A.robber_hex(a) == robber for a in acts)
    for a in acts:
        h, k = A.robber_hex(a), A.robber_victim(a)
        victims_here = [q for q in (1, 2, 3) if q == 1 and any(
            s[L.V_OWNER + v] == 1 for v in HEX_VERTICES[h])]
        if victims_here:
            assert k == 1  # seat 1 holds a card and is there: must steal from it
        else:
            assert k == 0
    # steal from seat 1 on a hex it touches
    h = next(h for h in range(19) if h != robber and any(s[L.V_OWNER + v] == 1 for v in HEX_VERTICES[h]))
    C.step(s, A.robber_action(h, 1))
    assert hand(s, 1) == [0] * 5 and hand(s, 0)[4] == 1
    assert s[L.ROBBER] == h and s[L.PHASE] == L.PH_MAIN
    assert C.chance_outcome(s, A.robber_action(h, 1)) == 4


def test_steal_knowledge_only_for_thief_and_victim():
    s = game_after_setup()
    for p in range(4):
        take_all(s, p)
    give(s, 1, ore=1, brick=1)
    roll(s, 7)
    robber = int(s[L.ROBBER])
    h = next(h for h in range(19) if h != robber and any(s[L.V_OWNER + v] == 1 for v in HEX_VERTICES[h]))
    C.step(s, A.robber_action(h, 1), outcome=0)  # steal the brick
    know = L.view(s, "know")  # observers: the four seats, then the public row
    assert know.shape[0] == 5
    assert know[0, 0].tolist() == [1, 0, 0, 0, 0, 0]       # thief knows its card
    assert know[1, 0].tolist() == [1, 0, 0, 0, 0, 0]       # victim saw it
    assert know[1, 1].tolist() == [0, 0, 0, 0, 1, 0]       # victim knows its own rest
    for onlooker in (2, 3, L.PUBLIC):                      # others and the public record:
        assert know[onlooker, 0].tolist() == [0, 0, 0, 0, 0, 1]  # one unknown card
        assert know[onlooker, 1].tolist() == [0, 0, 0, 0, 0, 1]  # and the victim's rest unknown


def test_friendly_robber_protects_low_vp():
    s = game_after_setup(friendly_robber=True)
    for p in range(4):
        take_all(s, p)
    give(s, 1, ore=2)
    roll(s, 7)
    assert all(A.robber_victim(a) == 0 for a in legal(s))  # everyone has 2 VP


def test_no_victim_moves_to_nobody():
    s = game_after_setup()
    for p in range(4):
        take_all(s, p)
    roll(s, 7)
    assert all(A.robber_victim(a) == 0 for a in legal(s))
    assert len(legal(s)) == 18


def test_knight_before_roll_and_one_card_per_turn():
    s = game_after_setup()
    give_dev(s, 0, "knight")
    give_dev(s, 0, "monopoly")
    assert A.PLAY_KNIGHT in legal(s) and A.MONOPOLY0 in legal(s)
    C.step(s, A.PLAY_KNIGHT)
    assert s[L.PHASE] == L.PH_MOVE_ROBBER
    C.step(s, min(legal(s)))
    assert s[L.PHASE] == L.PH_PRE_ROLL and legal(s) == {A.ROLL}
    quiet_roll(s)
    assert not any(A.MONOPOLY0 <= a < A.ROBBER0 for a in legal(s))
    assert s[L.KNIGHTS] == 1


def test_card_bought_this_turn_not_playable_but_vp_counts():
    s = game_after_setup()
    quiet_roll(s)
    give(s, 0, ore=2, wool=2, grain=2)
    C.step(s, A.BUY_DEV, outcome=L.KNIGHT)
    assert A.PLAY_KNIGHT not in legal(s)
    vp_before = C.victory_points(s)[0]
    C.step(s, A.BUY_DEV, outcome=L.VICTORY_POINT)
    assert C.victory_points(s)[0] == vp_before + 1
    assert s[L.PUBLIC_VP] == vp_before  # hidden
    C.step(s, A.END_TURN)
    # next own turn: the knight is playable
    while C.decider(s) != 0 or s[L.PHASE] != L.PH_PRE_ROLL:
        if s[L.PHASE] == L.PH_PRE_ROLL:
            quiet_roll(s)
        C.step(s, A.END_TURN) if A.END_TURN in legal(s) else C.step(s, min(legal(s)))
    assert A.PLAY_KNIGHT in legal(s)


def test_empty_deck_cannot_buy():
    s = game_after_setup()
    quiet_roll(s)
    give(s, 0, ore=1, wool=1, grain=1)
    assert A.BUY_DEV in legal(s)
    s[L.DECK:L.DECK + 5] = 0
    s[L.DEV_USED:L.DEV_USED + 5] = [14, 5, 2, 2, 2]
    assert A.BUY_DEV not in legal(s)
    with pytest.raises(C.IllegalActionError, match="deck is empty"):
        C.step(s, A.BUY_DEV)


def test_year_of_plenty_limited_by_bank():
    s = game_after_setup()
    quiet_roll(s)
    give_dev(s, 0, "year_of_plenty")
    give(s, 3, ore=int(s[L.BANK + 4]) - 1)  # bank has 1 ore
    acts = {a - A.YOP0 for a in legal(s) if A.YOP0 <= a < A.MONOPOLY0}
    pairs = {(int(A.YOP_R1[i]), int(A.YOP_R2[i])) for i in acts}
    assert (4, 4) not in pairs and (0, 4) in pairs and (0, 0) in pairs
    C.step(s, A.YOP0 + [i for i in acts if (A.YOP_R1[i], A.YOP_R2[i]) == (0, 4)][0])
    assert s[L.BANK + 4] == 0


def test_monopoly_takes_all():
    s = game_after_setup()
    quiet_roll(s)
    give_dev(s, 0, "monopoly")
    give(s, 1, wool=3)
    give(s, 3, wool=2)
    w = [hand(s, p)[2] for p in range(4)]
    C.step(s, A.MONOPOLY0 + 2)
    assert hand(s, 0)[2] == sum(w) and all(hand(s, p)[2] == 0 for p in (1, 2, 3))
    know = L.view(s, "know")  # a monopoly is public: every observer, and the public row
    for observer in (0, 1, 2, 3, L.PUBLIC):
        assert know[observer, 0, 2] == sum(w)
        assert all(know[observer, p, 2] == 0 for p in (1, 2, 3))


def test_road_building_with_one_road_left():
    s = game_after_setup()
    quiet_roll(s)
    give_dev(s, 0, "road_building")
    s[L.ROADS_LEFT] = 1
    # pretend 13 roads are elsewhere: keep pieces consistent by only checking the flow
    C.step(s, A.PLAY_ROAD_BUILDING)
    assert s[L.PHASE] == L.PH_ROAD_BUILDING and s[L.FREE_ROADS] == 1
    hand_before = hand(s, 0)
    C.step(s, min(legal(s)))
    assert s[L.PHASE] == L.PH_MAIN and hand(s, 0) == hand_before


def test_road_building_places_two_free_roads():
    s = game_after_setup()
    quiet_roll(s)
    give_dev(s, 0, "road_building")
    C.step(s, A.PLAY_ROAD_BUILDING)
    C.step(s, min(legal(s)))
    assert s[L.PHASE] == L.PH_ROAD_BUILDING
    C.step(s, min(legal(s)))
    assert s[L.PHASE] == L.PH_MAIN and s[L.ROADS_LEFT] == 11


def test_largest_army_needs_three_and_strictly_more():
    s = game_after_setup()
    s[L.KNIGHTS + 1] = 3
    s[L.DEV_USED] = 3
    s[L.LA_HOLDER] = 1
    s[L.PUBLIC_VP + 1] += 2
    s[L.DECK] -= 3
    s[L.KNIGHTS] = 2
    s[L.DEV_USED] += 2
    s[L.DECK] -= 2
    give_dev(s, 0, "knight")
    C.step(s, A.PLAY_KNIGHT)
    assert s[L.LA_HOLDER] == 1  # 3 == 3: holder keeps it
    C.step(s, min(legal(s)))
    quiet_roll(s)
    C.step(s, A.END_TURN)
    # fast-forward to seat 0's next turn and play a 4th knight
    while not (C.decider(s) == 0 and s[L.PHASE] == L.PH_PRE_ROLL):
        if s[L.PHASE] == L.PH_PRE_ROLL:
            quiet_roll(s)
        C.step(s, A.END_TURN if A.END_TURN in legal(s) else min(legal(s)))
    give_dev(s, 0, "knight")
    vp1 = s[L.PUBLIC_VP + 1]
    C.step(s, A.PLAY_KNIGHT)
    assert s[L.LA_HOLDER] == 0 and s[L.PUBLIC_VP + 1] == vp1 - 2


def test_discard_limit_option():
    s = game_after_setup(discard_limit=9)
    for p in range(4):
        take_all(s, p)
    give(s, 1, brick=5, wool=4)    # 9 cards: not above the limit of 9
    give(s, 2, ore=10)             # 10 cards: discards 5
    roll(s, 7)
    assert s[L.DISCARDS + 1] == 0 and s[L.DISCARDS + 2] == 5
    assert C.decider(s) == 2
