"""Speed of the learned agent's hot paths, one core: features, the network's forward
pass (also with the file's subnormal weights kept, as they were before
``learned.mlp.FLUSH_BELOW``: what they cost on this host), one position end to end, and
whole decisions of the agent at each search depth.

    python benchmarks/value_speed.py [--net PATH] [--positions 2000]

Positions come from random games (every phase); each figure is the median of 5 passes
over them, after a warm-up pass (compilation excluded).
"""
import argparse
import time

import numpy as np

from catan_env.agents.arena import play_game
from catan_env.learned.features import N_FEATURES, encode_features
from catan_env.learned.mlp import FLUSH_BELOW
from catan_env.learned.network import PRETRAINED, ValueNetwork, _predict_rows, new_evaluator, state_win_probs
from catan_env.cli import HelpFormatter
from catan_env.core import game as G


def positions(n, seed=0):
    rng = np.random.default_rng(seed)
    out, game = [], 0
    while len(out) < n:
        s = G.new_game(seed=seed + game)
        game += 1
        while not G.is_over(s) and len(out) < n:
            if rng.random() < 0.1:
                out.append(s.copy())
            G.step(s, int(rng.choice(G.legal_actions(s))))
    return out


def file_params(path, net):
    """net's packed params with the file's weights and biases as stored (before FLUSH_BELOW
    zeroes the smallest; the last layer's transposed copy, which the forward pass does not
    read, stays as loaded), and how many stored weights and biases are below it."""
    params, below = net.params.copy(), 0
    with np.load(path) as z:
        for k in range(int(z["n_layers"])):
            n_in, n_out, _, off = net.layers[net.net[0] + k]
            w, b = z[f"w{k}"].astype(np.float32), z[f"b{k}"].astype(np.float32)
            params[off:off + n_in * n_out].reshape(n_in, n_out)[:w.shape[0]] = w  # widened rows stay 0
            params[off + n_in * n_out:off + n_in * n_out + n_out] = b
            below += int(((w != 0) & (np.abs(w) < FLUSH_BELOW)).sum() + ((b != 0) & (np.abs(b) < FLUSH_BELOW)).sum())
    return params, below


def median_us(fn, items, passes=5):
    fn(items[:10])
    times = []
    for _ in range(passes):
        t = time.perf_counter()
        fn(items)
        times.append((time.perf_counter() - t) / len(items) * 1e6)
    return float(np.median(times))


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--net", default=PRETRAINED, help="value network file")
    ap.add_argument("--positions", type=int, default=2000, help="positions timed")
    ap.add_argument("--games", type=int, default=3, help="games per search depth for decision times")
    args = ap.parse_args(argv)
    net = ValueNetwork.load(args.net)
    ev = net.evaluator()
    states = positions(args.positions)
    seats = [int(G.decider(s)) for s in states]
    x = np.zeros((len(states), N_FEATURES), np.float32)

    def feats(items):
        for i, s in enumerate(items):
            encode_features(s, seats[i], x[i])

    feats(states)
    players = np.array([G.n_players(s) for s in states])
    out = np.zeros((len(states), 4), np.float32)

    def forward(items):
        k = len(items)
        _predict_rows(ev, x[:k], players[:k], out[:k])

    raw_params, below = file_params(args.net, net)
    raw = new_evaluator(raw_params, net.layers, net.net, net.width)

    def forward_file_weights(items):
        k = len(items)
        _predict_rows(raw, x[:k], players[:k], out[:k])

    def both(items):
        for i, s in enumerate(items):
            state_win_probs(ev, s, seats[i])

    sizes = " -> ".join(str(w.shape[0]) for w, _, _ in net.weights.layers) + f" -> {net.weights.n_out}"
    params = sum(w.size + b.size for w, b, _ in net.weights.layers)
    print(f"network {sizes} ({params:,} weights)")
    print(f"features        {median_us(feats, states):6.2f} us per position")
    print(f"forward pass    {median_us(forward, list(range(len(states)))):6.2f} us per position (batch of rows)")
    print(f"  the same, the file's weights as stored ({below:,} below {FLUSH_BELOW:g}, kept): "
          f"{median_us(forward_file_weights, list(range(len(states)))):6.2f} us per position")
    print(f"position total  {median_us(both, states):6.2f} us (features + forward + softmax, one call each)")
    for search in (0, 1, 2):
        spec = f"value:path={args.net}:search={search}"
        times = []
        for g in range(args.games + 1):
            r = play_game([spec, "jsettlers", "jsettlers", "jsettlers"], 100 + g, time_decisions=True)
            if g:  # the first game compiles
                times += r["decision_times"][0]
        t = np.array(times) * 1e3
        print(f"decision search={search}: median {np.median(t):6.2f} ms, p90 {np.percentile(t, 90):6.2f} ms, "
              f"max {t.max():7.1f} ms over {len(t)} decisions")


if __name__ == "__main__":
    main()
