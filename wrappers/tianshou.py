"""Tianshou 2 glue: a collector that stores each seat's own transitions, and masked
actor / critic networks.  Needs the ``[tianshou]`` extra.

Tianshou's multi-agent collector stores the AEC stream as it comes: a seat's ``obs_next``
is the next seat's observation and rewards a seat receives on other seats' moves are
lost.  ``PerSeatCollector`` drives ``PerSeatGames`` instead: every stored transition
runs from one of a seat's decisions to its next one (or the game's end), with the
rewards the seat received in between, in a replay sub-buffer of its own, so Tianshou's
n-step returns and GAE follow one seat.  Any Tianshou algorithm whose networks read the
observation ``Batch(obs=..., mask=...)`` trains on it with Tianshou's own trainers:

    games = PerSeatGames(16, opponents="random", players=4, vp_reward=0.05)
    actor, critic = MaskedActor(), MaskedCritic()
    policy = DiscreteActorPolicy(actor=actor, action_space=ACTION_SPACE, deterministic_eval=True)
    algorithm = PPO(policy=policy, critic=critic, optim=AdamOptimizerFactory(lr=3e-4))
    collector = PerSeatCollector(algorithm, games)
    algorithm.run_training(OnPolicyTrainerParams(training_collector=collector, ...))
"""
import time
from typing import Any, Dict, List, Optional, Sequence, Tuple

import gymnasium
import numpy as np
import torch
from torch import nn
from tianshou.algorithm import Algorithm
from tianshou.algorithm.algorithm_base import Policy
from tianshou.data import Batch, CollectStats, VectorReplayBuffer
from tianshou.data.collector import BaseCollector

from catan_env.core.actions import N_ACTIONS
from catan_env.core.observe import VECTOR_SIZE

from .per_seat import PerSeatGames, Transition

ACTION_SPACE = gymnasium.spaces.Discrete(N_ACTIONS)


def _mlp(n_in: int, n_out: int, hidden: Sequence[int]) -> nn.Sequential:
    layers: List[nn.Module] = []
    for width in hidden:
        layers += [nn.Linear(n_in, width), nn.ReLU()]
        n_in = width
    layers.append(nn.Linear(n_in, n_out))
    return nn.Sequential(*layers)


class MaskedActor(nn.Module):
    """Logits over the 432 actions from ``obs.obs``, illegal ones (``obs.mask`` False)
    pushed to -1e8.  ``net`` is a plain Sequential: ``catan_env.learned.mlp.from_torch``
    exports it, and the arena plays it as ``ppo:path=actor.npz``."""

    def __init__(self, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.net = _mlp(VECTOR_SIZE, N_ACTIONS, hidden)
        last = self.net[-1]
        assert isinstance(last, nn.Linear)
        nn.init.orthogonal_(last.weight, 0.01)

    def forward(self, obs: Any, state: Any = None, info: Any = None) -> Tuple[torch.Tensor, Any]:
        x = torch.as_tensor(obs.obs, dtype=torch.float32)
        mask = torch.as_tensor(obs.mask, dtype=torch.bool)
        return self.net(x).masked_fill(~mask, -1e8), state


class MaskedCritic(nn.Module):
    """The state value from ``obs.obs``."""

    def __init__(self, hidden: Sequence[int] = (256, 256)) -> None:
        super().__init__()
        self.net = _mlp(VECTOR_SIZE, 1, hidden)

    def forward(self, obs: Any, **kwargs: Any) -> torch.Tensor:
        return self.net(torch.as_tensor(obs.obs, dtype=torch.float32))


def observation_batch(observations: Sequence[Dict[str, np.ndarray]]) -> Batch:
    """The env's observation dicts as Tianshou's ``Batch(obs=(B, V) float32, mask=(B, A) bool)``."""
    return Batch(obs=np.stack([o["observation"] for o in observations]),
                 mask=np.stack([o["action_mask"] for o in observations]).astype(bool))


class _Streams:
    """What BaseCollector needs of an env: its length (the number of streams) and the
    action space."""

    def __init__(self, games: PerSeatGames) -> None:
        self.games = games
        self.action_space = ACTION_SPACE

    def __len__(self) -> int:
        return self.games.n_streams

    def close(self) -> None:
        pass


class PerSeatCollector(BaseCollector):
    """Collects learner seats' own transitions from ``PerSeatGames`` into a replay buffer
    with one sub-buffer per stream (default: a ``VectorReplayBuffer`` of ``buffer_size``
    transitions in all).  Each stored transition's ``info.seat`` is the seat it belongs to."""

    def __init__(self, policy: Policy | Algorithm, games: PerSeatGames, buffer: Optional[VectorReplayBuffer] = None,
                 exploration_noise: bool = False, buffer_size: int = 100_000, seed: int = 0) -> None:
        buffer = buffer if buffer is not None else VectorReplayBuffer(buffer_size, games.n_streams)
        super().__init__(policy, _Streams(games), buffer, exploration_noise, raise_on_nan_in_buffer=False)
        self.games = games
        self.seed = seed
        self._rng = np.random.default_rng(seed)

    def reset_env(self, gym_reset_kwargs: Optional[Dict[str, Any]] = None) -> Tuple[np.ndarray, np.ndarray]:
        seed = (gym_reset_kwargs or {}).get("seed", self.seed)
        self.games.reset(seed=seed)
        _, obs = self.games.pending()
        return np.array(obs, dtype=object), np.array([{}] * len(obs), dtype=object)

    def _actions(self, observations: Sequence[Dict[str, np.ndarray]], random: bool) -> np.ndarray:
        batch = observation_batch(observations)
        if random:
            return np.array([self._rng.choice(np.flatnonzero(m)) for m in batch.mask])
        with torch.no_grad():
            result = self.policy(Batch(obs=batch, info=Batch()))
        act = result.act
        if self.exploration_noise:
            act = self.policy.add_exploration_noise(act, Batch(obs=batch))
        return np.asarray(act.cpu().numpy() if isinstance(act, torch.Tensor) else act).reshape(-1)

    def _store(self, done: List[Tuple[int, Transition]]) -> Tuple[int, List[float], List[int]]:
        """Adds transitions in waves of distinct streams (a stream's order kept); returns
        (transitions, finished episodes' returns and lengths)."""
        returns: List[float] = []
        lens: List[int] = []
        pending = list(done)
        seat_of = self.games.envs[0].agent_name_mapping
        while pending:
            wave: List[Tuple[Any, Any]] = []
            rest: List[Tuple[Any, Any]] = []
            seen = set()
            for stream, t in pending:
                (rest if stream in seen else wave).append((stream, t))
                seen.add(stream)
            pending = rest
            ts = [t for _, t in wave]
            batch = Batch(obs=observation_batch([t.obs for t in ts]),
                          act=np.array([t.action for t in ts]),
                          rew=np.array([t.reward for t in ts], dtype=np.float32),
                          terminated=np.array([t.terminated for t in ts]),
                          truncated=np.array([t.truncated for t in ts]),
                          obs_next=observation_batch([t.obs_next for t in ts]),
                          info=Batch(seat=np.array([seat_of[t.agent] for t in ts])))
            batch.done = np.logical_or(batch.terminated, batch.truncated)
            _, ep_rew, ep_len, _ = self.buffer.add(batch, buffer_ids=np.array([s for s, _ in wave]))
            for k in np.flatnonzero(batch.done):
                returns.append(float(ep_rew[k]))
                lens.append(int(ep_len[k]))
        return len(done), returns, lens

    def _collect(self, n_step: Optional[int] = None, n_episode: Optional[int] = None, random: bool = False,
                 render: Optional[float] = None, gym_reset_kwargs: Optional[Dict[str, Any]] = None) -> CollectStats:
        start = time.time()
        steps, returns, lens = 0, [], []
        while True:
            _, observations = self.games.pending()
            n, r, ln = self._store(self.games.step([int(a) for a in self._actions(observations, random)]))
            steps += n
            returns += r
            lens += ln
            if (n_step and steps >= n_step) or (n_episode and len(returns) >= n_episode):
                break
        self.collect_step += steps
        self.collect_episode += len(returns)
        self.collect_time += max(time.time() - start, 1e-9)
        return CollectStats.with_autogenerated_stats(returns=np.array(returns), lens=np.array(lens),
                                                     n_collected_episodes=len(returns),
                                                     n_collected_steps=steps)
