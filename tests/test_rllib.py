"""RLlib glue (runs only where ray[rllib] is installed: it needs gymnasium 1.2.2, so CI's
environment skips it; run it in an environment made with the [rllib] extra)."""
import numpy as np
import pytest

pytest.importorskip("ray.rllib")

from catan_env.wrappers.rllib import ppo_config, rllib_env  # noqa: E402


def test_rllib_env_plays_a_game_with_masks():
    env = rllib_env({"players": 3, "max_turns": 100})
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(0)
    done = False
    steps = 0
    while not done:
        (agent, o), = obs.items()
        assert set(o) == {"observations", "action_mask"} and o["action_mask"].dtype == np.float32
        assert env.observation_space[agent].contains(o)
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rew, term, trunc, info = env.step({agent: action})
        done = term["__all__"] or trunc["__all__"]
        steps += 1
    assert steps > 50
    assert isinstance(env.render(), (type(None), str, np.ndarray))


def test_ppo_trains_one_iteration():
    import ray
    from ray.tune.registry import register_env
    register_env("catan_test", rllib_env)
    ray.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True)
    try:
        config = ppo_config("catan_test", {"players": 2, "max_turns": 30},
                            train_batch_size_per_learner=256, minibatch_size=64, num_epochs=1)
        config = config.env_runners(num_env_runners=0)
        algo = config.build_algo()
        result = algo.train()
        assert "env_runners" in result
        algo.stop()
    finally:
        ray.shutdown()
