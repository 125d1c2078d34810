"""Recorded games on disk: compressed ``.npz`` shards and a JSON manifest, written so a
stopped run resumes where it was and a larger run extends it.

A run records ``games`` games between ``players`` (one spec per seat, seats shuffled per
game from the seed, :func:`agents.arena.schedule`), ``shard_games`` games per shard.
Each shard is written atomically and the manifest after it, so a run stopped at any point
keeps every finished shard; a shard cut short by a smaller earlier run is played again
whole.  The manifest (``manifest.json``)::

  {"settings": {"kind": ..., "players": [...], "seed": ..., ...},  # fixed for the folder
   "games": the largest run asked of the folder, "note": "...",
   "shards": [{"file", "first_game", "games", "winners", ...kind-specific counts}]}

What a shard holds is the recorder's choice (``keys``): whole states for the value
network (``agents.value.positions``), observations and searched moves for Deep Catan
(``agents.deep.selfplay``).  Blocks of games run in this process, a process pool, or as
Ray tasks (the same games either way).
"""
import json
import os
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..arena import BACKENDS, map_jobs, schedule

MANIFEST = "manifest.json"
HALF_KEYS = ("planes",)  # arrays stored as float16 (board planes: 0/1 and small counts)

# one block of games: ([(specs, seed)], first game index, sample, max_turns, options)
Block = Tuple[List[Tuple[List[Any], int]], int, float, int, Optional[Dict[str, Any]]]
# a block's worker returns (the shard's arrays, one result dict per game with "winner")
BlockResult = Tuple[Dict[str, np.ndarray], List[Dict[str, Any]]]


def save_shard(path: str, arrays: Dict[str, Any], keys: Sequence[str]) -> str:
    """Write one shard atomically (a partial file never has the final name); ``keys``:
    the arrays it must hold."""
    missing = [k for k in keys if k not in arrays]
    if missing:
        raise ValueError(f"shard misses {missing}")
    tmp = path + ".tmp.npz"
    out: Dict[str, Any] = {k: np.asarray(arrays[k]) for k in keys}  # Any: savez's ** would match allow_pickle
    for k in HALF_KEYS:
        if k in out:
            out[k] = out[k].astype(np.float16)
    np.savez_compressed(tmp, **out)
    os.replace(tmp, path)
    return path


def load_shard(path: str, keys: Sequence[str]) -> Dict[str, np.ndarray]:
    """A shard's arrays (float16 ones back to float32)."""
    try:
        with np.load(path) as z:
            out = {k: z[k] for k in keys}
    except (KeyError, ValueError, OSError, EOFError) as e:
        raise ValueError(f"{path} is not a shard holding {list(keys)}: {e}") from e
    for k in HALF_KEYS:
        if k in out:
            out[k] = out[k].astype(np.float32)
    return out


def read_manifest(folder: str) -> Optional[Dict[str, Any]]:
    """The folder's manifest, or None when it has none."""
    path = os.path.join(folder, MANIFEST)
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return json.load(f)


def manifest_positions(manifest: Optional[Dict[str, Any]]) -> int:
    """The positions a manifest's shards hold (0 for no manifest)."""
    return sum(s["positions"] for s in manifest["shards"]) if manifest else 0


def write_manifest(folder: str, manifest: Dict[str, Any]) -> None:
    """Write the folder's manifest atomically (a reader never sees half of one)."""
    tmp = os.path.join(folder, MANIFEST + ".tmp")
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(tmp, os.path.join(folder, MANIFEST))


def shard_files(folders: Sequence[str], kind: str) -> List[Tuple[str, Dict[str, Any], int]]:
    """(path, shard entry, game index base) of every shard in the folders, games numbered
    across folders; a folder without a manifest of this kind is refused."""
    out = []
    game_base = 0
    for folder in folders:
        manifest = read_manifest(folder)
        if manifest is None or _kind(manifest) != kind:
            raise ValueError(f"{folder} is not a {kind} folder (no {MANIFEST} of kind {kind!r})")
        for shard in manifest["shards"]:
            out.append((os.path.join(folder, shard["file"]), shard, game_base))
        if manifest["shards"]:
            game_base += max(s["first_game"] + s["games"] for s in manifest["shards"])
    if not out:
        raise ValueError(f"no shards in {list(folders)}")
    return out


def record(folder: str, kind: str, play_block: Callable[[Block], BlockResult], keys: Sequence[str],
           players: Sequence[Any], games: int, seed: int = 0, shard_games: int = 50, sample: float = 0.25,
           max_turns: int = 200, options: Optional[Dict[str, Any]] = None,
           counts: Optional[Callable[[Dict[str, np.ndarray]], Dict[str, int]]] = None, workers: int = 1,
           backend: str = "process", address: Optional[str] = None,
           progress: Optional[Callable[[str], None]] = None, note: str = "",
           recorder_settings: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """Record ``games`` games between ``players`` into ``folder`` with ``play_block`` (a
    picklable worker: one :data:`Block` -> its shard's arrays and the games' results).
    ``counts(arrays)`` adds figures to each shard's entry; its ``positions`` is the
    progress figure.  ``recorder_settings`` are the recorder's own settings that shape
    its games (a batch size, say): kept with the folder's, and refused when they change.  Shards already there are kept: a stopped run resumes, a larger
    ``games`` extends it; other settings in the same folder are refused.  Returns the
    manifest, with ``positions_per_s`` of this run."""
    if not 0 < sample <= 1:
        raise ValueError(f"sample must be in (0, 1], got {sample}")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {BACKENDS}, got {backend!r}")
    os.makedirs(folder, exist_ok=True)
    settings = {"kind": kind, "players": [str(p) for p in players], "seed": seed, "shard_games": shard_games,
                "sample": sample, "max_turns": max_turns, "options": dict(options or {}),
                **dict(recorder_settings or {})}
    manifest = read_manifest(folder)
    if manifest is not None:
        if manifest["settings"] != settings:
            raise ValueError(f"{folder} holds a run with other settings ({manifest['settings']}); use a new folder")
    else:
        manifest = {"settings": settings, "games": 0, "note": note, "shards": []}
    manifest["games"] = max(games, manifest.get("games", 0))
    plan = schedule(list(players), games, seed)
    done = {s["first_game"]: s["games"] for s in manifest["shards"]}
    jobs: List[Block] = []
    for first in range(0, games, shard_games):
        block = plan[first:first + shard_games]
        if done.get(first, 0) >= len(block):
            continue
        # a block cut short by a smaller earlier run is played again, whole
        manifest["shards"] = [s for s in manifest["shards"] if s["first_game"] != first]
        jobs.append((block, first, sample, max_turns, options))
    start, made = time.perf_counter(), 0
    for job, (arrays, results) in zip(jobs, map_jobs(play_block, jobs, workers, backend, address)):
        first = job[1]
        name = f"shard-{first:06d}.npz"
        save_shard(os.path.join(folder, name), arrays, keys)
        figures = counts(arrays) if counts else {}
        manifest["shards"].append(dict({"file": name, "first_game": first, "games": len(results),
                                        "winners": [int(r["winner"]) for r in results]}, **figures))
        manifest["shards"].sort(key=lambda s: s["first_game"])
        write_manifest(folder, manifest)
        made += int(figures.get("positions", 0))
        if progress:
            rate = made / max(time.perf_counter() - start, 1e-9)
            progress(f"{sum(s['games'] for s in manifest['shards'])}/{games} games, "
                     f"{sum(s.get('positions', 0) for s in manifest['shards'])} positions "
                     f"({rate:.1f} positions/s this run)")
    manifest["positions_per_s"] = made / max(time.perf_counter() - start, 1e-9) if made else None
    write_manifest(folder, manifest)
    return manifest


def _kind(manifest: Dict[str, Any]) -> Optional[str]:
    return manifest.get("settings", {}).get("kind")
