"""What the recipe (docs/rl-recipe.md) gives at small scales: the smallest that shows
learning, measured.  Resumable: one JSON line per finished scale in ``--out``.

    python benchmarks/recipe_scales.py                       # 40, 200 and 1,000 teacher games
    python benchmarks/recipe_scales.py --scales 40:1 200:2   # teacher games : cloning epochs

For each scale it runs the recipe's own commands as a new user would (each step a fresh
process, timed): the teacher's games (``python -m catan_env.agents.distill``, extending
one data folder from the smaller scale before it), behaviour cloning
(``examples/distill_policy.py``, a 2 x 256 network), then PPO fine-tuning from the clone
(``examples/train_maskable_ppo.py --init``, 64 batched games against ``weighted``, for
``--ppo-minutes``).  Every policy is measured the same way: its greedy move against three
``weighted`` bots, the same ``--eval-games`` seat-randomised games (``arena.win_rate``,
95% Wilson intervals).  The starting point, an untrained network of the same shape, is
measured once.
"""
import argparse
import json
import os
import subprocess
import sys
import time

from catan_env.cli import HelpFormatter
from results_doc import replace_block

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results", "recipe_scales.jsonl")
DOC = os.path.join(ROOT, "docs", "rl-recipe.md")  # its table of scales is made from RESULTS by scales_table()
DOC_START, DOC_END = "<!-- recipe_scales: start -->", "<!-- recipe_scales: end -->"
EVAL_SEED = 2026  # the games every policy is measured on (distill_policy.py's own evaluation uses it too)


def run(cmd, log):
    """Run one recipe step in a fresh process; its seconds (the output goes to log)."""
    start = time.perf_counter()
    with open(log, "a") as f:
        f.write(f"$ {' '.join(cmd)}\n")
        f.flush()
        done = subprocess.run(cmd, cwd=ROOT, stdout=f, stderr=subprocess.STDOUT)
    if done.returncode:
        raise SystemExit(f"{' '.join(cmd)} failed (exit {done.returncode}); see {log}")
    return time.perf_counter() - start


def measured(actor, games):
    """The greedy policy in actor.npz against three weighted: wins, games, rate, interval."""
    from catan_env.agents.arena import win_rate
    r = win_rate(f"ppo:path={actor}", "weighted", games=games, seed=EVAL_SEED)
    return {key: r[key] for key in ("wins", "games", "rate", "lo", "hi")}


def untrained_actor(path, hidden):
    """An untrained policy network of the clone's shape, exported as the clone is."""
    import gymnasium
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    import catan_env  # noqa: F401 (registers the env)
    from catan_env.learned.mlp import from_torch
    env = gymnasium.make("catan_env/Catan-v0")
    torch.manual_seed(0)
    policy = MaskableActorCriticPolicy(env.observation_space, env.action_space, lambda _: 1e-3,
                                       net_arch=dict(pi=[hidden, hidden], vf=[hidden, hidden]))
    from_torch(policy).save(path)


def _rate(r):
    return f"{r['wins']}/{r['games']} = {r['rate']:.2f} [{r['lo']:.2f}, {r['hi']:.2f}]"


def scales_table(rows):
    """The recipe page's table of scales (markdown) from the results file's lines."""
    rows = sorted(rows, key=lambda r: r["teacher_games"])
    first = rows[0]
    lines = [f"Measured {first['date']} on this 2-core machine (`{first['command'].strip()}`; each step a fresh "
             f"process, the other core busy): the greedy policy against three `weighted` bots, the same "
             f"{first['clone']['games']} seat-randomised games each; an untrained network of the same shape "
             f"won {_rate(first['untrained'])}.", "",
             "| teacher games | cloning epochs | teacher, clone, PPO (minutes) | the clone | + PPO |",
             "|---:|---:|---|---|---|"]
    for r in rows:
        t = r["seconds"]
        lines.append(f"| {r['teacher_games']:,} | {r['epochs']} | {t['teacher'] / 60:.1f}, {t['clone'] / 60:.1f}, "
                     f"{t['ppo'] / 60:.1f} | {_rate(r['clone'])} | {_rate(r['ppo'])} |")
    return "\n".join(lines)


def write_doc(rows, path=DOC):
    """Replace the table of scales between the markers of the recipe page."""
    if not replace_block(path, DOC_START, DOC_END, scales_table(rows)):
        raise SystemExit(f"{path} lacks the markers {DOC_START} ... {DOC_END}")


def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    p.add_argument("--scales", nargs="+", default=["40:1", "200:2", "1000:3"], help="teacher games:cloning epochs")
    p.add_argument("--ppo-minutes", type=float, default=3.0, help="PPO fine-tuning minutes per scale")
    p.add_argument("--eval-games", type=int, default=100, help="games against three weighted per policy")
    p.add_argument("--work", default="results/recipe_scales", help="folder of the runs' data, models and logs")
    p.add_argument("--out", default="docs/results/recipe_scales.jsonl", help="one line per finished scale")
    args = p.parse_args(argv)
    scales = []
    for item in args.scales:
        try:
            games, epochs = (int(x) for x in item.split(":"))
        except ValueError:
            p.error(f"a scale is GAMES:EPOCHS (for example 200:2), got {item!r}")
        scales.append((games, epochs))
    os.makedirs(args.work, exist_ok=True)
    done = {}
    if os.path.exists(args.out):
        with open(args.out) as f:
            done = {json.loads(line)["teacher_games"]: json.loads(line) for line in f if line.strip()}
    log = os.path.join(args.work, "steps.log")
    data = os.path.join(args.work, "data")
    hidden = 256
    start_path = os.path.join(args.work, "untrained-actor.npz")
    if not os.path.exists(start_path):
        untrained_actor(start_path, hidden)
    start = None
    for games, epochs in sorted(scales):
        if games in done:
            print(f"{games} teacher games: done ({args.out})")
            continue
        if start is None:
            start = measured(start_path, args.eval_games)
            print(f"untrained network: {start['wins']}/{start['games']} against three weighted", flush=True)
        bc = os.path.join(args.work, f"bc-{games}")
        ppo = os.path.join(args.work, f"ppo-{games}")
        row = {"date": time.strftime("%Y-%m-%d"), "teacher_games": games, "epochs": epochs, "hidden": hidden,
               "ppo_minutes": args.ppo_minutes, "opponents": "3 x weighted", "untrained": start, "seconds": {}}
        row["seconds"]["teacher"] = run([sys.executable, "-m", "catan_env.agents.distill", "--out", data,
                                         "--games", str(games)], log)
        row["seconds"]["clone"] = run([sys.executable, "examples/distill_policy.py", "--data", data, "--out", bc,
                                       "--hidden", str(hidden), "--epochs", str(epochs), "--eval-games", "0"], log)
        row["clone"] = measured(os.path.join(bc, "actor.npz"), args.eval_games)
        row["seconds"]["ppo"] = run([sys.executable, "examples/train_maskable_ppo.py", "--init",
                                     os.path.join(bc, "model.zip"), "--batched", "64", "--opponents", "weighted",
                                     "--lr", "2e-5", "--clip", "0.1", "--gamma", "0.999", "--vp-reward", "0",
                                     "--minutes", str(args.ppo_minutes), "--eval-every", "1e9", "--curve-games", "20",
                                     "--eval-games", "0", "--out", ppo], log)
        row["ppo"] = measured(os.path.join(ppo, "actor.npz"), args.eval_games)
        row["command"] = "python benchmarks/recipe_scales.py " + " ".join(argv if argv is not None else sys.argv[1:])
        print(json.dumps(row), flush=True)
        with open(args.out, "a") as f:
            f.write(json.dumps(row) + "\n")
        done[games] = row
        if os.path.abspath(args.out) == RESULTS:
            write_doc(list(done.values()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
