"""Positions from recorded games, the win-probability network's training data.

Any agents' games are recorded (robots first, then the search agent's own games in
expert iteration): a sampled share of the decisions keeps the game's true state, and
the game's result labels it.  Shards store whole states, not features, so the feature
set can change without replaying a game; :func:`load_positions` turns each state into
one row per seat, each from that seat's own view (``features.encode_features`` reads
nothing a seat may not know).  A shard (``.npz``, written by ``agents.training.shards``):

  state       (N, STATE_SIZE) int32   the true state (RNG zeroed: nothing reads it)
  winner      (N,) int64              the game's winner, -1 when the turn cap ended it
  final_vp    (N, 4) int64            each seat's VP at the end
  value       (N, 4) float32          the deciding agent's search estimate of each seat's
                                      win chance (absolute seats), NaN without a search
  value_seat  (N,) int64              the seat whose search gave ``value``, -1 if none
  game        (N,) int64              the game's index in the run

Runs are resumable and extendable: the folder's ``manifest.json`` records the settings
and the shards written (``agents.training.shards``), and more games extend a run.  Games run
in a process pool or as Ray tasks (``backend="ray"``, on a local Ray or a cluster at
``address``), the same games either way.
"""
import os
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
from numba import njit

from catan_env.core.layout import MAX_PLAYERS, OPT_PLAYERS, PUBLIC_VP, RNG, STATE_SIZE, TURN
from catan_env.learned.features import N_FEATURES, encode_features_into, new_feature_scratch

from ..arena import play_game
from ..arena import map_jobs
from ..training.shards import Block, BlockResult, load_shard, manifest_positions, read_manifest, record, shard_files

KIND = "positions"
KEYS = ("state", "winner", "final_vp", "value", "value_seat", "game")


def record_game(specs: Sequence[Any], seed: int, sample: float = 0.25, max_turns: int = 200,
                options: Optional[Dict[str, Any]] = None) -> Tuple[Dict[str, np.ndarray], Dict[str, Any]]:
    """Play one arena game and keep each decision's true state with probability
    ``sample``; returns (rows without ``game``, the arena's result)."""
    rng = np.random.default_rng([seed, 7])
    states: List[np.ndarray] = []
    values: List[np.ndarray] = []
    value_seats: List[int] = []
    deciding: List[Any] = [None]  # the agent about to decide when its state was kept, else None

    def before(env: Any, seat: int, agent: Any) -> None:
        deciding[0] = None
        if rng.random() < sample:
            s = np.array(env.game_state, dtype=np.int64)
            s[RNG] = 0
            states.append(s.astype(np.int32))
            values.append(np.full(MAX_PLAYERS, np.nan, np.float32))
            value_seats.append(-1)
            deciding[0] = agent

    def after(seat: int, obs: Any, action: int, infoset: Any) -> None:
        estimate = getattr(deciding[0], "last_values", None)  # a search agent's root estimate
        if estimate is not None:
            values[-1][:] = estimate
            value_seats[-1] = seat

    stats = play_game(list(specs), seed, max_turns=max_turns, options=options, before_decision=before,
                      on_decision=after)
    n = len(specs)
    final = np.zeros(MAX_PLAYERS, np.int64)
    final[:n] = stats["vp"]
    k = len(states)
    rows: Dict[str, np.ndarray] = {"state": np.array(states, np.int32).reshape(k, STATE_SIZE),
            "winner": np.full(k, stats["winner"], np.int64),
            "final_vp": np.tile(final, (k, 1)),
            "value": np.array(values, np.float32).reshape(k, MAX_PLAYERS),
            "value_seat": np.array(value_seats, np.int64)}
    return rows, stats


def _play_block(block: Block) -> BlockResult:
    """Worker job: the games of one shard -> (the shard's arrays, the games' results)."""
    games_of, first, sample, max_turns, options = block
    parts, results = [], []
    for k, (specs, seed) in enumerate(games_of):
        rows, stats = record_game(specs, seed, sample, max_turns, options)
        rows["game"] = np.full(len(rows["winner"]), first + k, np.int64)
        parts.append(rows)
        results.append({"winner": int(stats["winner"]), "specs": list(stats["specs"]), "turns": stats["turns"]})
    return {k: np.concatenate([p[k] for p in parts]) for k in KEYS}, results


def _counts(arrays: Dict[str, np.ndarray]) -> Dict[str, int]:
    return {"states": int(len(arrays["winner"])), "positions": int(_seats(arrays).sum())}


def generate(folder: str, players: Sequence[str], games: int, seed: int = 0, shard_games: int = 50,
             sample: float = 0.25, max_turns: int = 200, options: Optional[Dict[str, Any]] = None,
             workers: int = 1, backend: str = "process", address: Optional[str] = None,
             progress: Optional[Callable[[str], None]] = None, note: str = "") -> Dict[str, Any]:
    """Record ``games`` games between ``players`` (one spec per seat, seats shuffled per
    game from the seed) into folder, one shard per ``shard_games`` games, resumable and
    extendable (:func:`agents.training.shards.record`).  Returns the manifest
    (``positions_per_s`` of this run added)."""
    return record(folder, KIND, _play_block, KEYS, players, games, seed=seed, shard_games=shard_games,
                  sample=sample, max_turns=max_turns, options=options, counts=_counts, workers=workers,
                  backend=backend, address=address, progress=progress, note=note)


def _seats(arrays: Dict[str, np.ndarray]) -> np.ndarray:
    return arrays["state"][:, OPT_PLAYERS].astype(np.int64)


@njit(cache=True)
def _featurize(states: Any, rows_state: Any, rows_seat: Any, out: Any) -> None:
    s = np.empty(states.shape[1], np.int64)
    x = np.empty(out.shape[1], np.float32)
    scratch = new_feature_scratch()
    for i in range(rows_state.shape[0]):
        s[:] = states[rows_state[i]]
        encode_features_into(s, rows_seat[i], x, scratch)
        out[i, :] = x


def load_positions(*folders: str, dtype: Any = np.float16, workers: int = 1, backend: str = "process",
                   address: Optional[str] = None) -> Dict[str, np.ndarray]:
    """Every position of the folders' shards, one row per (state, seat), from that seat's
    view: ``x`` (rows, N_FEATURES) features, ``outcome`` (rows, 4) 1 for the winner per
    relative seat (seat first; a capped game: 1/n each), ``value`` (rows, 4) the search's
    estimate for the seat that searched (relative seats, NaN elsewhere), ``players``,
    ``game`` (numbered across folders), ``public_vp`` (rows, 4), ``final_vp`` (rows, 4)
    each relative seat's VP at the game's end, ``seat``, ``turn``.
    Shards are featurized in ``workers`` processes, or as Ray tasks (``backend="ray"``)."""
    jobs = [(path, game_base, np.dtype(dtype).str) for path, _, game_base in shard_files(folders, KIND)]
    parts = list(map_jobs(shard_positions, jobs, workers, backend, address))
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def round_rows(run: str, k: int, extra: Sequence[str] = (), self_weight: float = 2.0,
               **load_kw: Any) -> Dict[str, np.ndarray]:
    """Expert-iteration round k's training positions (``examples/value_exit.py``'s layout):
    every round's data up to k (``run``/data-0 to data-k) and the ``extra`` folders, with
    per-row loss weights ``weight`` from round 1 on: the search agent's own games
    (data-1 on) weigh ``self_weight``, the robots' (data-0) and the extra folders' 1, since
    its own games show its own mistakes.  ``load_kw``: :func:`load_positions`'s options."""
    folders = [os.path.join(run, f"data-{j}") for j in range(k + 1)] + list(extra)
    rows = load_positions(*folders, **load_kw)
    if k:
        rows["weight"] = np.ones(len(rows["game"]), np.float32)
        rows["weight"][_positions_in(folders[0]):] = self_weight
        rows["weight"][len(rows["game"]) - sum(_positions_in(f) for f in extra):] = 1.0
    return rows


def _positions_in(folder: str) -> int:
    """Rows load_positions makes from a folder (its manifest's count)."""
    return manifest_positions(read_manifest(folder))


def shard_positions(job: Tuple[str, int, str]) -> Dict[str, np.ndarray]:
    """One shard's rows (see :func:`load_positions`); job = (path, game index base, x dtype)."""
    path, game_base, dtype = job
    data = load_shard(path, KEYS)
    states = data["state"].astype(np.int64)
    n = states[:, OPT_PLAYERS]
    rows_state = np.repeat(np.arange(len(states)), n)
    rows_seat = np.concatenate([np.arange(k) for k in n]).astype(np.int64) if len(n) else np.zeros(0, np.int64)
    x = np.empty((len(rows_state), N_FEATURES), np.float32)
    _featurize(states, rows_state, rows_seat, x)
    rel = (rows_seat[:, None] + np.arange(MAX_PLAYERS)[None, :]) % n[rows_state][:, None]
    valid = np.arange(MAX_PLAYERS)[None, :] < n[rows_state][:, None]
    winner = data["winner"][rows_state]
    outcome = np.where(winner[:, None] >= 0, (rel == winner[:, None]).astype(np.float32),
                       1.0 / n[rows_state][:, None]) * valid
    value = np.take_along_axis(data["value"][rows_state], rel, axis=1) * valid
    value[data["value_seat"][rows_state] != rows_seat] = np.nan
    public_vp = np.take_along_axis(states[rows_state, PUBLIC_VP:PUBLIC_VP + MAX_PLAYERS], rel, axis=1) * valid
    final_vp = np.take_along_axis(data["final_vp"][rows_state], rel, axis=1) * valid
    # (turn indexed by row directly: a column of states[rows_state] is a view that kept
    # every row's whole state alive in the caller, several times the rows' own size)
    return {"x": x.astype(dtype), "outcome": outcome.astype(np.float32), "value": value.astype(np.float32),
            "players": n[rows_state], "game": data["game"][rows_state] + game_base, "public_vp": public_vp,
            "final_vp": final_vp.astype(np.float32), "seat": rows_seat, "turn": states[rows_state, TURN]}
