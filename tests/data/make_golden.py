"""Regenerate tests/data/golden_game.json, the golden game record.

    python tests/data/make_golden.py            # writes the record next to this script

A 4-player game with domestic trade on, played by a seeded uniform-random policy over the
legal actions, every fifth roll forced (to 8, or to 7 every tenth), until someone wins.
The record stores the action list and a layout-independent digest of the final position
(``catan_env.core.record.outcome_digest``).  Regenerate it only when the *rules* change
on purpose; a layout change does not invalidate it.
"""
import os

import numpy as np

from catan_env import core as C
from catan_env.core import actions as A

SEED = 20261126
PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "golden_game.json")


def play(seed=SEED):
    rec = C.GameRecord(C.make_options(players=4, domestic_trade=True), seed=seed)
    s = rec.initial_state()
    rng = np.random.default_rng(seed)
    rolls = 0
    while not C.is_over(s):
        a = int(rng.choice(C.legal_actions(s)))
        forced = None
        if a == A.ROLL:
            rolls += 1
            if rolls % 5 == 0:
                forced = 7 if rolls % 10 == 0 else 8
        C.step(s, a, forced)
        rec.append(a, forced)
    return rec


if __name__ == "__main__":
    record = play()
    record.save(PATH)
    final = record.final_state()
    print(f"wrote {PATH}: {len(record.actions)} actions, winner {C.winner(final)}, "
          f"VP {C.victory_points(final)}")
