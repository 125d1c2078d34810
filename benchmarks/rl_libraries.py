"""Every RL library path trained to 80% against three random opponents, side by side.

    python benchmarks/rl_libraries.py --extras-python /path/to/venv-extras/bin/python
    python benchmarks/rl_libraries.py --table-only          # the table and figure from what is there

Each path is its example script, run with the same budget, seed and evaluation: every
``--eval-every`` seconds of training the greedy policy plays the same 100 seat-randomised
arena games against three random agents (``catan_env.agents.arena.win_rate``, tournament
seed ``--eval-seed``); training stops at ``--target`` or after ``--minutes``.  Then the
final policy (exported as an MLP ``actor.npz``, played by the arena agent ``ppo:path=``)
plays 200 games against three random, 200 against three weighted and 200 against three
JSettlersAgent, the same games for every path.  ``--policy LABEL=ACTOR.npz`` adds a row
for a policy trained elsewhere (the recipe's cloned and fine-tuned policies,
docs/rl-recipe.md), evaluated on the same games.  RLlib and Tianshou live in their own environment
(``--extras-python``, the interpreter of a venv with ``.[rllib,tianshou]``).

Resumable: a path with ``final.json`` is done; one with a checkpoint resumes.  Writes
``<out>/<path>/curve.csv`` (minutes, env_steps, wins, games, win_rate, lo, hi),
``<out>/<path>/final.json``, ``<out>/table.md`` and ``<out>/curves.png``.
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import time

from catan_env.cli import HelpFormatter
from catan_env.plotting import pyplot, save

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# path name -> (library, algorithm, env path, interpreter kind, example script + its own flags)
PATHS = {
    "sb3_aec": ("Stable-Baselines3 2.9 + sb3-contrib", "MaskablePPO",
                "Gymnasium env (Python, opponents inside), 8 envs in a DummyVecEnv", "main",
                ["examples/train_maskable_ppo.py", "--envs", "8"]),
    "sb3_batched": ("Stable-Baselines3 2.9 + sb3-contrib", "MaskablePPO",
                    "batched numba env, 64 games (`make_batched_vec_env`)", "main",
                    ["examples/train_maskable_ppo.py", "--batched", "64"]),
    "rllib": ("RLlib 2.60 (new API stack)", "PPO",
              "batched numba env as RLlib's vector env, 2 env runners x 64 games", "extras",
              ["examples/train_rllib.py", "--vs", "random", "--env-runners", "2", "--batch", "8192",
               "--minibatch", "1024", "--epochs", "4"]),
    "tianshou": ("Tianshou 2.0", "PPO",
                 "AEC env through `PerSeatCollector` (per-seat transitions), 16 games", "extras",
                 ["examples/train_tianshou.py"]),
    "ppo_batched": ("single file (torch only)", "PPO", "batched numba env, 64 games", "main",
                    ["examples/train_ppo_batched.py"]),
}


LABELS = {"sb3_aec": "SB3 MaskablePPO, Python env", "sb3_batched": "SB3 MaskablePPO, batched env",
          "rllib": "RLlib PPO, batched env", "tianshou": "Tianshou PPO, per-seat AEC",
          "ppo_batched": "single-file PPO, batched env"}


def example_flags(name, args, out, resume):
    """The shared budget / target / evaluation flags in each example's spelling."""
    flags = ["--minutes", str(args.minutes), "--target", str(args.target), "--eval-every", str(args.eval_every),
             "--seed", str(args.seed), "--out", out]
    if name.startswith("sb3"):
        flags += ["--curve-games", str(args.eval_games), "--eval-seed", str(args.eval_seed)]
    elif name == "ppo_batched":
        flags += ["--eval-games", str(args.eval_games), "--arena-eval-seed", str(args.eval_seed)]
    else:
        flags += ["--eval-games", str(args.eval_games), "--eval-seed", str(args.eval_seed)]
    return flags + (["--resume"] if resume else [])


def read_curve(folder):
    """[(minutes, env_steps, win_rate vs random)] from a path's curve.csv (either layout)."""
    path = os.path.join(folder, "curve.csv")
    if not os.path.exists(path):
        return []
    rows = []
    with open(path) as f:
        for r in csv.DictReader(f):
            if r.get("opponent", "random") != "random":
                continue
            rows.append((float(r["minutes"]), int(r.get("env_steps") or r["steps"]), float(r["win_rate"])))
    return rows


def train(name, args):
    library, algorithm, env_path, kind, command = PATHS[name]
    out = os.path.join(args.out, name)
    python = args.extras_python if kind == "extras" else sys.executable
    if python is None:
        print(f"{name}: skipped (needs --extras-python, a venv with .[rllib,tianshou])")
        return False
    resume = os.path.exists(os.path.join(out, "curve.csv"))
    os.makedirs(out, exist_ok=True)
    cmd = [python, *command, *example_flags(name, args, out, resume)]
    print(f"{name}: {' '.join(cmd)}", flush=True)
    env = dict(os.environ, RAY_USAGE_STATS_ENABLED="0")
    with open(os.path.join(out, "train.log"), "a") as log:
        rc = subprocess.call(cmd, cwd=REPO, stdout=log, stderr=subprocess.STDOUT, env=env)
    if rc != 0:
        print(f"{name}: training exited with {rc} (see {out}/train.log)")
        return False
    return True


FINAL_OPPONENTS = ("random", "weighted", "jsettlers")


def final_eval(name, args):
    out = os.path.join(args.out, name)
    curve = read_curve(out)
    actor = os.path.join(out, "actor.npz")
    if not curve or not os.path.exists(actor):
        return None
    reached = next(((m, s) for m, s, r in curve if r >= args.target), None)
    minutes, steps = curve[-1][0], curve[-1][1]
    result = {"path": name, "library": PATHS[name][0], "algorithm": PATHS[name][1], "env": PATHS[name][2],
              "steps_to_target": reached[1] if reached else None,
              "minutes_to_target": reached[0] if reached else None,
              "steps": steps, "minutes": minutes, "steps_per_s": steps / max(minutes * 60, 1e-9),
              "target": args.target}
    return _final_games(result, actor, out, args)




def _final_games(result, actor, out, args, opponents=FINAL_OPPONENTS):
    """The final games against each of opponents into result; writes final.json."""
    from catan_env.agents.arena import win_rate
    name = result["path"]
    for opp in opponents:
        t0 = time.time()
        result[opp] = win_rate(f"ppo:path={actor}", opp, args.final_games, seed=args.final_seed, workers=args.workers)
        print(f"{name}: final vs 3 {opp}: {result[opp]['wins']}/{result[opp]['games']} "
              f"({time.time() - t0:.0f} s)", flush=True)
    with open(os.path.join(out, "final.json"), "w") as f:
        json.dump(result, f, indent=1)
    return result


def policy_eval(label, actor, args):
    """A row for a policy trained elsewhere (no training curve): the final games only,
    measured again when the actor file changed; None under --table-only when unmeasured."""
    out = os.path.join(args.out, "policy-" + "".join(c if c.isalnum() else "_" for c in label))
    done = os.path.join(out, "final.json")
    stamp = [os.path.abspath(actor), os.path.getmtime(actor)]
    if os.path.exists(done):
        with open(done) as f:
            result = json.load(f)
        if result.get("actor") == stamp or args.table_only:
            return result
    if args.table_only:
        return None
    os.makedirs(out, exist_ok=True)
    result = {"path": label, "library": label, "algorithm": "", "env": actor, "steps_to_target": None,
              "minutes_to_target": None, "steps": 0, "minutes": 0.0, "steps_per_s": 0.0, "target": args.target,
              "external": True, "actor": stamp}
    return _final_games(result, actor, out, args)


def pct(res):
    return f"{res['wins']}/{res['games']} = **{res['rate']:.1%}** [{res['lo']:.1%}, {res['hi']:.1%}]"


def table(results):
    lines = ["| library | algorithm | env path | env steps to 80% | training time to 80% | env steps/s "
             "(training) | final vs 3 random | final vs 3 weighted | final vs 3 JSettlersAgent |",
             "|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        if r.get("external"):
            steps = mins = speed = "(trained elsewhere)"
        else:
            steps = f"{r['steps_to_target']:,}" if r["steps_to_target"] else f"not reached ({r['steps']:,})"
            mins = f"{r['minutes_to_target']:.1f} min" if r["minutes_to_target"] is not None else \
                f"not in {r['minutes']:.1f} min"
            speed = f"{r['steps_per_s']:,.0f}"
        jsettlers = pct(r["jsettlers"]) if "jsettlers" in r else "not measured"
        lines.append(f"| {r['library']} | {r['algorithm']} | {r['env']} | {steps} | {mins} | "
                     f"{speed} | {pct(r['random'])} | {pct(r['weighted'])} | {jsettlers} |")
    return "\n".join(lines)


def figure(args, names):
    plt = pyplot()
    if plt is None:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    for name in names:
        curve = read_curve(os.path.join(args.out, name))
        if not curve:
            continue
        axes[0].plot([c[0] for c in curve], [c[2] for c in curve], marker="o", ms=3, label=LABELS[name])
        stepped = [c for c in curve if c[1] > 0]  # (the untrained point has no place on a log axis)
        axes[1].plot([c[1] for c in stepped], [c[2] for c in stepped], marker="o", ms=3, label=LABELS[name])
    for ax, xlabel in zip(axes, ("training minutes (evaluations excluded)", "env steps (learner decisions)")):
        ax.axhline(args.target, color="grey", ls="--", lw=1)
        ax.axhline(0.25, color="grey", ls=":", lw=1)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("win rate vs 3 random (100 arena games)")
        ax.set_ylim(0, 1)
    axes[1].set_xscale("log")
    axes[0].legend(loc="lower right")
    fig.suptitle("Each RL library's path to 80% against three random opponents")
    return save(fig, os.path.join(args.out, "curves.png"), dpi=110)


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--paths", default=",".join(PATHS), help=f"comma list of {', '.join(PATHS)}")
    ap.add_argument("--extras-python", default=None, help="python of a venv with .[rllib,tianshou] installed")
    ap.add_argument("--minutes", type=float, default=15.0, help="training budget per path")
    ap.add_argument("--target", type=float, default=0.8, help="win rate vs three random that ends training")
    ap.add_argument("--eval-every", type=float, default=60.0, help="seconds of training between evaluations")
    ap.add_argument("--eval-games", type=int, default=100, help="arena games per evaluation")
    ap.add_argument("--eval-seed", type=int, default=2026, help="tournament seed of the evaluations")
    ap.add_argument("--final-games", type=int, default=200, help="final games vs random and vs weighted")
    ap.add_argument("--final-seed", type=int, default=7, help="tournament seed of the final games")
    ap.add_argument("--seed", type=int, default=1, help="training seed of every path")
    ap.add_argument("--workers", type=int, default=2, help="processes for the final games")
    ap.add_argument("--out", default="results/rl_libraries", help="results folder")
    ap.add_argument("--table-only", action="store_true", help="no training: table and figure from the results")
    ap.add_argument("--policy", action="append", default=[], metavar="LABEL=ACTOR.npz",
                    help="also evaluate a policy trained elsewhere (repeatable)")
    args = ap.parse_args(argv)
    names = [p for p in args.paths.split(",") if p]
    unknown = set(names) - set(PATHS)
    if unknown:
        ap.error(f"unknown paths {sorted(unknown)}; choose from {', '.join(PATHS)}")
    results = []
    for name in names:
        done = os.path.join(args.out, name, "final.json")
        if not os.path.exists(done) and not args.table_only:
            if not train(name, args):
                continue
            final_eval(name, args)
        if os.path.exists(done):
            with open(done) as f:
                result = json.load(f)
            actor = os.path.join(args.out, name, "actor.npz")
            missing = [o for o in FINAL_OPPONENTS if o not in result]
            if missing and not args.table_only and os.path.exists(actor):  # (a column added since)
                result = _final_games(result, actor, os.path.join(args.out, name), args, missing)
            results.append(result)
    for entry in args.policy:
        label, sep, actor = entry.partition("=")
        if not sep or not os.path.exists(actor):
            ap.error(f"--policy takes LABEL=ACTOR.npz with an existing file, got {entry!r}")
        row = policy_eval(label, actor, args)
        if row is not None:
            results.append(row)
    text = table(results)
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write(text + "\n")
    print(text)
    png = figure(args, names)
    if png:
        print(f"figure: {png}")


if __name__ == "__main__":
    main()
