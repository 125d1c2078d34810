"""Determinism, determinization, observations (no peeking) and saved games."""
import json
import subprocess
import sys

import numpy as np
import pytest

from catan_env import core as C
from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core.fuzz import invariant_code
from catan_env.core.invariants import problems
from catan_env.core.observe import VECTOR_SIZE


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
                sl = slice(L.HAND + obs * 5, L.HAND + obs * 5 + 5)
                assert np.array_equal(d[sl], s[sl])
                dl = slice(L.DEV_HAND + obs * 5, L.DEV_HAND + obs * 5 + 5)
                assert np.array_equal(d[dl], s[dl])
                # the mask of the decider is the same when the decider is the observer
                if C.decider(s) == obs:
                    assert np.array_equal(C.legal_mask(d), C.legal_mask(s))


def test_determinize_resamples_hidden_parts():
    s, _ = play(3, 1200)
    assert not C.is_over(s)
    obs = 0
    hands = set()
    rngs = set()
    for seed in range(30):
        d = C.determinize(s, obs, seed)
        hands.add(tuple(d[L.HAND:L.HAND + 20]))
        rngs.add(int(d[L.RNG]))
    unknown = s[L.KNOW + obs * 24:L.KNOW + obs * 24 + 24].reshape(4, 6)[:, 5].sum()
    if unknown > 1:
        assert len(hands) > 1
    assert len(rngs) == 30  # the future dice are reseeded


def test_observation_hides_private_information():
    s, _ = play(4, 900)
    # seat 2 holds a hidden development card: change its type, nothing else
    t = s.copy()
    t[L.DEV_HAND + 10 + L.KNIGHT] += 1
    t[L.DECK + L.KNIGHT] -= 1
    u = s.copy()
    u[L.DEV_HAND + 10 + L.MONOPOLY] += 1
    u[L.DECK + L.MONOPOLY] -= 1
    assert np.array_equal(C.observe(t, 0), C.observe(u, 0))
    assert np.array_equal(C.observe(t, 1), C.observe(u, 1))
    assert not np.array_equal(C.observe(t, 2), C.observe(u, 2))
    # seat 2's unknown resource cards: a different composition is invisible to seat 0
    d = C.determinize(s, 0, 123)
    assert np.array_equal(C.observe(d, 0), C.observe(s, 0))
    if not np.array_equal(d[L.HAND + 10:L.HAND + 15], s[L.HAND + 10:L.HAND + 15]):
        assert not np.array_equal(C.observe(d, 2), C.observe(s, 2))


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
    n = __import__("catan_env.core.rules", fromlist=["x"]).legal_actions(s, buf)
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
            know = s[L.KNOW:L.KNOW + 96].reshape(4, 4, 6)
            hands = s[L.HAND:L.HAND + 20].reshape(4, 5)
            for o in range(4):
                for t in range(4):
                    assert know[o, t, 5] == 0
                    assert (know[o, t, :5] == hands[t]).all()
