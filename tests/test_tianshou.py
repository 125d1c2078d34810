"""Tianshou's own PettingZoo adapter on our env (runs where tianshou is installed; CI's
environment does not install it)."""
import numpy as np
import pytest

pytest.importorskip("tianshou")

import catan_env  # noqa: E402
from tianshou.env import PettingZooEnv  # noqa: E402


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
