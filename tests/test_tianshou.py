"""Tianshou's own PettingZoo adapter on our env, and examples/train_tianshou.py (a
masked DQN seat against random seats).  Needs the [tianshou] extra: .ci/run runs this
file in its own environment, with skips forbidden."""
import importlib.util
import os

import numpy as np
import pytest

pytestmark = pytest.mark.extras
pytest.importorskip("tianshou")

import catan_env  # noqa: E402
from tianshou.data import Batch  # noqa: E402
from tianshou.env import PettingZooEnv  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def test_tianshou_pettingzoo_env_runs_a_game_with_masks():
    env = PettingZooEnv(catan_env.env(players=3, max_turns=200))
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    done = False
    steps = 0
    while not done:
        mask = np.asarray(obs["mask"], dtype=bool)
        assert mask.any() and obs["agent_id"] in env.agents
        obs, rewards, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
        done = term or trunc
        steps += 1
    assert steps > 50
    assert sorted(rewards) in ([-1, -1, 1], [0, 0, 0])


def test_train_tianshou_example_trains_and_its_policy_only_plays_legal_moves(tmp_path):
    spec = importlib.util.spec_from_file_location("train_tianshou", os.path.join(ROOT, "examples", "train_tianshou.py"))
    train = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train)
    out = train.main(["--epochs", "1", "--steps-per-epoch", "300", "--envs", "2", "--test-games", "2",
                      "--max-turns", "40", "--out", str(tmp_path / "dqn.pt")])
    win_rate, mean_vp = out["after"]
    assert out["env_steps"] >= 300 and 0.0 <= win_rate <= 1.0 and mean_vp >= 2
    assert (tmp_path / "dqn.pt").stat().st_size > 0
    policy = out["policy"]
    policy.eval()
    env = PettingZooEnv(catan_env.env(players=2, max_turns=60))
    obs, _ = env.reset(seed=4)
    for _ in range(300):
        mask = np.asarray(obs["mask"], dtype=bool)
        batch = Batch(obs=Batch(obs=np.asarray(obs["obs"])[None], mask=mask[None]), info={})
        action = int(policy(batch).act[0])
        assert mask[action], f"the trained policy chose a masked action {action}"
        obs, _, term, trunc, _ = env.step(action)
        if term or trunc:
            break
