"""How often an agent's counter-offers are taken: one agent against three opponents, its
seat rotating, every counter it makes classed by its shape in the counterer's terms
(1:1, gives 2 for 1, asks 2 for 1) and counted as taken when the proposer confirms it.
A counter nobody takes is noise a person must read and refuse (issue 49).

    python benchmarks/counter_offers.py --agent pretrained --opponent jsettlers --games 100
"""
import argparse
import json
import os
import sys
import time
from typing import Any, Dict, List

import catan_env
from catan_env.agents.arena import decisions, wilson
from catan_env.agents.registry import make_agent
from catan_env.core import actions as A
from catan_env.core import layout as L

SHAPES = {(1, 1): "1 for 1", (2, 1): "gives 2 for 1", (1, 2): "asks 2 for 1"}


def play(agent_spec: str, opponent_spec: str, games: int, seed: int) -> Dict[str, Any]:
    """Counters made and taken, by shape, for the agent's seat and for the opponents'."""
    counts: Dict[str, Dict[str, List[int]]] = {side: {shape: [0, 0] for shape in SHAPES.values()}
                                               for side in ("agent", "opponents")}
    for g in range(games):
        env = catan_env.raw_env()
        env.reset(seed=seed + g)
        ours = g % 4
        agents = [make_agent(agent_spec if p == ours else opponent_spec, seed=seed * 7 + g * 4 + p)
                  for p in range(4)]
        pending: Dict[int, str] = {}  # counterer -> shape, for the offer on the table
        kind = ""
        for p, a, *_ in decisions(env, agents):
            if int(env.game_state[L.PHASE]) == L.PH_MAIN and kind in ("TRADE_REJECT", "TRADE_ACCEPT", "TRADE_COUNTER"):
                pending = {}  # the last answer ended the offer: it lapsed
            kind = A.action_kind(a)
            if kind == "TRADE_OFFER":
                pending = {}
            elif kind == "TRADE_COUNTER":
                m = a - A.COUNTER0
                shape = SHAPES[(int(A.MENU_GIVE_N[m]), int(A.MENU_GET_N[m]))]
                pending[p] = shape
                counts["agent" if p == ours else "opponents"][shape][0] += 1
            elif kind == "TRADE_CONFIRM":
                partner = int(A.confirm_partner(a, p, 4))
                if partner in pending:
                    counts["agent" if partner == ours else "opponents"][pending[partner]][1] += 1
                pending = {}
            elif kind == "TRADE_CANCEL":
                pending = {}
    out: Dict[str, Any] = {}
    for side, shapes in counts.items():
        out[side] = {}
        for shape, (made, taken) in shapes.items():
            lo, hi = wilson(taken, made) if made else (0.0, 1.0)
            out[side][shape] = {"made": made, "taken": taken, "taken_rate": taken / made if made else None,
                                "ci95": [lo, hi]}
    return out


def main(argv: List[str]) -> int:
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--agent", default="pretrained", help="the agent whose counters are counted (a spec)")
    p.add_argument("--opponent", default="jsettlers", help="the spec of the three other seats")
    p.add_argument("--games", type=int, default=100, help="games to play (the agent's seat rotates)")
    p.add_argument("--seed", type=int, default=4900, help="seed of the first game (game g uses seed + g)")
    p.add_argument("--out", default=None, help="a JSON file for the figures (with date and command)")
    args = p.parse_args(argv)
    t0 = time.time()
    result = play(args.agent, args.opponent, args.games, args.seed)
    for side, shapes in result.items():
        who = args.agent if side == "agent" else f"{args.opponent} (3 seats)"
        for shape, r in shapes.items():
            rate = "-" if r["taken_rate"] is None else f"{100 * r['taken_rate']:.1f}% [{100 * r['ci95'][0]:.1f}, {100 * r['ci95'][1]:.1f}]"
            print(f"{who:28s} {shape:14s} made {r['made']:5d}  taken {r['taken']:4d}  {rate}")
    print(f"{args.games} games in {time.time() - t0:.0f} s")
    if args.out:
        doc = {"date": time.strftime("%Y-%m-%d"), "command": "python benchmarks/counter_offers.py " + " ".join(argv),
               "games": args.games, "agent": args.agent, "opponent": args.opponent, "counters": result}
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
