"""The standard baseline table: seat-randomised tournaments between the baseline agents.

    python examples/evaluate_baselines.py --games 400 --workers 2 --out results/baselines

Each line-up plays `--games` games; the table (win rate with a 95% Wilson interval, mean
VP, mean rank, trades per game) is printed and written to <out>/<lineup>/summary.json.
"""
import argparse
import os

from agents.arena import format_table, run_tournament, summarise, write_outputs

LINEUPS = {
    "jsettlers_vs_random": ["jsettlers", "random", "random", "random"],
    "jsettlers_vs_weighted": ["jsettlers", "weighted", "weighted", "weighted"],
    "smart_vs_fast": ["jsettlers:strategy=smart", "jsettlers", "jsettlers", "jsettlers"],
    "trader_vs_jsettlers": ["trader", "trader", "jsettlers", "jsettlers"],
    "weighted_vs_random": ["weighted", "random", "random", "random"],
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default="results/baselines")
    ap.add_argument("--only", nargs="*", help="run only these line-ups")
    args = ap.parse_args()
    for name, players in LINEUPS.items():
        if args.only and name not in args.only:
            continue
        print(f"\n=== {name}: {', '.join(players)}")
        results = run_tournament(players, args.games, args.workers, args.seed)
        summary = summarise(results, players)
        print(format_table(summary))
        write_outputs(results, summary, os.path.join(args.out, name))


if __name__ == "__main__":
    main()
