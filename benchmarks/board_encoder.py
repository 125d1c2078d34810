"""Does a policy that sees the board as a board clone its teacher better than the flat MLP?

    python benchmarks/board_encoder.py --data results/teacher_big --steps 1500 --out docs/results/board_encoder.json

Two networks learn the teacher's move (cross-entropy over the legal moves) from the same
rows of a distillation run (``catan_env.agents.distill``), batch for batch:
  mlp   the observation vector (VECTOR_SIZE floats) -> 512 -> 512 -> the moves: the shape
        of the shipped ``pretrained_policy`` and of the recipe's clone;
  conv  the board planes (PLANES x 17 x 21, ``obs_type="planes"``) through three 3x3
        convolutions of 32 channels, beside the vector's non-board part, -> 512 -> 512 ->
        the moves (its first dense layer reads every cell: six times the MLP's weights);
  wide  the flat MLP as wide as the conv network has weights (WIDE), so that a gain of
        ``conv`` over ``mlp`` is not only its size.
Every tenth game is held out (its first 20,000 decisions are the held-out rows); every
``--every`` steps each network's held-out cross-entropy and agreement (its top legal move
is the teacher's) are logged with the minutes spent.  Each network trains in a process
of its own, one thread each, side by side.  Rows are encoded from the shards' states per
batch (the observations are not stored; each network encodes only what it reads, so the
minutes compare).  ``--out`` writes the curves with the date, machine and command; a
network's earlier curve in that file is replaced, the others' kept.
"""
import argparse
import json
import os
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any, Dict, List, Tuple

import numpy as np
from numba import njit

from catan_env.cli import HelpFormatter, run_stamp, write_results
from catan_env.core.actions import N_ACTIONS
from catan_env.core.observe import BOARD_SIZE, PLANES, VECTOR_SIZE, encode_planes, encode_vector
from catan_env.core.rules import legal_actions
from catan_env.core.topology import GRID_H, GRID_W

HIDDEN = 512
CHANNELS = 32
WIDE = 1856  # the MLP's width with about the conv network's weights (6.4 million)
ARCHS = ("mlp", "conv", "wide")


@njit(cache=True)
def encode_batch(states: np.ndarray, seats: np.ndarray, rows: np.ndarray, vectors: np.ndarray,
                 planes: np.ndarray, masks: np.ndarray, with_planes: bool = True) -> None:
    """vectors[i], planes[i] (with_planes), masks[i] := the observation vector, the board
    planes and the legal mask of row rows[i] from its seat's view."""
    buf = np.empty(N_ACTIONS, np.int64)
    s = np.empty(states.shape[1], np.int64)
    for i in range(rows.shape[0]):
        s[:] = states[rows[i]]
        encode_vector(s, seats[rows[i]], vectors[i])
        if with_planes:
            encode_planes(s, seats[rows[i]], planes[i])
        masks[i, :] = False
        n = legal_actions(s, buf)
        for k in range(n):
            masks[i, buf[k]] = True


def build(arch: str, seed: int) -> Any:
    import torch
    import torch.nn as nn
    torch.manual_seed(seed)

    class Flat(nn.Module):
        def __init__(self, width: int = HIDDEN) -> None:
            super().__init__()
            self.net = nn.Sequential(nn.Linear(VECTOR_SIZE, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                     nn.Linear(width, N_ACTIONS))

        def forward(self, vector: Any, planes: Any) -> Any:
            return self.net(vector)

    class Board(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = nn.Sequential(nn.Conv2d(PLANES, CHANNELS, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(CHANNELS, CHANNELS, 3, padding=1), nn.ReLU())
            self.head = nn.Sequential(nn.Linear(CHANNELS * GRID_H * GRID_W + VECTOR_SIZE - BOARD_SIZE, HIDDEN), nn.ReLU(),
                                      nn.Linear(HIDDEN, HIDDEN), nn.ReLU(), nn.Linear(HIDDEN, N_ACTIONS))

        def forward(self, vector: Any, planes: Any) -> Any:
            board = self.conv(planes).flatten(1)
            return self.head(torch.cat([board, vector[:, BOARD_SIZE:]], dim=1))

    return {"mlp": lambda: Flat(), "conv": lambda: Board(), "wide": lambda: Flat(WIDE)}[arch]()


def first_games(data: str, games: int) -> Dict[str, np.ndarray]:
    """The rows of the run's first ``games`` games (whole shards: a whole run does not fit
    twice in memory here)."""
    from catan_env.agents.distill import KIND
    from catan_env.agents.training.shards import load_shard, shard_files
    parts: List[Dict[str, np.ndarray]] = []
    for path, _, base in shard_files([data], KIND):
        part = load_shard(path, keys=("state", "seat", "action", "game"))
        part["game"] = part["game"] + base
        parts.append(part)
        if len(np.unique(np.concatenate([q["game"] for q in parts]))) >= games:
            break
    out = {k: np.concatenate([q[k] for q in parts]) for k in parts[0]}
    keep = np.isin(out["game"], np.unique(out["game"])[:games])
    return {k: v[keep] for k, v in out.items()}


def train(arch: str, data: str, max_games: int, steps: int, batch: int, every: int, lr: float,
          seed: int) -> Dict[str, Any]:
    """One network's run: its curve of held-out figures."""
    import torch
    torch.set_num_threads(1)
    d = first_games(data, max_games)
    states, seats, actions, game = d["state"], d["seat"], d["action"], d["game"]
    games = np.unique(game)
    held = np.isin(game, games[::10])  # every tenth game held out
    train_rows, val_rows = np.flatnonzero(~held), np.flatnonzero(held)[:20000]
    rng = np.random.default_rng(seed)

    sees_planes = arch == "conv"

    def tensors(rows: np.ndarray) -> Tuple[Any, Any, Any, Any]:
        vectors = np.zeros((len(rows), VECTOR_SIZE), np.float32)
        planes = np.zeros((len(rows), PLANES, GRID_H, GRID_W) if sees_planes else (len(rows), 0, 0, 0), np.float32)
        masks = np.zeros((len(rows), N_ACTIONS), np.bool_)
        encode_batch(states, seats, rows.astype(np.int64), vectors, planes, masks, sees_planes)
        return (torch.from_numpy(vectors), torch.from_numpy(planes), torch.from_numpy(masks),
                torch.from_numpy(actions[rows].astype(np.int64)))

    model = build(arch, seed)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    val = [tensors(val_rows[i:i + 2048]) for i in range(0, len(val_rows), 2048)]

    def held_out() -> Tuple[float, float]:
        ce, agree, n = 0.0, 0.0, 0
        with torch.no_grad():
            for v, p, m, a in val:
                logits = model(v, p).masked_fill(~m, -1e9)
                ce += float(torch.nn.functional.cross_entropy(logits, a, reduction="sum"))
                agree += float((logits.argmax(1) == a).sum())
                n += len(a)
        return ce / n, agree / n

    curve: List[Dict[str, float]] = []
    t0, spent = time.perf_counter(), 0.0
    order = rng.permutation(train_rows)
    at = 0
    for step in range(1, steps + 1):
        if at + batch > len(order):
            order, at = rng.permutation(train_rows), 0
        v, p, m, a = tensors(np.sort(order[at:at + batch]))
        at += batch
        logits = model(v, p).masked_fill(~m, -1e9)
        loss = torch.nn.functional.cross_entropy(logits, a)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % every == 0 or step == steps:
            spent += time.perf_counter() - t0
            ce, agree = held_out()
            curve.append({"step": step, "rows_seen": step * batch, "minutes": round(spent / 60, 2),
                          "val_ce": round(ce, 4), "val_agreement": round(agree, 4)})
            print(f"{arch:5s} step {step:6d}  {spent / 60:6.1f} min  held-out CE {ce:.4f}  agreement {agree:.4f}",
                  flush=True)
            t0 = time.perf_counter()
    return {"arch": arch, "parameters": int(sum(q.numel() for q in model.parameters())), "games": int(len(games)),
            "held_out_games": int(len(np.unique(game[val_rows]))), "train_rows": int(len(train_rows)),
            "held_out_rows": int(len(val_rows)), "curve": curve}


def main(argv: Any = None) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    p.add_argument("--data", default="results/teacher_big", help="a distillation run's folder")
    p.add_argument("--games", type=int, default=1000, help="use the run's first this many games")
    p.add_argument("--steps", type=int, default=1500, help="gradient steps per network")
    p.add_argument("--batch", type=int, default=512, help="rows per step")
    p.add_argument("--every", type=int, default=100, help="steps between held-out evaluations")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    p.add_argument("--archs", nargs="+", default=list(ARCHS), choices=ARCHS, help="the networks to train")
    p.add_argument("--seed", type=int, default=0, help="seed of the shuffles and the initial weights")
    p.add_argument("--out", default="", help="write the curves to this JSON file")
    args = p.parse_args(argv)
    max_games = args.games
    with ProcessPoolExecutor(len(args.archs)) as pool:
        runs = [pool.submit(train, arch, args.data, max_games, args.steps, args.batch, args.every, args.lr, args.seed)
                for arch in args.archs]
        results = [run.result() for run in runs]
    for r in results:
        last = r["curve"][-1]
        print(f"{r['arch']}: {r['parameters']:,} parameters, {last['step']} steps in {last['minutes']} min: "
              f"held-out CE {last['val_ce']}, agreement {last['val_agreement']}")
    if args.out:
        kept = []
        if os.path.exists(args.out):  # the other networks' runs stay, with their own commands
            with open(args.out) as f:
                before = json.load(f)
            kept = [{"date": before["date"], "command": before["command"], **r}
                    for r in before["runs"] if r["arch"] not in args.archs]
        stamp = run_stamp("python benchmarks/board_encoder.py", argv)
        runs = kept + [{**r, "date": stamp["date"], "command": stamp["command"]} for r in results]
        print(f"wrote {write_results(args.out, {**stamp, 'runs': sorted(runs, key=lambda r: ARCHS.index(r['arch']))})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
