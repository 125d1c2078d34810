"""Recording any game: one meaning of a seed across env, core and records; a record of
the game so far from either env; arena records; atomic, validated saves."""
import json
import os

import numpy as np
import pytest

import catan_env
from catan_env import core as C
from catan_env.core import actions as A
from catan_env.gym_env import CatanGymEnv


def _play_aec(env, steps, seed=0):
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


@pytest.mark.parametrize("options", [{}, {"players": 3, "board": "beginner"}])
def test_a_seed_means_the_same_game_everywhere(options):
    env = catan_env.raw_env(**options)
    env.reset(seed=123)
    rec = C.GameRecord(C.make_options(**options), seed=123)
    core = C.new_game(C.make_options(**options), seed=123)
    assert np.array_equal(env.game_state, rec.initial_state())
    assert np.array_equal(env.game_state, core)
    gym = CatanGymEnv(**options)
    gym.reset(seed=123)
    # the gym env's opponents may already have moved; its record starts from the same game
    assert np.array_equal(gym.record().initial_state(), core)


def test_env_record_replays_the_game_so_far_exactly(tmp_path):
    env = catan_env.raw_env(players=4)
    env.reset(seed=7)
    _play_aec(env, 1500)
    rec = env.record()
    assert len(rec.actions) == 1500 or C.is_over(env.game_state)
    chance = [(a, f) for a, f in rec.actions if a == A.ROLL or a == A.BUY_DEV
              or (A.is_robber(a) and A.robber_victim(a))]
    assert chance and all(f is not None for _, f in chance)  # chance outcomes recorded
    assert np.array_equal(rec.final_state(), env.game_state)
    path = tmp_path / "g.json"
    C.GameRecord.from_env(env).save(path)
    back = C.GameRecord.load(path)
    assert np.array_equal(back.final_state(), env.game_state)
    # the outcomes were drawn by the game's RNG: replay draws them again and checks them
    d = json.loads(path.read_text())
    assert d["chance"] == "rng"
    i = next(i for i, (a, f) in enumerate(d["actions"]) if a == A.ROLL)
    d["actions"][i][1] = 7 if d["actions"][i][1] != 7 else 8
    with pytest.raises(C.CorruptStateError, match=f"action #{i} .*RNG gives"):
        C.GameRecord.from_dict(d)


def test_gym_env_record_includes_opponents_moves():
    g = CatanGymEnv(opponents=["random", "random", "random"])
    g.reset(seed=5)
    rng = np.random.default_rng(1)
    for _ in range(300):
        _, _, term, trunc, _ = g.step(int(rng.choice(np.flatnonzero(g.action_masks()))))
        if term or trunc:
            break
    rec = g.record()
    assert np.array_equal(rec.final_state(), g.game_state)
    assert len(rec.actions) > 300  # the opponents' actions are in it too


def test_arena_saves_one_record_per_game(tmp_path):
    from catan_env.agents.arena import run_tournament
    out = tmp_path / "games"
    results = run_tournament(["jsettlers", "random", "random"], 3, workers=1, seed=2,
                             progress=False, save_games=str(out))
    files = sorted(os.listdir(out))
    assert files == ["game-00001.json", "game-00002.json", "game-00003.json"]
    for name, res in zip(files, results):
        final = C.GameRecord.load(out / name).final_state()
        assert C.victory_points(final) == res["vp"] and C.winner(final) == res["winner"]


def test_save_is_atomic_and_validated(tmp_path):
    env = catan_env.raw_env()
    env.reset(seed=3)
    _play_aec(env, 50)
    good = env.record()
    path = tmp_path / "g.json"
    good.save(path)
    before = path.read_text()
    bad = env.record()
    bad.append(A.END_TURN)  # not legal where the game stands (or after it)
    bad.append(A.END_TURN)
    with pytest.raises(C.CorruptStateError, match="cannot be replayed"):
        bad.save(path)
    assert path.read_text() == before                       # the old file is intact
    with pytest.raises(C.CorruptStateError):
        bad.save(tmp_path / "new.json")
    assert not (tmp_path / "new.json").exists()             # nothing written
    assert sorted(os.listdir(tmp_path)) == ["g.json"]       # no temporary left over
    assert json.loads(before)["final"]["steps"] == len(good.actions)
