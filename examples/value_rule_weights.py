"""Train the shipped network's rule-bit weights on Pioneers-rules games, nothing else.

    python examples/value_rule_weights.py --out results/rule_weights --games 3000 --workers 2
    python examples/value_rule_weights.py --out results/rule_weights --ship    # once judged

The value network reads five rule bits (``features.F_RULES``: no robber on the desert,
bank shortage paid in seat order, strict trade, direct city, VP cards counted once
played), all 0 under the official rules and all 1 under the Pioneers server's
(``core.options.PIONEERS_RULES``).  The shipped network was trained on official-rules
games only, so the first-layer weights on those slots never learned anything, and training
the whole network on Pioneers games as well would move its official-rules play too.  This script trains those
weights alone:

1. **data**: ``--games`` games under the Pioneers rules, two seats the shipped agent's
   fixed search (``pretrained:search=1``) and two JSettlersAgent, seats shuffled per game,
   a quarter of the decisions kept (``agents.value.positions.generate``: resumable
   shards in ``--out``/data);
2. **train**: from the shipped network, only the first layer's weights on the five rule-bit
   slots (``train(trainable_inputs=...)``), the target the outcome blended with the
   search's estimate (``--value-weight``, the recipe's 0.3), whole games held out; every
   other weight and bias stays the shipped network's bit for bit, so that wherever the
   bits are 0 (every official-rules position) it computes exactly what the shipped network
   does.  Writes ``net.npz`` and ``train.json`` (the held-out figures, and the shipped
   network's on the same held-out games).

A stage whose file exists is not run again.  Judge the network under the Pioneers rules
with ``benchmarks/value_strength.py --rules pioneers``, paired with ``pretrained``;
``--ship`` then makes it the package's network.  Needs the [rl] extra (torch).  Run as above
on 2026-12-07: held-out log loss 0.9785 -> 0.9590, and the same strength under the Pioneers
rules (825 against 826 of 1,000 paired games), official-rules play unchanged bit for bit:
shipped on 2026-12-07 as the better calibrated network (docs/learned-agents.md#levers).
"""
import argparse
import json
import os
import sys

import numpy as np

from catan_env.cli import HelpFormatter
from catan_env.core.options import PIONEERS_RULES
from catan_env.learned.features import F_RULES, RULE_BITS

RULE_SLOTS = list(range(F_RULES, F_RULES + len(RULE_BITS)))  # the five rule bits' feature slots
PLAYERS = ["pretrained:search=1", "pretrained:search=1", "jsettlers", "jsettlers"]


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--out", required=True, help="folder of the data, net.npz and train.json")
    ap.add_argument("--games", type=int, default=3000, help="Pioneers-rules games to record")
    ap.add_argument("--seed", type=int, default=30, help="the recorded games' seed")
    ap.add_argument("--workers", type=int, default=1, help="processes recording games and featurizing them")
    ap.add_argument("--epochs", type=int, default=4, help="training epochs (the best held-out one kept)")
    ap.add_argument("--lr", type=float, default=1e-3, help="Adam's learning rate for the rule-bit weights")
    ap.add_argument("--value-weight", type=float, default=0.3, help="the search's estimate's share of the target")
    ap.add_argument("--ship", action="store_true", help="copy net.npz into the package (the `pretrained` weights)")
    args = ap.parse_args(argv)
    if args.games < 1 or args.epochs < 1 or not 0.0 <= args.value_weight <= 1.0:
        ap.error("--games and --epochs must be 1 or more and --value-weight in [0, 1]")
    from catan_env.agents.training.shards import manifest_positions
    from catan_env.agents.value.positions import generate, load_positions
    from catan_env.agents.value.train import evaluate, ship, train
    from catan_env.learned.network import load_network

    net_path, log_path = os.path.join(args.out, "net.npz"), os.path.join(args.out, "train.json")
    if args.ship:
        if not os.path.exists(log_path):
            ap.error(f"{log_path} is missing: train first")
        log = json.load(open(log_path))
        plot = ship(net_path, log["heldout"], "The value network, rule-bit weights trained on Pioneers games",
                    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "value_calibration.png"))
        print(f"shipped {net_path}" + (f"; calibration plot {plot}" if plot else ""))
        return 0
    os.makedirs(args.out, exist_ok=True)
    data_dir = os.path.join(args.out, "data")
    manifest = generate(data_dir, PLAYERS, args.games, seed=args.seed, options=dict(PIONEERS_RULES),
                        workers=args.workers, progress=print, note="Pioneers-rules games for the rule-bit weights")
    print(f"data: {manifest['games']} games, {manifest_positions(manifest)} positions")
    if os.path.exists(net_path):
        print(f"{net_path} exists: not trained again")
        return 0
    rows = load_positions(data_dir, workers=args.workers)
    shipped = load_network(None)
    run = train(rows, epochs=args.epochs, lr=args.lr, weight_decay=0.0, value_weight=args.value_weight,
                init=shipped, trainable_inputs=RULE_SLOTS, progress=print)
    held = run["heldout_mask"]
    before = evaluate(shipped, rows, held)
    run["network"].meta.update(source="examples/value_rule_weights.py", games=manifest["games"],
                               rules="pioneers", trained="rule bits only")
    run["network"].save(net_path)
    log = {"command": " ".join(sys.argv), "games": manifest["games"], "positions": int(len(rows["game"])),
           "heldout_positions": int(held.sum()), "rule_slots": RULE_SLOTS, "heldout": run["heldout"],
           "shipped_heldout": before, "history": run["history"],
           "max_weight_change": float(np.abs(run["network"].weights.layers[0][0][RULE_SLOTS]
                                             - shipped.weights.layers[0][0][RULE_SLOTS]).max())}
    with open(log_path, "w") as f:
        json.dump(log, f, indent=1, default=float)
    print(f"held-out log loss {run['heldout']['log_loss']:.4f} (the shipped network on the same games: "
          f"{before['log_loss']:.4f}); {net_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
