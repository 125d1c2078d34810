"""Where the rules core's time goes, per phase, in random 4-player games on one thread.

Plays the same random games several times, each time adding one piece of work at chosen
steps (a second legal-action call in one phase, the chosen action applied to a copy for one
action kind, an observation); the extra time is that piece's cost with the state in cache,
as in the real loop. Prints ns per step and the share of the whole step loop: legal action
generation (per phase), applying actions (per kind), the rest (pick, RNG, loop). Usage: python benchmarks/core_profile.py [--games 40] [--trade 0 1]
"""
import argparse
import os
import time

import numpy as np

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

from numba import njit  # noqa: E402

from catan_env.cli import HelpFormatter  # noqa: E402
from catan_env.core import actions as A  # noqa: E402
from catan_env.core.layout import PHASE, PH_GAME_OVER, STATE_SIZE, TURN  # noqa: E402
from catan_env.core.observe import VECTOR_SIZE, encode_vector  # noqa: E402
from catan_env.core.playout import pick_action  # noqa: E402
from catan_env.core.rng import seed_rng  # noqa: E402
from catan_env.core.rules import apply_action, legal_actions, new_random_game  # noqa: E402
from catan_env.core.cards import current_decider  # noqa: E402

KIND_STARTS = np.cumsum([0] + [n for _, n in A.RANGES[:-1]]).astype(np.int64)
PHASE_NAMES = ["setup settlement", "setup road", "pre-roll", "main", "discard", "move robber",
               "road building", "trade response", "trade confirm"]


ALL = 1000  # "every phase / kind" for the extra-work switches below


@njit(cache=True)
def _loop(n_games, trade, seed, legal_phase, apply_kind, copy_kind, observe, times):
    """Random games, as random_games plays them, with extra work at chosen steps: a second
    legal_actions call where the phase is legal_phase, the chosen action applied to a copy
    where its kind is apply_kind, a copy alone where it is copy_kind, an observation of the
    decider when observe; each piece done `times` times (so that rare steps add a time
    well above the machine's noise).  The extra work leaves the game unchanged, so every variant plays
    the same steps and the difference in time is that work's cost, measured with the state
    in cache as the real loop has it.  Returns (steps, phase counts, kind counts)."""
    s = np.zeros(STATE_SIZE, dtype=np.int64)
    t = np.empty(STATE_SIZE, dtype=np.int64)
    rng = np.zeros(STATE_SIZE, dtype=np.int64)
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    buf2 = np.empty(A.N_ACTIONS, dtype=np.int64)
    w = np.empty(A.N_ACTIONS)
    out = np.empty(VECTOR_SIZE, dtype=np.float32)
    phases = np.zeros(16, np.int64)
    kinds = np.zeros(len(KIND_STARTS), np.int64)
    steps = 0
    sink = 0.0
    for g in range(n_games):
        new_random_game(s, 4, 10, 7, 0, trade, 3, seed + g)
        seed_rng(rng, seed * 7919 + g)
        while s[PHASE] != PH_GAME_OVER and s[TURN] <= 1000:
            ph = s[PHASE]
            n = legal_actions(s, buf)
            if legal_phase == ph or legal_phase == ALL:
                for _ in range(times):
                    sink += legal_actions(s, buf2)
            a = pick_action(s, buf, n, 0, rng, w)
            k = np.searchsorted(KIND_STARTS, a, side="right") - 1
            if apply_kind == k or apply_kind == ALL:
                for _ in range(times):
                    t[:] = s
                    apply_action(t, a, -1)
                    sink += t[0]
            if copy_kind == k or copy_kind == ALL:
                for _ in range(times):
                    t[:] = s
                    sink += t[0]
            if observe:
                encode_vector(s, current_decider(s), out)
                sink += out[0]
            phases[ph] += 1
            kinds[k] += 1
            apply_action(s, a, -1)
            steps += 1
    return steps, phases, kinds, sink


def best_of(fn, *args, repeats=5):
    fn(*args)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t0)
    return min(times)


def _once(args):
    t0 = time.perf_counter()
    _loop(*args)
    return time.perf_counter() - t0


def timed(games, trade, seed, repeats):
    """Best time of the plain loop."""
    return min(_once((games, trade, seed, -1, -1, -1, False, 1)) for _ in range(repeats))


def extra(games, trade, seed, repeats, legal_phase=-1, apply_kind=-1, copy_kind=-1, observe=False,
          times=1):
    """Time of the extra work, once: the median over repeats of (with - without) / times,
    each pair measured back to back so that the machine's drift cancels."""
    plain = (games, trade, seed, -1, -1, -1, False, 1)
    more = (games, trade, seed, legal_phase, apply_kind, copy_kind, observe, times)
    _loop(*more)
    diffs = []
    for _ in range(repeats):
        a = _once(plain)
        b = _once(more)
        c = _once(plain)
        diffs.append((b - (a + c) / 2) / times)
    return float(np.median(diffs))


def amplify(steps, count):
    """How many times to repeat work done at count of the steps: about a loop's worth."""
    return int(min(200, max(1, steps // max(count, 1))))


def profile(games, trade, seed, repeats):
    steps, phases, kinds, _ = _loop(games, trade, seed, -1, -1, -1, False, 1)
    base = timed(games, trade, seed, repeats)
    ns = 1e9 / steps
    legal = extra(games, trade, seed, repeats, legal_phase=ALL)
    copy = extra(games, trade, seed, repeats, copy_kind=ALL)
    apply = extra(games, trade, seed, repeats, apply_kind=ALL) - copy
    obs = extra(games, trade, seed, repeats, observe=True)
    rest = base - legal - apply
    print(f"\ntrading {'on' if trade else 'off'}: {games} games, {steps} steps "
          f"({steps / games:.0f} per game); whole step loop {base * ns:.1f} ns/step "
          f"({games / base:,.0f} games/s)")
    for name, t in [("legal action generation", legal), ("apply the action", apply),
                    ("pick, RNG, loop (the rest)", rest)]:
        print(f"  {name:34s} {t * ns:6.1f} ns/step  {100 * t / base:5.1f}% of the loop")
    print(f"  {'observation of the decider (extra)':34s} {obs * ns:6.1f} ns/step")
    print(f"  {'(a state copy, subtracted)':34s} {copy * ns:6.1f} ns/step")
    print("  legal actions by phase            steps   ns per call   share of the loop")
    for ph, name in enumerate(PHASE_NAMES):
        if phases[ph] == 0:
            continue
        t = extra(games, trade, seed, repeats, legal_phase=ph, times=amplify(steps, phases[ph]))
        print(f"    {name:30s} {100 * phases[ph] / steps:5.1f}%   {1e9 * t / phases[ph]:9.1f}   "
              f"{100 * t / base:6.1f}%")
    print("  apply by action kind              steps   ns per call   share of the loop")
    for k, (kind, _) in enumerate(A.RANGES):
        if kinds[k] < steps // 1000:
            continue
        times = amplify(steps, kinds[k])
        t = (extra(games, trade, seed, repeats, apply_kind=k, times=times)
             - extra(games, trade, seed, repeats, copy_kind=k, times=times))
        print(f"    {kind:30s} {100 * kinds[k] / steps:5.1f}%   {1e9 * t / kinds[k]:9.1f}   "
              f"{100 * t / base:6.1f}%")


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    ap.add_argument("--games", type=int, default=40, help="random games played per setting (the same games for every measurement)")
    ap.add_argument("--trade", type=int, nargs="+", default=[0, 1], help="domestic trade off (0) / on (1)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the first game (game g: seed + g)")
    ap.add_argument("--repeats", type=int, default=7, help="measured pairs per figure (median)")
    args = ap.parse_args()
    for trade in args.trade:
        profile(args.games, trade, args.seed, args.repeats)


if __name__ == "__main__":
    main()
