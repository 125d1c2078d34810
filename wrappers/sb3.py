"""Stable-Baselines3 / sb3-contrib glue.

    from sb3_contrib import MaskablePPO
    from catan_env.wrappers.sb3 import make_vec_env, PolicyAgent

    if __name__ == "__main__":          # SubprocVecEnv starts worker processes
        venv = make_vec_env(8, opponents=["random"] * 3)          # SubprocVecEnv by default
        model = MaskablePPO("MlpPolicy", venv).learn(1_000_000)   # masks from action_masks()
        frozen = PolicyAgent(model)                               # an agents.Agent (picklable)
        venv2 = make_vec_env(8, opponents=[frozen] * 3)           # self-play vs a snapshot

Env factories are module-level callables (picklable), as SubprocVecEnv's forkserver needs.
"""
import functools
import io
import os

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
    falling back to a random legal action when they pick an illegal one).

    model: a model object, or the path of one saved with ``model.save(path)`` (then
    ``algo`` is its class, MaskablePPO by default), loaded on first use.  The agent
    pickles (SubprocVecEnv sends opponents to its worker processes): a model object
    travels as its saved bytes and is loaded again, on the CPU, in the child."""

    name = "sb3_policy"

    def __init__(self, model, deterministic=True, seed=None, algo=None):
        super().__init__(seed)
        self.deterministic = deterministic
        self._blob = None
        if isinstance(model, (str, os.PathLike)):
            self._path, self._model = os.fspath(model), None
            self._algo = algo
        else:
            self._path, self._model = None, model
            self._algo = algo or type(model)

    @property
    def model(self):
        if self._model is None:
            algo = self._algo
            if algo is None:
                from sb3_contrib import MaskablePPO as algo
            source = io.BytesIO(self._blob) if self._blob is not None else self._path
            self._model = algo.load(source, device="cpu")
        return self._model

    def __getstate__(self):
        state = self.__dict__.copy()
        if self._path is None and self._blob is None:
            buf = io.BytesIO()
            self._model.save(buf)
            state["_blob"] = buf.getvalue()
        state["_model"] = None
        return state

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
