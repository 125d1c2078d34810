"""Expert iteration (Deep Catan's ExIt) on CPU: self-play with the expert, train the
apprentice networks on what it played, let the next expert search with them, repeat.

    python examples/exit_train.py --iterations 2 --games 60 --out results/deep/exit

Iteration 1's expert is plain search (``--variant``, ``--playouts``); iteration k's is
that search guided by the networks of iteration k-1: the value network scores leaves
after ``--rollout-turns`` turns of playout and the local network is the PUCT prior (the
``exit:`` agent).  Each iteration writes ``data-k/`` (shards + manifest, resumable),
``nets-k.npz`` (the value and local networks, exported for numba) and adds its losses
to ``losses.json`` (and ``losses.png`` with matplotlib); the rounds are driven by
``agents.training.rounds`` as the value network's are.  Networks play as agents:
``exit:path=OUT/nets-2.npz``, ``uctnet:path=OUT/nets-2.npz``.  Needs the [rl] extra.
"""
import argparse
import os

from catan_env.agents.deep.data import load_folder
from catan_env.agents.deep.nets import save_networks, train_local, train_value
from catan_env.agents.deep.selfplay import generate
from catan_env.agents.training.rounds import RoundLog, run_rounds
from catan_env.agents.training.shards import manifest_positions
from catan_env.cli import HelpFormatter
from catan_env.plotting import pyplot, save


def expert_spec(args, nets):
    base = f"variant={args.variant}:playouts={args.playouts}"
    if nets is None:
        return f"mcts:{base}"
    return f"exit:path={nets}:{base}:rollout_turns={args.rollout_turns}"


def plot(losses, path):
    plt = pyplot()
    if plt is None:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.5))
    for entry in (e for e in losses if "train" in e):
        it, t = entry["round"], entry["train"]
        axes[0].plot(t["value_train"], label=f"iteration {it} train")
        if t["value_test"]:
            axes[0].plot(t["value_test"], "--", label=f"iteration {it} held out")
        axes[1].plot(t["local"], label=f"iteration {it}")
    axes[0].set(title="value network (MAE)", xlabel="epoch")
    axes[1].set(title="local network (weighted BCE)", xlabel="epoch")
    for ax in axes:
        ax.legend(fontsize=7)
    return save(fig, path)


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--iterations", type=int, default=2, help="expert-iteration rounds (self-play, then training)")
    ap.add_argument("--games", type=int, default=60, help="self-play games per iteration")
    ap.add_argument("--players", type=int, default=4, choices=(2, 3, 4), help="players per self-play game")
    ap.add_argument("--variant", default="best", help="MCTS preset of the expert")
    ap.add_argument("--playouts", type=int, default=300, help="expert playouts per decision")
    ap.add_argument("--rollout-turns", type=int, default=2,
                    help="guided experts: turns of playout before the value network scores the leaf")
    ap.add_argument("--sample", type=float, default=0.25, help="share of searched decisions recorded")
    ap.add_argument("--max-turns", type=int, default=200, help="turn cap of a self-play game")
    ap.add_argument("--epochs", type=int, default=8, help="training passes per iteration")
    ap.add_argument("--channels", type=int, default=8, help="convolution channels of the value network")
    ap.add_argument("--blocks", type=int, default=1, help="residual blocks of the value network")
    ap.add_argument("--loss", default="mae", choices=("mae", "ce"), help="value loss: mean absolute error or cross-entropy")
    ap.add_argument("--target", default="mix", choices=("mix", "outcome", "root"), help="value target: the game's outcome, the root's search estimate, or their mean")
    ap.add_argument("--window", type=int, default=2, help="train on the last W iterations' data")
    ap.add_argument("--workers", type=int, default=2, help="self-play processes")
    ap.add_argument("--seed", type=int, default=0, help="seed of the games and the training")
    ap.add_argument("--out", default="results/deep/exit", help="folder for data-k/, nets-k.npz and losses")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    try:
        log = RoundLog(os.path.join(args.out, "losses.json"), settings=vars(args))
    except ValueError as e:
        ap.error(str(e))
    data_dir = lambda it: os.path.join(args.out, f"data-{it}")  # noqa: E731

    def record(it, nets):
        spec = expert_spec(args, nets)
        print(f"iteration {it}: self-play with {spec}", flush=True)
        manifest = generate(data_dir(it), [spec] * args.players, args.games, seed=args.seed * 1000 + it,
                            sample=args.sample, max_turns=args.max_turns, options={"domestic_trade": False},
                            workers=args.workers, shard_games=max(1, min(10, args.games // max(args.workers, 1))),
                            progress=lambda line: print("  " + line, flush=True))
        return {"expert": spec, "positions": manifest_positions(manifest)}

    def train(it, nets, target):
        data = load_folder(*[data_dir(k) for k in range(max(1, it - args.window + 1), it + 1)])
        value, vh = train_value(data, epochs=args.epochs, loss=args.loss, target=args.target, seed=args.seed,
                                channels=args.channels, blocks=args.blocks)
        local, lh = train_local(data, epochs=args.epochs, seed=args.seed)
        save_networks(target, value=value, local=local,
                      meta={"iteration": it, "expert": expert_spec(args, nets), "positions": int(len(data["players"])),
                            "moves": int(len(data["local_q"])), "loss": args.loss, "target": args.target})
        return {"value_train": vh["train"], "value_test": vh["test"], "local": lh,
                "test_picks_winner": vh.get("test_picks_winner"), "test_vp_leader": vh.get("test_vp_leader"),
                "positions": int(len(data["players"]))}

    def report(entry):
        plot(log.rounds, os.path.join(args.out, "losses.png"))
        print(_line(entry, os.path.join(args.out, f"nets-{entry['round']}.npz")), flush=True)

    rounds = run_rounds(log, range(1, args.iterations + 1), lambda it: os.path.join(args.out, f"nets-{it}.npz"),
                        record, train, report=report)
    last = os.path.join(args.out, f"nets-{args.iterations}.npz")
    return last if os.path.exists(last) else None


def _line(entry, path):
    if "train" not in entry:  # a round finished before its figures were logged
        return f"iteration {entry['round']}: {path} exists, kept"
    t, secs = entry["train"], entry["seconds"]
    new, played = entry.get("data", {}).get("positions", 0), secs.get("data", 0.0)
    nan = float("nan")
    return (f"iteration {entry['round']}: {new} positions in {played:.0f} s ({new / max(played, 1e-9):.1f}/s), "
            f"trained on {t['positions']} in {secs.get('train', 0.0):.0f} s; value loss "
            f"{t['value_train'][0]:.3f} -> {t['value_train'][-1]:.3f} (held-out games "
            f"{t['value_test'][-1] if t['value_test'] else nan:.3f}; picks their winner "
            f"{t.get('test_picks_winner') or nan:.3f}, the VP leader {t.get('test_vp_leader') or nan:.3f}); "
            f"saved {path}")


if __name__ == "__main__":
    main()
