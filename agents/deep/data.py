"""Deep Catan's self-play data: what one of its shards holds, and reading folders of
them back (shards and manifests are written by :mod:`agents.training.shards`).

A shard holds the positions sampled from a block of games:

  planes   (N, 26, 17, 21) float16  the deciding seat's board planes
  tail     (N, 202) float32         its observation's vector part
  players  (N,) int64               seats in the game
  root     (N, 4) float32           the search's root win-rate estimate per relative seat
  outcome  (N, 4) float32           the game's result per relative seat (1 the winner;
                                    a game cut at the turn cap: 1/n each)
  game     (N,) int64               the game's index in the run
  local_x  (M, F) float32           features of each searched root move (UCTNet's input)
  local_q  (M,) float32             its mean reward for the mover in the search
  local_visits (M,) float32         its visits
  local_pos (M,) int64              the position (row of this shard) it belongs to
"""
from typing import Dict

import numpy as np

from ..training.shards import load_shard, shard_files

KIND = "selfplay"
KEYS = ("planes", "tail", "players", "root", "outcome", "game", "local_x", "local_q", "local_visits",
        "local_pos")


def load_folder(*folders: str) -> Dict[str, np.ndarray]:
    """Every shard of the folders, concatenated: positions and games numbered across all
    shards and folders (``local_pos`` re-based to the concatenated rows)."""
    files = shard_files(folders, KIND)
    parts = [load_shard(path, KEYS) for path, _, _ in files]
    out = {k: np.concatenate([p[k] for p in parts]) for k in KEYS}
    pos, games, offset = [], [], 0
    for p, (_, _, game_base) in zip(parts, files):
        pos.append(p["local_pos"] + offset)
        offset += len(p["players"])
        games.append(p["game"] + game_base)
    out["local_pos"] = np.concatenate(pos)
    out["game"] = np.concatenate(games)
    return out
