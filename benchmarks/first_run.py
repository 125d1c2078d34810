"""What a new user waits for the first time, as whole processes from an empty numba cache.

    python benchmarks/first_run.py                       # this tree, 3 runs per milestone
    python benchmarks/first_run.py --base e0a3c9b --runs 3 --out docs/results/first_run.json

Milestones (each a fresh process with its own empty NUMBA_CACHE_DIR, timed from start to
exit): the README's PettingZoo loop (one random 4-player game), and ``catan-arena`` with
``pretrained`` and three JSettlersAgents playing one game.  With ``--base REV`` the
revision is checked out into a temporary worktree and its runs alternate with this
tree's (base, this, base, this, ...), so both see the same machine load.  Prints the
median, min and max seconds per tree and milestone; ``--out`` writes them as JSON with
the date, machine and command.  Run it on an idle machine: compile time is CPU time.
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from catan_env.cli import HelpFormatter, run_stamp, write_results

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
README_LOOP = """
import numpy as np, catan_env

env = catan_env.env(players=4)
env.reset(seed=42)
for agent in env.agent_iter():
    obs, reward, terminated, truncated, info = env.last()
    if terminated or truncated:
        action = None
    else:
        action = int(np.random.choice(np.flatnonzero(obs["action_mask"])))
    env.step(action)
"""
ARENA = ("from catan_env.agents.arena import main; "
         "main(['--players', 'pretrained,jsettlers,jsettlers,jsettlers', '--games', '1', '--seed', '0'])")
MILESTONES = {"README PettingZoo loop": README_LOOP, "catan-arena pretrained + 3 jsettlers, one game": ARENA}


def _helpers_running():
    """Whether a first run's second process (``python -m catan_env.beside``) still runs."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"-m\0catan_env.beside" in f.read():
                    return True
        except OSError:
            pass
    return False


def timed(tree, code):
    """Seconds of one whole process running code in tree, from an empty numba cache (its
    second compiling process, if it outlives it, is waited out untimed before the next)."""
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, PYTHONPATH=tree, NUMBA_CACHE_DIR=cache, PYTHONWARNINGS="ignore")
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-c", code], cwd=tree, env=env, capture_output=True, text=True)
        seconds = time.perf_counter() - start
        deadline = time.time() + 180
        while _helpers_running() and time.time() < deadline:
            time.sleep(0.5)
    if done.returncode:
        raise SystemExit(f"a run failed in {tree}:\n{done.stderr[-3000:]}")
    return seconds


def checkout(revision, where):
    """A worktree of revision whose agents and wrappers import as catan_env.agents and
    catan_env.wrappers from PYTHONPATH (as the installed package lays them out)."""
    subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "-f", where, revision],
                   check=True, capture_output=True)
    for sub in ("agents", "wrappers"):
        link = os.path.join(where, "catan_env", sub)
        if not os.path.exists(link):
            os.symlink(os.path.join(where, sub), link)


RESULTS = os.path.join(ROOT, "docs", "results", "first_run.json")


def readme_sentence(doc):
    """The README's sentence on the first run, from a results file of this script."""
    loop = doc["milestones"]["README PettingZoo loop"]["this tree"]
    arena = doc["milestones"]["catan-arena pretrained + 3 jsettlers, one game"]["this tree"]
    return (f"from an empty cache the PettingZoo loop below takes {loop['median']} s as a whole process "
            f"(median of {len(loop['runs'])}), and `catan-arena` with `pretrained` and three JSettlersAgents "
            f"{arena['median']} s to its first game's end ({doc['date']}, `benchmarks/first_run.py`, "
            f"[results](docs/results/first_run.json)).")


def summary(values):
    return {"median": round(statistics.median(values), 1), "min": round(min(values), 1),
            "max": round(max(values), 1), "runs": [round(v, 1) for v in values]}


def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    p.add_argument("--runs", type=int, default=3, help="whole processes per tree and milestone")
    p.add_argument("--base", default="", help="a git revision to alternate with (empty: this tree alone)")
    p.add_argument("--out", default="", help="write the figures to this JSON file")
    args = p.parse_args(argv)
    trees = {"this tree": ROOT}
    base_dir = None
    if args.base:
        base_dir = tempfile.mkdtemp(prefix="first-run-base-")
        os.rmdir(base_dir)
        checkout(args.base, base_dir)
        trees = {f"base {args.base}": base_dir, "this tree": ROOT}
    figures = {}
    try:
        for milestone, code in MILESTONES.items():
            seconds = {name: [] for name in trees}
            for run in range(args.runs):
                for name, tree in trees.items():
                    seconds[name].append(timed(tree, code))
                    print(f"{milestone}, {name}, run {run + 1}: {seconds[name][-1]:.1f} s", flush=True)
            figures[milestone] = {name: summary(values) for name, values in seconds.items()}
    finally:
        if base_dir:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", base_dir], capture_output=True)
    for milestone, by_tree in figures.items():
        print(milestone)
        for name, s in by_tree.items():
            print(f"  {name:<24} median {s['median']:6.1f} s  (min {s['min']}, max {s['max']})")
    if args.out:
        record = {**run_stamp("python benchmarks/first_run.py", argv), "milestones": figures}
        print(f"wrote {write_results(args.out, record)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
