"""Optimal initial placement solver: 30 random boards x 3 modalities, a table like the
paper's (time, recursive calls, first player's optimum, agreement).

Usage: python benchmarks/placement_solver.py [--boards 30]
"""
import argparse
import time

import numpy as np

from catan_env.agents.opening_solver import OpeningSolver
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.cli import HelpFormatter

NAMES = {1: "Feasibility pruning only", 2: "Feasibility + memoisation", 3: "All prunings (full solver)"}
# the paper's table ("Optimal Initial Settlement Placement in Catan", Performance Metrics,
# 30 random boards, its Python): (avg, min, max seconds, avg calls, min-max calls or None)
PAPER = {1: (444.16, 441.64, 454.26, 5_634_937, None), 2: (79.20, 78.61, 80.28, 983_839, None),
         3: (0.33, 0.05, 0.69, 569, (65, 1_195))}


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    ap.add_argument("--boards", type=int, default=30, help="random boards solved per modality")
    args = ap.parse_args()
    boards = []
    for seed in range(args.boards):
        s = G.new_game(seed=seed)
        boards.append((s[L.HEX_TERRAIN:L.HEX_TERRAIN + 19].copy(), s[L.HEX_NUMBER:L.HEX_NUMBER + 19].copy()))
    t0 = time.perf_counter()
    OpeningSolver(modality=3).solve(*boards[0])  # compile once (not timed below)
    print(f"one-off compile of the solver kernel: {time.perf_counter() - t0:.1f} s")
    rows = {m: [] for m in (1, 2, 3)}
    for b, (terrain, numbers) in enumerate(boards):
        for m in (1, 2, 3):
            t0 = time.perf_counter()
            res = OpeningSolver(modality=m).solve(terrain, numbers)
            el = time.perf_counter() - t0
            rows[m].append((el, res["calls"], (res["first"][0], res["second"][0]), res["objective"][0],
                            tuple(res["first"] + res["second"])))
    print(f"\n{'board':>5s} | " + " | ".join(f"m{m} time   calls      (v1,v2) obj   " for m in (1, 2, 3))
          + "| agree")
    for b in range(args.boards):
        cells = []
        for m in (1, 2, 3):
            el, calls, pos, obj, _ = rows[m][b]
            cells.append(f"{el:6.3f}s {calls:>9,} {str(pos):>8s} {obj:.4f}")
        agree = len({rows[m][b][4] for m in (1, 2, 3)}) == 1
        print(f"{b:5d} | " + " | ".join(cells) + f" | {'yes' if agree else 'NO'}")
    print("\nmodality                      avg time   min time   max time   avg calls   speedup")
    base = np.mean([r[0] for r in rows[1]])
    for m in (1, 2, 3):
        t = np.array([r[0] for r in rows[m]])
        c = np.array([r[1] for r in rows[m]])
        print(f"{NAMES[m]:28s} {t.mean():9.4f}s {t.min():9.4f}s {t.max():9.4f}s {c.mean():11,.0f} "
              f"{base / t.mean():8.1f}x   (calls {c.min():,}-{c.max():,})")
    print("\nthe paper's (its Python, 30 boards of its own)")
    for m in (1, 2, 3):
        avg, lo, hi, calls, spread = PAPER[m]
        calls_range = f"   (calls {spread[0]:,}-{spread[1]:,})" if spread else ""
        print(f"{NAMES[m]:28s} {avg:9.2f}s {lo:9.2f}s {hi:9.2f}s {calls:11,} {PAPER[1][0] / avg:8.1f}x{calls_range}")
    agree_all = all(len({rows[m][b][4] for m in (1, 2, 3)}) == 1 for b in range(args.boards))
    print(f"all modalities agree on every board: {agree_all}")


if __name__ == "__main__":
    main()
