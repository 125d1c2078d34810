"""Several value networks of one shape as one network: the mean of their logits.

    python examples/value_ensemble.py --out results/ens.npz results/value_exit8/round-8.npz results/retrain/vw0.3-s1-e4.npz
    python benchmarks/value_strength.py --specs value:path=results/ens.npz:leaves=6000 --games 400

Networks trained on the same data from other seeds err differently; averaging their
logits (a softmax of the mean: the normalised geometric mean of their win chances) is one
MLP, each layer the members' side by side: the first layer's columns concatenated, each
hidden layer block-diagonal, the output layer's rows stacked and divided by their count,
its biases averaged.  The search and the batched env use it as any network file
(``value:path=...``).  A leaf costs more: k members' first and last layers cost k times
one's, a hidden-to-hidden layer k squared times (``dense_layer`` skips zero inputs, not the
block-diagonal zeros): with two members of the shipped shape, a fixed search's decision
took about twice as long (docs/results/value_retrain/).
"""
import argparse
import sys
from typing import List, Sequence

import numpy as np

from catan_env.cli import HelpFormatter
from catan_env.learned.mlp import MLPWeights
from catan_env.learned.network import ValueNetwork


def ensemble(networks: Sequence[ValueNetwork]) -> ValueNetwork:
    """One network whose logits are the mean of ``networks``' (same layer count and
    activations; widths may differ)."""
    if len(networks) < 2:
        raise ValueError("an ensemble needs at least two networks")
    shapes = [[(w.shape, act) for w, _, act in n.weights.layers] for n in networks]
    if len({len(s) for s in shapes}) != 1 or len({tuple(a for _, a in s) for s in shapes}) != 1:
        raise ValueError(f"the networks differ in layers or activations: {shapes}")
    k, last = len(networks), len(shapes[0]) - 1
    if last == 0 or shapes[0][last][1] != "identity":
        raise ValueError("an ensemble's members need a hidden layer and an identity (logit) output layer")
    layers: List = []
    for i in range(last + 1):
        ws = [n.weights.layers[i][0] for n in networks]
        bs = [n.weights.layers[i][1] for n in networks]
        if i == last:  # the members' logits, averaged
            w, b = np.concatenate(ws, axis=0) / np.float32(k), np.mean(bs, axis=0)
        elif i == 0:  # every member reads the same features
            w, b = np.concatenate(ws, axis=1), np.concatenate(bs)
        else:  # each member's hidden units feed only its own
            w = np.zeros((sum(x.shape[0] for x in ws), sum(x.shape[1] for x in ws)), np.float32)
            r = c = 0
            for x in ws:
                w[r:r + x.shape[0], c:c + x.shape[1]] = x
                r, c = r + x.shape[0], c + x.shape[1]
            b = np.concatenate(bs)
        layers.append((w, b, networks[0].weights.layers[i][2]))
    return ValueNetwork(MLPWeights(layers), {"ensemble_of": [n.meta for n in networks]})


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("networks", nargs="+", help="value network files (.npz from examples/value_exit.py)")
    ap.add_argument("--out", required=True, help="the ensemble's network file")
    args = ap.parse_args(argv)
    try:
        nets = [ValueNetwork.load(p) for p in args.networks]
        net = ensemble(nets)
    except ValueError as e:
        ap.error(str(e))
    net.meta["ensemble_files"] = list(args.networks)  # (beside the members' own meta)
    print(f"wrote {net.save(args.out)}: the mean logits of {len(nets)} networks, "
          f"hidden widths {[w.shape[1] for w, _, _ in net.weights.layers[:-1]]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
