"""Core and env throughput of this tree against an earlier git revision, in one run.

Checks the revision out into a temporary worktree, then runs ``core_throughput.py`` and
``env_throughput.py`` of each tree alternately (before, after, before, after, ...) in
fresh processes, so both see the same machine load; prints each figure per round and
the median ratio after / before.  Machines here are noisy: compare the ratios.

    python benchmarks/before_after.py a49cfc2 --rounds 3 --seconds 3
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from catan_env.cli import HelpFormatter

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIGURES = {
    "core games/s, trading off": (r"trading off:\s+([\d.]+) games/s", "core_throughput.py"),
    "core games/s, trading on": (r"trading on :\s+([\d.]+) games/s", "core_throughput.py"),
    "AEC raw_env steps/s, trading on": (r"trading on\):\s+([\d.]+) steps/s", "env_throughput.py"),
    "AEC raw_env steps/s, trading off": (r"trading off\):\s+([\d.]+) steps/s", "env_throughput.py"),
    "AEC env() steps/s": (r"PettingZoo wrappers\):\s+([\d.]+) steps/s", "env_throughput.py"),
    "Gymnasium learner steps/s": (r"inside\):\s+([\d.]+) learner steps/s", "env_throughput.py"),
}


def run_tree(tree, script, seconds):
    env = dict(os.environ, PYTHONPATH=tree, NUMBA_NUM_THREADS="1")
    args = [sys.executable, os.path.join(tree, "benchmarks", script), "--seconds", str(seconds)]
    if script == "core_throughput.py":
        args.append("--skip-cold")
    out = subprocess.run(args, cwd=tree, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"{script} failed in {tree}:\n{out.stderr[-3000:]}")
    return out.stdout


def parse(text, script):
    got = {}
    for name, (pattern, source) in FIGURES.items():
        if source == script:
            m = re.search(pattern, text)
            if m:
                got[name] = float(m.group(1))
    return got


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    ap.add_argument("revision", help="the earlier revision, e.g. a49cfc2 or HEAD~5")
    ap.add_argument("--rounds", type=int, default=3, help="alternating rounds (before, after)")
    ap.add_argument("--seconds", type=float, default=3.0, help="time per measurement")
    ap.add_argument("--only", choices=["core", "env"], help="run one of the two scripts")
    args = ap.parse_args()
    scripts = [s for s in ("core_throughput.py", "env_throughput.py")
               if args.only is None or s.startswith(args.only)]
    with tempfile.TemporaryDirectory() as tmp:
        before = os.path.join(tmp, "before")
        subprocess.run(["git", "-C", ROOT, "worktree", "add", "--detach", "-f", before, args.revision],
                       check=True, capture_output=True)
        try:
            trees = {"before": before, "after": ROOT}
            results = {label: {name: [] for name in FIGURES} for label in trees}
            for script in scripts:  # warm the numba caches
                for tree in trees.values():
                    run_tree(tree, script, 0.2)
            for r in range(args.rounds):
                for script in scripts:
                    for label, tree in trees.items():
                        for name, value in parse(run_tree(tree, script, args.seconds), script).items():
                            results[label][name].append(value)
                print(f"round {r + 1}/{args.rounds} done", flush=True)
        finally:
            subprocess.run(["git", "-C", ROOT, "worktree", "remove", "--force", before],
                           capture_output=True)
    print(f"\n{'figure':34s} {'before (median)':>16s} {'after (median)':>16s} {'after/before':>13s}")
    for name in FIGURES:
        b, a = results["before"][name], results["after"][name]
        if not a or not b:
            continue
        ratios = [x / y for x, y in zip(a, b)]
        print(f"{name:34s} {statistics.median(b):16,.0f} {statistics.median(a):16,.0f} "
              f"{statistics.median(ratios):12.3f}x   (rounds: {', '.join(f'{x:.2f}' for x in ratios)})")


if __name__ == "__main__":
    main()
