"""Self-play data on disk: compressed ``.npz`` shards and a JSON manifest.

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

The manifest (``manifest.json``) records the options, agents, budgets, seeds and the
shards written, so a run can resume where it stopped and a reader knows what it holds.
"""
import json
import os

import numpy as np

KEYS = ("planes", "tail", "players", "root", "outcome", "game", "local_x", "local_q", "local_visits",
        "local_pos")
MANIFEST = "manifest.json"


def save_shard(path, arrays, keys=KEYS):
    """Write one shard atomically (a partial file never has the final name); ``keys``:
    the arrays it must hold (another shard kind, such as ``agents.value.positions``,
    passes its own)."""
    missing = [k for k in keys if k not in arrays]
    if missing:
        raise ValueError(f"shard misses {missing}")
    tmp = path + ".tmp.npz"
    out = {k: np.asarray(arrays[k]) for k in keys}
    if "planes" in out:
        out["planes"] = out["planes"].astype(np.float16)
    np.savez_compressed(tmp, **out)
    os.replace(tmp, path)
    return path


def load_shard(path, keys=KEYS):
    """A shard's arrays (planes back to float32)."""
    try:
        with np.load(path) as z:
            out = {k: z[k] for k in keys}
    except (KeyError, ValueError, OSError, EOFError) as e:
        raise ValueError(f"{path} is not a shard holding {list(keys)}: {e}") from e
    if "planes" in out:
        out["planes"] = out["planes"].astype(np.float32)
    return out


def read_manifest(folder):
    path = os.path.join(folder, MANIFEST)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def write_manifest(folder, manifest):
    tmp = os.path.join(folder, MANIFEST + ".tmp")
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(tmp, os.path.join(folder, MANIFEST))


def load_folder(*folders):
    """Every shard listed in the folders' manifests, concatenated (local_pos re-based)."""
    parts = []
    for folder in folders:
        manifest = read_manifest(folder)
        if manifest is None:
            raise ValueError(f"{folder} has no {MANIFEST}: not a self-play data folder")
        parts += [load_shard(os.path.join(folder, s["file"])) for s in manifest["shards"]]
    if not parts:
        raise ValueError(f"no shards in {folders}")
    out = {}
    for k in KEYS:
        out[k] = np.concatenate([p[k] for p in parts])
    pos, games, offset, game_base = [], [], 0, 0
    for p in parts:  # positions and games numbered across all shards and folders
        pos.append(p["local_pos"] + offset)
        offset += len(p["players"])
        games.append(p["game"] + game_base)
        game_base += int(p["game"].max()) + 1 if len(p["game"]) else 0
    out["local_pos"] = np.concatenate(pos)
    out["game"] = np.concatenate(games)
    return out
