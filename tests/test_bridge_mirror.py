"""The mirror pieces the JSettlers bridge added to the bridges' shared mirror: discards a
seat does not see (guessed by resource, changed like any guess), the forget edit that
keeps every knowledge row a true lower bound whatever the hidden discards were, the
grant of production a never-short bank pays, and the retype that may swap with a bank
only where the server never shows it."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import catan_env.core as C
from catan_env.apps.bridge.edits import apply_edit
from catan_env.apps.bridge.mirror import GUESS_DISCARD, Entry, apply_entry
from catan_env.core import actions as A
from catan_env.core import edit as E
from catan_env.core import layout as L
from catan_env.core import rules as R
from catan_env.core.options import make_options
from helpers import give, hand, play_random, roll, take_all


def _discard_state(seed):
    """A 4-player game in the discard phase with at least one seat owing cards."""
    s = C.new_game(make_options(players=4), seed=seed)
    rng = np.random.default_rng(seed)
    play_random(s, 40, rng)  # through the set-up
    while s[L.PHASE] != L.PH_PRE_ROLL:
        C.step(s, int(rng.choice(C.legal_actions(s))))
    for p in range(4):
        give(s, p, brick=int(rng.integers(0, 4)), lumber=int(rng.integers(0, 4)), wool=int(rng.integers(0, 4)),
             grain=int(rng.integers(0, 4)), ore=int(rng.integers(0, 4)))
    give(s, int(s[L.TURN_PLAYER]), ore=8)
    roll(s, 7)
    assert s[L.PHASE] == L.PH_DISCARD
    return s


def _knowledge_is_a_lower_bound(truth, s, p):
    for o in list(range(4)) + [L.PUBLIC]:
        if o == p:
            continue
        row = [int(s[L.know_i(o, p, r)]) for r in range(L.KNOW_W)]
        assert sum(row) == sum(hand(truth, p))
        for r in range(L.N_RES):
            assert row[r] <= hand(truth, p)[r], (o, p, r, row, hand(truth, p))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.data())
def test_forgetting_keeps_knowledge_true_whatever_was_discarded(seed, data):
    """The mirror discards its guesses; the truth discards other cards: after forget,
    every other observer's row of the mirror is a lower bound of the true hand."""
    truth = _discard_state(seed)
    mirror = truth.copy()
    while truth[L.PHASE] == L.PH_DISCARD:
        p = int(truth[L.DECIDER])
        k = int(truth[L.DISCARDS + p])
        E.forget_cards(mirror, p, k)
        for _ in range(k):  # each side discards its own choice of types
            real = [r for r in range(L.N_RES) if truth[L.hand_i(p, r)] > 0]
            R.apply_action(truth, A.DISCARD0 + data.draw(st.sampled_from(real)), -1)
            guess = [r for r in range(L.N_RES) if mirror[L.hand_i(p, r)] > 0]
            R.apply_action(mirror, A.DISCARD0 + data.draw(st.sampled_from(guess)), -1)
        _knowledge_is_a_lower_bound(truth, mirror, p)
        assert sum(hand(mirror, p)) == sum(hand(truth, p))


def test_without_forgetting_the_mirror_would_claim_cards_that_are_gone():
    """The check above can fail: discards applied as public overclaim what others know."""
    s = _discard_state(3)
    p = int(s[L.DECIDER])
    take_all(s, p)
    give(s, p, brick=4, ore=4)
    s[L.DISCARDS + p] = 4
    for o in range(4):  # everyone knows p's 4 brick and 4 ore
        for r in range(L.KNOW_W):
            s[L.know_i(o, p, r)] = hand(s, p)[r] if r < L.N_RES else 0
    truth, mirror = s.copy(), s.copy()
    for _ in range(4):
        R.apply_action(truth, A.DISCARD0 + L.BRICK, -1)
        R.apply_action(mirror, A.DISCARD0 + L.ORE, -1)  # a wrong guess, shown as public
    with pytest.raises(AssertionError):
        _knowledge_is_a_lower_bound(truth, mirror, p)


def test_the_grant_pays_what_a_short_bank_lacks():
    s = C.new_game(make_options(players=4), seed=1)
    s[L.BANK + L.ORE] = 1
    before = hand(s, 2)[L.ORE]
    assert apply_edit(s, ("grant", 2, [0, 0, 0, 0, 3]))
    assert hand(s, 2)[L.ORE] == before + 3 and s[L.BANK + L.ORE] == 0
    assert all(s[L.know_i(o, 2, L.ORE)] >= 3 for o in range(4))  # a public gain


def test_a_retype_swaps_with_the_bank_only_where_the_bank_is_hidden():
    s = C.new_game(make_options(players=4), seed=1)
    for p in range(4):
        take_all(s, p)
    give(s, 1, brick=2)
    for o in range(4):  # seat 0 cannot place seat 1's cards
        s[L.know_i(o, 1, L.BRICK)] = 0 if o == 0 else 2
        s[L.know_i(o, 1, L.UNKNOWN)] = 2 if o == 0 else 0
    shown = s.copy()
    assert not apply_edit(shown, ("retype", 0, 1, L.ORE, (0,) * L.N_RES, False))  # no seat holds an ore
    hidden = s.copy()
    bank_ore = int(hidden[L.BANK + L.ORE])
    assert apply_edit(hidden, ("retype", 0, 1, L.ORE, (0,) * L.N_RES, True))
    assert hand(hidden, 1) == [1, 0, 0, 0, 1] and hidden[L.BANK + L.ORE] == bank_ore - 1
    kept = s.copy()  # a card the event spends is never the one retyped
    assert not apply_edit(kept, ("retype", 0, 1, L.ORE, (2, 0, 0, 0, 0), True))


def test_a_monopolys_counts_lower_a_guess_into_the_hidden_bank_only():
    """Seat 1 is announced with one brick fewer than the guesses gave it, and the thief
    (seat 3) holds no card seat 0 cannot place: only a hidden bank can take the brick, and
    the unplaced card becomes another type; every count and resource total is kept."""
    s = C.new_game(make_options(players=4), seed=1)
    for p in range(4):
        take_all(s, p)
    give(s, 1, brick=2, ore=1)
    give(s, 3, wool=2)
    for o in range(4):  # seat 0 cannot place one of seat 1's bricks; the thief's cards are known
        s[L.know_i(o, 1, L.BRICK)] = 1 if o == 0 else 2
        s[L.know_i(o, 1, L.UNKNOWN)] = 1 if o == 0 else 0
        s[L.know_i(o, 1, L.ORE)] = 1
        s[L.know_i(o, 3, L.WOOL)] = 2
    counts = {0: 0, 1: 1, 2: 0}
    shown = s.copy()
    assert not apply_edit(shown, ("resync", 0, L.BRICK, counts, 3, False))
    hidden = s.copy()
    assert apply_edit(hidden, ("resync", 0, L.BRICK, counts, 3, True))
    assert hand(hidden, 1)[L.BRICK] == 1 and sum(hand(hidden, 1)) == 3 and hand(hidden, 3) == [0, 0, 2, 0, 0]
    assert hidden[L.BANK + L.BRICK] == s[L.BANK + L.BRICK] + 1
    in_play = lambda x: [sum(hand(x, p)[r] for p in range(4)) + int(x[L.BANK + r]) for r in range(L.N_RES)]
    assert in_play(hidden) == in_play(s)
    for o in range(4):  # every knowledge row still a lower bound summing to the hand (unknown counted)
        for p in range(4):
            row = [int(hidden[L.know_i(o, p, r)]) for r in range(L.KNOW_W)]
            assert sum(row) == sum(hand(hidden, p)) and all(row[r] <= hand(hidden, p)[r] for r in range(L.N_RES))
    assert hidden[L.know_i(1, 1, L.BRICK)] == 1  # the others had placed both bricks: one is gone
    # a thief with a card seat 0 cannot place takes the brick before the bank does
    give(s, 3, grain=1)
    for o in range(4):
        s[L.know_i(o, 3, L.UNKNOWN)] = 1 if o == 0 else 0
        s[L.know_i(o, 3, L.GRAIN)] = 0 if o == 0 else 1
    thief = s.copy()
    assert apply_edit(thief, ("resync", 0, L.BRICK, counts, 3, True))
    assert hand(thief, 3) == [1, 0, 2, 0, 0] and thief[L.BANK + L.BRICK] == s[L.BANK + L.BRICK]


def test_a_discard_guess_is_its_resource():
    s = _discard_state(7)
    p = int(s[L.DECIDER])
    r = next(r for r in range(L.N_RES) if s[L.hand_i(p, r)] > 0)
    t = s.copy()
    assert apply_entry(t, Entry([[A.DISCARD0, r]], guesses={0: GUESS_DISCARD}))
    assert hand(t, p)[r] == hand(s, p)[r] - 1
    absent = next((x for x in range(L.N_RES) if s[L.hand_i(p, x)] == 0), None)
    if absent is not None:
        assert not apply_entry(s.copy(), Entry([[A.DISCARD0, absent]], guesses={0: GUESS_DISCARD}))
        fixed = Entry([[A.DISCARD0, absent]], guesses={0: GUESS_DISCARD})
        assert apply_entry(s.copy(), fixed, reguess=True) and fixed.actions[0][1] != absent


def test_a_never_short_bank_leaves_a_state_the_agent_can_determinize():
    """More than 19 ore in hands (granted by a JSettlers bank): the agent's copy loses the
    excess from cards our seat cannot place, so a determinization deals from a real pool
    (without it, the deal would read past its pool); the mirror keeps the true counts."""
    from catan_env.apps.bridge.seat import within_the_deck
    from catan_env.infoset import InfoSet
    s = C.new_game(make_options(players=4), seed=2)
    for p in range(4):
        take_all(s, p)
    give(s, 0, ore=5)
    give(s, 1, ore=8, grain=1)
    give(s, 2, ore=6)
    assert apply_edit(s, ("grant", 3, [0, 0, 0, 0, 3]))  # the core's bank had 0 ore left
    for t in (1, 2):  # seat 0 has seen none of seat 1's or 2's cards
        for r in range(L.N_RES):
            s[L.know_i(0, t, r)] = 0
        s[L.know_i(0, t, L.UNKNOWN)] = sum(hand(s, t))
    assert sum(hand(s, p)[L.ORE] for p in range(4)) == 22
    fixed = within_the_deck(s, 0)
    assert sum(hand(fixed, p)[L.ORE] for p in range(4)) + fixed[L.BANK + L.ORE] == 19
    assert hand(fixed, 0) == hand(s, 0) and hand(fixed, 3) == hand(s, 3)  # ours and the known
    for o in list(range(4)) + [L.PUBLIC]:
        for t in range(4):
            row = [int(fixed[L.know_i(o, t, r)]) for r in range(L.KNOW_W)]
            assert sum(row) == sum(hand(fixed, t))
            assert all(row[r] <= hand(fixed, t)[r] for r in range(L.N_RES))
    for seed in range(20):
        d = InfoSet(fixed, 0, seed).determinize(seed)
        assert [sum(hand(d, t)) for t in range(4)] == [sum(hand(fixed, t)) for t in range(4)]
    assert within_the_deck(fixed, 0) is fixed  # nothing to change
