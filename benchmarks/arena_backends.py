"""Arena games/s with the process backend and the Ray backend (local Ray, same number of
CPUs), the same games (same seed) on both.  Prints lines ending in ``games/s``; Ray's
start-up is timed apart.  Needs Ray (the [rllib] extra).

Usage: python benchmarks/arena_backends.py [--games 40] [--workers 2]
"""
import argparse
import time

import ray

from catan_env.agents.arena import run_tournament
from catan_env.cli import HelpFormatter


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--games", type=int, default=40, help="games per backend")
    ap.add_argument("--workers", type=int, default=2, help="processes (or Ray CPUs)")
    ap.add_argument("--players", default="jsettlers,random,random,random", help="line-up")
    args = ap.parse_args()
    players = args.players.split(",")
    run_tournament(players, 2, workers=1, progress=False)  # numba caches loaded or compiled
    t0 = time.perf_counter()
    by_process = run_tournament(players, args.games, workers=args.workers, seed=0, progress=False)
    process_rate = args.games / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    ray.init(num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    startup = time.perf_counter() - t0
    t0 = time.perf_counter()
    by_ray = run_tournament(players, args.games, workers=args.workers, seed=0, progress=False, backend="ray")
    ray_rate = args.games / (time.perf_counter() - t0)
    ray.shutdown()
    print(f"lineup {args.players}, {args.games} games, {args.workers} CPUs; same results: {by_ray == by_process}")
    print(f"arena, process backend ({args.workers} workers): {process_rate:.2f} games/s")
    print(f"arena, Ray backend ({args.workers} CPUs, start-up {startup:.1f} s apart): {ray_rate:.2f} games/s")


if __name__ == "__main__":
    main()
