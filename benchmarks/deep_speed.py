"""Deep Catan network costs inside numba: one value-network evaluation of a position
(observation encoding included) and one local-network move score (features included),
for a freshly initialised network of the default size, or the one in --nets.
Prints lines ending in ``us``.  Needs torch only for a fresh network.

Usage: python benchmarks/deep_speed.py [--nets results/deep/exit/nets-2.npz]
"""
import argparse
import time

import numpy as np
from numba import njit

from catan_env.agents.deep.agents import load_networks, prior_hook
from catan_env.agents.deep.forward import state_value
from catan_env.core import game as G
from catan_env.cli import HelpFormatter


@njit
def _many_values(params, spec, s, n):
    acc = 0.0
    for i in range(n):
        acc += state_value(params, spec, s, i % 4)[0]
    return acc


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--nets", default=None, help="networks .npz (default: random weights of the default size)")
    ap.add_argument("--reps", type=int, default=2000, help="evaluations per timing")
    args = ap.parse_args()
    if args.nets:
        (params, spec), local, meta = load_networks(args.nets)
        temperature = meta.get("temperature", 0.05)
    else:
        from catan_env.agents.deep.nets import ValueNet, local_net
        from catan_env.learned.mlp import from_torch
        params, spec = ValueNet().export()
        local, temperature = from_torch(local_net()), 0.05
    rng = np.random.default_rng(0)
    s = G.new_game(seed=0)
    while (int(s[G.L.TURN]) < 30 or len(G.legal_actions(s)) < 10) and not G.is_over(s):
        G.step(s, int(rng.choice(G.legal_actions(s))))
    _many_values(params, spec, s, 2)
    t0 = time.perf_counter()
    _many_values(params, spec, s, args.reps)
    print(f"value network ({params.size:,} weights), one position: {(time.perf_counter() - t0) / args.reps * 1e6:.0f} us")
    prior = prior_hook(local, temperature)
    actions = np.array(G.legal_actions(s), dtype=np.int64)
    buf = np.zeros(len(actions))
    prior(s, 0, actions, len(actions), buf)
    t0 = time.perf_counter()
    for _ in range(args.reps // 10):
        prior(s, 0, actions, len(actions), buf)
    per = (time.perf_counter() - t0) / (args.reps // 10) / len(actions)
    print(f"local network prior, per legal move ({len(actions)} moves): {per * 1e6:.2f} us")


if __name__ == "__main__":
    main()
