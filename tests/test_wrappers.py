"""SB3 glue: vectorised envs train with MaskablePPO; a model plays as an agent."""
import numpy as np
import pytest

sb3_contrib = pytest.importorskip("sb3_contrib")

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks  # noqa: E402

from catan_env.agents.arena import play_game  # noqa: E402
from catan_env.wrappers.sb3 import PolicyAgent, make_vec_env  # noqa: E402


@pytest.mark.parametrize("vec", ["dummy", "subproc"])
def test_vec_env_trains_with_masks(vec):
    venv = make_vec_env(2, vec=vec, max_turns=50)
    try:
        masks = get_action_masks(venv)
        assert masks.shape == (2, 432) and masks.any(axis=1).all()
        model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, seed=0)
        model.learn(128)
    finally:
        venv.close()


def test_policy_agent_plays_legal_moves_in_the_arena_and_self_play():
    venv = make_vec_env(1, vec="dummy", max_turns=50)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, seed=0)
    agent = PolicyAgent(model)
    res = play_game([agent, "random", "random"], seed=1, max_turns=40)
    assert res["turns"] >= 1
    # a frozen snapshot as opponents inside the Gymnasium env
    selfplay = make_vec_env(1, vec="dummy", opponents=[agent, agent, agent], max_turns=30)
    obs = selfplay.reset()
    for _ in range(20):
        mask = get_action_masks(selfplay)
        action = [int(np.flatnonzero(mask[0])[0])]
        obs, rew, done, info = selfplay.step(action)
    with pytest.raises(ValueError, match="vec"):
        make_vec_env(1, vec="ray")


def test_policy_agent_opponents_in_subprocess_envs(tmp_path):
    """A model object (not picklable itself) and a saved model's path both serve as
    opponents in SubprocVecEnv workers, and play the same moves as in this process."""
    venv = make_vec_env(1, vec="dummy", max_turns=50)
    model = MaskablePPO("MlpPolicy", venv, n_steps=64, batch_size=64, seed=0)
    model.save(tmp_path / "snap.zip")
    for agent in (PolicyAgent(model), PolicyAgent(tmp_path / "snap.zip")):
        selfplay = make_vec_env(2, vec="subproc", opponents=[agent] * 3, max_turns=30)
        try:
            selfplay.reset()
            for _ in range(30):
                masks = get_action_masks(selfplay)
                selfplay.step([int(np.flatnonzero(m)[0]) for m in masks])
        finally:
            selfplay.close()
    import pickle
    clone = pickle.loads(pickle.dumps(PolicyAgent(model)))
    obs = {"observation": np.zeros(venv.observation_space.shape, np.float32),
           "action_mask": np.ones(432, np.int8)}
    assert clone.act(obs, None) == PolicyAgent(model).act(obs, None)
