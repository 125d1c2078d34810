"""PettingZoo AEC environment for Catan (``catan_v0``): a thin layer over the rules core.

| Import             | ``from catan_env import env, raw_env``                           |
|--------------------|------------------------------------------------------------------|
| Agents             | ``player_0`` .. ``player_{n-1}`` (n = 2..4, default 4)           |
| Action space       | ``Discrete(432)`` (see ``catan_env.core.actions`` for the table) |
| Observation        | ``{"observation": float32, "action_mask": int8[432]}``           |
| Agent selection    | the core's decider: the same agent may act many times in a row,  |
|                    | others act out of turn (discards, trade answers)                 |

Observation: ``obs_type="vector"`` gives the flat seat-relative vector
(``catan_env.core.observe``); ``"planes"`` gives ``{"board": (26, 17, 21), "vector": ...}``.
Agents not deciding get an all-zero mask.

Rewards: +1 for the winner, -1 for the others, 0 for all on truncation (``max_turns``).
``vp_reward`` > 0 adds shaping: each step an agent also gets vp_reward x the change in
(own VP - mean public VP of the others).

Illegal actions: ``raw_env.step`` raises ``IllegalActionError`` naming the action and the
reason, with the state unchanged; in ``env()`` the offender gets -1 and the game ends.

``env()`` behaves as PettingZoo's classic wrapper chain (``OrderEnforcingWrapper``,
``AssertOutOfBoundsWrapper``, ``TerminateIllegalWrapper``) with the checks built into
one class (``CatanEnv``), so no call pays for attribute forwarding through wrappers.

Version history: v0 (first release).
"""
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Tuple, Union

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env import AECIterable, AECIterator
from pettingzoo.utils.env_logger import EnvLogger

from .core import game as G
from .core import rules as R
from .core import actions as A
from .core import layout as L
from .core.actions import N_ACTIONS, action_name
from .core.cards import shaping_value
from .core.observe import BOARD_SIZE, FULL_SIZE, TAIL_SIZE, VECTOR_SIZE, encode_planes, encode_vector
from .core.options import DEFAULT_MAX_TURNS, check_keywords, make_options
from .core.topology import GRID_H, GRID_W
from .core.observe import PLANES
from .compiling import warn_if_compiling
from .infoset import InfoSet

if TYPE_CHECKING:
    from .core.record import GameRecord

OBS_TYPES = ("vector", "planes")
ENV_KEYWORDS = ("render_mode", "obs_type", "max_turns", "vp_reward")  # besides the game options
OBS_HIGH = 100.0  # every feature is a small count or a fraction; the turn feature is capped


def env(**kwargs: Any) -> "CatanEnv":
    """The AEC env with the checks of PettingZoo's classic wrappers (order enforcing,
    action bounds, an illegal move ends the game with -1 for the offender)."""
    return CatanEnv(**kwargs)


def wrapped_env(**kwargs: Any) -> AECEnv:
    """raw_env inside PettingZoo's own wrapper chain (the reference ``env()`` is tested
    against; slower: every attribute goes through three wrappers)."""
    e = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


class raw_env(AECEnv, EzPickle):  # noqa: N801 (PettingZoo naming)
    _state: np.ndarray             # the true state (set by reset)
    _np_random: np.random.Generator
    _obs_cache: Dict[str, Dict[str, Any]]
    _history: List[Tuple[int, Optional[int]]]
    _counts: Dict[str, Any]
    _human_window: Any
    metadata: Dict[str, Any] = {"render_modes": ["ansi", "rgb_array", "human"], "name": "catan_v0",
                "is_parallelizable": False, "render_fps": 2}

    def __init__(self, render_mode: Optional[str] = None, obs_type: str = "vector",
                 max_turns: Optional[int] = DEFAULT_MAX_TURNS, vp_reward: float = 0.0,
                 **options: Any) -> None:
        EzPickle.__init__(self, render_mode=render_mode, obs_type=obs_type, max_turns=max_turns,
                          vp_reward=vp_reward, **options)
        super().__init__()
        check_keywords(options, ENV_KEYWORDS)
        warn_if_compiling()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']} or None, "
                             f"got {render_mode!r}")
        if obs_type not in OBS_TYPES:
            raise ValueError(f"obs_type must be one of {OBS_TYPES}, got {obs_type!r}")
        if max_turns is not None and (not isinstance(max_turns, int) or max_turns < 1):
            raise ValueError(f"max_turns must be a positive int or None, got {max_turns!r}")
        self.options = make_options(**options)
        self.render_mode = render_mode
        self.obs_type = obs_type
        self.max_turns = max_turns
        self.vp_reward = float(vp_reward)
        n = self.options.players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        mask_space = spaces.Box(0, 1, (N_ACTIONS,), np.int8)
        obs_space: spaces.Space
        if obs_type == "vector":
            obs_space = spaces.Box(0.0, OBS_HIGH, (VECTOR_SIZE,), np.float32)
        else:
            obs_space = spaces.Dict({
                "board": spaces.Box(0.0, OBS_HIGH, (PLANES, GRID_H, GRID_W), np.float32),
                "vector": spaces.Box(0.0, OBS_HIGH, (TAIL_SIZE,), np.float32)})
        self.observation_spaces: Dict[str, spaces.Dict] = {a: spaces.Dict({"observation": obs_space, "action_mask": mask_space})
                                   for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
        self.state_space = spaces.Box(0.0, OBS_HIGH, (FULL_SIZE,), np.float32)
        self._state = None  # type: ignore[assignment]  # no game before reset()
        self._obs_cache = {}
        self._np_random = None  # type: ignore[assignment]
        self._human_window = None

    # ------------------------------------------------------------------ spaces
    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    # ------------------------------------------------------------------ lifecycle
    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        if seed is not None or self._np_random is None:
            self._np_random, _ = seeding.np_random(seed)
        # one meaning of a seed: reset(seed=s) plays the game new_game(seed=s) and
        # GameRecord(options, seed=s) describe
        game_seed = int(seed) if seed is not None else int(self._np_random.integers(0, 2 ** 62))
        self._game_seed = game_seed
        self._state = G.new_game(self.options, seed=game_seed)
        self._history = []  # (action, chance outcome or None) per step, for record()
        self._obs_cache = {}
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[G.decider(self._state)]
        self._shaping_base = self._shaping_values()
        n = self.options.players
        self._steps = 0
        self._counts = {"offers": [0] * n, "trades": [0] * n, "maritime": [0] * n,
                        "fallbacks": [0] * n, "fallback_reasons": {}}

    def _shaping_values(self) -> List[float]:
        return [float(shaping_value(self._state, p)) for p in range(self.options.players)]

    def _seat(self, agent: str) -> int:
        """The seat of an agent name; KeyError naming the known agents otherwise."""
        try:
            return self.agent_name_mapping[agent]
        except (KeyError, TypeError):
            raise KeyError(f"unknown agent {agent!r}; this game's agents are "
                           f"{', '.join(self.possible_agents)}") from None

    def observe(self, agent: str) -> Dict[str, Any]:
        """Observation of agent; computed once per position and agent, returned as copies."""
        self._seat(agent)
        cached = self._obs_cache.get(agent)
        if cached is None:
            cached = self._obs_cache[agent] = self._compute_observation(agent)
        obs = cached["observation"]
        obs = obs.copy() if isinstance(obs, np.ndarray) else {k: v.copy() for k, v in obs.items()}
        return {"observation": obs, "action_mask": cached["action_mask"].copy()}

    def _compute_observation(self, agent: str) -> Dict[str, Any]:
        """The agent's observation and mask, straight from the kernels (the state is the
        env's own, valid by construction)."""
        seat = self.agent_name_mapping[agent]
        s = self._state
        mask = np.zeros(N_ACTIONS, dtype=np.int8)
        if int(s[L.PHASE]) != L.PH_GAME_OVER and int(s[L.DECIDER]) == seat:
            R.legal_mask(s, mask)
        vec = np.zeros(VECTOR_SIZE, dtype=np.float32)
        encode_vector(s, seat, vec)
        if self.obs_type == "vector":
            return {"observation": vec, "action_mask": mask}
        planes = np.zeros((PLANES, GRID_H, GRID_W), dtype=np.float32)
        encode_planes(s, seat, planes)
        return {"observation": {"board": planes, "vector": vec[BOARD_SIZE:].copy()}, "action_mask": mask}

    @property
    def game_state(self) -> np.ndarray:
        """The true state vector, read-only (for recording, debugging and tests; agents
        must not read it: they get ``observe()`` and ``infoset()``)."""
        view = self._state.view()
        view.setflags(write=False)
        return view

    def state(self) -> np.ndarray:
        return G.full_state_tensor(self._state)

    def infoset(self, agent: Optional[str] = None) -> InfoSet:
        """What ``agent`` (default: the agent to act) knows, as an InfoSet handle."""
        agent = agent or self.agent_selection
        seat = self._seat(agent)
        return InfoSet(self._state, seat, int(self._np_random.integers(0, 2 ** 62)),
                       on_fallback=self._count_fallback)

    def _count_fallback(self, seat: int, reason: str) -> None:
        self._counts["fallbacks"][seat] += 1
        reasons = self._counts["fallback_reasons"]
        reasons[reason] = reasons.get(reason, 0) + 1

    def step(self, action: Optional[int]) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        seat = self.agent_name_mapping[agent]
        if action is None:
            raise G.IllegalActionError(f"{agent} must act (it decides now); got None")
        action = G.as_action(action)  # not an integer id in range: InvalidActionError, nothing changes
        cached = self._obs_cache.get(agent)
        if cached is not None and 0 <= action < N_ACTIONS and cached["action_mask"][action]:
            R.apply_action(self._state, action, -1)  # legal: the mask is the rules' own
        else:
            G.step(self._state, action)  # validates: raises IllegalActionError, state unchanged
        self._steps += 1
        self._history.append((action, G.chance_outcome(self._state, action)))
        if action >= A.MARITIME0:  # trades are the only actions counted by kind
            self._count_trade(seat, action)
        self._obs_cache = {}
        self._cumulative_rewards[agent] = 0.0
        self.rewards = {a: 0.0 for a in self.agents}
        if self.vp_reward:
            values = self._shaping_values()
            for i, a in enumerate(self.agents):
                self.rewards[a] = self.vp_reward * (values[i] - self._shaping_base[i])
            self._shaping_base = values
        s = self._state
        over = int(s[L.PHASE]) == L.PH_GAME_OVER
        if over:
            win = G.winner(s)
            for i, a in enumerate(self.agents):
                self.rewards[a] += 1.0 if i == win else -1.0
                self.terminations[a] = True
        elif self.max_turns is not None and int(s[L.TURN]) > self.max_turns:
            for a in self.agents:
                self.truncations[a] = True
        name = action_name(action)
        for a in self.agents:
            self.infos[a] = {"last_action": name, "actor": seat}
        self._accumulate_rewards()
        if not over:
            self.agent_selection = self.possible_agents[int(s[L.DECIDER])]
        if self.render_mode == "human":
            self.render()

    def _count_trade(self, seat: int, action: int) -> None:
        c = self._counts
        if action < A.OFFER0:
            c["maritime"][seat] += 1
        elif action < A.TRADE_ACCEPT:
            c["offers"][seat] += 1
        elif A.CONFIRM0 <= action < A.TRADE_CANCEL:
            c["trades"][seat] += 1
            c["trades"][A.confirm_partner(action, seat, self.options.players)] += 1

    def record(self) -> "GameRecord":
        """The game so far as a ``GameRecord`` (options, board, seed, every action with
        its chance outcome), at any moment: ``env.record().save("game.json")``."""
        from .core.record import GameRecord
        if self._state is None:
            raise RuntimeError("record() needs a game: call reset() first")
        return GameRecord.from_actions(self.options, self._game_seed, self._history)

    def game_stats(self) -> Dict[str, Any]:
        """Per-game statistics read from the game itself (whatever the agents are):
        winner (-1 if none), total VP, turns, actions, and per seat the domestic offers
        made, domestic trades completed (either side), maritime trades, and the moves its
        agent replaced with a fallback (reported through ``InfoSet.report_fallback``;
        ``fallback_reasons`` counts them by reason over all seats)."""
        s = self._state
        c = self._counts
        return {"winner": G.winner(s), "vp": G.victory_points(s), "turns": int(s[L.TURN]),
                "steps": self._steps, "over": G.is_over(s), "offers": list(c["offers"]),
                "trades": list(c["trades"]), "maritime": list(c["maritime"]),
                "fallbacks": list(c["fallbacks"]), "fallback_reasons": dict(c["fallback_reasons"])}

    # ------------------------------------------------------------------ rendering
    def render(self) -> Union[str, np.ndarray, None]:
        from . import render as R
        if self.render_mode is None:
            import gymnasium
            gymnasium.logger.warn("render() called without a render_mode; pass render_mode=...")
            return None
        if self.render_mode == "ansi":
            return R.render_ansi(self._state)
        frame = R.render_rgb(self._state)
        if self.render_mode == "rgb_array":
            return frame
        self._show(frame)
        return None

    def _show(self, frame: np.ndarray) -> None:
        try:
            import matplotlib.pyplot as plt
        except ImportError:  # pragma: no cover
            print(self._ansi())
            return
        if self._human_window is None:
            plt.ion()
            fig, ax = plt.subplots(figsize=(9, 6.4))
            ax.axis("off")
            self._human_window = (fig, ax.imshow(frame))
        else:
            self._human_window[1].set_data(frame)
        self._human_window[0].canvas.draw_idle()
        plt.pause(0.001)

    def _ansi(self) -> str:
        from . import render as R
        return R.render_ansi(self._state)

    def close(self) -> None:
        if self._human_window is not None:
            import matplotlib.pyplot as plt
            plt.close(self._human_window[0])
            self._human_window = None



_BEFORE_RESET = frozenset({"rewards", "terminations", "truncations", "infos", "agent_selection",
                           "num_agents", "agents"})


class _OrderEnforcingIterator(AECIterator):
    def __next__(self) -> str:
        agent = super().__next__()
        assert self.env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        self.env._has_updated = False
        return agent


class _OrderEnforcingIterable(AECIterable):
    def __iter__(self) -> _OrderEnforcingIterator:
        return _OrderEnforcingIterator(self.env, self.max_iter)


class CatanEnv(raw_env):
    """``raw_env`` plus the behaviour of PettingZoo's classic wrapper chain, built in:
    order enforcing (no step/observe/render/state/agent_iter, and no reading of the
    agent dicts, before ``reset``), action bounds (an action outside the space is an
    ``AssertionError``), and an illegal move ends the game: the offender gets -1, the
    others 0, every agent is terminated and truncated."""

    def __init__(self, **kwargs: Any) -> None:
        self._has_reset = False
        self._has_updated = False
        super().__init__(**kwargs)

    def __getattr__(self, name: str) -> Any:  # reached only when normal lookup fails: no hot-path cost
        if name in _BEFORE_RESET and not self.__dict__.get("_has_reset", False):
            raise AttributeError(f"{name} cannot be accessed before reset")
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        self._has_reset = True
        self._has_updated = True
        super().reset(seed=seed, options=options)

    def observe(self, agent: str) -> Dict[str, Any]:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return super().observe(agent)

    def state(self) -> np.ndarray:
        if not self._has_reset:
            EnvLogger.error_state_before_reset()
        return super().state()

    def render(self) -> Union[str, np.ndarray, None]:
        if not self._has_reset:
            EnvLogger.error_render_before_reset()
        return super().render()

    def agent_iter(self, max_iter: int = 2 ** 63) -> AECIterable:
        if not self._has_reset:
            EnvLogger.error_agent_iter_before_reset()
        return _OrderEnforcingIterable(self, max_iter)

    def step(self, action: Optional[int]) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        if not self.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)  # only None is valid for a finished agent
            return
        action = G.as_action(action)  # InvalidActionError names what is wrong, nothing changes
        try:
            super().step(action)
        except G.IllegalActionError:  # the state is unchanged: end the game, offender -1
            EnvLogger.warn_on_illegal_move()
            self._cumulative_rewards[agent] = 0
            self.terminations = dict.fromkeys(self.agents, True)
            self.truncations = dict.fromkeys(self.agents, True)
            self.rewards = dict.fromkeys(self.agents, 0)
            self.rewards[agent] = -1.0
            self._accumulate_rewards()
            self._deads_step_first()
