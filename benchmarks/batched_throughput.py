"""Batched env throughput on one core: N games stepped by one numba call, masked
uniformly random actions (drawn in numba), observations (flat vector) and masks written
for every game at every step.  Prints lines ending in ``steps/s``:

- learner steps/s: learner mode, three random opponents stepped inside numba (each
  learner step also plays the opponents' moves until the learner decides again);
- all-seats steps/s: every action of any seat is a step (what fastcatan's BatchedEnv
  counts), observations still included;
- with ``--threads 1,2``: both modes again with the games split over that many threads
  (``BatchedCatan(threads=k)``), and the speed-up over one thread;
- fastcatan's ``BatchedEnv`` in the same run when its venv exists (it writes masks only,
  no observations): ``bash benchmarks/peers/setup_peers.sh`` creates it.

Usage: python benchmarks/batched_throughput.py [--seconds 5] [--sizes 256,1024] [--threads 1,2]
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

from catan_env.batched import BatchedCatan
from catan_env.cli import HelpFormatter

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def steps_per_second(num_envs, seconds, **kwargs):
    """(steps/s including the action draw, steps/s inside the env step only)."""
    env = BatchedCatan(num_envs, seed=0, **kwargs)
    env.reset(seed=0)
    env.step(env.sample_actions())  # warm up (numba cache load)
    steps, in_env = 0, 0.0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        actions = env.sample_actions()
        a = time.perf_counter()
        env.step(actions)
        in_env += time.perf_counter() - a
        steps += num_envs
    env.close()
    return steps / (time.perf_counter() - t0), steps / in_env


def frozen_mlp(hidden=256, seed=0):
    """A policy-sized MLP (observation -> 2 x hidden ReLU -> action logits), random weights:
    what a self-play snapshot costs inside numba."""
    from catan_env.batched import MLPWeights
    from catan_env.core.actions import N_ACTIONS
    from catan_env.core.observe import VECTOR_SIZE
    rng = np.random.default_rng(seed)
    sizes = (VECTOR_SIZE, hidden, hidden, N_ACTIONS)
    return MLPWeights([(rng.normal(0, sizes[k] ** -0.5, (sizes[k], sizes[k + 1])), np.zeros(sizes[k + 1]),
                        "relu" if k < 2 else "identity") for k in range(3)])


def fastcatan_line(num_envs, seconds):
    peers = os.environ.get("PEERS_DIR", "/tmp/catan_peers")
    python = os.path.join(peers, "fc312", "bin", "python")
    if not os.path.exists(python):
        return "fastcatan BatchedEnv: not installed (bash benchmarks/peers/setup_peers.sh)"
    out = subprocess.run([python, os.path.join(HERE, "peers", "fastcatan_batched.py"), str(num_envs),
                          str(seconds)], capture_output=True, text=True,
                         env={**os.environ, "OMP_NUM_THREADS": "1"}).stdout
    # "... -> G games/s, X steps/s overall; simulator-only ... -> Y steps/s, ..."
    overall = out.split("games/s, ")[1].split(" steps/s")[0]
    simulator = out.split("simulator-only")[1].split("-> ")[1].split(" steps/s")[0]
    return (f"fastcatan BatchedEnv n={num_envs} (no observations; simulator only {simulator}): "
            f"{overall} steps/s")


def scaling(sizes, threads, seconds):
    """Steps/s per thread count (env step only: the action draw is one thread) and the
    speed-up over the first count, measured alternately so both see the same machine.
    Returns the rows: {"games", "mode", "threads": {k: env-step steps/s}}."""
    rows = []
    for n in sizes:
        for label, kwargs in (("learner mode, 3 random opponents", {}),
                              ("all-seats mode", {"mode": "all_seats"})):
            figures = {k: [] for k in threads}
            for _ in range(2):
                for k in threads:
                    figures[k].append(steps_per_second(n, seconds / 2, threads=k, **kwargs))
            base = max(f[1] for f in figures[threads[0]])
            for k in threads:
                total = max(f[0] for f in figures[k])
                env_only = max(f[1] for f in figures[k])
                print(f"batched n={n} {label}, {k} thread(s): env step only {env_only:,.0f} steps/s "
                      f"({env_only / base:.2f}x), with the action draw {total:,.0f} steps/s", flush=True)
            rows.append({"games": n, "mode": kwargs.get("mode", "learner"),
                         "threads": {str(k): max(f[1] for f in figures[k]) for k in threads}})
    return rows


THREADS_RESULTS = os.path.join(os.path.dirname(HERE), "docs", "results", "batched_threads.json")
THREADS_DOC = os.path.join(os.path.dirname(HERE), "docs", "benchmarks.md")
THREADS_START, THREADS_END = "<!-- batched_threads: start -->", "<!-- batched_threads: end -->"


def threads_table(doc):
    """The benchmarks page's table of the batched env across threads, from a results file."""
    counts = sorted({int(k) for row in doc["rows"] for k in row["threads"]})
    lines = ["| batched env, env step (steps/s) | " + " | ".join(f"{k} thread{'s' if k > 1 else ''}" for k in counts)
             + " | speed-up |", "|---|" + "---:|" * (len(counts) + 1)]
    for row in doc["rows"]:
        rates = [row["threads"][str(k)] for k in counts]
        lines.append(f"| {row['mode'].replace('_', '-')} mode, {row['games']:,} games | " + " | ".join(f"{r:,.0f}" for r in rates)
                     + f" | {rates[-1] / rates[0]:.2f}x |")
    lines += ["", f"Measured {doc['date']}, {doc['machine']} (`{doc['command']}`, "
              "[results](results/batched_threads.json))."]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    ap.add_argument("--seconds", type=float, default=5.0, help="time per measurement")
    ap.add_argument("--sizes", default="256,1024", help="batch sizes, comma-separated")
    ap.add_argument("--no-peers", action="store_true", help="skip fastcatan")
    ap.add_argument("--threads", default="", help="also measure these thread counts, e.g. 1,2")
    ap.add_argument("--out", default="", help="with --threads: write the figures here and the benchmarks "
                                              "page's table from them")
    args = ap.parse_args()
    if args.threads:
        rows = scaling([int(x) for x in args.sizes.split(",")], [int(x) for x in args.threads.split(",")],
                       args.seconds)
        if args.out:
            from catan_env.cli import run_stamp, write_results
            from results_doc import replace_block
            doc = dict(run_stamp("python benchmarks/batched_throughput.py"), rows=rows)
            write_results(args.out, doc)
            if not replace_block(THREADS_DOC, THREADS_START, THREADS_END, threads_table(doc)):
                raise SystemExit(f"{THREADS_DOC} lacks the markers {THREADS_START} ... {THREADS_END}")
            print(f"wrote {args.out} and the table of {THREADS_DOC}")
        return 0
    for n in (int(x) for x in args.sizes.split(",")):
        for trade in (True, False):
            total, env_only = steps_per_second(n, args.seconds, domestic_trade=trade)
            print(f"batched n={n} learner mode, 3 random opponents, trading {'on ' if trade else 'off'} "
                  f"(env step only {env_only:,.0f}): {total:,.0f} steps/s", flush=True)
        total, env_only = steps_per_second(n, args.seconds, opponents=frozen_mlp())
        print(f"batched n={n} learner mode, 3 frozen 2x256 MLP opponents in numba "
              f"(env step only {env_only:,.0f}): {total:,.0f} steps/s", flush=True)
        total, env_only = steps_per_second(n, args.seconds, mode="all_seats")
        print(f"batched n={n} all-seats mode, every action a step (env step only {env_only:,.0f}): "
              f"{total:,.0f} steps/s", flush=True)
        total, env_only = steps_per_second(n, args.seconds, mode="all_seats", obs_dtype="uint8")
        print(f"batched n={n} all-seats mode, compact uint8 observations (env step only {env_only:,.0f}): "
              f"{total:,.0f} steps/s", flush=True)
        if not args.no_peers:
            print(fastcatan_line(n, args.seconds), flush=True)


if __name__ == "__main__":
    sys.exit(main())
