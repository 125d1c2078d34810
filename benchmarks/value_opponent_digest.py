"""Digests of what the value-network opponents play: run in two trees, compare the lines.

    python benchmarks/value_opponent_digest.py                   # 64 games, 400 learner steps
    python benchmarks/value_opponent_digest.py --games 256 --steps 1000
    (cd /tmp/before && PYTHONPATH=/tmp/before python benchmarks/value_opponent_digest.py)   # the code before
                                                    # (a git archive; copy this script in if it predates it)

A speed change to the greedy decision (``learned.greedy``, the features, the layers) must
not change a move or a value.  This plays a seeded batched env (learner moves drawn from
its seeded sampler, three ``--opponent`` opponents) and prints two digests: of every
observation and reward the learner saw, and of every opponent decision's action and
value (float64, bit for bit) in the order they were made, with their count.  The same
digests from the code before and after a change mean the same games and the same
decisions; the A/B files in docs/results/ cite them.
"""
import argparse
import hashlib

import numpy as np

from catan_env.batched import BatchedCatan
from catan_env.cli import HelpFormatter
from catan_env.learned import greedy


def digests(games: int, steps: int, opponent: str, seed: int):
    """(env digest, decisions digest, decisions) of one seeded run."""
    decisions = hashlib.sha256()
    count = [0]
    decide = greedy.ValueOpponent.decide

    def recorded(self, states, idx, seeds, memories, mem_col, actions, values, *rest, **kw):
        kinds = decide(self, states, idx, seeds, memories, mem_col, actions, values, *rest, **kw)
        decisions.update(np.ascontiguousarray(actions, np.int64).tobytes())
        decisions.update(np.ascontiguousarray(values, np.float64).tobytes())
        count[0] += len(idx)
        return kinds

    greedy.ValueOpponent.decide = recorded
    try:
        venv = BatchedCatan(games, opponents=opponent, seed=seed, skip_forced=True)
        venv.reset(seed=seed)
        env = hashlib.sha256()
        for _ in range(steps):
            obs, rewards, _, _, _ = venv.step(venv.sample_actions())
            env.update(np.ascontiguousarray(obs).tobytes())
            env.update(np.ascontiguousarray(rewards).tobytes())
    finally:
        greedy.ValueOpponent.decide = decide
    return env.hexdigest()[:16], decisions.hexdigest()[:16], count[0]


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--games", type=int, default=64, help="batched games")
    ap.add_argument("--steps", type=int, default=400, help="learner steps of the batch")
    ap.add_argument("--opponent", default="pretrained:search=0", help="the three opponents' spec (a value network)")
    ap.add_argument("--seed", type=int, default=7, help="the env's seed")
    args = ap.parse_args(argv)
    env, decisions, n = digests(args.games, args.steps, args.opponent, args.seed)
    if n == 0:  # (an empty digest would match across any two trees)
        ap.error(f"--opponent {args.opponent}: no value-network opponent decided; this compares "
                 "value-network opponents (pretrained:search=0 or a value:... spec)")
    print(f"env digest {env}; {n} opponent decisions, digest {decisions}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
