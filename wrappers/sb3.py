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
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Type

import numpy as np

from catan_env.agents.learned import SB3PolicyAgent

if TYPE_CHECKING:
    import gymnasium
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.vec_env import VecEnv

# a batch potential phi(states, seats, out): each game's learner's value into out
Potential = Callable[[np.ndarray, np.ndarray, np.ndarray], None]


def _make(seed: int, kwargs: Dict[str, Any]) -> "gymnasium.Env":
    import gymnasium

    import catan_env  # noqa: F401  (registers the env in the child process)
    env = gymnasium.make("catan_env/Catan-v0", **kwargs)
    env.reset(seed=seed)
    return env


def env_factory(seed: int = 0, **kwargs: Any) -> Callable[[], "gymnasium.Env"]:
    """A picklable thunk building one single-agent Catan env."""
    return functools.partial(_make, seed, kwargs)


def make_vec_env(n_envs: int, vec: str = "subproc", seed: int = 0, **kwargs: Any) -> "VecEnv":
    """n_envs Catan envs in a DummyVecEnv or SubprocVecEnv (each with its own seed).
    kwargs go to ``gymnasium.make("catan_env/Catan-v0", ...)``."""
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv
    if vec not in ("subproc", "dummy"):
        raise ValueError(f"vec must be 'subproc' or 'dummy', got {vec!r}")
    if not isinstance(n_envs, int) or n_envs < 1:
        raise ValueError(f"n_envs must be a positive int, got {n_envs!r}")
    fns = [env_factory(seed + i, **kwargs) for i in range(n_envs)]
    return SubprocVecEnv(fns) if vec == "subproc" else DummyVecEnv(fns)


# an SB3 model as an agent lives with the other learned agents; its old name here stays
PolicyAgent = SB3PolicyAgent


def make_batched_vec_env(n_envs: int, seed: int = 0, **kwargs: Any) -> "VecEnv":
    """n_envs games in one numba-stepped batch, as an SB3 ``VecEnv`` with
    ``action_masks()`` (MaskablePPO trains on it unchanged).  kwargs go to
    ``catan_env.batched.BatchedCatan`` (opponents pool, vp_reward, skip_forced, ...), but
    ``potential="pretrained"`` (or a value network .npz) adds potential-based shaping:
    ``potential_scale`` x (``potential_gamma`` x phi(s') - phi(s)) with phi the network's
    win chance for the learner from its own view (0 after the game's end; at the turn cap
    the last known phi), which leaves the optimal policy unchanged (Ng, Harada and Russell
    1999)."""
    _float32_only(kwargs, "SB3's batched VecEnv")  # before importing SB3: the error names the option
    return _batched_vec_env_class()(n_envs, seed=seed, **kwargs)


def _potential(spec: Optional[str]) -> Optional[Potential]:
    """A batch potential ``phi(states, seats, out)`` from a value network spec, or None."""
    if spec is None:
        return None
    from catan_env.learned.network import load_network
    from catan_env.learned.value import seat_win_chances
    ev = load_network(None if spec == "pretrained" else spec).evaluator()

    def phi(states: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        seat_win_chances(ev, states, seats, out)
    return phi


def _float32_only(kwargs: Dict[str, Any], who: str) -> None:
    """SB3 would take compact uint8 board planes for an image (and rescale them): refuse them."""
    if kwargs.get("obs_dtype", "float32") != "float32":
        raise ValueError(f"{who} takes float32 observations: compact ones (obs_dtype='uint8') are "
                         f"for BatchedCatan and CatanVectorEnv")


@functools.lru_cache(maxsize=None)
def _batched_vec_env_class() -> Callable[..., "VecEnv"]:
    from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

    from catan_env.batched import BatchedCatan
    from catan_env.batched.vector_env import single_observation_space
    from gymnasium import spaces

    class _BatchedVecEnv(VecEnv):
        """SB3 VecEnv over ``BatchedCatan`` (learner mode): same-step autoreset with
        ``terminal_observation``, ``episode`` ({r, l, t}) and ``is_success`` in the infos
        of finished games, as SB3's Monitor gives them."""

        def __init__(self, n_envs: int, seed: int = 0, potential: Optional[str] = None,
                     potential_gamma: float = 0.999, potential_scale: float = 1.0, **kwargs: Any) -> None:
            _float32_only(kwargs, "SB3's batched VecEnv")
            self.batch = BatchedCatan(n_envs, seed=seed, **kwargs)
            super().__init__(n_envs, single_observation_space(self.batch.obs_type),
                             spaces.Discrete(self.batch.masks.shape[1]))
            self._actions: Optional[np.ndarray] = None
            self._seed = seed
            self._potential = _potential(potential)
            self._gamma, self._scale = float(potential_gamma), float(potential_scale)
            self._phi = np.zeros(n_envs)

        def _phis(self) -> np.ndarray:
            """The learner's potential in each game now."""
            assert self._potential is not None  # only called with a potential
            out = np.empty(self.num_envs)
            self._potential(self.batch.states, self.batch.learner_seats.astype(np.int64), out)
            return out

        def reset(self) -> VecEnvObs:
            seed = self._seeds[0] if self._seeds and self._seeds[0] is not None else None
            self._reset_seeds()
            self.batch.reset(seed=seed)
            if self._potential is not None:
                self._phi = self._phis()
            return self.batch.observations(copy=True)

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = np.asarray(actions)

        def step_wait(self) -> VecEnvStepReturn:
            assert self._actions is not None  # step_async(actions) comes first
            _, rewards, terminated, truncated, _ = self.batch.step(self._actions)
            dones = terminated | truncated
            if self._potential is not None:  # F = gamma * phi(s') - phi(s)
                phi = self._phis()
                # phi = 0 after a game's end; a game cut by the turn cap is bootstrapped
                # from its last state, whose phi is not kept (the env has reset it): the
                # last known one stands in for it
                after = np.where(terminated, 0.0, np.where(truncated, self._phi, phi))
                rewards = rewards + self._scale * (self._gamma * after - self._phi)
                self._phi = phi  # (a finished game's next episode has started: its phi)
            infos: List[Dict[str, Any]] = [{} for _ in range(self.num_envs)]
            if dones.any():
                for i, st in self.batch.episode_stats().items():
                    infos[i] = {"terminal_observation": self.batch.final_observation(i),
                                "episode": {"r": st["r"], "l": st["l"], "t": 0.0},
                                "is_success": st["won"], "TimeLimit.truncated": st["truncated"],
                                "turns": st["turns"], "vp": st["vp"]}
            return self.batch.observations(copy=True), rewards.astype(np.float32), dones.copy(), infos

        def action_masks(self) -> np.ndarray:
            return self.batch.masks.copy()

        def env_method(self, method_name: str, *args: Any, indices: VecEnvIndices = None, **kwargs: Any) -> List[Any]:
            if method_name == "action_masks":
                return list(self.batch.masks[list(self._get_indices(indices))])
            raise AttributeError(f"BatchedVecEnv has no per-env method {method_name!r}")

        def has_attr(self, attr_name: str) -> bool:
            return attr_name == "action_masks" or hasattr(self.batch, attr_name)

        def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> List[Any]:
            if attr_name == "render_mode":
                return [None] * len(list(self._get_indices(indices)))
            return [getattr(self.batch, attr_name)] * len(list(self._get_indices(indices)))

        def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
            setattr(self.batch, attr_name, value)

        def env_is_wrapped(self, wrapper_class: Type["gymnasium.Wrapper"], indices: VecEnvIndices = None) -> List[bool]:
            return [False] * len(list(self._get_indices(indices)))

        def get_images(self) -> Sequence[Optional[np.ndarray]]:
            return []

        def close(self) -> None:
            self.batch.close()

    return _BatchedVecEnv


def __getattr__(name: str) -> Any:
    if name == "BatchedVecEnv":  # the class is built on first use: SB3 loads lazily
        return _batched_vec_env_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def self_play_callback(venv: Any, anchors: Sequence[Any] = ("weighted",), every: int = 50_000, pool_size: int = 8,
                       anchor_weight: float = 0.5) -> "BaseCallback":
    """An SB3 callback for self-play on a batched VecEnv: every ``every`` learner steps
    the current policy is exported to numba (``MLPWeights``) and joins the opponent pool
    (the newest ``pool_size`` snapshots, drawn by recency) beside the anchors (agent
    specs such as "weighted" or "jsettlers"), which keep ``anchor_weight`` of the draws."""
    from stable_baselines3.common.callbacks import BaseCallback

    from catan_env.batched import snapshot_pool
    from catan_env.learned.mlp import MLPWeights, from_torch

    class SelfPlay(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.snapshots: List[MLPWeights] = []  # newest last
            self.next_at = every

        def _on_step(self) -> bool:
            if self.num_timesteps >= self.next_at:
                self.next_at += every
                self.snapshots = (self.snapshots + [from_torch(self.model.policy)])[-pool_size:]
                venv.batch.set_opponents(snapshot_pool(anchors, self.snapshots, anchor_weight))
            return True

    return SelfPlay()
