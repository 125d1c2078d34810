"""Determinism, determinization, observations (no peeking) and saved games."""
import json
import subprocess
import sys

import numpy as np
import pytest

from catan_env import core as C
from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core import rules as R
from catan_env.core.fuzz import invariant_code
from catan_env.core.invariants import problems
from catan_env.core.observe import VECTOR_SIZE
from catan_env.infoset import InfoSet


def play(seed, steps, players=4, choose_seed=0):
    s = C.new_game(seed=seed, players=players)
    rng = np.random.default_rng(choose_seed)
    actions = []
    for _ in range(steps):
        if C.is_over(s):
            break
        a = int(rng.choice(C.legal_actions(s)))
        actions.append(a)
        C.step(s, a)
    return s, actions


def test_same_seed_same_game():
    a, acts_a = play(5, 1500)
    b, acts_b = play(5, 1500)
    assert np.array_equal(a, b) and acts_a == acts_b
    c, _ = play(6, 1500)
    assert not np.array_equal(a, c)


def test_same_seed_same_game_across_processes():
    code = ("import numpy as np, hashlib\n"
            "from catan_env.core.playout import random_games\n"
            "from catan_env import core as C\n"
            "s = C.new_game(seed=42)\n"
            "print(C.playout(s, 'random', seed=9), random_games(3, 4, 1, 0, 5, 300))\n")
    outs = {subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           check=True).stdout for _ in range(2)}
    s = C.new_game(seed=42)
    from catan_env.core.playout import random_games
    here = f"{C.playout(s, 'random', seed=9)} {random_games(3, 4, 1, 0, 5, 300)}\n"
    assert outs == {here}


def _mid_game_states():
    for seed in range(6):
        s, _ = play(seed, 400 + 150 * seed)
        if not C.is_over(s):
            yield s


def test_determinize_keeps_observation_and_legality():
    for s in _mid_game_states():
        n = C.n_players(s)
        for obs in range(n):
            o_vec = C.observe(s, obs)
            o_planes = C.observe(s, obs, "planes")
            for seed in range(5):
                d = C.determinize(s, obs, seed)
                assert np.array_equal(C.observe(d, obs), o_vec)
                assert np.array_equal(C.observe(d, obs, "planes"), o_planes)
                assert problems(d) == [] and invariant_code(d) == 0
                # the observer's own hand and cards are untouched
                assert np.array_equal(L.view(d, "hand")[obs], L.view(s, "hand")[obs])
                assert np.array_equal(L.view(d, "dev_hand")[obs], L.view(s, "dev_hand")[obs])
                # the mask of the decider is the same when the decider is the observer
                if C.decider(s) == obs:
                    assert np.array_equal(C.legal_mask(d), C.legal_mask(s))


def _state_with_unknowns(observer=0, min_unknown=2):
    """A mid-game state in which observer cannot place cards of two or more opponents,
    of at least two resource types (so that resampling has a choice: the pool of unknown
    cards is dealt among the opponents holding them)."""
    for seed in range(60):
        s, _ = play(seed, 900)
        if C.is_over(s):
            continue
        know = L.view(s, "know")[observer]
        pool = (19 - L.view(s, "bank") - L.view(s, "hand")[observer]
                - sum(know[t, :L.N_RES] for t in range(4) if t != observer))
        if know[:, L.UNKNOWN].sum() >= min_unknown and (pool > 0).sum() >= 2 \
                and (know[:, L.UNKNOWN] > 0).sum() >= 2:
            return s
    raise AssertionError("no state with unknown cards found")


def test_determinize_resamples_hidden_parts():
    s = _state_with_unknowns()
    obs = 0
    assert L.view(s, "know")[obs, :, L.UNKNOWN].sum() > 1
    hands, rngs, devs = set(), set(), set()
    for seed in range(30):
        d = C.determinize(s, obs, seed)
        hands.add(tuple(L.view(d, "hand").ravel()))
        devs.add(tuple(L.view(d, "dev_hand").ravel()) + tuple(L.view(d, "deck")))
        rngs.add(int(d[L.RNG]))
        assert np.array_equal(L.view(d, "hand")[obs], L.view(s, "hand")[obs])
    assert len(hands) > 1          # unknown cards really are resampled
    assert len(rngs) == 30         # the future dice are reseeded
    if L.view(s, "dev_hand")[1:].sum() > 0:
        assert len(devs) > 1


def _steal_pair(thief=1, victim=2):
    """Two true states that differ only in which card thief stole from victim: seat 0
    (neither) cannot tell them apart."""
    for seed in range(50):
        s = C.new_game(seed=seed)
        rng = np.random.default_rng(seed)
        while not C.is_over(s) and not (s[L.PHASE] == L.PH_MOVE_ROBBER and C.decider(s) == thief
                                        and (L.view(s, "hand")[victim] > 0).sum() >= 2):
            C.step(s, int(rng.choice(C.legal_actions(s))))
        if C.is_over(s):
            continue
        for a in C.legal_actions(s):
            if not A.is_robber(a):
                continue
            k = A.robber_victim(a)
            if k == 0 or (thief + k) % 4 != victim:
                continue
            held = np.flatnonzero(L.view(s, "hand")[victim])
            if len(held) < 2:
                continue
            x, y = s.copy(), s.copy()
            C.step(x, int(a), int(held[0]))
            C.step(y, int(a), int(held[1]))
            return x, y
    raise AssertionError("no steal between seats 1 and 2 found")


def test_determinize_survives_knowledge_that_claims_too_many_cards():
    """A mirrored game (a bridge to another server) can hold knowledge that claims more
    cards of a kind than are left unplaced: determinizing deals none of that kind to the
    unknown hands instead of failing (a JSettlers game failed on it once)."""
    s = _state_with_unknowns()
    observer, other = 0, 1
    s[L.know_i(observer, other, 0)] += 25  # more brick known in seat 1's hand than exist
    s[L.DECK] -= 30  # and a deck that claims fewer cards than were drawn
    for seed in range(5):
        d = C.determinize(s, observer, seed)
        hands = L.view(d, "hand")
        assert np.array_equal(hands[observer], L.view(s, "hand")[observer])
        assert (hands >= 0).all() and (L.view(d, "deck") >= 0).all() and (L.view(d, "dev_hand") >= 0).all()
        for t in range(1, 4):  # each opponent holds at least what the observer knows it holds
            assert (hands[t] >= L.view(s, "know")[observer, t, :L.N_RES]).all()


def test_determinization_does_not_reveal_a_steal_between_others():
    """The steal case: seat 1 robs seat 2.  Seat 2's row about seat 1 names the stolen
    card in the truth; in seat 0's determinizations nothing may depend on which card."""
    x, y = _steal_pair()
    know = L.view(x, "know")
    assert not np.array_equal(L.view(x, "know")[2, 1], L.view(y, "know")[2, 1])  # truths differ
    assert np.array_equal(C.observe(x, 0), C.observe(y, 0))                      # seat 0 can't tell
    fields = {}
    for seed in range(200):
        dx, dy = C.determinize(x, 0, seed), C.determinize(y, 0, seed)
        assert np.array_equal(dx, dy), "a determinization depends on hidden truth"
        assert problems(dx) == []
        for name in ("hand", "know", "dev_hand", "deck"):
            fields.setdefault(name, []).append(L.view(dx, name).copy())
    # ... and so every field has the same distribution; the rebuilt rows are consistent
    # with the public history: seat 2's row about seat 1 is never more than the public one
    rows = np.array([k[2, 1] for k in fields["know"]])
    public = know[L.PUBLIC, 1]
    assert (rows[:, :L.N_RES] <= public[:L.N_RES]).all()
    ix, iy = InfoSet(x, 0, secret_seed=5), InfoSet(y, 0, secret_seed=5)
    assert np.array_equal(ix.public_state(), iy.public_state())
    assert np.array_equal(ix.determinize(3), iy.determinize(3))


@pytest.mark.parametrize("seed", range(4))
def test_infoset_depends_only_on_what_the_seat_knows(seed):
    """The InfoSet docstring's claim, for every kind of hidden difference."""
    from helpers import hidden_variants
    rng = np.random.default_rng(seed)
    s = _state_with_unknowns(observer=seed % 4, min_unknown=1)
    seat = seed % 4
    labels = set()
    for label, x in hidden_variants(s, seat, rng):
        assert problems(x) == [], label
        assert not np.array_equal(x, s)
        assert np.array_equal(C.observe(x, seat), C.observe(s, seat)), label
        for secret in (1, 2):
            a, b = InfoSet(s, seat, secret), InfoSet(x, seat, secret)
            assert np.array_equal(a._view, b._view), label
            assert np.array_equal(a.determinize(7), b.determinize(7)), label
        labels.add(label)
    assert {"rng", "hand make-up"} <= labels


def test_public_state_exposes_public_counts():
    s, _ = play(4, 900)
    info = InfoSet(s, 0, secret_seed=1)
    pub = info.public_state()
    assert info.deck_size() == int(L.view(s, "deck").sum())
    assert (L.view(pub, "deck") == -1).all() and (L.view(pub, "hand")[1:4] == -1).all()
    assert np.array_equal(L.view(pub, "hand")[0], L.view(s, "hand")[0])
    assert info.hand_sizes() == [int(x) for x in L.view(s, "hand").sum(axis=1)]
    assert np.array_equal(info.bank(), L.view(s, "bank"))
    assert np.array_equal(info.dev_used(), L.view(s, "dev_used"))
    assert info.known_cards_public(2)[1] == int(L.view(s, "know")[L.PUBLIC, 2, L.UNKNOWN])


def test_observation_hides_private_information():
    s, _ = play(4, 900)
    # seat 2 holds a hidden development card: change its type, nothing else
    t = s.copy()
    L.view(t, "dev_hand")[2, L.KNIGHT] += 1
    t[L.DECK + L.KNIGHT] -= 1
    u = s.copy()
    L.view(u, "dev_hand")[2, L.MONOPOLY] += 1
    u[L.DECK + L.MONOPOLY] -= 1
    assert np.array_equal(C.observe(t, 0), C.observe(u, 0))
    assert np.array_equal(C.observe(t, 1), C.observe(u, 1))
    assert not np.array_equal(C.observe(t, 2), C.observe(u, 2))
    # seat 2's unknown resource cards: a different composition is invisible to seat 0
    s = _state_with_unknowns()
    target = int(np.argmax(L.view(s, "know")[0, :, L.UNKNOWN]))
    d = next(d for d in (C.determinize(s, 0, k) for k in range(50))
             if not np.array_equal(L.view(d, "hand")[target], L.view(s, "hand")[target]))
    assert np.array_equal(C.observe(d, 0), C.observe(s, 0))
    assert not np.array_equal(C.observe(d, target), C.observe(s, target))


def test_observation_layout_and_seat_relativity():
    s, _ = play(1, 300)
    v0 = C.observe(s, 0)
    assert v0.shape == (VECTOR_SIZE,) and v0.dtype == np.float32
    p = C.observe(s, 1, "planes")
    assert p.shape == (C.PLANES, C.GRID_H, C.GRID_W)
    # settlements of seat 1 appear as "relative seat 0" in seat 1's planes
    owned = [v for v in range(54) if s[L.V_OWNER + v] == 1 and s[L.V_LEVEL + v] == 1]
    from catan_env.core.topology import VERTEX_CELL
    for v in owned:
        y, x = VERTEX_CELL[v]
        assert p[8, y, x] == 1.0
    # the board part of the vector is the same for every observer up to seat rotation
    assert np.array_equal(C.observe(s, 0)[:19 * 9], C.observe(s, 2)[:19 * 9])
    with pytest.raises(ValueError, match="kind"):
        C.observe(s, 0, "pixels")


def test_record_round_trip_and_corruption(tmp_path):
    s = C.new_game(seed=8)
    rec = C.GameRecord(C.options_of(s), 8)
    rng = np.random.default_rng(0)
    for i in range(600):
        if C.is_over(s):
            break
        a = int(rng.choice(C.legal_actions(s)))
        forced = 8 if (a == A.ROLL and i % 5 == 0) else None
        C.step(s, a, forced)
        rec.append(a, forced)
    path = tmp_path / "g.json"
    rec.save(path)
    back = C.GameRecord.load(path)
    assert np.array_equal(back.final_state(), s)
    d = json.loads(path.read_text())
    d["actions"][3][0] = A.END_TURN  # illegal in set-up
    with pytest.raises(C.CorruptStateError, match="action #3"):
        C.GameRecord.from_dict(d)
    d = json.loads(path.read_text())
    d["final"]["digest"] = "0" * 64
    with pytest.raises(C.CorruptStateError, match="digest"):
        C.GameRecord.from_dict(d)
    d = json.loads(path.read_text())
    d["final"]["vp"] = [v + 1 for v in d["final"]["vp"]]
    with pytest.raises(C.CorruptStateError, match="vp"):
        C.GameRecord.from_dict(d)
    # a version-1 record (raw-state checksum, layout-dependent) loads on steps, VP, winner
    d = json.loads(path.read_text())
    d["version"] = 1
    d["final"]["checksum"] = "f" * 64
    del d["final"]["digest"]
    assert np.array_equal(C.GameRecord.from_dict(d).final_state(), s)
    d["final"]["steps"] += 1
    with pytest.raises(C.CorruptStateError, match="steps"):
        C.GameRecord.from_dict(d)
    d = json.loads(path.read_text())
    d["version"] = 99
    with pytest.raises(C.CorruptStateError, match="version"):
        C.GameRecord.from_dict(d)
    with pytest.raises(C.CorruptStateError, match="JSON"):
        C.GameRecord.from_json("{")
    d = json.loads(path.read_text())
    d["board"]["terrain"][0] = "lava"
    with pytest.raises(C.CorruptStateError, match="lava"):
        C.GameRecord.from_dict(d)


def test_raw_state_save_load(tmp_path):
    s, _ = play(2, 500)
    C.save_state(tmp_path / "s.npy", s)
    assert np.array_equal(C.load_state(tmp_path / "s.npy"), s)
    bad = s.copy()
    bad[L.BANK] += 1
    C.save_state(tmp_path / "b.npy", bad)
    with pytest.raises(C.CorruptStateError, match="brick"):
        C.load_state(tmp_path / "b.npy")
    np.save(tmp_path / "w.npy", s[:10])
    with pytest.raises(C.CorruptStateError, match="expected int64"):
        C.load_state(tmp_path / "w.npy")


@pytest.mark.parametrize("policy", ["random", "pruning", "weighted"])
def test_playouts_finish_and_are_seeded(policy):
    s, _ = play(3, 200)
    results = [C.playout(s, policy, seed=k, max_turns=400) for k in range(10)]
    for vp, win in results:
        assert len(vp) == 4
        if win >= 0:
            assert vp[win] >= 10
    assert C.playout(s, policy, seed=1) == C.playout(s, policy, seed=1)
    assert sum(win >= 0 for _, win in results) >= 5
    with pytest.raises(ValueError, match="policy"):
        C.playout(s, "greedy")


def test_pruning_policy_builds_cities_first():
    from catan_env.core.playout import POLICY_PRUNING, choose_action
    from helpers import game_after_setup, give, quiet_roll
    s = game_after_setup()
    quiet_roll(s)
    give(s, 0, grain=4, ore=3, brick=1, lumber=1, wool=1)
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    n = R.legal_actions(s, buf)
    rng = np.zeros(L.STATE_SIZE, dtype=np.int64)
    picks = {int(choose_action(s, buf, n, POLICY_PRUNING, rng)) for _ in range(50)}
    assert picks and all(A.CITY0 <= a < A.BUY_DEV for a in picks)


def test_knowledge_is_exact_when_every_event_is_public():
    """Without steals (no 7s, no knights) every card movement is public, so every seat
    knows every hand exactly; with steals, knowledge stays a true lower bound."""
    rng = np.random.default_rng(5)
    for seed in range(3):
        s = C.new_game(seed=seed)
        for _ in range(1500):
            if C.is_over(s):
                break
            acts = [a for a in C.legal_actions(s) if a != A.PLAY_KNIGHT]
            a = int(rng.choice(acts))
            outcome = int(rng.choice([2, 3, 4, 5, 6, 8, 9, 10, 11, 12])) if a == A.ROLL else None
            C.step(s, a, outcome)
            know = L.view(s, "know")
            hands = L.view(s, "hand")
            for o in list(range(4)) + [L.PUBLIC]:
                for t in range(4):
                    assert know[o, t, L.UNKNOWN] == 0
                    assert (know[o, t, :L.N_RES] == hands[t]).all()
