"""Env throughput: masked uniformly random play through the PettingZoo AEC env
(``last()`` + ``step()``, vector observation) and through the Gymnasium env.
Prints steps/s on one core.  Usage: python benchmarks/env_throughput.py [--seconds 5]
"""
import argparse
import time

import numpy as np

import catan_env
from catan_env.gym_env import CatanGymEnv
from catan_env.cli import HelpFormatter


def aec_steps_per_second(seconds, wrapped=False, chain=False, **kw):
    from catan_env.aec_env import wrapped_env
    e = wrapped_env(**kw) if chain else catan_env.env(**kw) if wrapped else catan_env.raw_env(**kw)
    e.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = games = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            games += 1
            e.reset(seed=games)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return steps / (time.perf_counter() - t0)


def gym_steps_per_second(seconds):
    g = CatanGymEnv(learner_seat=0)
    g.reset(seed=0)
    rng = np.random.default_rng(0)
    steps = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        legal = np.flatnonzero(g.action_masks())
        _, _, term, trunc, _ = g.step(int(legal[rng.integers(len(legal))]))
        steps += 1
        if term or trunc:
            g.reset()
    return steps / (time.perf_counter() - t0)


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    args = ap.parse_args()
    aec_steps_per_second(0.5)  # warm up (numba cache load)
    print(f"AEC env (raw_env, vector obs, trading on):  {aec_steps_per_second(args.seconds):8.0f} steps/s")
    print(f"AEC env (raw_env, vector obs, trading off): "
          f"{aec_steps_per_second(args.seconds, domestic_trade=False):8.0f} steps/s")
    print(f"AEC env (env(): wrapper checks built in):   "
          f"{aec_steps_per_second(args.seconds, wrapped=True):8.0f} steps/s")
    print(f"AEC env (raw_env in PettingZoo's wrapper chain): "
          f"{aec_steps_per_second(args.seconds, chain=True):8.0f} steps/s")
    print(f"Gymnasium env (learner steps, 3 random opponents inside): "
          f"{gym_steps_per_second(args.seconds):8.0f} learner steps/s")


if __name__ == "__main__":
    main()
