"""One chance model (``core.chance``) for the game, the MCTS kernel, the value network's
one-ply values and the value search: outcomes and odds that honour the sevens rule, the
deck and the victim's hand, checked against the rules' own random draws."""
import numpy as np
import pytest

from catan_env.core import actions as A
from catan_env.core import chance as CH
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.core.rules import FROM_RNG, apply_action
from helpers import game_after_setup


def outcomes(s, a):
    outs = np.empty(CH.MAX_OUTCOMES, np.int64)
    probs = np.empty(CH.MAX_OUTCOMES)
    k = CH.chance_outcomes(s, a, outs, probs)
    return dict(zip(outs[:k].tolist(), probs[:k].tolist()))


def pre_roll(sevens, turn):
    s = game_after_setup(seed=3, sevens_rule=sevens)
    s[L.TURN] = turn
    assert int(s[L.PHASE]) == L.PH_PRE_ROLL
    return s


@pytest.mark.parametrize("sevens,turn,seven", [(0, 1, True), (1, 1, False), (1, 8, False), (1, 9, True),
                                               (2, 40, False)])
def test_the_dice_follow_the_sevens_rule(sevens, turn, seven):
    s = pre_roll(sevens, turn)  # 4 players: round 2 ends with turn 8
    odds = outcomes(s, A.ROLL)
    assert (7 in odds) == seven and sum(odds.values()) == pytest.approx(1.0)
    assert set(odds) == set(range(2, 13)) - (set() if seven else {7})
    # the rules' own random rolls, counted: the same odds (a slow, obvious reference)
    counts = {}
    for k in range(3000):
        c = s.copy()
        c[L.RNG] = k * 7919 + 1
        apply_action(c, A.ROLL, FROM_RNG)
        counts[int(c[L.LAST_ROLL])] = counts.get(int(c[L.LAST_ROLL]), 0) + 1
    assert set(counts) <= set(odds)
    for t, p in odds.items():
        assert abs(counts.get(t, 0) / 3000 - p) < 0.035, (t, counts.get(t, 0) / 3000, p)


def test_draws_and_steals_come_from_the_deck_and_the_victims_hand():
    s = game_after_setup(seed=5)
    odds = outcomes(s, A.BUY_DEV)
    deck = L.view(s, "deck")
    assert odds == {t: deck[t] / deck.sum() for t in range(L.N_DEV) if deck[t] > 0}
    mover, n = int(s[L.DECIDER]), int(s[L.OPT_PLAYERS])
    robber = A.robber_action(0, 1)
    victim = A.robber_victim_seat(robber, mover, n)
    hand = L.view(s, "hand")[victim]
    assert outcomes(s, robber) == {r: hand[r] / hand.sum() for r in range(L.N_RES) if hand[r] > 0}
    assert outcomes(s, A.robber_action(0, 0)) == {} and outcomes(s, A.END_TURN) == {}
    assert CH.chance_kind(s, robber) == CH.CHANCE_STEAL and CH.chance_kind(s, A.robber_action(0, 0)) == CH.CHANCE_NONE


def test_the_value_network_and_search_expand_the_same_outcomes():
    """The value network's one-ply value of a roll evaluates one leaf per outcome the
    chance model gives: 10 under a sevens rule that re-rolls, 11 otherwise."""
    from catan_env.learned.network import load_network
    from catan_env.learned import value as V
    assert V.chance_outcomes is CH.chance_outcomes and V.MAX_OUTCOMES == CH.MAX_OUTCOMES
    net = load_network()
    for sevens, leaves in ((0, 11), (2, 10)):
        s = pre_roll(sevens, 12)
        ev = net.evaluator()
        root = int(s[L.DECIDER])
        V.set_base(ev, s, root)  # the leaves' first layer from the root's (as a decision values them)
        value = V.one_ply_value(ev, s, A.ROLL, root, np.empty_like(s))
        assert ev.rel[L.MAX_PLAYERS] == leaves
        expected = 0.0
        for t, p in outcomes(s, A.ROLL).items():
            after = s.copy()
            G.step(after, A.ROLL, outcome=t)
            expected += p * net.win_probs(after, root)[root]
        assert value == pytest.approx(expected, abs=1e-5)


def test_the_game_reads_each_moves_outcome_through_the_chance_model():
    s = game_after_setup(seed=7)
    G.step(s, A.ROLL, outcome=8)
    assert G.chance_outcome(s, A.ROLL) == 8 and G.chance_outcome(s, A.END_TURN) is None
