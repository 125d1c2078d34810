"""RLlib (ray[rllib], new API stack) glue.  Install in its own environment: ray pins
gymnasium 1.2.2 (``pip install torch==2.13.0 && pip install -e ".[rllib]"``).

    from ray.tune.registry import register_env
    from catan_env.wrappers.rllib import rllib_env, ppo_config

    register_env("catan", rllib_env)
    algo = ppo_config(env="catan", env_config={"players": 4}).build_algo()
    algo.train()

``CatanMultiAgentEnv`` is a turn-based ``MultiAgentEnv`` over the core env: each step
returns the observation of the one seat that decides next, as the dict RLlib's
action-masking module reads (``"observations"`` and a float32 ``"action_mask"``); every
seat's reward arrives with its next observation, and all seats get their last
observation and reward when the game ends (an illegal action ends it too, the actor
getting -1, as in ``catan_env.env()``).  Seats named in ``opponents`` are played
inside the env by our agents (frozen heuristic seats: they see their own InfoSet, which
an RLModule would not); RLlib sees only the learner seats.

``ppo_config`` maps the learner seats to policies: one shared masked policy for every
seat (self-play), or a ``policy_mapping`` of your own.  ``RLlibAgent`` plays a saved
checkpoint's policy in the arena (``rllib:path=CHECKPOINT``).
"""

import os
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence, SupportsFloat, Tuple, Union, cast

import gymnasium
import numpy as np
from gymnasium import spaces

import catan_env
from catan_env.agents.base import AgentProtocol
from catan_env.agents.learned import SHARED_POLICY, RLlibAgent, StrPath, module_path  # noqa: F401 (re-exported)
from catan_env.agents.registry import make_agent

try:  # the env subclasses RLlib's MultiAgentEnv where ray is installed
    from ray.rllib.env.multi_agent_env import MultiAgentEnv as _Base
except ImportError:  # pragma: no cover - the module stays importable for docs and errors
    _Base = gymnasium.Env

if TYPE_CHECKING:
    from catan_env.gym_env import CatanGymEnv

# RLlib's per-agent dicts ({agent name: value}, "__all__" in the done flags)
MultiAgentDict = Dict[str, Any]
MultiAgentStep = Tuple[MultiAgentDict, Dict[str, float], Dict[str, bool], Dict[str, bool], MultiAgentDict]


def _seat_of(key: Union[int, str], players: int) -> int:
    """0-based seat from an int or a ``player_i`` name."""
    seat = int(key.rsplit("_", 1)[-1]) if isinstance(key, str) else int(key)
    if not 0 <= seat < players:
        raise ValueError(f"opponent seat {key!r} is not a seat of a {players}-player game")
    return seat


class CatanMultiAgentEnv(_Base):
    """Turn-based RLlib multi-agent env.  ``config``: catan_env.env options plus
    ``opponents`` ({seat or "player_i": agent spec}) for seats our agents play."""

    def __init__(self, config: Optional[Dict[str, Any]] = None) -> None:
        config = dict(config or {})
        opponents = config.pop("opponents", None) or {}
        super().__init__()
        self.game = catan_env.env(**config)  # an illegal action ends the game, actor -1
        n = self.game.options.players
        self.frozen: Dict[str, AgentProtocol] = {}
        for key, spec in dict(opponents).items():
            seat = _seat_of(key, n)
            self.frozen[self.game.possible_agents[seat]] = make_agent(spec, seed=seat)
        learners = [a for a in self.game.possible_agents if a not in self.frozen]
        if not learners:
            raise ValueError("every seat is an opponent: leave at least one seat to learn")
        self.possible_agents = learners
        self.agents = list(learners)
        inner = self.game.observation_space(learners[0])
        space = spaces.Dict({
            "observations": inner["observation"],
            "action_mask": spaces.Box(0.0, 1.0, inner["action_mask"].shape, np.float32)})
        self.observation_spaces: Dict[str, spaces.Space] = {a: space for a in learners}
        self.action_spaces: Dict[str, spaces.Space] = {a: self.game.action_space(a) for a in learners}
        self.observation_space = spaces.Dict(self.observation_spaces)
        self.action_space = spaces.Dict(self.action_spaces)
        self._pending: Dict[str, float] = {}

    def _observe(self, agent: str) -> Dict[str, np.ndarray]:
        obs = self.game.observe(agent)
        return {"observations": obs["observation"], "action_mask": obs["action_mask"].astype(np.float32)}

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[MultiAgentDict, MultiAgentDict]:
        self.game.reset(seed=seed)
        for agent, bot in self.frozen.items():
            if hasattr(bot, "reset"):  # the agent protocol asks for act() only
                bot.reset(None if seed is None else int(seed) * 31 + self.game.agent_name_mapping[agent])
        self._pending = dict.fromkeys(self.possible_agents, 0.0)
        obs, _, _, _, info = self._advance()
        return obs, info

    def step(self, action_dict: Dict[str, int]) -> MultiAgentStep:
        agent = self.game.agent_selection
        if agent not in action_dict:
            raise ValueError(f"{agent} decides now; got actions for {sorted(action_dict)}")
        self.game.step(int(action_dict[agent]))
        self._collect()
        return self._advance()

    def _collect(self) -> None:
        for a in self.possible_agents:
            self._pending[a] += self.game.rewards.get(a, 0.0)

    def _advance(self) -> MultiAgentStep:
        """Play frozen seats until a learner decides or the game ends."""
        g = self.game
        while True:
            agent = g.agent_selection
            if g.terminations[agent] or g.truncations[agent]:
                done = {a: True for a in self.possible_agents}
                obs = {a: self._observe(a) for a in self.possible_agents}
                rewards, self._pending = self._pending, dict.fromkeys(self.possible_agents, 0.0)
                term = g.terminations[agent]
                flags = {**done, "__all__": True}
                off = {**{a: False for a in self.possible_agents}, "__all__": False}
                return obs, rewards, (flags if term else off), (off if term else flags), {}
            if agent in self.frozen:
                g.step(self.frozen[agent].act(g.observe(agent), g.infoset(agent)))
                self._collect()
                continue
            reward = {agent: self._pending[agent]}
            self._pending[agent] = 0.0
            no = {"__all__": False}
            return {agent: self._observe(agent)}, reward, no, dict(no), {}

    def render(self) -> Any:
        return self.game.render()


class CatanSingleAgentEnv(gymnasium.Wrapper):
    """One learner seat against opponents stepped inside (``catan_env/Catan-v0``), with the
    observation as RLlib's action-masking module reads it (``"observations"``, float32
    ``"action_mask"``).  RLlib's single-agent env runners step several of these per
    runner (``num_envs_per_env_runner``), one batched forward pass for all: far fewer
    connector passes per env step than the turn-based multi-agent env."""

    def __init__(self, config: Optional[Dict[str, Any]] = None) -> None:
        config = dict(config or {})
        config.pop("num_envs", None)  # RLlib's vector entry point adds it
        config.setdefault("opponents", ["random"] * (int(config.get("players", 4)) - 1))
        super().__init__(gymnasium.make("catan_env/Catan-v0", **config))
        inner = self.env.observation_space
        actions = self.env.action_space
        assert isinstance(actions, spaces.Discrete)  # Catan-v0's actions are one discrete id
        self.observation_space = spaces.Dict({
            "observations": inner,
            "action_mask": spaces.Box(0.0, 1.0, (actions.n,), np.float32)})

    def _wrap(self, obs: Any) -> Dict[str, Any]:
        env = cast("CatanGymEnv", self.env.unwrapped)  # what catan_env/Catan-v0 makes
        return {"observations": obs, "action_mask": env.action_masks().astype(np.float32)}

    def reset(self, *, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, Any], Dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        return self._wrap(obs), info

    def step(self, action: Any) -> Tuple[Dict[str, Any], SupportsFloat, bool, bool, Dict[str, Any]]:
        obs, reward, terminated, truncated, info = self.env.step(int(action))
        return self._wrap(obs), reward, terminated, truncated, info


class CatanBatchedVectorEnv(gymnasium.vector.VectorEnv):
    """The batched numba env (``BatchedCatan``, learner mode: opponents inside numba) as
    the vector env behind RLlib's single-agent env runners
    (``gym_env_vectorize_mode="vector_entry_point"``): observations as the masking module
    reads them, and next-step autoreset as RLlib expects (a finished game's final
    observation is returned with its last reward; the next step returns the new game's
    first observation, the action sent for it ignored: ``BatchedCatan.step(hold=...)``)."""

    metadata = {"autoreset_mode": gymnasium.vector.AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(self, config: Optional[Dict[str, Any]] = None) -> None:
        from catan_env.batched import BatchedCatan
        from catan_env.batched.vector_env import single_observation_space
        config = dict(config or {})
        n = int(config.pop("num_envs", 1))
        config.pop("batched", None)
        config.setdefault("skip_forced", True)
        if config.get("obs_dtype", "float32") != "float32":
            raise ValueError("RLlib's batched env takes float32 observations: compact ones (obs_dtype='uint8') "
                             "are for BatchedCatan and CatanVectorEnv")
        self.batch = BatchedCatan(n, **config)
        self.num_envs = n
        self.single_observation_space = spaces.Dict({
            "observations": single_observation_space(self.batch.obs_type),
            "action_mask": spaces.Box(0.0, 1.0, (self.batch.masks.shape[1],), np.float32)})
        self.single_action_space = spaces.Discrete(self.batch.masks.shape[1])
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)
        self.render_mode = None
        self._restarting = np.zeros(n, bool)

    def _obs(self, obs: Any, masks: np.ndarray) -> Dict[str, np.ndarray]:
        return {"observations": np.array(obs, dtype=np.float32, copy=True), "action_mask": masks.astype(np.float32)}

    def reset(self, *, seed: Union[int, List[int], None] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
        obs, masks = self.batch.reset(seed=seed)
        self._restarting[:] = False
        return self._obs(obs, masks), {}

    def step(self, actions: Any) -> Tuple[Dict[str, np.ndarray], np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        hold = self._restarting.copy()
        obs, rewards, terminated, truncated, masks = self.batch.step(actions, hold=hold)
        out = self._obs(obs, masks)
        done = terminated | truncated
        for i in np.flatnonzero(done):  # the finished game's last view; its successor waits a step
            out["observations"][i] = self.batch.final_observation(int(i))
            out["action_mask"][i] = 1.0
        self._restarting = done.copy()
        return out, rewards.astype(np.float32), terminated.copy(), truncated.copy(), {}

    def close(self, **kwargs: Any) -> None:
        self.batch.close()


def rllib_batched_env(config: Optional[Dict[str, Any]] = None) -> CatanBatchedVectorEnv:
    """Env creator of ``CatanBatchedVectorEnv`` for ``register_env`` (RLlib passes
    ``num_envs``); config: ``BatchedCatan`` options (``opponents``, ``vp_reward``, ...)."""
    return CatanBatchedVectorEnv(config)


def rllib_single_env(config: Optional[Dict[str, Any]] = None) -> CatanSingleAgentEnv:
    """Env creator of ``CatanSingleAgentEnv`` for ``register_env``; config: Catan-v0
    options (``opponents``: agent specs, default three random; ``vp_reward``, ...)."""
    import catan_env  # noqa: F401  (registers catan_env/Catan-v0 in the env runner)
    return CatanSingleAgentEnv(config)


def single_agent_ppo_config(env: str = "catan_batched", env_config: Optional[Dict[str, Any]] = None,
                            model: Optional[Dict[str, Any]] = None, envs_per_runner: int = 64,
                            batched: bool = True, **training: Any) -> Any:
    """A PPOConfig for one masked learner seat against opponents inside the env, with
    ``envs_per_runner`` games per env runner: ``batched=True`` steps them in one numba call
    (register ``rllib_batched_env`` as ``env``), ``False`` as gymnasium's sync vector of
    ``catan_env/Catan-v0`` (register ``rllib_single_env``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    config = (PPOConfig()
              .environment(env, env_config=dict(env_config or {}))
              .env_runners(num_envs_per_env_runner=int(envs_per_runner),
                           gym_env_vectorize_mode="vector_entry_point" if batched else "sync")
              .rl_module(rl_module_spec=RLModuleSpec(module_class=ActionMaskingTorchRLModule,
                                                     model_config=dict(model or {}))))
    if training:
        config = config.training(**training)
    return config


def export_policy(checkpoint: StrPath, path: StrPath, policy: str = "default_policy") -> str:
    """Write a checkpoint's policy branch (actor encoder MLP, then the pi head) as an
    ``MLPWeights`` ``.npz``: the arena plays it as ``ppo:path=...`` at numba speed, without
    Ray or torch.  The masked greedy move equals the RLModule's (the mask only lowers
    illegal logits).  Returns the path."""
    from torch import nn
    from ray.rllib.core.rl_module.rl_module import RLModule

    from catan_env.learned.mlp import from_torch

    module = RLModule.from_checkpoint(os.path.abspath(module_path(checkpoint, policy)))
    try:
        layers = [*module.encoder.actor_encoder.net.mlp, *module.pi.net.mlp]
    except AttributeError:
        raise ValueError(f"{type(module).__name__} is not the MLP actor-critic module this export reads "
                         "(encoder.actor_encoder and pi heads)") from None
    from_torch(nn.Sequential(*layers)).save(os.fspath(path))
    return os.fspath(path)


def rllib_env(config: Optional[Dict[str, Any]] = None) -> CatanMultiAgentEnv:
    """Env creator for ``ray.tune.registry.register_env``; config holds catan_env.env
    options and, optionally, ``opponents``."""
    return CatanMultiAgentEnv(config)


def ppo_config(env: str = "catan", env_config: Optional[Dict[str, Any]] = None,
               policies: Optional[Sequence[str]] = None, policy_mapping: Optional[Dict[str, str]] = None,
               model: Optional[Dict[str, Any]] = None, **training: Any) -> Any:
    """A PPOConfig with masked torch policies.

    Default: one policy (``"shared"``) for every learner seat (self-play).  To give seats
    their own policies pass ``policies`` (names) and ``policy_mapping`` ({agent name:
    policy name}); ``model`` is RLlib's model config (e.g. ``{"fcnet_hiddens": [256,
    256]}``)."""
    from ray.rllib.algorithms.ppo import PPOConfig
    from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
    from ray.rllib.core.rl_module.rl_module import RLModuleSpec
    from ray.rllib.examples.rl_modules.classes.action_masking_rlm import ActionMaskingTorchRLModule

    policies = list(policies or [SHARED_POLICY])
    mapping = dict(policy_mapping or {})
    unknown = set(mapping.values()) - set(policies)
    if unknown:
        raise ValueError(f"policy_mapping names policies {sorted(unknown)} not in {policies}")
    default = policies[0]

    def policy_mapping_fn(agent_id: str, *args: Any, **kwargs: Any) -> str:
        return mapping.get(agent_id, default)

    specs = {p: RLModuleSpec(module_class=ActionMaskingTorchRLModule, model_config=dict(model or {}))
             for p in policies}
    config = (PPOConfig()
              .environment(env, env_config=dict(env_config or {}))
              .multi_agent(policies=set(policies), policy_mapping_fn=policy_mapping_fn)
              .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs=specs)))
    if training:
        config = config.training(**training)
    return config
