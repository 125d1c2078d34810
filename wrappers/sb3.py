"""Stable-Baselines3 / sb3-contrib glue.

    from sb3_contrib import MaskablePPO
    from catan_env.wrappers.sb3 import make_vec_env, PolicyAgent

    venv = make_vec_env(8, opponents=["random"] * 3)          # SubprocVecEnv by default
    model = MaskablePPO("MlpPolicy", venv).learn(1_000_000)   # masks from action_masks()
    frozen = PolicyAgent(model)                               # an agents.Agent
    venv2 = make_vec_env(8, opponents=[frozen] * 3, vec="dummy")  # self-play vs a snapshot

Env factories are module-level callables (picklable), as SubprocVecEnv's forkserver needs.
"""
import functools

import numpy as np

from catan_env.agents.base import Agent


def _make(seed, kwargs):
    import gymnasium

    import catan_env  # noqa: F401  (registers the env in the child process)
    env = gymnasium.make("catan_env/Catan-v0", **kwargs)
    env.reset(seed=seed)
    return env


def env_factory(seed=0, **kwargs):
    """A picklable thunk building one single-agent Catan env."""
    return functools.partial(_make, seed, kwargs)


def make_vec_env(n_envs, vec="subproc", seed=0, **kwargs):
    """n_envs Catan envs in a DummyVecEnv or SubprocVecEnv (each with its own seed).
    kwargs go to ``gymnasium.make("catan_env/Catan-v0", ...)``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
    if vec not in ("subproc", "dummy"):
        raise ValueError(f"vec must be 'subproc' or 'dummy', got {vec!r}")
    if not isinstance(n_envs, int) or n_envs < 1:
        raise ValueError(f"n_envs must be a positive int, got {n_envs!r}")
    fns = [env_factory(seed + i, **kwargs) for i in range(n_envs)]
    return SubprocVecEnv(fns) if vec == "subproc" else DummyVecEnv(fns)


class PolicyAgent(Agent):
    """Plays with an SB3 model (MaskablePPO uses the mask; other models are masked by
    falling back to a random legal action when they pick an illegal one)."""

    name = "sb3_policy"

    def __init__(self, model, deterministic=True, seed=None):
        super().__init__(seed)
        self.model = model
        self.deterministic = deterministic

    def act(self, observation, infoset):
        obs = observation["observation"]
        mask = observation["action_mask"].astype(bool)
        try:
            action, _ = self.model.predict(obs, action_masks=mask, deterministic=self.deterministic)
        except TypeError:  # a model without masking support
            action, _ = self.model.predict(obs, deterministic=self.deterministic)
        action = int(np.asarray(action).reshape(-1)[0])
        if not mask[action]:
            legal = np.flatnonzero(mask)
            action = int(legal[self.rng.integers(len(legal))])
        return action
