"""MCTS speed: playouts/s and decision time per preset from early, mid and late positions,
and the ensemble's speed-up from threads.

Usage: python benchmarks/mcts_speed.py [--playouts 10000] [--repeats 3]

Positions come from one seeded game played by the pruning policy, taken at turns 8
(early: just after set-up), 40 (mid) and 70 (late).  Each line prints the median over
repeats of one decision's search (compiled beforehand).  The last lines compare
mp_ensemble with 1 and 2 threads at the same playouts (the speed-up on this machine's
cores), print the "10,000 playouts" figure of the pruning preset (mp_uct), and how far
past a time budget (``seconds=``) a search runs.
"""
import argparse
import time

import numpy as np

from catan_env.core import game as G
from catan_env.core.layout import TURN
from catan_env.core.playout import POLICY_PRUNING, choose_action
from catan_env.core.rng import seed_rng
from catan_env.agents.mcts import PRESETS, make_config, run_search
from catan_env.cli import HelpFormatter

STAGES = {"early": 8, "mid": 40, "late": 70}


def positions(seed=3):
    """{stage: (state, seat to move)} from one game played by the pruning policy."""
    s = G.new_game(seed=seed, domestic_trade=False)
    rng = np.zeros_like(s)
    seed_rng(rng, seed)
    out = {}
    for stage, turn in STAGES.items():
        while s[TURN] < turn or len(G.legal_actions(s)) < 3:
            buf = G.legal_actions(s)
            G.step(s, int(choose_action(s, buf, len(buf), POLICY_PRUNING, rng)))
            if G.is_over(s):
                raise RuntimeError("the game ended before the late position; pick another seed")
        out[stage] = (s.copy(), G.decider(s))
    return out


def timed(view, seat, cfg, repeats):
    runs = []
    for r in range(repeats):
        t0 = time.perf_counter()
        res = run_search(view, seat, cfg, seed=r + 1)
        runs.append((time.perf_counter() - t0, res.iterations))
    took, its = sorted(runs)[len(runs) // 2]
    return took, its


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--playouts", type=int, default=10000, help="playouts per decision")
    ap.add_argument("--repeats", type=int, default=3, help="decisions per figure (the median is printed)")
    ap.add_argument("--variants", nargs="*", default=[v for v in PRESETS], help="presets to time")
    args = ap.parse_args()
    pos = positions()
    views = {k: (G.determinize(s, seat, 0), seat) for k, (s, seat) in pos.items()}
    for v in args.variants:                                  # compile everything first
        run_search(views["mid"][0], views["mid"][1], make_config(v, playouts=50), seed=0)
    print(f"{'preset':14s} {'stage':6s} {'playouts/s':>11s} {'decision':>9s}  (playouts {args.playouts})")
    for v in args.variants:
        for stage, (view, seat) in views.items():
            took, its = timed(view, seat, make_config(v, playouts=args.playouts), args.repeats)
            print(f"{v:14s} {stage:6s} {its / took:11,.0f} {took:8.3f}s")
    print()
    for stage, (view, seat) in views.items():
        one, _ = timed(view, seat, make_config("mp_ensemble", playouts=args.playouts), args.repeats)
        two, _ = timed(view, seat, make_config("mp_ensemble", playouts=args.playouts, threads=2), args.repeats)
        print(f"mp_ensemble {stage:6s} 1 thread {one:.3f}s, 2 threads {two:.3f}s: speed-up {one / two:.2f}x")
    for stage, (view, seat) in views.items():
        took, _ = timed(view, seat, make_config("mp_uct", playouts=10000), args.repeats)
        print(f"mp_uct (pruning preset) {stage:6s}: 10,000 playouts in {took:.3f} s on one core")
    print()
    for budget in (0.05, 0.3):  # a time budget: how close the search keeps to it
        for v in ("ismcts", "mp_ensemble"):
            took, its = timed(views["mid"][0], views["mid"][1], make_config(v, seconds=budget), args.repeats)
            print(f"{v:14s} seconds={budget}: took {took:.3f} s ({took - budget:+.3f} s over), {its:,} playouts")


if __name__ == "__main__":
    main()
