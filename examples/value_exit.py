"""Expert iteration for the win-probability network, round by round, resumable.

    python examples/value_exit.py --rounds 8 --out results/value_exit8  # the shipped network's data
    python examples/value_exit.py --rounds 1 --robot-games 40 --games 8 --eval-games 8 --out /tmp/x   # a tiny run

Round 0 records games of four JSettlersAgent robots (``data-0``, the bootstrap), trains
``round-0.npz`` on them and plays it against three robots.  Round k >= 1 records games
of the search agent over round k-1's network (``--lineup``: two of it and two robots by
default; their searched positions carry the search's estimate), trains ``round-k.npz``
on every round's data (the outcome as target, blended with the search's estimate by
``--value-weight``) and evaluates it the same way.  Each stage leaves its file
(data folders resume shard by shard; a network file or a finished evaluation is not
redone), so a stopped run continues where it was; ``rounds.json`` holds each round's
held-out figures, win rate and stage times.  ``--backend ray [--address HOST:PORT]``
runs the games, the featurizing and the evaluations as Ray tasks.  ``--start-from PATH``
has round 1's games played by that network's agent rather than round 0's (for example
the shipped network, to train a network of another shape, ``--hidden``, from scratch on
the robots' games and a strong agent's).  Needs the [rl] extra.
"""
import argparse
import os
import sys

from catan_env.agents.arena import run_tournament, summarise, wilson
from catan_env.learned.network import ValueNetwork
from catan_env.agents.value.positions import generate, round_rows
from catan_env.agents.value.train import ship as ship_network
from catan_env.agents.value.train import train
from catan_env.agents.training.rounds import RoundLog, round_line, run_rounds
from catan_env.cli import HelpFormatter

ROBOT = "jsettlers"


def agent_spec(net_path, args):
    return f"value:path={net_path}:search={args.search}:determinizations={args.determinizations}"


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--rounds", type=int, default=3, help="rounds after round 0 (the robot bootstrap)")
    ap.add_argument("--robot-games", type=int, default=8000, help="round 0: four-robot games recorded")
    ap.add_argument("--games", type=int, default=1500, help="rounds >= 1: search-agent games recorded per round")
    ap.add_argument("--lineup", default="agent,agent,jsettlers,jsettlers",
                    help="rounds >= 1: the seats of a recorded game ('agent' = the previous round's agent)")
    ap.add_argument("--sample", type=float, default=0.1, help="share of decisions whose state is kept")
    ap.add_argument("--search", type=int, default=1, help="the agent's extra plies (0 greedy, 1, 2)")
    ap.add_argument("--determinizations", type=int, default=2, help="the agent's determinizations per decision")
    ap.add_argument("--hidden", type=int, nargs="+", default=[256, 128], help="hidden layer widths")
    ap.add_argument("--epochs", type=int, default=4, help="training passes per round (the best held-out epoch is kept)")
    ap.add_argument("--dropout", type=float, default=0.3, help="dropout after each hidden layer while training")
    ap.add_argument("--weight-decay", type=float, default=1e-3, help="Adam weight decay")
    ap.add_argument("--batch", type=int, default=512, help="minibatch size")
    ap.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (cosine-annealed)")
    ap.add_argument("--value-weight", type=float, default=0.3, help="target = outcome blended with the search's estimate")
    ap.add_argument("--vp-weight", type=float, default=0.0,
                    help="weight of an auxiliary loss while training: each seat's final VP (0: none; the "
                         "printed training loss includes it)")
    ap.add_argument("--self-weight", type=float, default=2.0,
                    help="rounds >= 1: loss weight of the search agent's own positions (robots' = 1)")
    ap.add_argument("--start-from", metavar="PATH", default=None,
                    help="round 1's games are played by this network's agent, not round 0's")
    ap.add_argument("--extra-data", nargs="*", default=[], help="more positions folders to train every round on")
    ap.add_argument("--eval-games", type=int, default=100, help="games against three robots per round")
    ap.add_argument("--workers", type=int, default=2, help="processes (or Ray CPUs)")
    ap.add_argument("--backend", default="process", choices=("process", "ray"), help="where games run")
    ap.add_argument("--address", default=None, help="Ray cluster address (--backend ray)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the games and the training")
    ap.add_argument("--ship", action="store_true",
                    help="copy the last round's network into the package (the `pretrained` agent's weights) "
                         "and draw its reliability plot into docs/")
    ap.add_argument("--out", default="results/value", help="folder of data-k/, round-k.npz, rounds.json")
    args = ap.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)  # progress lines reach a log file as they come
    if not args.vp_weight >= 0:
        ap.error(f"--vp-weight: 0 or more, not {args.vp_weight}")
    if args.start_from is not None:
        try:
            ValueNetwork.load(args.start_from)
        except ValueError as e:
            ap.error(f"--start-from: {e}")
    os.makedirs(args.out, exist_ok=True)
    try:
        log = RoundLog(os.path.join(args.out, "rounds.json"), settings=vars(args))
    except ValueError as e:
        ap.error(str(e))
    ray_kw = dict(workers=args.workers, backend=args.backend, address=args.address)
    data_dir = lambda k: os.path.join(args.out, f"data-{k}")  # noqa: E731

    def record(k, prev):
        if prev is None:
            manifest = generate(data_dir(k), [ROBOT] * 4, args.robot_games, seed=args.seed, sample=args.sample,
                                progress=print, note="round 0: four JSettlersAgent", **ray_kw)
        else:
            player = args.start_from if k == 1 and args.start_from is not None else prev
            seats = [agent_spec(player, args) if s == "agent" else s for s in args.lineup.split(",")]
            manifest = generate(data_dir(k), seats, args.games, seed=args.seed + k, sample=args.sample,
                                progress=print, note=f"round {k}: {args.lineup}", **ray_kw)
        return {"positions_per_s": manifest.get("positions_per_s")}

    def train_round(k, prev, net_path):
        rows = round_rows(args.out, k, args.extra_data, args.self_weight, **ray_kw)
        print(f"round {k}: training on {len(rows['game'])} positions from {k + 1 + len(args.extra_data)} data folders")
        fit = train(rows, hidden=args.hidden, epochs=args.epochs, lr=args.lr, batch=args.batch,
                    dropout=args.dropout, weight_decay=args.weight_decay,
                    value_weight=args.value_weight if k else 0.0, seed=args.seed, vp_weight=args.vp_weight,
                    progress=print)
        fit["network"].meta.update(round=k, positions=int(len(rows["game"])))
        fit["network"].save(net_path)
        ValueNetwork.load(net_path)  # the file reads back
        return {"heldout": dict(fit["heldout"] or {}), "history": fit["history"]}

    def evaluate(k, net_path):
        players = [agent_spec(net_path, args), ROBOT, ROBOT, ROBOT]
        games = run_tournament(players, args.eval_games, seed=10_000 + k, progress=False, **ray_kw)
        stats = summarise(games, players)["agents"][players[0]]
        wins, n = stats["wins"], stats["seat_games"]
        return {"opponents": "3 x jsettlers", "games": n, "wins": wins, "win_rate": wins / n,
                "ci": list(wilson(wins, n))}

    run_rounds(log, range(args.rounds + 1), lambda k: os.path.join(args.out, f"round-{k}.npz"),
               record, train_round, evaluate, report=lambda entry: print(_line(entry)))
    if args.ship:
        ship(os.path.join(args.out, f"round-{args.rounds}.npz"), log.entry(args.rounds))
    return 0


def ship(net_path, entry):
    """The last round's network becomes the package's ``pretrained`` weights; its held-out
    calibration becomes docs/value_calibration.png."""
    from catan_env.learned.network import PRETRAINED
    heldout = entry["train"]["heldout"]
    plot = ship_network(net_path, heldout, f"round {entry['round']} network, {heldout['games']} held-out games",
                        os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs",
                                     "value_calibration.png"))
    print(f"shipped {net_path} as {PRETRAINED}" + (f"; calibration plot {plot}" if plot else ""))


def _line(entry):
    h = (entry.get("train") or {}).get("heldout") or {}
    return round_line(entry, f"held-out accuracy {h.get('accuracy', float('nan')):.3f} "
                             f"(VP leader {h.get('vp_leader_accuracy', float('nan')):.3f})")


if __name__ == "__main__":
    raise SystemExit(main())
