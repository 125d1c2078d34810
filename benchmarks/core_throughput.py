"""Rules-core throughput: whole random 4-player games inside numba on one thread.

Prints games/s, steps/s and steps/game (trading off and on), state copy time,
playouts/s per policy (from the first normal turn), and cold/warm first-game times.
Usage: python benchmarks/core_throughput.py [--seconds 5] [--threads 1,2]
"""
import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from catan_env.cli import HelpFormatter

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from catan_env import core as C  # noqa: E402
from catan_env.core.layout import PHASE, PH_PRE_ROLL  # noqa: E402
from catan_env.core.playout import POLICIES, playout, random_games  # noqa: E402
from numba import njit  # noqa: E402

FIRST_GAME = ("import time; t=time.perf_counter(); from catan_env.core.playout import random_games; "
              "random_games(1, 4, 0, 0, 0, 1000); print(time.perf_counter()-t)")


def timed_games(trade, seconds, policy=0):
    random_games(2, 4, trade, policy, 0, 10_000)  # compile / load
    games = steps = 0
    t0 = time.perf_counter()
    batch = 50
    while time.perf_counter() - t0 < seconds:
        _, st = random_games(batch, 4, trade, policy, games + 1, 10_000)
        games += batch
        steps += st
    el = time.perf_counter() - t0
    return games / el, steps / el, steps / games


@njit(cache=True)
def _copy_loop(s, n):
    acc = 0
    for i in range(n):
        t = s.copy()
        acc += t[i % t.shape[0]]
    return acc


def copy_time(s):
    n = 1_000_000
    _copy_loop(s, 10)
    t0 = time.perf_counter()
    _copy_loop(s, n)
    in_numba = (time.perf_counter() - t0) / n
    t0 = time.perf_counter()
    for _ in range(200_000):
        s.copy()
    in_python = (time.perf_counter() - t0) / 200_000
    return in_numba, in_python


def start_of_play(seed, trade):
    """A state at the first normal turn (set-up done by random play)."""
    s = C.new_game(seed=seed, domestic_trade=bool(trade))
    rng = np.random.default_rng(seed)
    while s[PHASE] != PH_PRE_ROLL:
        C.step(s, int(rng.choice(C.legal_actions(s))))
    return s


def playouts_per_second(policy, seconds, trade):
    s = start_of_play(0, trade)
    playout(s, POLICIES[policy], 0, 500)
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        playout(s, POLICIES[policy], n, 500)
        n += 1
    return n / (time.perf_counter() - t0)


def first_game_seconds(cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    out = subprocess.run([sys.executable, "-c", FIRST_GAME], env=env, capture_output=True,
                         text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _games_until(deadline, trade, seed):
    """One thread's share: batches of 20 random games until the deadline; games played."""
    done = 0
    while time.perf_counter() < deadline:
        random_games(20, 4, trade, 0, seed + done, 10_000)
        done += 20
    return done


def scaling(threads, seconds, trade=0):
    """Whole random games on k threads at once (the kernel releases the GIL), each thread
    playing batches until a common deadline (no barrier between batches): games/s per
    thread count and the speed-up over the first, each count measured twice, alternating.
    Returns {threads: games/s}."""
    from concurrent.futures import ThreadPoolExecutor
    random_games(2, 4, trade, 0, 0, 10_000)
    best = {k: 0.0 for k in threads}
    for _ in range(2):
        for k in threads:
            with ThreadPoolExecutor(k) as pool:
                t0 = time.perf_counter()
                jobs = [pool.submit(_games_until, t0 + seconds / 2, trade, 10**6 * j) for j in range(k)]
                done = sum(job.result() for job in jobs)
                best[k] = max(best[k], done / (time.perf_counter() - t0))
    return best


def print_scaling(best, trade=0):
    first = min(best)
    for k in sorted(best):
        print(f"random games, trading {'on ' if trade else 'off'}, {k} thread(s): {best[k]:8.0f} games/s "
              f"({best[k] / best[first]:.2f}x)")


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    ap.add_argument("--skip-cold", action="store_true", help="skip the cold-start measurement")
    ap.add_argument("--threads", default="", help="only the scaling over thread counts, e.g. 1,2")
    args = ap.parse_args()
    if args.threads:
        return print_scaling(scaling([int(x) for x in args.threads.split(",")], args.seconds))
    for trade in (0, 1):
        gps, sps, spg = timed_games(trade, args.seconds)
        print(f"random games, trading {'on ' if trade else 'off'}: {gps:8.0f} games/s  "
              f"{sps / 1e6:5.2f} M steps/s  {spg:6.0f} steps/game")
    in_numba, in_python = copy_time(C.new_game(seed=0))
    print(f"state copy ({C.STATE_SIZE} int64): {in_numba * 1e9:6.0f} ns inside numba, "
          f"{in_python * 1e9:6.0f} ns from Python (state.copy())")
    for trade in (0, 1):
        for policy in POLICIES:
            print(f"playouts/s from the first turn, trading {'on ' if trade else 'off'}, policy "
                  f"{policy:8s}: {playouts_per_second(policy, args.seconds / 2, trade):8.0f}")
    if not args.skip_cold:
        with tempfile.TemporaryDirectory() as d:
            cold = first_game_seconds(d)
            warm = first_game_seconds(d)
        print(f"first game in a new process: cold (empty numba cache) {cold:5.1f} s, "
              f"warm (cached) {warm:5.2f} s")


if __name__ == "__main__":
    main()
