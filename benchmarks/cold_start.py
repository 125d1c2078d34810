"""What a user pays before the first results: numba compile time from an empty cache.

Runs a typical first session in a fresh process with an empty numba cache (a temporary
NUMBA_CACHE_DIR): a random game in the core, an arena game of random agents, one with MCTS
and JSettlers, and a few batched-env steps.  Prints the seconds to reach each milestone, the
compiled kernel versions, and the functions compiled more than once (numba compiles a
separate copy of a kernel and its callees for each literal argument or array flavour; a
kernel compiled twice is compile time paid twice).
Usage: python benchmarks/cold_start.py [--top 10]
"""
import argparse
import collections
import importlib
import os
import subprocess
import sys
import tempfile
import time


def _session(top: int) -> None:
    from numba.core import event

    starts, compiles = [], []  # (inclusive seconds, nesting depth, function, argument types)

    class Timer(event.Listener):
        def on_start(self, ev):
            starts.append(time.perf_counter())

        def on_end(self, ev):
            fn = ev.data["dispatcher"].py_func
            compiles.append((time.perf_counter() - starts.pop(), len(starts),
                             f"{fn.__module__}.{fn.__qualname__}", str(ev.data["args"])))

    event.register("numba:compile", Timer())
    llvm = [0.0, 0, 0.0]  # seconds numba held its LLVM lock (optimising, machine code), depth, since

    class LLVMTimer(event.Listener):
        def on_start(self, ev):
            if llvm[1] == 0:
                llvm[2] = time.perf_counter()
            llvm[1] += 1

        def on_end(self, ev):
            llvm[1] -= 1
            if llvm[1] == 0:
                llvm[0] += time.perf_counter() - llvm[2]

    event.register("numba:llvm_lock", LLVMTimer())
    t0 = time.perf_counter()
    milestones = []
    playout = importlib.import_module("catan_env.core.playout")
    playout.random_games(1, 4, 0, 0, 1, 1000)
    milestones.append(("a random game in the core", time.perf_counter() - t0))
    from catan_env.agents.arena import play_game
    play_game(["random"] * 4, seed=1, max_turns=30)
    milestones.append(("+ an arena game, random agents (AEC env)", time.perf_counter() - t0))
    play_game(["mcts:iterations=20", "random", "jsettlers", "random"], seed=1, max_turns=10)
    milestones.append(("+ MCTS and JSettlers in the arena", time.perf_counter() - t0))
    from catan_env.batched import BatchedCatan
    env = BatchedCatan(8)
    env.reset(seed=1)
    for _ in range(20):
        env.step(env.sample_actions())
    milestones.append(("+ 20 batched-env steps", time.perf_counter() - t0))
    for name, t in milestones:
        print(f"{name:45s} {t:6.1f} s")
    # self time of a compile = its time minus the compiles nested directly inside it
    own, nested = [], {}
    for t, depth, name, args in compiles:
        own.append((t - nested.pop(depth + 1, 0.0), name, args))
        nested[depth] = nested.get(depth, 0.0) + t
    versions = collections.defaultdict(list)
    for t, name, args in own:
        versions[name].append(t)
    repeated = {name: ts for name, ts in versions.items() if len(ts) > 1}
    extra = sum(sum(ts) - min(ts) for ts in repeated.values())
    print(f"compiled kernel versions: {len(own)} ({sum('Literal' in a for _, _, a in own)} specialised on a literal, "
          f"{sum(', True, aligned' in a for _, _, a in own)} on a read-only array)")
    print(f"LLVM (optimising, machine code): {llvm[0]:.1f} s of {milestones[-1][1]:.1f} s")
    print(f"functions compiled more than once: {len(repeated)}, {extra:.1f} s beyond one version each")
    for name, ts in sorted(repeated.items(), key=lambda kv: -sum(kv[1]))[:top]:
        print(f"  {sum(ts):5.2f} s  x{len(ts)}  {name}")


def main() -> None:
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    ap.add_argument("--top", type=int, default=10, help="repeated compiles listed")
    ap.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.in_process:
        _session(args.top)
        return
    with tempfile.TemporaryDirectory() as cache:  # an empty numba cache, removed afterwards
        # one process compiles everything (no second process beside it): the profile is its own
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, CATAN_ENV_COMPILE_BESIDE="0")
        subprocess.run([sys.executable, os.path.abspath(__file__), "--in-process", "--top", str(args.top)],
                       env=env, check=True)


if __name__ == "__main__":
    main()
