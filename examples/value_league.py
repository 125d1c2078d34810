"""A league for the win-probability network: expert iteration from the shipped network
against a mixed table of opponents and rule sets, round by round, resumable.

    python examples/value_league.py --out results/league                  # runs until it stops improving
    python examples/value_league.py --out /tmp/l --games 12 --eval-games 8 --max-rounds 1   # a tiny run

Round 0 is the network shipped in the package, evaluated by the same agent as every
round (``--search`` / ``--determinizations``: the fixed search, so the games follow
their seeds).  Round
k >= 1 records games of round k-1's search agent against every entry of the table
(``TABLE``: JSettlersAgent fast and smart, the trader, ``best`` MCTS at a small budget,
weighted, earlier rounds of itself, and a share of games under the Pioneers rules; each
entry is its own data folder, its share of ``--games`` set by its weight), fine-tunes
round k-1's network on the last ``--window`` rounds' data (the outcome as target, blended
with the search's estimate) and plays ``--eval-games`` games against three JSettlersAgent,
the same seeded games every round (a paired comparison; seeds far from the training
games').  The league stops when ``--patience`` consecutive rounds fail to beat the best
round's win rate, or after ``--max-rounds``.  Every round's network, data and evaluation
stay in ``--out``; ``league.json`` holds the rounds' figures and which round is best.
Each stage leaves its file (a data folder resumes shard by shard, a network or a finished
evaluation is not redone), so a stopped run continues where it was.  Needs the [rl] extra.
"""
import argparse
import os
import shutil
import sys

import numpy as np

from catan_env.agents.arena import run_tournament, summarise, wilson
from catan_env.learned.network import PRETRAINED, ValueNetwork
from catan_env.agents.value.positions import generate, load_positions
from catan_env.agents.value.train import evaluate as heldout_figures
from catan_env.agents.value.train import train
from catan_env.agents.training.rounds import RoundLog, round_line, run_rounds
from catan_env.cli import HelpFormatter
from catan_env.core.options import PIONEERS_RULES

ROBOT = "jsettlers"
# name: (seats, rule options, weight).  "agent" = round k-1's search agent, "past" = an
# earlier round's agent (the shipped network at round 1).
TABLE = {
    "jsettlers": (["agent", "agent", ROBOT, ROBOT], {}, 3),
    "smart": (["agent", "jsettlers:strategy=smart", "jsettlers:strategy=smart", ROBOT], {}, 2),
    "trader": (["agent", "agent", "trader", ROBOT], {}, 1),
    "mcts": (["agent", "mcts:variant=best:playouts=300", "mcts:variant=best:playouts=300", ROBOT], {}, 1),
    "weighted": (["agent", "weighted", "weighted", ROBOT], {}, 1),
    "past": (["agent", "past", ROBOT, ROBOT], {}, 1),
    "pioneers": (["agent", "agent", ROBOT, ROBOT], dict(PIONEERS_RULES), 2),
}
EVAL_SEED = 7_000_000  # evaluation games: far from every training seed (seed + round * 1000 + entry)


def agent_spec(net_path, args):
    return f"value:path={net_path}:search={args.search}:determinizations={args.determinizations}"


def games_per_entry(total, table):
    """Games per table entry: total shared by weight (largest remainders), at least one each."""
    weights = np.array([w for _, _, w in table.values()], float)
    exact = total * weights / weights.sum()
    games = np.maximum(np.floor(exact).astype(int), 1)
    for i in np.argsort(-(exact - np.floor(exact)))[:max(0, total - games.sum())]:
        games[i] += 1
    return dict(zip(table, games.tolist()))


def past_round(k, rng_seed):
    """The earlier round whose agent fills a "past" seat in round k (drawn from the seed)."""
    return int(np.random.default_rng([rng_seed, k]).integers(0, max(1, k - 1))) if k > 1 else 0


def record_round(k, args, out):
    """Round k's games, one data folder per table entry; returns the folders."""
    prev = os.path.join(out, f"round-{k - 1}.npz")
    past = os.path.join(out, f"round-{past_round(k, args.seed)}.npz")
    folders = []
    for i, (name, games) in enumerate(games_per_entry(args.games, TABLE).items()):
        seats, options, _ = TABLE[name]
        specs = [agent_spec(prev, args) if s == "agent" else agent_spec(past, args) if s == "past" else s
                 for s in seats]
        folder = os.path.join(out, f"data-{k}", name)
        generate(folder, specs, games, seed=args.seed + 1000 * k + i, sample=args.sample, options=options,
                 workers=args.workers, progress=lambda line, n=name: print(f"round {k} {n}: {line}"),
                 note=f"league round {k}: {name}")
        folders.append(folder)
    return folders


def evaluate(net_path, args, k):
    players = [agent_spec(net_path, args), ROBOT, ROBOT, ROBOT]
    games = run_tournament(players, args.eval_games, seed=EVAL_SEED, workers=args.workers, progress=False)
    stats = summarise(games, players)["agents"][players[0]]
    wins, n = stats["wins"], stats["seat_games"]
    return {"opponents": "3 x jsettlers", "games": n, "wins": wins, "win_rate": wins / n, "ci": list(wilson(wins, n)),
            "mean_vp": stats["mean_vp"]}


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--out", default="results/league", help="folder of round-k.npz, data-k/, league.json")
    ap.add_argument("--games", type=int, default=1000, help="games recorded per round, shared over the table")
    ap.add_argument("--eval-games", type=int, default=400, help="games against three JSettlersAgent per round")
    ap.add_argument("--patience", type=int, default=2, help="stop after this many rounds without a new best")
    ap.add_argument("--max-rounds", type=int, default=50, help="stop after this round in any case")
    ap.add_argument("--window", type=int, default=4, help="train on the data of the last WINDOW rounds")
    ap.add_argument("--sample", type=float, default=0.15, help="share of decisions whose state is kept")
    ap.add_argument("--search", type=int, default=1, help="the agent's extra plies (0 greedy, 1, 2)")
    ap.add_argument("--determinizations", type=int, default=2, help="the agent's determinizations per decision")
    ap.add_argument("--epochs", type=int, default=2, help="fine-tuning passes per round (best held-out epoch kept)")
    ap.add_argument("--lr", type=float, default=1e-4, help="Adam learning rate (cosine-annealed)")
    ap.add_argument("--dropout", type=float, default=0.3, help="dropout after each hidden layer while training")
    ap.add_argument("--weight-decay", type=float, default=1e-3, help="Adam weight decay")
    ap.add_argument("--value-weight", type=float, default=0.3, help="target = outcome blended with the search's estimate")
    ap.add_argument("--workers", type=int, default=1, help="processes")
    ap.add_argument("--seed", type=int, default=100_000, help="seed of the recorded games and the training")
    args = ap.parse_args(argv)
    for name in ("games", "eval_games", "patience", "window", "max_rounds", "determinizations"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1, got {getattr(args, name)}")
    sys.stdout.reconfigure(line_buffering=True)
    os.makedirs(args.out, exist_ok=True)
    # the rounds are compared on the same evaluation games by the same agent: those settings must hold
    try:
        log = RoundLog(os.path.join(args.out, "league.json"), settings=vars(args),
                       fixed=("eval_games", "search", "determinizations", "seed", "sample"))
    except ValueError as e:
        ap.error(str(e))

    first = os.path.join(args.out, "round-0.npz")
    if not os.path.exists(first):  # the shipped network, widened to today's features, as round 0
        ValueNetwork.load(PRETRAINED).save(first)

    def fine_tune(k, prev_path, net_path):
        folders = [os.path.join(args.out, f"data-{j}", name) for j in range(max(1, k - args.window + 1), k + 1)
                   for name in TABLE]
        rows = load_positions(*folders)
        print(f"round {k}: fine-tuning round {k - 1} on {len(rows['game'])} positions from {len(folders)} folders")
        prev = ValueNetwork.load(prev_path)
        hidden = [w.shape[1] for w, _, _ in prev.weights.layers[:-1]]
        fit = train(rows, hidden=hidden, epochs=args.epochs, lr=args.lr, dropout=args.dropout,
                    weight_decay=args.weight_decay, value_weight=args.value_weight, seed=args.seed + k,
                    init=prev, progress=print)
        fit["network"].meta.update(round=k, positions=int(len(rows["game"])), league=list(TABLE))
        fit["network"].save(net_path)
        before = heldout_figures(prev, rows, fit["heldout_mask"])  # round k-1 on the same held-out games
        return {"heldout": {key: v for key, v in (fit["heldout"] or {}).items() if key != "calibration"},
                "heldout_before": {key: v for key, v in before.items() if key != "calibration"}}

    rounds = run_rounds(log, range(args.max_rounds + 1), lambda k: os.path.join(args.out, f"round-{k}.npz"),
                        lambda k, prev: {"folders": record_round(k, args, args.out)}, fine_tune,
                        lambda k, path: evaluate(path, args, k), stop=lambda rounds: stopped(rounds, args.patience),
                        report=lambda entry: print(_line(entry)))
    best = max((r for r in rounds if "eval" in r), key=lambda r: r["eval"]["win_rate"])
    print(f"best: round {best['round']} ({best['eval']['win_rate']:.3f}); its network: "
          f"{os.path.join(args.out, 'round-%d.npz' % best['round'])}")
    shutil.copyfile(os.path.join(args.out, f"round-{best['round']}.npz"), os.path.join(args.out, "best.npz"))
    return 0


def stopped(rounds, patience):
    """True when the last ``patience`` rounds all failed to beat the best win rate before them."""
    rates = [r["eval"]["win_rate"] for r in sorted(rounds, key=lambda r: r["round"]) if "eval" in r]
    if len(rates) <= patience:
        return False
    return max(rates[-patience:]) <= max(rates[:-patience])


def _line(entry):
    t = entry.get("train") or {}
    h, b = t.get("heldout") or {}, t.get("heldout_before") or {}
    return round_line(entry, f"held-out log loss {h.get('log_loss', float('nan')):.3f} "
                             f"(the round before: {b.get('log_loss', float('nan')):.3f})")


if __name__ == "__main__":
    raise SystemExit(main())
