"""Each seat's experience as that seat's own sequence of transitions.

Catan is turn-based with decisions out of turn (discards, trade answers), so the AEC
stream interleaves seats: the step after seat 0's move is usually seat 1's.  Generic
multi-agent glue that takes "the next observation in the stream" as a transition's
``obs_next`` bootstraps a seat's value from another seat's view, and a reward a seat
receives on another seat's move (losing the game, a VP stolen by the longest road)
never reaches it.  Here a transition runs from one of the seat's decisions to its next
decision (or the game's end), carries every reward the seat received in between, and
ends with the same seat's next observation:

    tracker = SeatTransitions(env.possible_agents)
    for each decision:  done = tracker.decide(agent, obs, action)   # closes agent's previous one
    after each step:    tracker.reward(env.rewards)                  # every seat's reward
    at the game's end:  done = tracker.end(final_obs, terminated, truncated)

``PerSeatGames`` runs N AEC games with this bookkeeping for the learner seats (other
seats are agents played inside), for any library that takes one agent per step;
``catan_env.wrappers.tianshou`` feeds it to Tianshou's trainers.
"""
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

import catan_env
from catan_env.agents.base import AgentProtocol
from catan_env.agents.registry import make_agent


class Transition(NamedTuple):
    """One seat's step: from its decision ``obs`` (action ``action``) to its next decision
    ``obs_next``; ``reward`` sums what the seat received in between (on any seat's moves)."""

    agent: str
    obs: Any
    action: int
    reward: float
    obs_next: Any
    terminated: bool
    truncated: bool


class SeatTransitions:
    """Assembles per-seat transitions from an interleaved turn-based stream (no env
    needed: feed it decisions, rewards and the end)."""

    def __init__(self, agents: Iterable[str]) -> None:
        self.agents = list(agents)
        self._open: Dict[str, Tuple[Any, int]] = {}
        self._reward = dict.fromkeys(self.agents, 0.0)

    def reset(self) -> None:
        """Forget a game (open transitions are dropped)."""
        self._open = {}
        self._reward = dict.fromkeys(self.agents, 0.0)

    def decide(self, agent: str, obs: Any, action: int) -> List[Transition]:
        """``agent`` plays ``action`` at ``obs``: closes its previous transition (returned,
        bootstrapping from ``obs``) and opens a new one."""
        if agent not in self._reward:
            raise KeyError(f"{agent!r} is not one of the tracked agents {self.agents}")
        done = []
        if agent in self._open:
            done.append(self._close(agent, obs, False, False))
        self._open[agent] = (obs, int(action))
        return done

    def reward(self, rewards: Mapping[str, float]) -> None:
        """Credit one step's rewards (every seat's, whoever moved) to each seat's open
        transition; a reward before a seat's first decision belongs to no transition."""
        for agent, r in rewards.items():
            if agent in self._open:
                self._reward[agent] += float(r)

    def end(self, final_obs: Mapping[str, Any], terminated: bool, truncated: bool) -> List[Transition]:
        """The game is over: closes every seat's open transition with its final observation
        (seats that did not act last included)."""
        done = [self._close(a, final_obs[a], terminated, truncated) for a in self.agents if a in self._open]
        self.reset()
        return done

    def _close(self, agent: str, obs_next: Any, terminated: bool, truncated: bool) -> Transition:
        obs, action = self._open.pop(agent)
        reward, self._reward[agent] = self._reward[agent], 0.0
        return Transition(agent, obs, action, reward, obs_next, bool(terminated), bool(truncated))


# A learner-seat choice per game: "all" (self-play: every seat not an opponent learns),
# "random" (one learner seat drawn per game, the others played by ``opponents``) or a seat.
LearnerSeats = Union[str, int]


class PerSeatGames:
    """N AEC games, stepped one decision at a time, emitting learner seats' transitions.

    ``opponents``: agents or agent specs for the seats that do not learn — one spec for
    every such seat, a list (seat i of a game uses entry i % len), or a pool
    ``{spec, agent or MLPWeights: weight}`` from which each such seat of each game is drawn
    by weight (a league, as the batched env takes it: ``catan_env.batched.snapshot_pool``
    makes one of anchors and the learner's snapshots; ``set_opponents`` replaces it).  ``learners``:
    ``"random"`` (one learner seat per game, drawn each game: the policy learns every
    seat), ``"all"`` (every seat learns: shared-policy self-play, no opponents) or a seat
    number.  Each learner seat's transitions go to one stream (``stream``), so a replay
    buffer with one sub-buffer per stream keeps each seat's transitions in order.

        games = PerSeatGames(8, opponents="random", players=4, vp_reward=0.05)
        games.reset(seed=0)
        while ...:
            streams, obs = games.pending()          # one deciding learner per game
            done = games.step(policy(obs))          # [(stream id, Transition), ...]
    """

    def __init__(self, n_games: int, opponents: Union[str, AgentProtocol, Sequence[Any], None] = "random",
                 learners: LearnerSeats = "random", **env_kwargs: Any) -> None:
        if not isinstance(n_games, int) or n_games < 1:
            raise ValueError(f"n_games must be a positive int, got {n_games!r}")
        if learners not in ("random", "all") and not isinstance(learners, int):
            raise ValueError(f"learners must be 'random', 'all' or a seat number, got {learners!r}")
        self.envs = [catan_env.env(**env_kwargs) for _ in range(n_games)]
        self.players = self.envs[0].options.players
        if isinstance(learners, int) and not 0 <= learners < self.players:
            raise ValueError(f"learner seat {learners} is not a seat of a {self.players}-player game")
        self.learners = learners
        self._pool: Optional[Dict[Any, float]] = None  # a league: each seat drawn by weight
        self._specs: List[Any] = []
        if isinstance(opponents, Mapping):
            self.set_opponents(opponents)
            specs = list(self._specs)
        else:
            specs = [] if learners == "all" else ([opponents] if isinstance(opponents, (str, AgentProtocol))
                                                 else list(opponents or []))
        if learners != "all" and not specs:
            raise ValueError("opponents are needed unless learners='all'")
        self._specs = specs
        self.agents = list(self.envs[0].possible_agents)
        self.n_games = n_games
        # one stream per game when one seat learns in each, else one per (game, seat)
        self.n_streams = n_games * self.players if learners == "all" else n_games
        self._trackers = [SeatTransitions(self.agents) for _ in range(n_games)]
        self._bots: List[Dict[str, AgentProtocol]] = [{} for _ in range(n_games)]
        self._learner_sets: List[frozenset] = [frozenset()] * n_games
        self._next_seed = 0
        self._rng = np.random.default_rng(0)
        self.finished: List[Dict[str, Any]] = []  # game_stats() of games ended since the last read

    def set_opponents(self, pool: Mapping[Any, float]) -> None:
        """Draw the non-learning seats of the games started from now on from ``pool``
        ({agent spec, agent or MLPWeights: weight}; an MLPWeights plays its greedy move, as
        a frozen snapshot of the learner)."""
        from catan_env.agents.learned import MLPPolicyAgent
        from catan_env.learned.mlp import MLPWeights
        entries: Dict[Any, float] = {}
        for opponent, weight in pool.items():
            if not (isinstance(weight, (int, float)) and weight > 0):
                raise ValueError(f"an opponent's weight must be a positive number, got {weight!r} for {opponent!r}")
            if isinstance(opponent, str):
                make_agent(opponent)  # an unknown spec is refused now, not at the next game
            elif isinstance(opponent, MLPWeights):
                opponent = MLPPolicyAgent(weights=opponent)
            entries[opponent] = float(weight)
        if not entries:
            raise ValueError("an opponent pool needs at least one entry")
        self._pool = entries
        self._specs = list(entries)

    def _opponent_for(self, seat: int) -> Any:
        """The spec or agent playing a non-learning seat of the game being started."""
        if self._pool is None:
            return self._specs[seat % len(self._specs)]
        weights = np.array(list(self._pool.values()))
        return self._specs[int(self._rng.choice(len(weights), p=weights / weights.sum()))]

    # -- games -------------------------------------------------------------------------
    def reset(self, seed: Optional[int] = None) -> None:
        """Start every game; game i of ``reset(seed=s)`` is ``env.reset(seed=s + i)``, the
        next game of a slot takes the next unused seed."""
        base = 0 if seed is None else int(seed)
        self._rng = np.random.default_rng(base)
        self._next_seed = base
        self.finished = []
        for i in range(self.n_games):
            self._start(i)

    def _start(self, i: int) -> None:
        env, seed = self.envs[i], self._next_seed
        self._next_seed += 1
        env.reset(seed=seed)
        self._trackers[i].reset()
        if self.learners == "all":
            learners = frozenset(self.agents)
        elif self.learners == "random":
            learners = frozenset([self.agents[int(self._rng.integers(self.players))]])
        else:
            learners = frozenset([self.agents[int(self.learners)]])
        self._learner_sets[i] = learners
        bots = {}
        for seat, agent in enumerate(self.agents):
            if agent not in learners:
                bot = make_agent(self._opponent_for(seat), seed=seed * 31 + seat)
                if hasattr(bot, "reset"):
                    bot.reset(seed * 31 + seat)
                bots[agent] = bot
        self._bots[i] = bots
        self._advance(i)

    def _advance(self, i: int) -> List[Tuple[int, Transition]]:
        """Play opponents in game i until a learner decides; at the game's end close every
        learner's transition and start the slot's next game."""
        env, bots, tracker = self.envs[i], self._bots[i], self._trackers[i]
        while True:
            agent = env.agent_selection
            if env.terminations[agent] or env.truncations[agent]:
                learners = self._learner_sets[i]
                final = {a: env.observe(a) for a in learners}
                done = tracker.end(final, any(env.terminations.values()), any(env.truncations.values()))
                self.finished.append({**env.game_stats(), "learners": sorted(learners)})
                out = [(self.stream(i, t.agent), t) for t in done]
                self._start(i)
                return out
            if agent not in bots:
                return []
            env.step(bots[agent].act(env.observe(agent), env.infoset(agent)))
            tracker.reward(env.rewards)

    def stream(self, game: int, agent: str) -> int:
        """The stream id of (game slot, seat): the game slot when one seat learns per game
        (its games follow each other there), else ``game * players + seat``."""
        if self.learners != "all":
            return game
        return game * self.players + self.envs[0].agent_name_mapping[agent]

    def pending(self) -> Tuple[np.ndarray, List[Dict[str, np.ndarray]]]:
        """(stream ids, observations) of every game's deciding learner, in game order."""
        streams = np.empty(self.n_games, dtype=np.int64)
        obs = []
        for i, env in enumerate(self.envs):
            agent = env.agent_selection
            streams[i] = self.stream(i, agent)
            obs.append(env.observe(agent))
        return streams, obs

    def step(self, actions: Sequence[int]) -> List[Tuple[int, Transition]]:
        """One action per game (for its deciding learner): the transitions this completed,
        as (stream id, Transition); observations are the env's dicts."""
        if len(actions) != self.n_games:
            raise ValueError(f"expected {self.n_games} actions (one per game), got {len(actions)}")
        out: List[Tuple[int, Transition]] = []
        for i, (env, action) in enumerate(zip(self.envs, actions)):
            agent = env.agent_selection
            for t in self._trackers[i].decide(agent, env.observe(agent), int(action)):
                out.append((self.stream(i, t.agent), t))
            env.step(int(action))
            self._trackers[i].reward(env.rewards)
            out.extend(self._advance(i))
        return out

    def pop_finished(self) -> List[Dict[str, Any]]:
        """Statistics of the games that ended since the last call."""
        done, self.finished = self.finished, []
        return done

