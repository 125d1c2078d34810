"""Train one round's network again, on the same data, with other training settings.

    python examples/value_retrain.py --run results/value_exit8 --round 8 --out results/retrain 0.7:0 0.3:1
    python examples/value_retrain.py --run results/value --round 1 --out /tmp/r 0.3:1:2    # a tiny run's round
    python examples/value_retrain.py --run results/value_exit8 --round 8 --out results/aux --vp-weight 1 0.3:0

How much of a round's strength is its training rather than its data?  Each variant,
``VALUE_WEIGHT:SEED[:EPOCHS]``, trains a network from scratch on the positions an
``examples/value_exit.py`` run's round trained on (data-0 to data-K with the run's
weights), with the run's other settings (``rounds.json``: widths, dropout, weight decay,
batch, learning rate, epochs), only the search's weight in the target, the seed (the
initial weights, the minibatches, the held-out games) and the epochs changed, and
optionally an auxiliary target (``--vp-weight``: each seat's final victory points,
predicted while training only).  The data are loaded once for all variants.  Each network
goes to ``--out`` as ``vwW-sS-eE.npz`` (``vwW-sS-eE-vpV.npz`` with the auxiliary target;
a variant whose file exists is skipped) and its held-out figures to
``retrain.json`` there (``--ship``: the one variant named becomes the package's
``pretrained`` network), with the run and round (a folder holds one round's networks:
another round's is refused); judge one with ``examples/value_league.py --challenger PATH``.
Needs the [rl] extra.
"""
import argparse
import json
import os
import sys

from catan_env.agents.training.rounds import RoundLog
from catan_env.agents.value.positions import round_rows
from catan_env.agents.value.train import train
from catan_env.cli import HelpFormatter

SETTINGS = ("hidden", "epochs", "dropout", "weight_decay", "batch", "lr", "self_weight")  # read from the run


def variant(text):
    """VALUE_WEIGHT:SEED[:EPOCHS] as (float, int, int or None)."""
    parts = text.split(":")
    try:
        if len(parts) not in (2, 3):
            raise ValueError
        weight, seed = float(parts[0]), int(parts[1])
        epochs = int(parts[2]) if len(parts) == 3 else None
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: a variant is VALUE_WEIGHT:SEED or VALUE_WEIGHT:SEED:EPOCHS, "
                                         "for example 0.7:0 or 0.3:1:6") from None
    if not 0.0 <= weight <= 1.0 or (epochs is not None and epochs < 1):
        raise argparse.ArgumentTypeError(f"{text!r}: the value weight is 0-1 and the epochs at least 1")
    return weight, seed, epochs


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("variants", nargs="+", type=variant, help="VALUE_WEIGHT:SEED[:EPOCHS] per network to train")
    ap.add_argument("--run", required=True, help="an examples/value_exit.py output folder (its rounds.json and data-k/)")
    ap.add_argument("--round", type=int, required=True, help="the round whose training data are used (1 or more)")
    ap.add_argument("--out", required=True, help="folder of the networks and retrain.json")
    ap.add_argument("--vp-weight", type=float, default=0.0,
                    help="weight of the auxiliary final-VP loss while training, for every variant (0: none)")
    ap.add_argument("--ship", action="store_true",
                    help="copy the one variant's network into the package (the `pretrained` agent's weights) and "
                         "draw its held-out calibration into docs/")
    ap.add_argument("--workers", type=int, default=2, help="processes featurizing the positions")
    ap.add_argument("--threads", type=int, default=None,
                    help="torch's threads (1 keeps a background run from stalling when the other core is busy)")
    args = ap.parse_args(argv)
    sys.stdout.reconfigure(line_buffering=True)
    log_path = os.path.join(args.run, "rounds.json")
    if not os.path.exists(log_path):
        ap.error(f"--run: {log_path} does not exist (an examples/value_exit.py output folder has it)")
    try:
        run = RoundLog(log_path).settings
    except ValueError as e:
        ap.error(f"--run: {e}")
    lacking = [k for k in SETTINGS if k not in run]
    if lacking:
        ap.error(f"--run: {log_path} lacks the settings {', '.join(lacking)} (not a value_exit.py run?)")
    extra = list(run.get("extra_data") or [])
    missing = [f"data-{k}" for k in range(args.round + 1) if not os.path.isdir(os.path.join(args.run, f"data-{k}"))]
    missing += [f for f in extra if not os.path.isdir(f)]  # (the run's extra folders, as it named them)
    if args.round < 1 or missing:
        ap.error(f"--round {args.round}: needs 1 or more, data-0 to data-{args.round} in {args.run} and the run's "
                 f"extra folders (missing: {', '.join(missing) or 'none'})")
    if args.workers < 1:
        ap.error("--workers: at least 1")
    if not args.vp_weight >= 0:
        ap.error(f"--vp-weight: 0 or more, not {args.vp_weight}")
    if args.ship and len(args.variants) != 1:
        ap.error("--ship: name exactly one variant, the network to ship")
    os.makedirs(args.out, exist_ok=True)
    record_path = os.path.join(args.out, "retrain.json")
    source = {"run": os.path.realpath(args.run), "round": args.round}  # (one folder under any name)
    record = {**source, "networks": {}}
    if os.path.exists(record_path):
        with open(record_path) as f:
            record = json.load(f)
        if {k: record.get(k) for k in source} != source:  # a variant's file name does not say its round
            ap.error(f"--out: {args.out} holds networks of {record.get('run')} round {record.get('round')}; "
                     "use another folder")
    todo, paths = [], []
    for weight, seed, epochs in args.variants:
        epochs = run["epochs"] if epochs is None else epochs
        aux = f"-vp{args.vp_weight:g}" if args.vp_weight > 0 else ""
        path = os.path.join(args.out, f"vw{weight}-s{seed}-e{epochs}{aux}.npz")
        paths.append(path)
        if os.path.exists(path):
            print(f"{path} exists: skipped")
        else:
            todo.append((weight, seed, epochs, path))
    if not todo:
        return ship(args, record, paths[0]) if args.ship else 0
    if args.threads is not None:
        import torch
        torch.set_num_threads(args.threads)
    rows = round_rows(args.run, args.round, extra, run["self_weight"], workers=args.workers)
    print(f"round {args.round} of {args.run}: {len(rows['game'])} positions")
    for weight, seed, epochs, path in todo:
        fit = train(rows, hidden=run["hidden"], epochs=epochs, lr=run["lr"], batch=run["batch"], dropout=run["dropout"],
                    weight_decay=run["weight_decay"], value_weight=weight, seed=seed, vp_weight=args.vp_weight,
                    progress=print)
        fit["network"].meta.update(round=args.round, positions=int(len(rows["game"])), retrained_from=args.run,
                                   value_weight=weight, seed=seed, epochs=epochs, vp_weight=args.vp_weight)
        fit["network"].save(path)
        heldout = dict(fit["heldout"] or {})
        record["networks"][os.path.basename(path)] = {"value_weight": weight, "seed": seed, "epochs": epochs,
                                                      "vp_weight": args.vp_weight, "heldout": heldout}
        with open(record_path + ".tmp", "w") as f:
            json.dump(record, f, indent=1)
        os.replace(record_path + ".tmp", record_path)
        print(f"{path}: held-out log loss {heldout.get('log_loss', float('nan')):.4f}, "
              f"accuracy {heldout.get('accuracy', float('nan')):.3f}")
    return ship(args, record, paths[0]) if args.ship else 0


def ship(args, record, path):
    """The variant's network becomes the package's ``pretrained`` weights (its held-out
    calibration, kept in retrain.json, the docs' plot)."""
    from catan_env.agents.value.train import ship as ship_network
    from catan_env.learned.network import PRETRAINED
    heldout = record["networks"][os.path.basename(path)]["heldout"]
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        plot = ship_network(path, heldout, f"{os.path.basename(path)}, {heldout.get('games')} held-out games",
                            os.path.join(root, "docs", "value_calibration.png"))
    except ValueError as e:
        print(f"--ship: {e}", file=sys.stderr)
        return 2
    print(f"shipped {path} as {PRETRAINED}" + (f"; calibration plot {plot}" if plot else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
