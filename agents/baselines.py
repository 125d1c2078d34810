"""The standard baseline table: seat-randomised tournaments between the baseline agents.

    catan-baselines --games 100 --workers 2 --out results/baselines
    catan-baselines --full        # the shipped agent with its anytime search (~0.1 s a move)

Each line-up plays ``--games`` games; the table (win rate with a 95% Wilson interval, mean
VP, mean rank, trades per game) is printed and written to <out>/<lineup>/ (summary.json,
games.csv, plots), plus <out>/table.md with every line-up and <out>/run.json with how long
each line-up took (date, machine, command).
"""
import os
import time
from typing import Dict, List, Optional, Sequence

from catan_env.cli import parser, positive_int, run_stamp, user_errors, write_results

from .arena import TABLE_LEGEND, format_table, run_tournament, summarise, write_outputs

LINEUPS = {
    "jsettlers_vs_random": ["jsettlers", "random", "random", "random"],
    "jsettlers_vs_weighted": ["jsettlers", "weighted", "weighted", "weighted"],
    "smart_vs_fast": ["jsettlers:strategy=smart", "jsettlers", "jsettlers", "jsettlers"],
    "trader_vs_jsettlers": ["trader", "trader", "jsettlers", "jsettlers"],
    "solver_openings_vs_weighted": ["opening_solver:base=weighted", "weighted", "weighted", "weighted"],
    "weighted_vs_random": ["weighted", "random", "random", "random"],
    "pretrained_vs_jsettlers": ["pretrained:search=1", "jsettlers", "jsettlers", "jsettlers"],
}
# the shipped agent plays its fast mode (one ply, milliseconds a move) in the quick table;
# --full plays it as shipped: the anytime search, ~0.1 s a move (minutes more on two cores)
FULL = {"pretrained_vs_jsettlers": ["pretrained", "jsettlers", "jsettlers", "jsettlers"]}


@user_errors("catan-baselines")
def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = parser("catan-baselines", __doc__.split("\n\n")[0])
    ap.add_argument("--games", type=positive_int, default=100, help="games per line-up")
    ap.add_argument("--workers", type=positive_int, default=2, help="worker processes")
    ap.add_argument("--seed", type=int, default=0, help="tournament seed")
    ap.add_argument("--out", default="results/baselines", help="output folder")
    ap.add_argument("--only", nargs="*", choices=sorted(LINEUPS), help="run only these line-ups")
    ap.add_argument("--full", action="store_true",
                    help="the shipped pretrained agent with its anytime search (~0.1 s a move), "
                         "not its one-ply fast mode")
    args = ap.parse_args(argv)
    print(TABLE_LEGEND, flush=True)
    tables: List[str] = []
    seconds: Dict[str, float] = {}
    lineups = {**LINEUPS, **FULL} if args.full else LINEUPS
    start = time.perf_counter()
    for name, players in lineups.items():
        if args.only and name not in args.only:
            continue
        print(f"\n=== {name}: {', '.join(players)}", flush=True)
        t0 = time.perf_counter()
        results = run_tournament(players, args.games, args.workers, args.seed)
        seconds[name] = round(time.perf_counter() - t0, 1)
        summary = summarise(results, players)
        table = format_table(summary, under_test=players[0])
        print(table, flush=True)
        write_outputs(results, summary, os.path.join(args.out, name))
        tables.append(f"## {name}\n\n```\n{table}\n```\n")
    total = round(time.perf_counter() - start, 1)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write("# Baseline line-ups\n\n" + TABLE_LEGEND + "\n\n" + "\n".join(tables)
                + f"\n{len(seconds)} line-ups of {args.games} games in {total:.0f} s ({args.workers} workers, "
                f"{time.strftime('%Y-%m-%d')}).\n")
    run = {**run_stamp("catan-baselines", argv), "games": args.games, "workers": args.workers, "seconds": seconds, "total_seconds": total}
    write_results(os.path.join(args.out, "run.json"), run)
    print(f"\n{len(seconds)} line-ups in {total:.0f} s; wrote {args.out}/table.md and run.json")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
