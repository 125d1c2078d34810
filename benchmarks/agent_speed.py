"""Decision time of the baseline agents (median, 90th percentile, max) over whole games.

Usage: python benchmarks/agent_speed.py [--games 20]
"""
import argparse

import numpy as np

from catan_env.agents.arena import play_game
from catan_env.cli import HelpFormatter

LINEUPS = {
    "jsettlers (fast)": ["jsettlers", "random", "random", "random"],
    "jsettlers (smart)": ["jsettlers:strategy=smart", "jsettlers", "jsettlers", "jsettlers"],
    "trader": ["trader", "trader", "jsettlers", "jsettlers"],
    "weighted": ["weighted", "random", "random", "random"],
}


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    ap.add_argument("--games", type=int, default=20, help="games per agent")
    args = ap.parse_args()
    play_game(["jsettlers", "random"], seed=0, max_turns=50)  # warm numba caches
    for label, lineup in LINEUPS.items():
        times = []
        for g in range(args.games):
            res = play_game(lineup, seed=1000 + g, time_decisions=True)
            times.extend(res["decision_times"][0])
        t = np.array(times) * 1e3
        print(f"{label:20s} decisions {len(t):6d}  median {np.median(t):6.3f} ms  "
              f"p90 {np.percentile(t, 90):6.3f} ms  p99 {np.percentile(t, 99):7.2f} ms  max {t.max():7.1f} ms")


if __name__ == "__main__":
    main()
