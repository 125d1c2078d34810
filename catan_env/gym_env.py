"""Gymnasium single-agent Catan: one learner seat, the others played by given agents.

    env = gymnasium.make("catan_env/Catan-v0", opponents=["random"] * 3)

- ``learner_seat``: an int, or None for a random seat each episode (seat order matters).
- ``opponents``: one per other seat, each an object with ``act(observation, infoset)``
  (the ``agents`` package protocol), a callable ``f(observation) -> action`` taking the
  PettingZoo-style dict, or "random" (uniform over legal actions; the default).
  Opponents are stepped inside ``step()`` until the learner must decide or the game ends.
- ``action_masks()`` for sb3-contrib's MaskablePPO; ``info["action_mask"]`` too.
- An illegal action never crashes: it is penalised (``illegal_penalty``), counted in
  ``info["illegal_actions"]``, leaves the game unchanged, and after ``max_illegal`` of
  them the episode is truncated.
- Rewards: +1 win, -1 loss, 0 on truncation, plus optional ``vp_reward`` shaping as in
  the AEC env.
- ``skip_forced=True`` plays the learner's forced moves (a single legal action) inside
  ``step()`` too, so every observation the learner sees offers a choice.
"""
from typing import TYPE_CHECKING, Any, Callable, Dict, Optional, Sequence, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from .core import game as G
from .core.actions import N_ACTIONS
from .aec_env import DEFAULT_MAX_TURNS, ENV_KEYWORDS, raw_env
from .core.options import check_keywords

from .agent_specs import AgentProtocol, resolve_agent

if TYPE_CHECKING:
    from .core.record import GameRecord

# an opponent: an agent (act(observation, infoset)), a callable f(observation) -> action,
# "random", or an agent spec string such as "jsettlers"
Opponent = Union[str, AgentProtocol, Callable[[Dict[str, Any]], int]]

GYM_KEYWORDS = ("opponents", "learner_seat", "illegal_penalty", "max_illegal", "skip_forced")


def _resolve_opponent(o: Opponent, i: int) -> Opponent:
    """An agent object, a callable, "random", or an agent spec as the CLIs take them
    ("jsettlers", "weighted", "mcts:iterations=200"; resolved by :mod:`.agent_specs`)."""
    if o == "random" or callable(o) or hasattr(o, "act"):
        return o
    if isinstance(o, str):
        return resolve_agent(o, seed=i)
    raise ValueError(f"an opponent must be an agent spec such as 'random' or 'jsettlers', an "
                     f"agent (with act()) or a callable; got {o!r}")


class CatanGymEnv(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    def __init__(self, opponents: Union[Opponent, Sequence[Opponent], None] = None,
                 learner_seat: Optional[int] = None, obs_type: str = "vector",
                 max_turns: Optional[int] = DEFAULT_MAX_TURNS, illegal_penalty: float = -0.1,
                 max_illegal: int = 100, vp_reward: float = 0.0, skip_forced: bool = False,
                 render_mode: Optional[str] = None, **options: Any) -> None:
        check_keywords(options, GYM_KEYWORDS + ENV_KEYWORDS)
        self._aec = raw_env(render_mode=render_mode, obs_type=obs_type, max_turns=max_turns,
                            vp_reward=vp_reward, **options)
        n = len(self._aec.possible_agents)
        if learner_seat is not None and not (isinstance(learner_seat, int) and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be None or an int in 0..{n - 1}, got {learner_seat!r}")
        if opponents is None:
            opponents = "random"
        if isinstance(opponents, str):  # one spec for every opponent seat
            opponents = [opponents] * (n - 1)
        given = list(opponents)  # type: ignore[arg-type]  # a sequence of opponents
        if len(given) != n - 1:
            raise ValueError(f"opponents needs {n - 1} entries for {n} players, got {len(given)}")
        self.opponents = [_resolve_opponent(o, i) for i, o in enumerate(given)]
        self.fixed_seat = learner_seat
        self.learner_seat = learner_seat if learner_seat is not None else 0
        self.illegal_penalty = float(illegal_penalty)
        self.max_illegal = int(max_illegal)
        self.skip_forced = bool(skip_forced)
        self.render_mode = render_mode
        agent0 = self._aec.possible_agents[0]
        self.observation_space = self._aec.observation_spaces[agent0]["observation"]
        self.action_space = spaces.Discrete(N_ACTIONS)
        self._illegal = 0

    # ------------------------------------------------------------------ helpers
    def record(self) -> "GameRecord":
        """The game so far (every seat's actions) as a ``GameRecord``."""
        return self._aec.record()

    @property
    def game_state(self) -> np.ndarray:
        """The true state (for debugging and tests; agents must not read it)."""
        return self._aec.game_state

    def _learner(self) -> str:
        return self._aec.possible_agents[self.learner_seat]

    def _obs(self) -> Any:
        return self._aec.observe(self._learner())["observation"]

    def action_masks(self) -> np.ndarray:
        """Legal actions of the learner as a bool array (all False when it is not to act)."""
        return self._aec.observe(self._learner())["action_mask"].astype(bool)

    def _info(self) -> Dict[str, Any]:
        s = self._aec._state
        return {"action_mask": self._aec.observe(self._learner())["action_mask"].copy(),
                "illegal_actions": self._illegal, "learner_seat": self.learner_seat,
                "victory_points": G.victory_points(s), "winner": G.winner(s)}

    def _opponent_action(self, agent: str) -> int:
        seat = self._aec.agent_name_mapping[agent]
        k = (seat - self.learner_seat) % len(self._aec.possible_agents) - 1
        opp = self.opponents[k]
        obs = self._aec.observe(agent)
        if opp == "random":
            legal = np.flatnonzero(obs["action_mask"])
            return int(legal[self.np_random.integers(len(legal))])
        if hasattr(opp, "act"):
            return int(opp.act(obs, self._aec.infoset(agent)))
        return int(opp(obs))  # type: ignore[operator]  # a callable (specs were resolved)

    def _done(self) -> bool:
        a = self._learner()
        return self._aec.terminations[a] or self._aec.truncations[a]

    def _advance(self) -> float:
        """Let opponents act until the learner decides or the game ends; return the
        learner's reward gathered meanwhile."""
        reward = 0.0
        learner = self._learner()
        while not self._done():
            agent = self._aec.agent_selection
            if agent != learner:
                self._aec.step(self._opponent_action(agent))
            else:
                legal = np.flatnonzero(self._aec.observe(agent)["action_mask"]) if self.skip_forced \
                    else np.zeros(0, np.int64)
                if len(legal) != 1:
                    break
                self._aec.step(int(legal[0]))
            reward += self._aec.rewards[learner]
        return reward

    # ------------------------------------------------------------------ API
    def reset(self, seed: Optional[int] = None,
              options: Optional[Dict[str, Any]] = None) -> Tuple[Any, Dict[str, Any]]:
        super().reset(seed=seed)
        # one meaning of a seed: the same game as raw_env().reset(seed=seed) and
        # GameRecord(options, seed=seed); unseeded resets draw game seeds from np_random
        game_seed = seed if seed is not None else int(self.np_random.integers(0, 2 ** 62))
        self._aec.reset(seed=game_seed)
        n = len(self._aec.possible_agents)
        self.learner_seat = self.fixed_seat if self.fixed_seat is not None else int(self.np_random.integers(n))
        for o in self.opponents:  # agents reseeded from the episode's seed: reproducible
            if hasattr(o, "reset"):
                agent_seed = int(self.np_random.integers(0, 2 ** 62))
                try:
                    o.reset(seed=agent_seed)
                except TypeError:  # a reset() without a seed
                    o.reset()
        self._illegal = 0
        self._advance()
        return self._obs(), self._info()

    def step(self, action: int) -> Tuple[Any, float, bool, bool, Dict[str, Any]]:
        learner = self._learner()
        if self._done():
            raise RuntimeError("step() called after the episode ended; call reset()")
        a = G.as_action(action)  # not an integer id in range: InvalidActionError, nothing changes
        mask = self._aec.observe(learner)["action_mask"]
        if not mask[a]:
            self._illegal += 1
            truncated = self._illegal >= self.max_illegal
            return self._obs(), self.illegal_penalty, False, truncated, self._info()
        self._aec.step(a)
        reward = self._aec.rewards[learner]
        reward += self._advance()
        terminated = bool(self._aec.terminations[learner])
        truncated = bool(self._aec.truncations[learner])
        return self._obs(), float(reward), terminated, truncated, self._info()

    def render(self) -> Union[str, np.ndarray, None]:
        return self._aec.render()

    def close(self) -> None:
        self._aec.close()
