"""Self-play games recorded for training: a search agent's sampled decisions become
positions (its observation, its root's win-rate estimates, each searched move's
features and score) labelled with the game's outcome."""
import numpy as np

from catan_env.core import actions as A
from catan_env.core.layout import MAX_PLAYERS
from catan_env.core.observe import GRID_H, GRID_W, PLANES, TAIL_SIZE

from ..arena import play_game
from ..registry import make_agent
from ..training.shards import record
from .data import KEYS, KIND
from .features import N_FEATURES, move_features


def root_estimates(stats, seat, n):
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


def play_recorded(specs, seed, sample=0.25, max_turns=200, options=None):
    """One arena game between specs (agents or spec strings) on board-plane observations;
    returns (rows, local rows, result).  Each searched decision of an agent with a
    ``last`` search result is kept with probability ``sample``."""
    n = len(specs)
    agents = [make_agent(spec, seed=seed * 31 + i) for i, spec in enumerate(specs)]
    rng = np.random.default_rng(seed)
    rows, local, seen = [], [], [None] * n
    feats = np.zeros(N_FEATURES, np.float32)

    def keep(seat, obs, action, infoset):
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


def to_arrays(games):
    """Shard arrays from [(game index, rows, local, stats)]."""
    planes, tail, players, root, outcome, game = [], [], [], [], [], []
    lx, lq, lv, lp = [], [], [], []
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


def _play_block(block):
    """Worker job: the games of one shard -> (the shard's arrays, the games' results)."""
    games_of, first_game, sample, max_turns, options = block
    games = []
    for k, (specs, seed) in enumerate(games_of):
        rows, local, stats = play_recorded(specs, seed, sample, max_turns, options)
        games.append((first_game + k, rows, local, stats))
    return to_arrays(games), [g[3] for g in games]


def _counts(arrays):
    return {"positions": int(len(arrays["players"])), "moves": int(len(arrays["local_q"]))}


def generate(folder, players, games, seed=0, shard_games=10, sample=0.25, max_turns=200, options=None,
             workers=1, progress=None, note=""):
    """Self-play into folder: ``games`` games between ``players`` (one spec per seat,
    seats shuffled per game from the seed), one shard per ``shard_games`` games, resumable
    and extendable (:func:`agents.training.shards.record`).  Returns the manifest."""
    return record(folder, KIND, _play_block, KEYS, players, games, seed=seed, shard_games=shard_games,
                  sample=sample, max_turns=max_turns, options=options, counts=_counts, workers=workers,
                  progress=progress, note=note or "")
