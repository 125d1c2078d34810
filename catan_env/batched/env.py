"""``BatchedCatan``: N games in preallocated numpy arrays, stepped by one numba call.

    venv = BatchedCatan(1024, opponents="random", seed=0)
    obs, masks = venv.reset()
    for _ in range(1000):
        obs, rewards, terminated, truncated, masks = venv.step(venv.sample_actions())

Learner mode (default): each game has one learner seat (random per episode unless
``learner_seat`` is given); the other seats are opponents drawn per episode from the
``opponents`` pool and stepped inside numba: "random", "pruning", "weighted" (the core's
playout policies), an exported MLP (``MLPWeights`` or the path of its .npz: a frozen
snapshot of a learned policy), an agent or agent spec that can play inside numba
(``"pretrained:search=0"``, ``"value:path=NET.npz:search=0"``: the win-probability
network played greedily, the same numba decision as the agent's; any agent with a
``batched_opponent()`` method), or another Python agent / agent spec (``"jsettlers"``:
the kernel pauses and the agent acts through the usual observation + InfoSet protocol).
A pool is one entry, a list (drawn uniformly) or a dict ``{entry: weight}``.

All-seats mode (``mode="all_seats"``): the caller acts for every seat (shared-policy
self-play); ``deciders`` names each game's seat to act, observations are that seat's,
and rewards have one column per seat.

``obs_dtype="uint8"`` keeps observations compact: the counts the float32 values are made
of (a quarter of the memory, for rollout buffers; the turn's high byte is one more slot),
``expanded(obs)`` or ``core.observe.expand`` turning them into the float32 values (equal).

The arrays returned are the env's own buffers, overwritten by the next step: copy what
you keep, and do not write into them (a row's board part is reused while that game's
board is unchanged).  ``CatanVectorEnv`` copies by default.

``threads=k`` steps k slices of the games at once on numba's threads (one parallel
kernel call a step), for k cores: the same results as one thread, game for game.

Semantics match the single envs step for step (see ``kernel``): the same seed gives the
same game as ``raw_env().reset(seed=...)``; episodes reset automatically in the same
step, the finished episode's last observation in ``final_obs`` and its statistics in
``episode_stats()``.
"""
import copy
import os
import warnings
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
from numpy.typing import ArrayLike

from ..core import game as G
from ..core.actions import N_ACTIONS
from ..core.layout import DECIDER, RNG, STATE_SIZE
from ..core.observe import BOARD_SIZE, COMPACT_SIZE, GRID_H, GRID_W, PLANES, VECTOR_SIZE, expand, expand_planes
from ..core.options import DEFAULT_MAX_TURNS, make_options
from . import kernel as K
from ..learned.greedy import K_FALLBACK, ValueOpponent
from ..agent_specs import resolve_agent
from ..learned.mlp import MLPWeights, pack
from ..learned.plays import InNumbaPlay, PolicyNetworkPlay, ValueNetworkPlay
from ..compiling import warn_if_compiling

# opponents: one spec / agent / MLPWeights, a list of them, or {entry: weight}
OpponentPool = Union[str, Any, Sequence[Any], Mapping[Any, float]]
# observations: (N, VECTOR_SIZE) float32, or {"board": (N, PLANES, H, W), "vector": (N, TAIL)};
# with obs_dtype="uint8": (N, COMPACT_SIZE) and (N, TAIL + 1) uint8
Observations = Union[np.ndarray, Dict[str, np.ndarray]]

MODES = ("learner", "all_seats")
# obs_dtype -> (dtype, floats or bytes per observation); "uint8": the compact form (the
# counts, a quarter of the memory; ``expand`` gives the float32 values)
OBS_DTYPES = {"float32": (np.float32, VECTOR_SIZE), "uint8": (np.uint8, COMPACT_SIZE)}
BUILTIN_OPPONENTS = {"random": K.OPP_RANDOM, "pruning": K.OPP_PRUNING, "weighted": K.OPP_WEIGHTED}


def _in_numba(o: Any) -> Optional[InNumbaPlay]:
    """What the agent or agent spec o plays inside numba (its ``batched_opponent()``, a
    ``learned.plays`` value), else None.  A spec is built afresh each time (a network
    file may change)."""
    if isinstance(o, str):
        o = resolve_agent(o)
    method = getattr(o, "batched_opponent", None)
    return method() if callable(method) else None


def _pool_entries(opponents: OpponentPool) -> List[Tuple[Any, float]]:
    if isinstance(opponents, dict):
        entries = list(opponents.items())
    elif isinstance(opponents, (list, tuple)):
        entries = [(o, 1.0) for o in opponents]
    else:
        entries = [(opponents, 1.0)]
    if not entries:
        raise ValueError("opponents must name at least one opponent")
    for o, w in entries:
        if not (isinstance(w, (int, float)) and w > 0):
            raise ValueError(f"opponent weights must be positive numbers, got {w!r} for {o!r}")
    return entries


def snapshot_pool(anchors: Sequence[Any], snapshots: Sequence[MLPWeights],
                  anchor_weight: float = 0.5) -> Dict[Any, float]:
    """An opponent pool for self-play: the anchors (e.g. "weighted", "jsettlers") share
    anchor_weight equally; the snapshots (MLPWeights, oldest first) share the rest,
    weighted by recency (1, 2, ..., k), so the newest are drawn most."""
    anchors = list(anchors)
    if not snapshots:
        return {a: 1.0 for a in anchors}
    if not anchors:
        anchor_weight = 0.0
    if not 0.0 <= anchor_weight < 1.0:
        raise ValueError(f"anchor_weight must be in [0, 1), got {anchor_weight!r}")
    pool = {a: anchor_weight / len(anchors) for a in anchors}
    ranks = np.arange(1, len(snapshots) + 1, dtype=float)
    for snap, w in zip(snapshots, ranks / ranks.sum() * (1.0 - anchor_weight)):
        pool[snap] = float(w)
    return pool


class BatchedCatan:
    """N Catan games stepped together in numba; see the module docstring."""

    def __init__(self, num_envs: int, mode: str = "learner", opponents: OpponentPool = "random",
                 learner_seat: Optional[int] = None, obs_type: str = "vector",
                 max_turns: Optional[int] = DEFAULT_MAX_TURNS, vp_reward: float = 0.0,
                 illegal_penalty: float = -0.1, max_illegal: int = 100, skip_forced: bool = False,
                 opponent_sample: bool = True, seed: Optional[int] = None, threads: int = 1,
                 obs_dtype: str = "float32", **options: Any) -> None:
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, got {num_envs!r}")
        warn_if_compiling()
        if not isinstance(threads, int) or isinstance(threads, bool) or threads < 1:
            raise ValueError(f"threads must be a positive int, got {threads!r}")
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if obs_type not in ("vector", "planes"):
            raise ValueError(f"obs_type must be 'vector' or 'planes', got {obs_type!r}")
        if obs_dtype not in OBS_DTYPES:
            raise ValueError(f"obs_dtype must be one of {tuple(OBS_DTYPES)}, got {obs_dtype!r}")
        if max_turns is not None and (not isinstance(max_turns, int) or max_turns < 1):
            raise ValueError(f"max_turns must be a positive int or None, got {max_turns!r}")
        if not isinstance(max_illegal, int) or max_illegal < 1:
            raise ValueError(f"max_illegal must be a positive int, got {max_illegal!r}")
        self.options = make_options(**options)
        n = self.options.players
        if learner_seat is not None and not (isinstance(learner_seat, int) and 0 <= learner_seat < n):
            raise ValueError(f"learner_seat must be None or an int in 0..{n - 1}, got {learner_seat!r}")
        self.num_envs = num_envs
        self.mode = mode
        self.n_players = n
        self.obs_type = obs_type
        self.obs_dtype = obs_dtype
        dtype, width = OBS_DTYPES[obs_dtype]
        o = self.options
        board = o.board_dict()
        self._template = G.new_game(o, seed=0)
        self.cfg = np.zeros(K.N_CONFIG, np.int64)
        self.cfg[[K.C_PLAYERS, K.C_VP, K.C_DISCARD, K.C_FRIENDLY, K.C_TRADE, K.C_MAX_OFFERS]] = (
            n, o.vp_to_win, o.discard_limit, int(o.friendly_robber), int(o.domestic_trade),
            o.max_offers_per_turn)
        self.cfg[K.C_MAX_TURNS] = max_turns or 0
        self.cfg[K.C_MAX_ILLEGAL] = max_illegal
        self.cfg[K.C_FIXED_SEAT] = -1 if learner_seat is None else learner_seat
        self.cfg[K.C_SKIP_FORCED] = int(bool(skip_forced))
        self.cfg[K.C_ALL_SEATS] = int(mode == "all_seats")
        self.cfg[K.C_PLANES] = int(obs_type == "planes")
        self.cfg[K.C_FIXED_BOARD] = int(board is not None)
        self.cfg[K.C_MLP_SAMPLE] = int(bool(opponent_sample))
        bits, sevens, deck = o.rule_variants()
        self.cfg[K.C_RULES], self.cfg[K.C_SEVENS] = bits, sevens
        self.cfg[K.C_DECK:K.C_DECK + 5] = deck
        self.fcfg = np.array([vp_reward, illegal_penalty], dtype=np.float64)
        self.set_opponents(opponents)
        B = num_envs
        self.states = np.zeros((B, STATE_SIZE), np.int64)
        self.games = np.zeros((B, K.N_GAME_COLS), np.int64)
        self.vals = np.zeros((B, K.N_VAL_COLS), np.float64)
        self.rngs = np.zeros((B, RNG + 1), np.int64)
        cols = n if mode == "all_seats" else 1
        self.rewards = np.zeros((B, cols), np.float64)
        self.terminated = np.zeros(B, np.bool_)
        self.truncated = np.zeros(B, np.bool_)
        self.final_obs = np.zeros((B, cols, width), dtype)
        self.ep_stats = np.zeros((B, K.N_EP_COLS), np.int64)
        self.ep_returns = np.zeros(B, np.float64)
        self.obs = np.zeros((B, width), dtype)
        self.planes = np.zeros((B if obs_type == "planes" else 1, PLANES, GRID_H, GRID_W), dtype)
        self.final_planes = np.zeros_like(self.planes)
        self.masks = np.zeros((B, N_ACTIONS), np.bool_)
        self._sample_rng = np.zeros(RNG + 1, np.int64)
        self._seed = seed
        self._has_reset = False
        self.opponent_fallbacks: Dict[str, int] = {}  # moves Python opponents replaced, by reason (all games)
        # threads > 1: step() splits the games into that many slices, stepped at once by
        # one parallel kernel (results identical to one thread: each game has its own RNG
        # and rows)
        self.threads = min(threads, num_envs)
        if self.threads > 1:
            import numba
            if numba.get_num_threads() < self.threads:
                warnings.warn(f"threads={self.threads} but numba runs {numba.get_num_threads()} thread(s) "
                              f"(NUMBA_NUM_THREADS or numba.set_num_threads): the slices are stepped in turn",
                              RuntimeWarning, stacklevel=2)
        self._slices = np.linspace(0, num_envs, self.threads + 1).astype(np.int64)
        self._slice_args: Optional[Tuple[np.ndarray, ...]] = None  # step_slices' arrays

    # ------------------------------------------------------------------ opponents
    def set_opponents(self, opponents: OpponentPool) -> None:
        """Replace the opponent pool (takes effect as each game starts its next episode)."""
        kinds: List[int] = []
        samples: List[int] = []  # per entry: an MLP samples (1) or plays its argmax (0)
        weights: List[float] = []
        nets: List[MLPWeights] = []
        external: List[Any] = []
        pool_external: Dict[int, int] = {}
        for o, w in _pool_entries(opponents):
            sample = None
            npz = isinstance(o, os.PathLike) or (isinstance(o, str) and o.endswith(".npz") and "=" not in o)
            builtin = isinstance(o, str) and o in BUILTIN_OPPONENTS
            plays = None if builtin or npz or isinstance(o, MLPWeights) else _in_numba(o)
            if builtin:
                kinds.append(BUILTIN_OPPONENTS[o])
            elif isinstance(o, MLPWeights) or npz or isinstance(plays, PolicyNetworkPlay):
                net = plays.weights if isinstance(plays, PolicyNetworkPlay) else \
                    o if isinstance(o, MLPWeights) else MLPWeights.load(o)
                if net.n_in != VECTOR_SIZE or net.n_out != N_ACTIONS:
                    raise ValueError(f"an opponent MLP must map {VECTOR_SIZE} inputs to {N_ACTIONS} "
                                     f"logits, got {net.n_in} -> {net.n_out}")
                kinds.append(K.OPP_MLP + len(nets))
                nets.append(net)
                sample = plays.sample if isinstance(plays, PolicyNetworkPlay) else None  # else the env's choice
            elif isinstance(plays, ValueNetworkPlay):
                kinds.append(K.OPP_EXTERNAL)  # the kernel pauses; _run_external decides in one numba call
                pool_external[len(kinds) - 1] = len(external)
                external.append(ValueOpponent(plays.weights, plays.options))
            elif isinstance(o, str) or hasattr(o, "act"):
                kinds.append(K.OPP_EXTERNAL)
                pool_external[len(kinds) - 1] = len(external)
                external.append(o)
            else:
                raise ValueError(f"unknown opponent {o!r}: use 'random', 'pruning', 'weighted', "
                                 f"an MLPWeights or .npz path, or an agent / agent spec")
            weights.append(float(w))
            samples.append(int(self.cfg[K.C_MLP_SAMPLE]) if kinds[-1] < K.OPP_MLP or sample is None else int(sample))
        if self.mode == "all_seats" and (nets or external):
            raise ValueError("all_seats mode has no opponents: the caller acts for every seat")
        self._external = external
        self._pool_external = pool_external  # pool index -> external entry
        self._pool_external_index = np.full(len(kinds), -1, np.int64)  # the same, as an array (-1: none)
        for entry, k in pool_external.items():
            self._pool_external_index[entry] = k
        self._external_agents: Dict[Any, Any] = {}
        self.pool_kinds = np.array(kinds, np.int64)
        self.pool_sample = np.array(samples, np.int64)
        self.pool_cum = np.cumsum(weights) / np.sum(weights)
        self.params, self.layers, self.nets = pack(nets)
        self._kernel_args: Optional[Tuple[Any, ...]] = None  # rebuilt with the new pool
        # games started under an earlier pool may still pause for its Python agents
        self._may_pause = bool(external) or getattr(self, "_may_pause", False)

    # ------------------------------------------------------------------ API
    def reset(self, seed: Union[int, Sequence[int], None] = None) -> Tuple[Observations, np.ndarray]:
        """Start every game; game i plays the game of seed + i (seed None: fresh entropy).
        Returns (observations, masks)."""
        if seed is None:
            seed = self._seed if not self._has_reset and self._seed is not None else \
                int(np.random.default_rng().integers(2 ** 62))
        seeds = np.asarray([(int(seed) + i) % (2 ** 62) for i in range(self.num_envs)],  # type: ignore
                           np.int64) \
            if np.isscalar(seed) else np.asarray(seed, np.int64)
        if seeds.shape != (self.num_envs,):
            raise ValueError(f"seed must be an int or {self.num_envs} ints")
        self._sample_rng[RNG] = (int(seeds[0]) * 7919 + 17) % (2 ** 63)
        self._has_reset = True
        self.rewards[:] = 0.0
        self.terminated[:] = False
        self.truncated[:] = False
        K.reset_games(np.arange(self.num_envs), seeds, *self._arrays(), self._scratch())
        self._run_external()
        return self.observations(), self.masks

    def step(self, actions: ArrayLike, hold: Optional[ArrayLike] = None
             ) -> Tuple[Observations, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Apply one action per game (for its learner, or in all_seats mode its decider).
        Returns (observations, rewards, terminated, truncated, masks); rewards are (N,) in
        learner mode and (N, players) in all_seats mode.  ``hold`` (bool per game): those
        games do not move this step (their action is ignored, reward 0, observation and
        mask as before): next-step autoreset on top of this same-step one."""
        if not self._has_reset:
            raise RuntimeError("call reset() before step()")
        raw = np.asarray(actions)
        if raw.dtype.kind not in "iu":
            raise G.InvalidActionError(f"actions are integer ids 0-{N_ACTIONS - 1}, got an array of {raw.dtype}")
        actions = raw.astype(np.int64).reshape(-1)
        bad = np.flatnonzero((actions < 0) | (actions >= N_ACTIONS))
        if bad.size:
            raise G.InvalidActionError(f"action ids must be 0-{N_ACTIONS - 1}: game {int(bad[0])} got "
                                       f"{int(actions[bad[0]])} ({bad.size} game(s) out of range)")
        if actions.shape[0] != self.num_envs:
            raise ValueError(f"step() needs {self.num_envs} actions, got {actions.shape[0]}")
        held = None
        if hold is not None:
            hold = np.asarray(hold, bool).reshape(-1)
            if hold.shape[0] != self.num_envs:
                raise ValueError(f"hold needs one flag per game ({self.num_envs}), got {hold.shape[0]}")
            held = np.flatnonzero(hold & (self.games[:, K.G_WAITING] == 0))
            self.games[held, K.G_WAITING] = 1  # step_slice skips waiting games
        self._step_kernel(actions)
        if held is not None:
            self.games[held, K.G_WAITING] = 0
        self._run_external()
        rewards = self.rewards if self.mode == "all_seats" else self.rewards[:, 0]
        return self.observations(), rewards, self.terminated, self.truncated, self.masks

    def observations(self, copy: bool = False) -> Observations:
        """This step's observations: the env's buffers, or copies of them."""
        if self.obs_type == "planes":
            obs = {"board": self.planes, "vector": self.obs[:, BOARD_SIZE:]}
            return {k: v.copy() for k, v in obs.items()} if copy else obs
        return self.obs.copy() if copy else self.obs

    def expanded(self, obs: Observations) -> Observations:
        """float32 observations of this env's observations (``obs_dtype="uint8"``: the
        compact counts divided out, equal to the float32 encoders'; float32: obs itself)."""
        if self.obs_dtype == "float32":
            return obs
        if isinstance(obs, dict):
            return {"board": expand_planes(obs["board"]), "vector": expand(obs["vector"])}
        return expand(obs)

    def final_observation(self, i: int) -> Union[np.ndarray, Dict[str, np.ndarray]]:
        """The last observation of game i's episode that ended in the last step."""
        vec = self.final_obs[i, 0].copy()
        if self.obs_type == "planes":
            return {"board": self.final_planes[i].copy(), "vector": vec[BOARD_SIZE:]}
        return vec

    def network_decisions(self, network: ValueOpponent, seeds: np.ndarray, actions: np.ndarray,
                          values: np.ndarray, scores: Optional[np.ndarray] = None) -> np.ndarray:
        """Every game's decision by ``network`` (a ``learned.greedy.ValueOpponent``) for
        the seat to act: ``actions[i]``, ``values[i]`` (and ``scores[i]``, every move's
        value); returns each decision's kind.  For recorders that play one network on
        every seat (distillation), through the games' own memory of earlier decisions."""
        every = np.arange(self.num_envs, dtype=np.int64)
        return network.decide(self.states, every, seeds, self.games, K.G_MEMORY, actions, values, scores)

    @property
    def deciders(self) -> np.ndarray:
        """Seat to act in each game (all_seats mode: whose observation and mask are given)."""
        return self.games[:, K.G_DECIDER]

    @property
    def learner_seats(self) -> np.ndarray:
        """The learner's seat in each game (learner mode)."""
        return self.games[:, K.G_LEARNER]

    @property
    def game_seeds(self) -> np.ndarray:
        """Seed of each game's current episode (``raw_env().reset(seed=...)`` replays it)."""
        return self.games[:, K.G_SEED]

    def sample_actions(self) -> np.ndarray:
        """A uniformly random legal action per game (numba; for baselines and benchmarks)."""
        out = np.empty(self.num_envs, np.int64)
        K.sample_legal(self.masks, self._sample_rng, out)
        return out

    def episode_stats(self) -> Dict[int, Dict[str, Any]]:
        """Statistics of the episodes that ended in the last step, one dict per game
        that finished: return, length (caller decisions), winner (-1 if none), won,
        turns, the learner's VP, seat and the episode's seed."""
        done = np.flatnonzero(self.terminated | self.truncated)
        out = {}
        for i in done:
            e = self.ep_stats[i]
            learner = int(e[K.E_LEARNER])
            out[int(i)] = {"r": float(self.ep_returns[i]), "l": int(e[K.E_LEN]),
                           "winner": int(e[K.E_WINNER]), "won": bool(e[K.E_WINNER] == learner),
                           "turns": int(e[K.E_TURNS]), "vp": int(e[K.E_VP]),
                           "learner_seat": learner, "seed": int(e[K.E_SEED]),
                           "truncated": bool(self.truncated[i])}
        return out

    def close(self) -> None:
        """Nothing to release (numba's threads are shared by the process); kept for the
        vector-env protocols.  The env still works afterwards."""

    # ------------------------------------------------------------------ internals
    def _step_kernel(self, actions: np.ndarray) -> None:
        """One step of every game: one kernel call, or (threads > 1) one parallel kernel
        call stepping the slices at once.  Its arrays are gathered once per opponent
        pool, as the groups are (``_arrays``)."""
        batch, setup, nets, out = self._arrays()
        if self.threads == 1:
            K.step_slice(actions, batch, setup, nets, out, self._scratch(), 0, self.num_envs)
            return
        if self._slice_args is None:
            scratches = [K.make_scratch(nets) for _ in range(self.threads)]
            stacked = tuple(np.stack([sc[f] for sc in scratches]) for f in range(len(K.Scratch._fields)))
            self._slice_args = (*batch, *setup, *nets, *out, *stacked, self._slices)
        K.step_slices(actions, *self._slice_args)

    def _arrays(self) -> Tuple[Any, ...]:
        """The kernels' grouped arguments: (Batch, Setup, Nets, Outputs), built once per
        opponent pool (the arrays themselves are never replaced), with the scratch the
        kernels called from Python share, sized for the pool's networks (``_scratch``)."""
        if self._kernel_args is None:
            nets = K.Nets(self.params, self.layers, self.nets)
            self._scratch_buffers = K.make_scratch(nets)  # before the args
            self._slice_args = None
            self._kernel_args = (
                K.Batch(self.states, self.games, self.vals, self.rngs),
                K.Setup(self.cfg, self.fcfg, self._template, self.pool_kinds, self.pool_cum, self.pool_sample),
                nets,
                K.Outputs(self.rewards, self.terminated, self.truncated, self.final_obs, self.final_planes,
                          self.ep_stats, self.ep_returns, self.obs, self.planes, self.masks))
        return self._kernel_args

    def _scratch(self) -> Any:
        """The kernels' work buffers (they allocate nothing themselves: they run without
        numba's reference counting, see ``kernel``); the parallel step has its own."""
        self._arrays()
        return self._scratch_buffers

    def _external_agent(self, i: int, seat: int) -> Any:
        """The Python agent playing seat of game i (one copy per game and seat, reset
        at each new episode)."""
        k = (seat - int(self.games[i, K.G_LEARNER])) % self.n_players - 1
        seed = int(self.games[i, K.G_SEED])
        key = (i, k)
        entry = self._entry(i, seat)
        cached = self._external_agents.get(key)
        if cached is None or cached[0] != (seed, entry):
            if isinstance(self._external[entry], str):
                agent = resolve_agent(self._external[entry], seed=seed + k)
            else:
                agent = copy.deepcopy(self._external[entry])
                if hasattr(agent, "reset"):
                    agent.reset(seed=seed + k)
            cached = self._external_agents[key] = ((seed, entry), agent)
        return cached[1]

    def _count_fallback(self, seat: int, reason: str) -> None:
        self.opponent_fallbacks[reason] = self.opponent_fallbacks.get(reason, 0) + 1

    def _entry(self, i: int, seat: int) -> int:
        """The external pool entry playing seat in game i."""
        k = (seat - int(self.games[i, K.G_LEARNER])) % self.n_players - 1
        return self._pool_external[int(self.games[i, K.G_OPP + k])]

    def _value_decisions(self, waiting: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """actions[j] for the waiting games whose decider is a value-network opponent, each
        network's games in one numba call (``learned.greedy.greedy_batch``, determinization
        seeds from the game's RNG); returns which were served."""
        served = np.zeros(waiting.size, bool)
        # each waiting game's external entry (``_entry`` for all of them at once: a waiting
        # game is never over, so its state's DECIDER is the seat to act)
        seats = self.states[waiting, DECIDER]
        k = (seats - self.games[waiting, K.G_LEARNER]) % self.n_players - 1
        pool = self.games[waiting, K.G_OPP + k]
        known = pool < self._pool_external_index.size  # (a game started under a longer, earlier pool)
        entries = np.where(known, self._pool_external_index[np.where(known, pool, 0)], -1)
        if entries.size and entries.min() < 0:
            j = int(np.argmin(entries))
            raise RuntimeError(f"game {int(waiting[j])} waits for seat {int(seats[j])}, whose opponent "
                               f"is not a Python or value-network agent of the current pool")
        for entry in np.unique(entries):
            opponent = self._external[entry]
            if not isinstance(opponent, ValueOpponent):
                continue
            rows = np.flatnonzero(entries == entry)
            idx = waiting[rows].astype(np.int64)
            seeds = np.empty((idx.size, opponent.views), np.int64)
            K.draw_seeds(self.rngs, idx, seeds)
            values = np.empty(idx.size)
            out = np.empty(idx.size, np.int64)
            kinds = opponent.decide(self.states, idx, seeds, self.games, K.G_MEMORY, out, values)
            fallbacks = int(np.count_nonzero(kinds == K_FALLBACK))  # counted, as every opponent's are
            if fallbacks:
                self.opponent_fallbacks["no searchable move"] = self.opponent_fallbacks.get("no searchable move", 0) + fallbacks
            actions[rows] = out
            served[rows] = True
        return served

    def _run_external(self) -> None:
        """Let Python agents act wherever the kernel paused for one, until none waits."""
        if not self._may_pause:
            return  # no Python agent was ever in the pool: the kernel never pauses
        while True:
            waiting = np.flatnonzero(self.games[:, K.G_WAITING])
            if waiting.size == 0:
                return
            from ..infoset import InfoSet
            actions = np.empty(waiting.size, np.int64)
            served = self._value_decisions(waiting, actions)
            for j in np.flatnonzero(~served):
                i = waiting[j]
                s = self.states[i]
                seat = G.decider(s)
                obs = {"observation": G.observe(s, seat), "action_mask": G.legal_mask(s)}
                agent = self._external_agent(int(i), seat)
                info = InfoSet(s, seat, int(self.rngs[i, RNG]) & (2 ** 62 - 1),
                               on_fallback=self._count_fallback)
                a = int(agent.act(obs, info))
                if not obs["action_mask"][a]:
                    raise G.IllegalActionError(f"opponent agent {agent!r} chose illegal action "
                                               f"{G.A.action_name(a)} in game {i}")
                actions[j] = a
            K.resume_games(waiting.astype(np.int64), actions, *self._arrays(), self._scratch())
