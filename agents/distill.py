"""Distillation data: a teacher's decisions, to clone into a policy network.

    generate("data/distill", teacher="pretrained:search=0", games=2000)
    data = load("data/distill")
    obs, masks = observations(data["state"], data["seat"])   # what an RL library's policy sees

Every decision with more than one legal move of every seat is kept (with ``roll_in``, a
DAgger run: of the policy's seat only, labelled by the teacher): the true state
(the seat's observation and legal mask are rebuilt from it, so shards stay small and
the observation encoding may change), the seat, the teacher's move, the teacher's
estimate of its own chance to win (NaN where it gave none: trade decisions, a teacher
without one) and the game's winner (-1 when the turn cap ended it).  A shard (``.npz``,
written by ``agents.training.shards`` like the value network's) holds whole games:

  state   (N, STATE_SIZE) int32   the true state (RNG zeroed)
  seat    (N,) int64              the seat that decided
  action  (N,) int64              the teacher's move
  value   (N,) float32            the teacher's estimate of the seat's win chance, or NaN
  winner  (N,) int64              the game's winner, -1 when the turn cap ended it (a
                                  DAgger run: of the game the policy played)
  game    (N,) int64              the game's index in the run
  score_ids, score_values  (N, TOP) int16, float32   the moves the teacher compared and
                                  their scores (``learned.greedy.greedy_scored``: one-ply
                                  values, or a trade decision's gains), best first, id -1
                                  past the last (a teacher that gives none: all -1): soft
                                  targets for the clone

Three ways to play the games.  With ``roll_in`` (``dagger_shard``), a policy network
plays one seat of batched games against an opponent pool and the teacher, any agent spec,
only labels its decisions.  Otherwise the teacher plays every seat, the same rows either
way: a teacher that can play inside
numba (``batched_opponent()``: ``pretrained:search=0`` and ``value:...:search=0``) plays
every seat of the batched env's games in one numba call per step (thousands of
decisions a second); any other agent spec plays arena games (``play_game``) in a
process pool or as Ray tasks (``backend="ray"``).  Runs are resumable and extendable: the
folder's ``manifest.json`` (``agents.training.shards.record``, the one format every
recorder writes) records the settings and the shards written; a shard's games follow from
the run's seed and the shard's place alone (in the batched env, from its first game's seed).
"""
import copy
import hashlib
from functools import partial
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from numba import njit

from catan_env.batched import BatchedCatan
from catan_env.core import game as G
from catan_env.core.actions import N_ACTIONS
from catan_env.batched import kernel as K
from catan_env.core.layout import PH_MAIN, PHASE, RNG, STATE_SIZE, TURN
from catan_env.core.observe import VECTOR_SIZE, encode_vector
from catan_env.core.rules import legal_actions
from catan_env.learned.greedy import IS_OFFER, M_COUNT, M_IDS, M_TURN, MAX_OFFERS, MEMORY_SIZE, ValueOpponent
from catan_env.learned.mlp import MLPWeights
from catan_env.learned.plays import PolicyNetworkPlay, ValueNetworkPlay

from .registry import make_agent
from .arena import BACKENDS, play_game
from .training.shards import Block, BlockResult, load_shard, record, shard_files

KIND = "distill"
KEYS = ("state", "seat", "action", "value", "winner", "game", "score_ids", "score_values")
TOP = 16  # scored moves kept per decision


def _empty() -> Dict[str, np.ndarray]:
    return {"state": np.zeros((0, STATE_SIZE), np.int32), "seat": np.zeros(0, np.int64),
            "action": np.zeros(0, np.int64), "value": np.zeros(0, np.float32), "winner": np.zeros(0, np.int64),
            "game": np.zeros(0, np.int64), "score_ids": np.zeros((0, TOP), np.int16),
            "score_values": np.zeros((0, TOP), np.float32)}


def _concat(parts: Sequence[Dict[str, np.ndarray]]) -> Dict[str, np.ndarray]:
    return {k: np.concatenate([p[k] for p in parts]) if parts else _empty()[k] for k in KEYS}


def top_scores(row: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(ids, scores) of the TOP best scored moves of a NaN-padded score row, best first."""
    ids = np.full(TOP, -1, np.int16)
    vals = np.zeros(TOP, np.float32)
    scored = np.flatnonzero(~np.isnan(row))
    best = scored[np.argsort(-row[scored], kind="stable")][:TOP]
    ids[:len(best)], vals[:len(best)] = best, row[best]
    return ids, vals


def _rows(states: List[np.ndarray], seats: List[int], actions: List[int], values: List[float], winner: int,
          game: int, scores: Optional[List[Tuple[np.ndarray, np.ndarray]]] = None) -> Dict[str, np.ndarray]:
    """One finished game's rows."""
    k = len(states)
    state = np.array(states, np.int64).reshape(k, STATE_SIZE)
    state[:, RNG] = 0
    ids = np.array([i for i, _ in scores], np.int16).reshape(k, TOP) if scores else np.full((k, TOP), -1, np.int16)
    vals = np.array([v for _, v in scores], np.float32).reshape(k, TOP) if scores else np.zeros((k, TOP), np.float32)
    return {"state": state.astype(np.int32), "seat": np.array(seats, np.int64), "action": np.array(actions, np.int64),
            "value": np.array(values, np.float32), "winner": np.full(k, winner, np.int64),
            "game": np.full(k, game, np.int64), "score_ids": ids, "score_values": vals}


class _Quota:
    """Which of a batch's game slots play games that count: the first ``games`` episodes
    started (the slots' first episodes, then each new one as a slot's game ends).  Every
    counted game is played to its end and recorded, so short games are not favoured over
    long ones (keeping the first ``games`` to finish would drop the longest); a slot whose
    next episode is past the quota is held (``BatchedCatan.step(hold=)``: it never moves)."""

    def __init__(self, batch: int, games: int) -> None:
        self.games = games
        self.counted = np.arange(batch) < games
        self.started = int(self.counted.sum())

    def next_episode(self, i: int) -> None:
        """Slot i's game ended and its next episode began: it counts while the quota lasts."""
        self.counted[i] = self.started < self.games
        self.started += int(self.counted[i])


class _Games:
    """The rows of the games a batch's slots play, each kept until its game ends and then
    recorded with its winner (``_rows``), and one result per recorded game."""

    def __init__(self, batch: int, first_game: int) -> None:
        self.first_game = first_game
        self.pending: List[Tuple[List[Any], ...]] = [([], [], [], [], []) for _ in range(batch)]
        self.parts: List[Dict[str, np.ndarray]] = []
        self.results: List[Dict[str, Any]] = []

    def note(self, i: int, state: np.ndarray, seat: int, action: int, value: float,
             scored: Tuple[np.ndarray, np.ndarray]) -> None:
        """A decision in slot i's game: the state, the seat, the labelled move, its value
        estimate (NaN where negative: none) and the top scores."""
        rows = self.pending[i]
        rows[0].append(state.copy())
        rows[1].append(seat)
        rows[2].append(action)
        rows[3].append(value if value >= 0 else float("nan"))
        rows[4].append(scored)

    def end(self, i: int, stats: Dict[str, Any], counted: bool, **extra: Any) -> None:
        """Slot i's game ended: its rows and its result (winner, turns and ``extra``)
        recorded if it counted; dropped otherwise."""
        if counted:
            if self.pending[i][0]:
                states, seats, actions, values, scored = self.pending[i]
                self.parts.append(_rows(states, seats, actions, values, int(stats["winner"]),
                                        self.first_game + len(self.results), scored))
            self.results.append({"winner": int(stats["winner"]), "turns": int(stats["turns"]), **extra})
        self.pending[i] = ([], [], [], [], [])

    def recorded(self) -> BlockResult:
        """(every recorded game's rows, one result per game)."""
        return _concat(self.parts), self.results


def batched_shard(teacher: str, games: int, seed: int, first_game: int, batch: int = 128,
                  max_turns: int = 200, options: Optional[Dict[str, Any]] = None) -> BlockResult:
    """``games`` whole games of a numba teacher in every seat of the batched env (the
    first ``games`` started, each played to its end: ``_Quota``).  Returns (rows, one
    result per game: its winner and turns)."""
    teacher_ = ValueOpponent(*_numba_teacher(teacher))
    batch = min(batch, games)
    venv = BatchedCatan(batch, mode="all_seats", max_turns=max_turns, seed=seed, **(options or {}))
    venv.reset(seed=seed)
    rng = np.random.default_rng([seed, 11])
    quota = _Quota(batch, games)
    actions = np.zeros(batch, np.int64)
    values = np.empty(batch)
    scores = np.empty((batch, N_ACTIONS))
    recorder = _Games(batch, first_game)
    while len(recorder.results) < games:
        seeds = rng.integers(0, 2 ** 62, size=(batch, teacher_.views), dtype=np.int64)
        deciders = venv.deciders.copy()
        playing = np.flatnonzero(quota.counted)
        moves, estimates = np.empty(playing.size, np.int64), np.empty(playing.size)
        teacher_.decide(venv.states, playing, seeds[playing], venv.games, K.G_MEMORY, moves, estimates,
                        scores[:playing.size])
        actions[playing], values[playing] = moves, estimates
        counts = venv.masks.sum(axis=1)
        for k, i in enumerate(playing.tolist()):
            if counts[i] > 1:
                recorder.note(i, venv.states[i], int(deciders[i]), int(actions[i]), float(values[i]),
                              top_scores(scores[k]))
        venv.step(actions, hold=~quota.counted)
        for i, stats in venv.episode_stats().items():
            recorder.end(i, stats, bool(quota.counted[i]))
            quota.next_episode(i)
    venv.close()
    return recorder.recorded()


def _roll_in_policy(spec: Any) -> PolicyNetworkPlay:
    """The policy network (``learned.plays.PolicyNetworkPlay``) of a roll-in agent spec,
    refused by name when it is not one over the observation vector and every move."""
    agent = make_agent(spec) if isinstance(spec, str) else spec
    method = getattr(agent, "batched_opponent", None)
    plays = method() if callable(method) else None
    if not isinstance(plays, PolicyNetworkPlay):
        raise ValueError(f"roll-in {spec!r} is not a policy network (use 'pretrained_policy' or "
                         f"'ppo:path=actor.npz')")
    if plays.weights.n_in != VECTOR_SIZE or plays.weights.n_out != N_ACTIONS:
        raise ValueError(f"roll-in {spec!r} maps {plays.weights.n_in} inputs to {plays.weights.n_out} outputs; a "
                         f"policy maps the observation's {VECTOR_SIZE} to a logit for each of the {N_ACTIONS} "
                         f"moves (a critic.npz is not one)")
    return plays


def weights_digest(weights: MLPWeights) -> str:
    """A short hash of a network's weights: a DAgger folder is tied to the policy that
    played its games."""
    h = hashlib.sha256()
    for w, b, act in weights.layers:
        h.update(np.ascontiguousarray(w).tobytes())
        h.update(np.ascontiguousarray(b).tobytes())
        h.update(act.encode())
    return h.hexdigest()[:16]


def policy_moves(weights: MLPWeights, obs: np.ndarray, masks: np.ndarray, sample: bool,
                 rng: np.random.Generator) -> np.ndarray:
    """Each row's move by the policy network: the masked argmax of its logits (the last
    layer's output, as the agent reads it), or a softmax sample.  One float32 matrix
    product per layer for the whole batch: the agent's own moves up to float rounding in
    near-ties (a test compares them)."""
    h = np.asarray(obs, np.float32)
    last = len(weights.layers) - 1
    for k, (w, b, act) in enumerate(weights.layers):
        h = h @ w + b
        if k < last and act == "relu":
            h = np.maximum(h, 0.0)
        elif k < last and act == "tanh":
            h = np.tanh(h)
    logits = np.where(masks, h.astype(np.float64), -np.inf)
    if not sample:
        return np.argmax(logits, axis=1).astype(np.int64)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    u = rng.random((len(p), 1))
    return np.minimum((p.cumsum(axis=1) < u).sum(axis=1), N_ACTIONS - 1).astype(np.int64)


def _note_offers(memory: np.ndarray, states: np.ndarray, moves: np.ndarray) -> None:
    """The per-turn offer memory (``learned.greedy``'s) after each game's move: an offer
    the policy made in the main phase is recorded as made this turn, as the teacher
    records its own."""
    for i in np.flatnonzero(IS_OFFER[moves]).tolist():
        if states[i, PHASE] != PH_MAIN:
            continue
        if memory[i, M_TURN] != states[i, TURN]:
            memory[i, M_TURN], memory[i, M_COUNT] = states[i, TURN], 0
        if memory[i, M_COUNT] < MAX_OFFERS:
            memory[i, M_IDS + memory[i, M_COUNT]] = moves[i]
            memory[i, M_COUNT] += 1


def dagger_shard(teacher: str, roll_in: str, opponents: Sequence[str], games: int, seed: int, first_game: int,
                 batch: int = 128, max_turns: int = 200, options: Optional[Dict[str, Any]] = None) -> BlockResult:
    """DAgger rows: ``games`` games (the first started, each to its end: ``_Quota``) in
    which the ``roll_in`` policy plays one seat (drawn per game) against ``opponents`` (a
    pool, one drawn per seat), and every decision of the policy's with more than one legal
    move is labelled with the ``teacher``'s move and estimate there (a numba teacher also
    gives its scores; any other agent spec labels from the seat's information set, one
    teacher per game).  The clone then learns the teacher's move in the positions its own
    play reaches, not only in the teacher's (dataset aggregation, Ross et al. 2011): the
    states a cloned policy drifts into are where it errs.

    The labels never steer the games: the policy's moves do.  Nor do they steer the
    teacher: what it remembers (the offers it made this turn, a robot's plan) is what the
    policy did, not what it would have done.  A numba teacher reads an offer memory of the
    policy's offers; a Python teacher labels on a copy of itself, kept only where the
    policy made the labelled move.  A Python teacher's fallbacks are counted in the
    results (``teacher_fallbacks``)."""
    from catan_env.infoset import InfoSet
    numba_teacher = in_numba(teacher)
    teacher_ = ValueOpponent(*_numba_teacher(teacher)) if numba_teacher else None
    teachers: Dict[int, Tuple[int, Any]] = {}  # game slot -> (its episode's seed, its teacher)
    fallbacks = np.zeros(batch, np.int64)  # per game slot, this episode
    policy = _roll_in_policy(roll_in)
    batch = min(batch, games)
    venv = BatchedCatan(batch, mode="learner", opponents=list(opponents), max_turns=max_turns, seed=seed,
                        skip_forced=True, **(options or {}))
    venv.reset(seed=seed)
    rng = np.random.default_rng([seed, 13])
    quota = _Quota(batch, games)
    memory = np.zeros((batch, MEMORY_SIZE), np.int64)  # the offers the policy made this turn
    memory[:, M_TURN] = -1
    labels = np.zeros(batch, np.int64)
    values = np.full(batch, np.nan)
    scores = np.full((batch, N_ACTIONS), np.nan)
    recorder = _Games(batch, first_game)
    no_scores = (np.full(TOP, -1, np.int16), np.zeros(TOP, np.float32))  # (a Python teacher's rows)

    def fallback_counter(g: int) -> Callable[[int, str], None]:
        def count(seat: int, reason: str) -> None:
            fallbacks[g] += 1
        return count
    while len(recorder.results) < games:
        deciders = venv.deciders.copy()
        counts = venv.masks.sum(axis=1)
        asked = np.flatnonzero(quota.counted & (counts > 1))
        moves = policy_moves(policy.weights, venv.obs, venv.masks, policy.sample, rng)
        if teacher_ is not None:
            seeds = rng.integers(0, 2 ** 62, size=(asked.size, teacher_.views), dtype=np.int64)
            scratch = memory.copy()  # the teacher notes the offer it labels there: dropped
            taught, estimates = np.empty(asked.size, np.int64), np.empty(asked.size)
            teacher_.decide(venv.states, asked, seeds, scratch, 0, taught, estimates, scores[:asked.size])
            labels[asked], values[asked] = taught, estimates
        else:
            for k, g in enumerate(asked.tolist()):
                episode = int(venv.game_seeds[g])
                if teachers.get(g, (None,))[0] != episode:
                    teachers[g] = (episode, make_agent(teacher, seed=(episode * 1000003 + 7) % 2 ** 62))
                agent = copy.deepcopy(teachers[g][1])
                seat = int(deciders[g])
                info = InfoSet(venv.states[g].copy(), seat, int(rng.integers(0, 2 ** 62)), on_fallback=fallback_counter(g))
                labels[g] = int(agent.act({"observation": venv.obs[g].copy(), "action_mask": venv.masks[g].copy()},
                                          info))
                if not venv.masks[g, labels[g]]:
                    raise G.IllegalActionError(f"teacher {teacher!r} chose illegal action "
                                               f"{G.A.action_name(int(labels[g]))} in game slot {g}")
                if labels[g] == moves[g]:  # the teacher's own move was played: it remembers making it
                    teachers[g] = (episode, agent)
                estimate = getattr(agent, "last_values", None)  # a search agent's estimate
                values[g] = float(estimate[seat]) if estimate is not None else np.nan
        for k, i in enumerate(asked.tolist()):
            recorder.note(i, venv.states[i], int(deciders[i]), int(labels[i]), float(values[i]),
                          top_scores(scores[k]) if teacher_ is not None else no_scores)
        _note_offers(memory, venv.states, moves)
        venv.step(moves, hold=~quota.counted)
        for i, stats in venv.episode_stats().items():
            recorder.end(i, stats, bool(quota.counted[i]), teacher_fallbacks=int(fallbacks[i]))
            fallbacks[i] = 0
            memory[i, M_TURN], memory[i, M_COUNT] = -1, 0
            quota.next_episode(i)
    venv.close()
    return recorder.recorded()


def _numba_teacher(teacher: Any) -> Tuple[Any, np.ndarray]:
    """(weights, options) of a teacher that plays inside numba (the value network alone)."""
    agent = make_agent(teacher) if isinstance(teacher, str) else teacher
    method = getattr(agent, "batched_opponent", None)
    plays = method() if callable(method) else None
    if not isinstance(plays, ValueNetworkPlay):
        raise ValueError(f"teacher {teacher!r} cannot play inside numba (only the network alone does: "
                         f"'pretrained:search=0'); it plays arena games instead")
    return plays.weights, plays.options


def in_numba(teacher: str) -> bool:
    """Whether the teacher plays its games in the batched env (else in the arena)."""
    try:
        _numba_teacher(teacher)
    except ValueError:
        return False
    return True


def arena_game(teacher: str, seed: int, players: int = 4, max_turns: int = 200,
               options: Optional[Dict[str, Any]] = None, game: int = 0) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
    """One arena game of the teacher in every seat: its decisions with more than one
    legal move, and the game's result."""
    agents = [make_agent(teacher, seed=seed * 10 + k) for k in range(players)]
    states: List[np.ndarray] = []
    seats: List[int] = []
    actions: List[int] = []
    values: List[float] = []
    kept = [False]

    def before(env: Any, seat: int, agent: Any) -> None:
        kept[0] = len(G.legal_actions(env.game_state)) > 1
        if kept[0]:
            states.append(np.array(env.game_state, np.int64))

    def after(seat: int, obs: Dict[str, Any], action: int, infoset: Any) -> None:
        if kept[0]:
            estimate = getattr(agents[seat], "last_values", None)  # a search agent's estimate
            seats.append(int(seat))
            actions.append(int(action))
            values.append(float(estimate[seat]) if estimate is not None else float("nan"))

    stats = play_game(agents, seed, max_turns=max_turns, options=options,
                      before_decision=before, on_decision=after)
    return (_rows(states, seats, actions, values, int(stats["winner"]), game),
            {"winner": int(stats["winner"]), "turns": int(stats["turns"])})


def _play_block(block: Block, batch: int, roll_in: Optional[str] = None,
                opponents: Sequence[str] = ()) -> BlockResult:
    """Worker job: one shard's games of the teacher in every seat -> (rows, results).  A
    numba teacher plays them in the batched env, ``batch`` at a time, from the block's
    first seed; any other plays each game's seed in the arena.  With ``roll_in``, the
    policy plays one seat against ``opponents`` and the teacher labels its decisions
    (``dagger_shard``)."""
    games_of, first, _, max_turns, options = block
    teacher, players = games_of[0][0][0], len(games_of[0][0])
    if roll_in is not None:
        return dagger_shard(teacher, roll_in, opponents, len(games_of), games_of[0][1], first, batch, max_turns,
                            dict(options or {}, players=players))
    if in_numba(teacher):
        return batched_shard(teacher, len(games_of), games_of[0][1], first, batch, max_turns,
                             dict(options or {}, players=players))
    played = [arena_game(teacher, seed, players, max_turns, options, first + k)
              for k, (_, seed) in enumerate(games_of)]
    return _concat([rows for rows, _ in played]), [result for _, result in played]


def _counts(arrays: Dict[str, np.ndarray]) -> Dict[str, int]:
    return {"positions": int(len(arrays["seat"]))}


def generate(folder: str, teacher: str = "pretrained:search=0", games: int = 1000, seed: int = 0,
             shard_games: int = 50, batch: int = 128, players: int = 4, max_turns: int = 200,
             options: Optional[Dict[str, Any]] = None, workers: int = 1, backend: str = "process",
             address: Optional[str] = None, progress: Optional[Callable[[str], None]] = None,
             roll_in: Optional[str] = None, opponents: Sequence[str] = ("jsettlers",)) -> Dict[str, Any]:
    """Record ``games`` games of the teacher (every seat) into folder, one shard per
    ``shard_games`` games; shards already there are kept (a stopped run resumes, a larger
    ``games`` extends it); the settings must match the folder's.  With ``roll_in`` (a
    policy network's spec), the policy plays one seat against ``opponents`` instead and
    the teacher labels the policy's decisions (DAgger, ``dagger_shard``).  Returns the manifest."""
    if games < 1 or shard_games < 1:
        raise ValueError(f"games and shard_games must be >= 1, got {games} and {shard_games}")
    if "players" in (options or {}):
        raise ValueError("give the player count as players=, not in options")
    engine = "batched" if roll_in is not None or in_numba(teacher) else "arena"
    settings: Dict[str, Any] = {"engine": engine, "batch": int(batch)}
    if isinstance(opponents, str):
        opponents = [opponents]
    if roll_in is not None:
        policy = _roll_in_policy(roll_in)  # refused here, before any game, when it is not a policy network
        if not opponents:
            raise ValueError("a roll-in needs at least one opponent spec")
        BatchedCatan(1, opponents=list(opponents))  # an unknown opponent is named here, not in a worker
        # the policy's weights, not only its spec: a folder holds one policy's games
        settings.update(roll_in=str(roll_in), roll_in_weights=weights_digest(policy.weights),
                        opponents=[str(o) for o in opponents])
    block = partial(_play_block, batch=int(batch), roll_in=roll_in, opponents=tuple(opponents))
    return record(folder, KIND, block, KEYS, [teacher] * int(players), games,
                  seed=int(seed), shard_games=int(shard_games), sample=1.0, max_turns=int(max_turns),
                  options=options, counts=_counts, workers=workers, backend=backend, address=address,
                  progress=progress, recorder_settings=settings)


def _shard_rows(path: str, shard: Dict[str, Any]) -> int:
    """A shard's row count: its manifest entry's ``positions``, else read from the shard."""
    if "positions" in shard:
        return int(shard["positions"])
    return len(load_shard(path, keys=("seat",))["seat"])


def load(*folders: str) -> Dict[str, np.ndarray]:
    """Every shard of the folders' manifests, concatenated (games numbered across them)
    into arrays allocated once and filled shard by shard: the rows are held once, not
    twice while they are joined (millions of rows are gigabytes of states)."""
    files = shard_files(folders, KIND)
    sizes = [_shard_rows(path, shard) for path, shard, _ in files]
    out: Optional[Dict[str, np.ndarray]] = None
    at = 0
    for (path, _, game_base), n in zip(files, sizes):
        part = load_shard(path, keys=KEYS)
        part["game"] = part["game"] + game_base
        if len(part["seat"]) != n:
            raise ValueError(f"{path} holds {len(part['seat'])} rows where its manifest says {n}")
        if out is None:
            out = {k: np.empty((sum(sizes),) + v.shape[1:], v.dtype) for k, v in part.items()}
        for k in KEYS:
            if part[k].dtype != out[k].dtype or part[k].shape[1:] != out[k].shape[1:]:
                raise ValueError(f"{path}: its {k!r} is {part[k].dtype} {part[k].shape[1:]}, the first "
                                 f"shard's {out[k].dtype} {out[k].shape[1:]} (shards of another format)")
            out[k][at:at + n] = part[k]
        at += n
    return out if out is not None else _empty()


@njit(cache=True)
def _encode_rows(states: np.ndarray, seats: np.ndarray, obs: np.ndarray, masks: np.ndarray) -> None:
    """obs[i], masks[i] := seats[i]'s observation of states[i] and its legal mask."""
    buf = np.empty(N_ACTIONS, np.int64)
    s = np.empty(states.shape[1], np.int64)
    for i in range(states.shape[0]):
        s[:] = states[i]
        encode_vector(s, seats[i], obs[i])
        masks[i, :] = False
        n = legal_actions(s, buf)
        for k in range(n):
            masks[i, buf[k]] = True


def observations(states: np.ndarray, seats: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(observation vectors (N, VECTOR_SIZE) float32, legal masks (N, N_ACTIONS) bool):
    what each row's seat saw and could do, exactly as the envs give them."""
    n = len(seats)
    obs = np.zeros((n, VECTOR_SIZE), np.float32)
    masks = np.zeros((n, N_ACTIONS), np.bool_)
    _encode_rows(np.ascontiguousarray(states), np.asarray(seats, np.int64), obs, masks)
    return obs, masks


def main(argv: Optional[Sequence[str]] = None) -> None:
    """``python -m catan_env.agents.distill``: generate (or extend, or resume) a run."""
    import argparse
    from catan_env.cli import HelpFormatter
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    p.add_argument("--out", default="data/distill", help="the run's folder (shards and manifest.json)")
    p.add_argument("--teacher", default="pretrained:search=0", help="agent spec of the teacher (every seat)")
    p.add_argument("--games", type=int, default=1000, help="games in the run (more than there are: extend it)")
    p.add_argument("--seed", type=int, default=0, help="the run's seed")
    p.add_argument("--shard-games", type=int, default=40, help="games per shard")
    p.add_argument("--batch", type=int, default=128, help="games stepped together (numba teacher)")
    p.add_argument("--players", type=int, default=4, help="players per game")
    p.add_argument("--max-turns", type=int, default=200, help="turn cap")
    p.add_argument("--workers", type=int, default=1, help="processes (or Ray CPUs)")
    p.add_argument("--backend", choices=BACKENDS, default="process", help="where shards are played")
    p.add_argument("--address", default=None, help="Ray cluster address (backend ray)")
    p.add_argument("--roll-in", default=None,
                   help="DAgger: this policy network ('pretrained_policy', 'ppo:path=actor.npz') plays one seat "
                        "and the teacher labels its decisions")
    p.add_argument("--opponents", nargs="+", default=["jsettlers"],
                   help="with --roll-in: the opponent pool (one drawn per seat)")
    args = p.parse_args(argv)
    if args.roll_in is None and args.opponents != ["jsettlers"]:
        p.error("--opponents is for a DAgger run: give --roll-in too")
    generate(args.out, args.teacher, args.games, args.seed, args.shard_games, args.batch, args.players,
             args.max_turns, workers=args.workers, backend=args.backend, address=args.address,
             progress=lambda line: print(line, flush=True), roll_in=args.roll_in, opponents=args.opponents)


if __name__ == "__main__":
    main()
