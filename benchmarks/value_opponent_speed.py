"""Learner steps per second of the batched env with three strong opponents inside numba.

    python benchmarks/value_opponent_speed.py            # 256 games, 20 s per opponent kind
    python benchmarks/value_opponent_speed.py --games 1024 --seconds 30

One core, learner mode, the learner playing uniformly random legal moves (forced moves
skipped, as the training examples run it), three opponents of one kind per game.  For
each kind: learner steps/s.  Then what one value-network
decision costs: the network's value of one position (features + forward pass, us) and
the greedy decision's mean time (us) on positions from those games, and their ratio: the
network evaluations one decision makes (every legal move's result, chance expanded, over
two determinizations, plus offers and macro moves).  Compile time is excluded (one warm-up
step per kind); figures are this machine's, compare ratios within one run.
"""
import argparse
import time

import numpy as np

from catan_env.batched import BatchedCatan
from catan_env.cli import HelpFormatter

KINDS = ["random", "weighted", "pretrained_policy", "pretrained:search=0",
         "pretrained:search=0:offers=0:macros=false:determinizations=1", "jsettlers"]


def steps_per_second(opponent, games, seconds, seed=0):
    """Learner steps/s over about ``seconds`` of stepping."""
    venv = BatchedCatan(games, opponents=opponent, seed=seed, skip_forced=True)
    venv.reset(seed=seed)
    venv.step(venv.sample_actions())  # compile and warm up
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(venv.sample_actions())
        steps += games
    elapsed = time.perf_counter() - start
    return steps / elapsed


def decision_cost(positions=300, seed=1):
    """(us per network value of one position, us per greedy decision, their ratio) on
    positions of random games (every phase)."""
    from catan_env.agents import make_agent
    from catan_env.core import game as G
    from catan_env.learned.greedy import greedy_decision, new_memory, options
    net = make_agent("pretrained:search=0").network
    rng = np.random.default_rng(seed)
    states = []
    g = 0
    while len(states) < positions:
        s = G.new_game({}, seed=seed * 1000 + g)
        g += 1
        while not G.is_over(s) and len(states) < positions:
            legal = G.legal_actions(s)
            if len(legal) > 1 and rng.random() < 0.1:
                states.append(s.copy())
            G.step(s, int(rng.choice(legal)))
    opts, seeds = options(), np.array([1, 2], np.int64)
    args = (net.params, net.layers, net.net, net.width)
    for s in states[:3]:  # compile
        net.win_probs(s, G.decider(s))
        legal = G.legal_actions(s).astype(np.int64)
        greedy_decision(*args, s, G.decider(s), legal, len(legal), seeds, new_memory(), opts)
    t = time.perf_counter()
    for s in states:
        net.win_probs(s, G.decider(s))
    leaf = (time.perf_counter() - t) / len(states) * 1e6
    legals = [G.legal_actions(s).astype(np.int64) for s in states]
    t = time.perf_counter()
    for s, legal in zip(states, legals):
        greedy_decision(*args, s, G.decider(s), legal, len(legal), seeds, new_memory(), opts)
    decision = (time.perf_counter() - t) / len(states) * 1e6
    return leaf, decision, decision / leaf


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__, formatter_class=HelpFormatter)
    p.add_argument("--games", type=int, default=256, help="games in the batch")
    p.add_argument("--seconds", type=float, default=20.0, help="stepping time per opponent kind")
    p.add_argument("--kinds", nargs="+", default=KINDS, help="opponent specs to measure")
    args = p.parse_args(argv)
    print(f"batched env, learner mode, {args.games} games, one core, random learner, 3 opponents of each kind")
    print(f"{'opponents':<64} {'learner steps/s':>16}")
    for kind in args.kinds:
        rate = steps_per_second(kind, args.games, args.seconds)
        print(f"{kind:<64} {rate:>16,.0f}", flush=True)
    leaf, decision, ratio = decision_cost()
    print(f"\nnetwork value of one position: {leaf:.1f} us; greedy decision (offers, 2 determinizations, "
          f"macros): {decision:.0f} us = {ratio:.0f} position values a decision")


if __name__ == "__main__":
    main()
