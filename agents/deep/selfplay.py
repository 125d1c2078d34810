"""Self-play games recorded for training: a search agent's sampled decisions become
positions (its observation, its root's win-rate estimates, each searched move's
features and score) labelled with the game's outcome."""
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from catan_env.core import actions as A
from catan_env.core.layout import MAX_PLAYERS
from catan_env.core.observe import GRID_H, GRID_W, PLANES, TAIL_SIZE

from ..arena import play_game
from ..base import AgentProtocol
from ..mcts.tree import RootStats
from ..registry import make_agent
from ..training.shards import Block, BlockResult, record
from .data import KEYS, KIND
from .features import N_FEATURES, move_features

if TYPE_CHECKING:
    from catan_env.infoset import InfoSet

# a kept decision: (board planes float16, the observation's vector part, players, the root's
# estimates per relative seat, the deciding seat)
Row = Tuple[np.ndarray, np.ndarray, int, np.ndarray, int]
# a searched root move: (its features, the mover's mean reward, its visits, its row)
LocalRow = Tuple[np.ndarray, float, float, int]


def root_estimates(stats: RootStats, seat: int, n: int) -> Tuple[np.ndarray, List[Tuple[int, float, float]]]:
    """A search's root as (each seat's mean reward over all root visits, observer first,
    as float32[4]; [(action, the mover's mean reward for it, its visits)])."""
    visits = float(stats.visits.sum())
    rel = np.zeros(MAX_PLAYERS, np.float32)
    if visits > 0:
        wins = stats.wins.sum(axis=0) / visits
        for k in range(n):
            rel[k] = wins[(seat + k) % n]
    moves = [(int(a), float(stats.wins[i, seat] / stats.visits[i]), float(stats.visits[i]))
             for i, a in enumerate(stats.keys) if stats.visits[i] > 0 and 0 <= a < A.N_ACTIONS]
    return rel, moves


def play_recorded(specs: Sequence[Union[str, AgentProtocol]], seed: int, sample: float = 0.25, max_turns: int = 200,
                  options: Optional[Dict[str, Any]] = None) -> Tuple[List[Row], List[LocalRow], Dict[str, Any]]:
    """One arena game between specs (agents or spec strings) on board-plane observations;
    returns (rows, local rows, result).  Each searched decision of an agent with a
    ``last`` search result is kept with probability ``sample``."""
    n = len(specs)
    agents = [make_agent(spec, seed=seed * 31 + i) for i, spec in enumerate(specs)]
    rng = np.random.default_rng(seed)
    rows: List[Row] = []
    local: List[LocalRow] = []
    seen: List[Any] = [None] * n  # the search result behind each seat's last kept decision
    feats = np.zeros(N_FEATURES, np.float32)

    def keep(seat: int, obs: Dict[str, Any], action: int, infoset: "InfoSet") -> None:
        result = getattr(agents[seat], "last", None)
        if result is None or result is seen[seat]:
            return  # no new search behind this decision
        seen[seat] = result
        if rng.random() >= sample:
            return
        rel, moves = root_estimates(result.stats, seat, n)
        view = infoset.determinize(0)  # features read the seat's own view only
        pos = len(rows)
        rows.append((obs["observation"]["board"].astype(np.float16), obs["observation"]["vector"], n, rel, seat))
        for a, q, v in moves:
            move_features(view, seat, a, feats)
            local.append((feats.copy(), q, v, pos))

    stats = play_game(agents, seed, max_turns=max_turns, options=options, on_decision=keep, obs_type="planes")
    return rows, local, stats


def to_arrays(games: Iterable[Tuple[int, List[Row], List[LocalRow], Dict[str, Any]]]) -> Dict[str, np.ndarray]:
    """Shard arrays from [(game index, rows, local, stats)]."""
    planes: List[np.ndarray] = []
    tail: List[np.ndarray] = []
    players: List[int] = []
    root: List[np.ndarray] = []
    outcome: List[np.ndarray] = []
    game: List[int] = []
    lx: List[np.ndarray] = []
    lq: List[float] = []
    lv: List[float] = []
    lp: List[int] = []
    for g, rows, local, stats in games:
        base = len(players)
        n, win = len(stats["vp"]), stats["winner"]
        for board, vector, n_players, rel, seat in rows:
            planes.append(board)
            tail.append(vector)
            players.append(n_players)
            root.append(rel)
            out = np.zeros(MAX_PLAYERS, np.float32)
            if win >= 0:
                out[(win - seat) % n] = 1.0
            else:
                out[:n] = 1.0 / n
            outcome.append(out)
            game.append(g)
        for x, q, v, pos in local:
            lx.append(x)
            lq.append(q)
            lv.append(v)
            lp.append(base + pos)
    return {
        "planes": np.array(planes, np.float16).reshape(-1, PLANES, GRID_H, GRID_W),
        "tail": np.array(tail, np.float32).reshape(-1, TAIL_SIZE),
        "players": np.array(players, np.int64), "root": np.array(root, np.float32).reshape(-1, MAX_PLAYERS),
        "outcome": np.array(outcome, np.float32).reshape(-1, MAX_PLAYERS), "game": np.array(game, np.int64),
        "local_x": np.array(lx, np.float32).reshape(-1, N_FEATURES), "local_q": np.array(lq, np.float32),
        "local_visits": np.array(lv, np.float32), "local_pos": np.array(lp, np.int64)}


def _play_block(block: Block) -> BlockResult:
    """Worker job: the games of one shard -> (the shard's arrays, the games' results)."""
    games_of, first_game, sample, max_turns, options = block
    games = []
    for k, (specs, seed) in enumerate(games_of):
        rows, local, stats = play_recorded(specs, seed, sample, max_turns, options)
        games.append((first_game + k, rows, local, stats))
    return to_arrays(games), [g[3] for g in games]


def _counts(arrays: Dict[str, np.ndarray]) -> Dict[str, int]:
    return {"positions": int(len(arrays["players"])), "moves": int(len(arrays["local_q"]))}


def generate(folder: str, players: Sequence[str], games: int, seed: int = 0, shard_games: int = 10,
             sample: float = 0.25, max_turns: int = 200, options: Optional[Dict[str, Any]] = None, workers: int = 1,
             progress: Optional[Callable[[str], None]] = None, note: str = "") -> Dict[str, Any]:
    """Self-play into folder: ``games`` games between ``players`` (one spec per seat,
    seats shuffled per game from the seed), one shard per ``shard_games`` games, resumable
    and extendable (:func:`agents.training.shards.record`).  Returns the manifest."""
    return record(folder, KIND, _play_block, KEYS, players, games, seed=seed, shard_games=shard_games,
                  sample=sample, max_turns=max_turns, options=options, counts=_counts, workers=workers,
                  progress=progress, note=note or "")
