"""Self-play data for the Deep Catan networks: games between search agents, sampled
decisions recorded (observation planes and vector, the root's win-rate estimates, each
searched move's features and score) with the game's outcome, into compressed npz shards
and a manifest.  Resumable: run the same command again to go on.

    python examples/generate_selfplay.py --games 200 --out results/deep/selfplay
    python examples/generate_selfplay.py --players mcts:variant=best:playouts=400,jsettlers,jsettlers,jsettlers

Without torch: the data are numpy arrays (agents.deep.data.load_folder reads them).
"""
import argparse

from catan_env.agents.deep.selfplay import generate
from catan_env.agents.training.shards import manifest_positions
from catan_env.cli import HelpFormatter


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--players", default=",".join(["mcts:variant=best:playouts=300"] * 4),
                    help="agent specs, one per seat (seats shuffled per game)")
    ap.add_argument("--games", type=int, default=100, help="games in all (a run that has some extends to this count)")
    ap.add_argument("--shard-games", type=int, default=10, help="games per shard")
    ap.add_argument("--sample", type=float, default=0.25, help="share of searched decisions kept")
    ap.add_argument("--max-turns", type=int, default=200, help="turn cap per game")
    ap.add_argument("--trade", action="store_true", help="domestic trade on (off, as in the paper)")
    ap.add_argument("--workers", type=int, default=2, help="worker processes")
    ap.add_argument("--seed", type=int, default=0, help="seed of the run (game i derives from it)")
    ap.add_argument("--out", default="results/deep/selfplay", help="folder for the shards and manifest.json")
    args = ap.parse_args(argv)
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    manifest = generate(args.out, players, args.games, seed=args.seed, shard_games=args.shard_games,
                        sample=args.sample, max_turns=args.max_turns,
                        options={"domestic_trade": args.trade}, workers=args.workers,
                        progress=lambda line: print(line, flush=True))
    total = manifest_positions(manifest)
    print(f"{args.out}: {len(manifest['shards'])} shards, {total} positions")


if __name__ == "__main__":
    main()
