"""The desert-Knight fix in `jsettlers`, measured: the fixed agent in one seat against three
agents that still play a Knight before rolling when the robber sits on the desert beside
them (the behaviour before the fix, rebuilt here by overriding one method), seats rotating.
A result near 25% says figures measured against `jsettlers` before the fix stand.

    python benchmarks/jsettlers_desert_knight.py --games 2000 --out docs/results/jsettlers_desert_knight.json
"""
import argparse
import json
import os
import sys
import time
from typing import List, Set

import numpy as np

import catan_env
from catan_env.agents import JSettlersAgent
from catan_env.agents.arena import decisions, wilson
from catan_env.core import layout as L
from catan_env.core.topology import VERTEX_HEXES


class DesertKnightAgent(JSettlersAgent):
    """`jsettlers` as it was: the desert counted among the hexes it produces from."""

    def _producing_blocked(self) -> bool:
        s, me = self._s, self._me
        hexes: Set[int] = {int(h) for v in np.flatnonzero(L.view(s, "v_owner") == me)
                           for h in VERTEX_HEXES[v] if h >= 0}
        return int(s[L.ROBBER]) in hexes


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--games", type=int, default=2000, help="games to play (the fixed agent's seat rotates)")
    p.add_argument("--seed", type=int, default=9000, help="seed of the first game (game g uses seed + g)")
    p.add_argument("--out", default=None, help="a JSON file for the result (with date and command)")
    args = p.parse_args(argv)
    wins = 0
    for g in range(args.games):
        env = catan_env.raw_env()
        env.reset(seed=args.seed + g)
        ours = g % 4
        agents = [JSettlersAgent(seed=g * 4 + k) if k == ours else DesertKnightAgent(seed=g * 4 + k) for k in range(4)]
        for _ in decisions(env, agents):
            pass
        wins += int(env.game_state[L.WINNER]) == ours
    lo, hi = wilson(wins, args.games)
    print(f"fixed jsettlers against three of the old: {wins}/{args.games} = {wins / args.games:.3f} [{lo:.3f}, {hi:.3f}]")
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump({"date": time.strftime("%Y-%m-%d"), "command": "python benchmarks/jsettlers_desert_knight.py "
                       + " ".join(argv), "games": args.games, "wins": wins, "win_rate": wins / args.games,
                       "ci95": [lo, hi]}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
