"""``CatanVectorEnv``: the batched env behind the Gymnasium vector API.

    envs = CatanVectorEnv(256, opponents="weighted", vp_reward=0.05)
    obs, info = envs.reset(seed=0)
    obs, rewards, terminated, truncated, info = envs.step(actions)
    masks = envs.action_masks()          # also info["action_mask"]

Autoreset is same-step (``metadata["autoreset_mode"]``): a finished game's last
observation is in ``info["final_obs"]`` (and ``info["_final_obs"]`` marks which), its
statistics in ``info["episode"]`` (``r`` return, ``l`` learner decisions, ``won``,
``turns``, ``vp``; ``info["_episode"]`` marks which).  Keyword arguments go to
``BatchedCatan`` (learner mode).  ``copy=False`` returns the env's own buffers, which
the next step overwrites.
"""
from typing import Any, Dict, Optional, Sequence, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from numpy.typing import ArrayLike
from gymnasium.vector import AutoresetMode
from gymnasium.vector.utils import batch_space

from ..aec_env import OBS_HIGH
from ..core.actions import N_ACTIONS
from ..core.observe import COMPACT_SIZE, GRID_H, GRID_W, PLANES, TAIL_SIZE, VECTOR_SIZE
from .env import BatchedCatan


def single_observation_space(obs_type: str, obs_dtype: str = "float32") -> spaces.Space:
    """The observation space of one game: a flat vector, or board planes plus the vector
    part; with obs_dtype "uint8" the compact bytes (``BatchedCatan(obs_dtype="uint8")``)."""
    if obs_dtype == "uint8":
        if obs_type == "planes":
            return spaces.Dict({
                "board": spaces.Box(0, 255, (PLANES, GRID_H, GRID_W), np.uint8),
                "vector": spaces.Box(0, 255, (TAIL_SIZE + 1,), np.uint8)})
        return spaces.Box(0, 255, (COMPACT_SIZE,), np.uint8)
    if obs_type == "planes":
        return spaces.Dict({
            "board": spaces.Box(0.0, OBS_HIGH, (PLANES, GRID_H, GRID_W), np.float32),
            "vector": spaces.Box(0.0, OBS_HIGH, (TAIL_SIZE,), np.float32)})
    return spaces.Box(0.0, OBS_HIGH, (VECTOR_SIZE,), np.float32)


class CatanVectorEnv(gymnasium.vector.VectorEnv):
    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int, copy: bool = True, **kwargs: Any) -> None:
        if kwargs.get("mode", "learner") != "learner":
            raise ValueError("CatanVectorEnv is one learner per game; use BatchedCatan "
                             "(mode='all_seats') to act for every seat")
        self.batch = BatchedCatan(num_envs, **kwargs)
        self.num_envs = num_envs
        self.copy = copy
        self.single_observation_space = single_observation_space(self.batch.obs_type, self.batch.obs_dtype)
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None

    def action_masks(self) -> np.ndarray:
        """Legal actions of each game's learner, bool (num_envs, N_ACTIONS)."""
        return self.batch.masks.copy()

    def reset(self, seed: Union[int, Sequence[int], None] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        if seed is not None:
            first = seed if isinstance(seed, (int, np.integer)) else seed[0]
            self._np_random, _ = gymnasium.utils.seeding.np_random(int(first))
        _, masks = self.batch.reset(seed=seed)
        return self.batch.observations(self.copy), {"action_mask": masks.copy()}

    def step(self, actions: ArrayLike) -> Tuple[Any, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        _, rewards, terminated, truncated, masks = self.batch.step(actions)
        info: Dict[str, Any] = {"action_mask": masks.copy()}
        done = terminated | truncated
        if done.any():
            stats = self.batch.episode_stats()
            final = np.empty(self.num_envs, dtype=object)
            ep = {k: np.zeros(self.num_envs, t) for k, t in
                  (("r", np.float64), ("l", np.int64), ("won", np.bool_), ("turns", np.int64),
                   ("vp", np.int64))}
            for i, st in stats.items():
                final[i] = self.batch.final_observation(i)
                for k in ep:
                    ep[k][i] = st[k]
            info["final_obs"], info["_final_obs"] = final, done.copy()
            info["episode"], info["_episode"] = ep, done.copy()
        return (self.batch.observations(self.copy), rewards.astype(np.float64), terminated.copy(),
                truncated.copy(), info)

    def close(self, **kwargs: Any) -> None:
        self.batch.close()
