"""RLlib (ray[rllib], new API stack) glue.  Install in its own environment: ray pins
gymnasium 1.2.2 (``pip install torch==2.13.0 && pip install -e ".[rllib]"``).

    from ray.tune.registry import register_env
    from catan_env.wrappers.rllib import rllib_env, ppo_config

    register_env("catan", rllib_env)
    algo = ppo_config(env="catan", env_config={"players": 4}).build()
    algo.train()

``rllib_env`` wraps the PettingZoo env with RLlib's ``PettingZooEnv`` after renaming the
observation keys to what RLlib's action-masking module expects (``"observations"`` and a
float32 ``"action_mask"``), and fixes ``render()`` (RLlib passes an argument PettingZoo's
render does not take).  ``ppo_config`` shares one policy across all seats (self-play)
with RLlib's example ``ActionMaskingTorchRLModule``.
"""
import numpy as np
from gymnasium import spaces
from pettingzoo.utils.wrappers import BaseWrapper

import catan_env


class RLlibObservations(BaseWrapper):
    """AEC wrapper: {"observation", "action_mask" int8} -> {"observations", "action_mask" float32}."""

    def __init__(self, env):
        super().__init__(env)
        self._spaces = {}
        for agent in env.possible_agents:
            inner = env.observation_space(agent)
            n = inner["action_mask"].shape[0]
            self._spaces[agent] = spaces.Dict({
                "observations": inner["observation"],
                "action_mask": spaces.Box(0.0, 1.0, (n,), np.float32)})

    def observation_space(self, agent):
        return self._spaces[agent]

    def observe(self, agent):
        obs = super().observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}


def rllib_env(config=None):
    """Env creator for ``ray.tune.registry.register_env``; config holds catan_env.env options."""
    from ray.rllib.env.wrappers.pettingzoo_env import PettingZooEnv

    class CatanRLlibEnv(PettingZooEnv):
        def render(self):
            return self.env.render()

    return CatanRLlibEnv(RLlibObservations(catan_env.env(**dict(config or {}))))


def ppo_config(env="catan", env_config=None, **training):
    """A PPOConfig sharing one masked policy among all seats (self-play)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.default_model_config import DefaultModelConfig  # noqa: F401
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    config = (PPOConfig()
              .environment(env, env_config=dict(env_config or {}))
              .multi_agent(policies={"shared"}, policy_mapping_fn=lambda agent_id, *a, **k: "shared")
              .rl_module(rl_module_spec=MultiRLModuleSpec(
                  rl_module_specs={"shared": RLModuleSpec(module_class=ActionMaskingTorchRLModule)})))
    if training:
        config = config.training(**training)
    return config
