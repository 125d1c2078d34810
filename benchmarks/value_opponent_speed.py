"""Learner steps per second of the batched env with three strong opponents inside numba.

    python benchmarks/value_opponent_speed.py            # 256 games, 20 s per opponent kind
    python benchmarks/value_opponent_speed.py --games 1024 --seconds 30
    python benchmarks/value_opponent_speed.py --ppo-seconds 60   # + where the recipe's PPO stage spends its time ([rl])

One core, learner mode, the learner playing uniformly random legal moves (forced moves
skipped, as the training examples run it), three opponents of one kind per game.  For
each kind: learner steps/s.  Then what one value-network
decision costs on positions of random games: the network's value of one whole position
(features + forward pass, us), the greedy decision's mean time (us) and the leaves it
values (every legal move's result, chance expanded, over two determinizations, plus
offers and macro moves), and what one such leaf costs, part by part.  Beside them, this core's float32
matrix-product rate (numpy's BLAS, one thread, 256 x 512 by 512 x 512: the batched
alternative to the networks' own kernels).  With ``--ppo-seconds``: a profile of the
recipe's PPO stage (docs/rl-recipe.md step 3: MaskablePPO on 64 batched games against
``pretrained:search=0`` and ``weighted``), the share of its time in the env's own
stepping, in the opponents' decisions and in the learner (rollout forward passes and
updates).  Compile time is excluded (one warm-up step per kind); figures are this
machine's, compare ratios within one run.
"""
import argparse
import os
import time

import numpy as np

from catan_env.batched import BatchedCatan
from catan_env.cli import HelpFormatter, run_stamp, write_results
from results_doc import replace_block

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "docs", "results", "value_opponent_speed.json")
DOC = os.path.join(ROOT, "docs", "rl-recipe.md")  # its speed table is made from RESULTS by speed_table()
DOC_START, DOC_END = "<!-- value_opponent_speed: start -->", "<!-- value_opponent_speed: end -->"
KIND_WORDS = {"random": "`random`", "weighted": "`weighted`",
              "pretrained_policy": "`pretrained_policy` (numba MLP pool, 2 x 512)",
              "pretrained:search=0": "`pretrained:search=0` (numba, greedy decision)",
              "jsettlers": "`jsettlers` (Python, the kernel pauses for it)"}
KINDS = ["random", "weighted", "pretrained_policy", "pretrained:search=0",
         "pretrained:search=0:offers=0:macros=false:determinizations=1", "jsettlers"]


def steps_per_second(opponent, games, seconds, seed=0):
    """Learner steps/s over about ``seconds`` of stepping."""
    venv = BatchedCatan(games, opponents=opponent, seed=seed, skip_forced=True)
    venv.reset(seed=seed)
    venv.step(venv.sample_actions())  # compile and warm up
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        venv.step(venv.sample_actions())
        steps += games
    elapsed = time.perf_counter() - start
    return steps / elapsed


def _positions(positions, seed):
    """Positions of random games with a choice to make (every phase), one in ten kept."""
    from catan_env.core import game as G
    rng = np.random.default_rng(seed)
    states = []
    g = 0
    while len(states) < positions:
        s = G.new_game({}, seed=seed * 1000 + g)
        g += 1
        while not G.is_over(s) and len(states) < positions:
            legal = G.legal_actions(s)
            if len(legal) > 1 and rng.random() < 0.1:
                states.append(s.copy())
            G.step(s, int(rng.choice(legal)))
    return states


def decision_cost(positions=300, seed=1, repeats=5):
    """(us per network value of one whole position, us per greedy decision, the leaves a
    decision values) on positions of random games (every phase).  A whole position's
    value (features and every layer, one reused evaluator, in a jitted loop) is what a
    leaf would cost without the root's sums and seat key; the leaves are counted by the
    evaluator (``leaf_value``), so decision / leaves is a real leaf's mean cost."""
    from numba import njit
    from catan_env.agents import make_agent
    from catan_env.core import game as G
    from catan_env.core.layout import MAX_PLAYERS
    from catan_env.learned.greedy import greedy_decision, new_memory, options
    from catan_env.learned.value import state_win_probs

    @njit
    def values(ev, states, observers):
        for i in range(states.shape[0]):
            state_win_probs(ev, states[i], observers[i])

    net = make_agent("pretrained:search=0").network
    states = _positions(positions, seed)
    deciders = np.array([G.decider(s) for s in states], np.int64)
    opts, seeds = options(), np.array([1, 2], np.int64)
    ev = net.evaluator()
    stacked = np.stack(states)
    values(ev, stacked, deciders)  # compile, and warm the caches (a cold first pass took twice as long)
    for s in states[:3]:
        legal = G.legal_actions(s).astype(np.int64)
        greedy_decision(ev, s, G.decider(s), legal, len(legal), seeds, new_memory(), opts)
    t = time.perf_counter()
    for _ in range(repeats):
        values(ev, stacked, deciders)
    leaf = (time.perf_counter() - t) / repeats / len(states) * 1e6
    legals = [G.legal_actions(s).astype(np.int64) for s in states]
    counted = ev.rel[MAX_PLAYERS]
    t = time.perf_counter()
    for s, legal in zip(states, legals):
        greedy_decision(ev, s, G.decider(s), legal, len(legal), seeds, new_memory(), opts)
    decision = (time.perf_counter() - t) / len(states) * 1e6
    return leaf, decision, (ev.rel[MAX_PLAYERS] - counted) / len(states)


def _leaf_kernels():
    """The jitted loops of ``leaf_profile`` (compiled on first use).  Each times one part
    on its own: the roots' seat keys, features and first-layer sums are made beforehand
    (``roots``) and handed to the leaves' loops."""
    from numba import njit
    from catan_env.core.arrays import copy_into
    from catan_env.core.cards import current_decider
    from catan_env.core.rules import apply_action
    from catan_env.learned.features import encode_features_into, encode_features_keyed, has_seat_key, new_feature_scratch
    from catan_env.learned.mlp import after_first, output_layer
    from catan_env.learned.value import _first_layer_from_base, set_base

    @njit
    def roots(ev, states, keys, base_xs, base_zs):
        """Each root's set_base; its seat key, features and first-layer sums kept."""
        for r in range(states.shape[0]):
            set_base(ev, states[r], current_decider(states[r]))
            copy_into(keys[r], ev.base_key)
            copy_into(base_xs[r], ev.base_x)
            copy_into(base_zs[r], ev.base_z)

    @njit
    def leaves(states, root_of, actions, outcomes, out):
        for i in range(root_of.shape[0]):
            copy_into(out[i], states[root_of[i]])
            apply_action(out[i], actions[i], outcomes[i])

    @njit
    def features(states, root_of, leaf_states, keyed, keys, base_xs, xs):
        """Each leaf's features (keyed: copied by its root's seat key where it has it)."""
        scratch = new_feature_scratch()
        for i in range(root_of.shape[0]):
            r = root_of[i]
            observer = current_decider(states[r])
            if keyed:
                encode_features_keyed(leaf_states[i], observer, xs[i], keys[r], base_xs[r], scratch)
            else:
                encode_features_into(leaf_states[i], observer, xs[i], scratch)

    @njit
    def keyed_leaves(states, root_of, leaf_states, keys):
        """The leaves that have their root's seat key (untimed)."""
        had = 0
        for i in range(root_of.shape[0]):
            had += has_seat_key(leaf_states[i], current_decider(states[root_of[i]]), keys[root_of[i]])
        return had

    @njit
    def first_layer(ev, states, root_of, base_xs, base_zs, xs, h1s):
        for i in range(root_of.shape[0]):
            r = root_of[i]
            if i == 0 or r != root_of[i - 1]:  # the root's sums, as set_base left them
                copy_into(ev.base_x, base_xs[r])
                copy_into(ev.base_z, base_zs[r])
                ev.base_seat[0] = current_decider(states[r])
            copy_into(ev.x, xs[i])
            _first_layer_from_base(ev)
            copy_into(h1s[i], ev.h1)

    @njit
    def rest(ev, h1s, logits):
        for i in range(h1s.shape[0]):
            copy_into(ev.h1, h1s[i])
            output_layer(ev.params, ev.layers, ev.net, after_first(ev.params, ev.layers, ev.net, ev.h1, ev.h2, ev.idx),
                         logits[i], ev.idx)
    return roots, leaves, features, keyed_leaves, first_layer, rest


def leaf_profile(positions=1000, seed=1, repeats=5):
    """What one leaf of a greedy decision costs, part by part (us a leaf), on every
    searchable move's outcomes in positions of random games: the move applied to a copy,
    the features (computed whole, and copied by the root's seat key where the leaf has
    it: ``keyed_share`` of the leaves), the first layer from the root's sums, and the
    layers after it; and each root's own features and first layer (``set_base``) spread
    over its leaves."""
    from catan_env.agents import make_agent
    from catan_env.core import game as G
    from catan_env.core.chance import MAX_OUTCOMES
    from catan_env.learned.features import SEAT_KEY_SIZE
    from catan_env.learned.value import SEARCHABLE, move_outcomes
    net = make_agent("pretrained:search=0").network
    ev = net.evaluator()
    states = _positions(positions, seed)
    root_of, actions, outcomes = [], [], []
    outs, probs = np.empty(MAX_OUTCOMES, np.int64), np.empty(MAX_OUTCOMES)
    for r, s in enumerate(states):
        for a in G.legal_actions(s):
            if SEARCHABLE[a]:
                for k in range(move_outcomes(s, int(a), outs, probs)):
                    root_of.append(r)
                    actions.append(int(a))
                    outcomes.append(int(outs[k]))
    states = np.stack(states)
    root_of, actions, outcomes = np.array(root_of), np.array(actions), np.array(outcomes)
    n, width = len(root_of), ev.x.shape[0]
    keys = np.empty((len(states), SEAT_KEY_SIZE), np.int64)
    base_xs = np.empty((len(states), width), np.float32)
    base_zs = np.empty((len(states), ev.base_z.shape[0]), np.float32)
    leaf_states = np.empty((n, states.shape[1]), states.dtype)
    xs = np.empty((n, width), np.float32)
    h1s = np.empty((n, ev.h1.shape[0]), np.float32)
    logits = np.empty((n, 4), np.float32)
    roots, leaves, features, keyed_leaves, first_layer, rest = _leaf_kernels()

    def per_leaf(fn, *args):
        fn(*args)  # compile
        t = time.perf_counter()
        for _ in range(repeats):
            fn(*args)
        return (time.perf_counter() - t) / repeats / n * 1e6
    fresh = net.evaluator()  # (set_base on an evaluator that has no base yet, as each decision's first)
    parts = {"the root's own features and first layer, a leaf's share": per_leaf(roots, fresh, states, keys, base_xs,
                                                                                  base_zs),
             "move applied to a copy": per_leaf(leaves, states, root_of, actions, outcomes, leaf_states),
             "features, computed whole": per_leaf(features, states, root_of, leaf_states, False, keys, base_xs, xs),
             "features, copied by seat key where they can be": per_leaf(features, states, root_of, leaf_states, True,
                                                                        keys, base_xs, xs)}
    keyed_share = keyed_leaves(states, root_of, leaf_states, keys) / n
    parts["first layer from the root's sums"] = per_leaf(first_layer, ev, states, root_of, base_xs, base_zs, xs, h1s)
    parts["layers after the first"] = per_leaf(rest, ev, h1s, logits)
    return {"leaves": n, "keyed_share": round(keyed_share, 3), "us": {k: round(v, 3) for k, v in parts.items()}}


GEMM_SCRIPT = """
import sys, time
import numpy as np
rows, width, seconds = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
rng = np.random.default_rng(0)
x = rng.standard_normal((rows, width)).astype(np.float32)
w = rng.standard_normal((width, width)).astype(np.float32)
out = np.empty((rows, width), np.float32)
np.matmul(x, w, out=out)
done, start = 0, time.perf_counter()
while time.perf_counter() - start < seconds:
    np.matmul(x, w, out=out)
    done += 1
print(2.0 * rows * width * width * done / (time.perf_counter() - start) / 1e9)
"""


def gemm_rate(rows=256, width=512, seconds=2.0):
    """GFLOP/s of numpy's float32 matrix product (rows x width by width x width) on one
    thread: a child process whose BLAS is limited to one thread before numpy loads."""
    import os
    import subprocess
    import sys
    one = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    done = subprocess.run([sys.executable, "-c", GEMM_SCRIPT, str(rows), str(width), str(seconds)],
                          env=dict(os.environ, **one), capture_output=True, text=True, check=True)
    return float(done.stdout)


def ppo_profile(seconds, seed=0):
    """{part: seconds} of the recipe's PPO stage run for about ``seconds`` under cProfile."""
    import cProfile
    import pstats
    from sb3_contrib import MaskablePPO
    from catan_env.wrappers.sb3 import make_batched_vec_env
    import torch
    torch.set_num_threads(1)
    env = make_batched_vec_env(64, seed=seed, opponents=["pretrained:search=0", "weighted"], vp_reward=0.0)
    # examples/train_maskable_ppo.py --batched 64 (step 3's settings; the clone's 2 x 512 network)
    model = MaskablePPO("MlpPolicy", env, seed=seed, n_steps=4096 // 64, batch_size=128, learning_rate=2e-5,
                        clip_range=0.1, gamma=0.999, verbose=0, policy_kwargs=dict(net_arch=[512, 512]))
    model.learn(4096)  # compile and warm up
    steps = 0
    profile = cProfile.Profile()
    start = time.perf_counter()
    profile.enable()
    while time.perf_counter() - start < seconds:
        model.learn(4096, reset_num_timesteps=False)
        steps += 4096
    profile.disable()
    total = time.perf_counter() - start
    stats = pstats.Stats(profile).stats

    def cumulative(module_end, name):
        return sum(v[3] for (path, _, fn), v in stats.items() if path.endswith(module_end) and fn == name)
    env_all = cumulative("sb3.py", "step_wait")
    opponents = cumulative("greedy.py", "decide")
    update = cumulative("ppo_mask.py", "train")
    return {"total": total, "learner steps": steps, "env stepping (rules, observations, policy opponents)": env_all - opponents,
            "value-network opponents' decisions": opponents, "learner update (PPO epochs)": update,
            "learner rollout (policy forward passes, buffers)": total - env_all - update}


def speed_table(doc):
    """The docs' speed table (markdown) from a results file of this script."""
    lines = [f"Measured {doc['date']} ({doc['machine']}): `{doc['command']}`; {doc['games']} games, learner mode, "
             "a random learner, three opponents of one kind:", "",
             "| opponents | learner steps/s |", "|---|---:|"]
    for kind, rate in doc["learner_steps_per_s"].items():
        lines.append(f"| {KIND_WORDS.get(kind, '`' + kind + '`')} | {rate:,} |")
    lines += ["", f"One value of a whole position by the network (features and every layer): "
              f"{doc['position_value_us']} us. One greedy decision (offers, two determinizations, macro moves): "
              f"{doc['greedy_decision_us']} us, valuing {doc['leaves_per_decision']} leaves. This core's float32 "
              f"matrix product (numpy, one thread): {doc['gemm_gflops']} GFLOP/s."]
    prof = doc["leaf_profile"]
    lines += ["", f"What one leaf of a greedy decision costs ({prof['leaves']:,} leaves: every searchable move's "
              f"outcomes in positions of random games; {prof['keyed_share']:.0%} of them keep their root's board):",
              "", "| part | us a leaf |", "|---|---:|"]
    lines += [f"| {part} | {us:.2f} |" for part, us in prof["us"].items()]
    if "ppo_stage" in doc:
        ppo = doc["ppo_stage"]
        lines += ["", f"The PPO stage (step 3's settings, {ppo['seconds']} s profiled, {ppo['learner_steps_per_s']:,} "
                  "learner steps/s), where its time goes:", "", "| part | share |", "|---|---:|"]
        lines += [f"| {part} | {share:.1%} |" for part, share in ppo["shares"].items()]
    return "\n".join(lines)


README_ROW_KINDS = ("pretrained:search=0", "pretrained_policy", "jsettlers")


def readme_row(doc):
    """The README's row of strong opponents inside the batched env, from a results file."""
    rates = " / ".join(f"{doc['learner_steps_per_s'][kind]:,}" for kind in README_ROW_KINDS)
    return (f"| **catan_env** batched env, {doc['games']} games, 3 strong opponents inside: `pretrained:search=0` "
            f"(numba) / `pretrained_policy` (numba MLP) / `jsettlers` (Python) — {doc['date']}, "
            f"`benchmarks/value_opponent_speed.py` ([results](docs/results/value_opponent_speed.json)) | {rates} |")


def write_readme_row(doc, path=os.path.join(ROOT, "README.md")):
    """Replace the README's row of strong opponents (the line that names them)."""
    with open(path) as f:
        lines = f.read().split("\n")
    rows = [i for i, line in enumerate(lines) if "3 strong opponents inside" in line]
    if len(rows) != 1:
        raise SystemExit(f"expected one row of strong opponents in {path}, found {len(rows)}")
    lines[rows[0]] = readme_row(doc)
    with open(path, "w") as f:
        f.write("\n".join(lines))


def write_doc(doc, path=DOC):
    """Replace the speed table between the markers of the docs page."""
    if not replace_block(path, DOC_START, DOC_END, speed_table(doc)):
        raise SystemExit(f"{path} lacks the markers {DOC_START} ... {DOC_END}")


def main(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    p.add_argument("--games", type=int, default=256, help="games in the batch")
    p.add_argument("--seconds", type=float, default=20.0, help="stepping time per opponent kind")
    p.add_argument("--kinds", nargs="+", default=KINDS, help="opponent specs to measure")
    p.add_argument("--ppo-seconds", type=float, default=0.0,
                   help=">0: also profile the recipe's PPO stage for this long (needs the [rl] extra)")
    p.add_argument("--out", default="", help="also write the figures to this JSON file (date, machine, command); "
                   "given the docs' results file, the docs' table is rewritten from it too")
    args = p.parse_args(argv)
    record = {**run_stamp("python benchmarks/value_opponent_speed.py", argv), "games": args.games, "seconds": args.seconds, "learner_steps_per_s": {}}
    print(f"batched env, learner mode, {args.games} games, one core, random learner, 3 opponents of each kind")
    print(f"{'opponents':<64} {'learner steps/s':>16}")
    for kind in args.kinds:
        rate = steps_per_second(kind, args.games, args.seconds)
        record["learner_steps_per_s"][kind] = round(rate)
        print(f"{kind:<64} {rate:>16,.0f}", flush=True)
    leaf, decision, leaves = decision_cost()
    print(f"\nnetwork value of one whole position: {leaf:.1f} us; greedy decision (offers, 2 determinizations, "
          f"macros): {decision:.0f} us, {leaves:.1f} leaves valued = {decision / leaves:.2f} us a leaf")
    gemm = gemm_rate()
    print(f"float32 matrix product (numpy, 256 x 512 by 512 x 512, one thread): {gemm:.1f} GFLOP/s")
    record.update(position_value_us=round(leaf, 2), greedy_decision_us=round(decision, 1),
                  leaves_per_decision=round(leaves, 1), gemm_gflops=round(gemm, 1))
    profile = leaf_profile()
    print(f"\nwhat a leaf of a greedy decision costs ({profile['leaves']} leaves of random games' positions; "
          f"{profile['keyed_share']:.0%} keep their root's board):")
    for part, us in profile["us"].items():
        print(f"  {part:<58} {us:6.2f} us")
    record["leaf_profile"] = profile
    if args.ppo_seconds > 0:
        parts = ppo_profile(args.ppo_seconds)
        total = parts.pop("total")
        steps = parts.pop("learner steps")
        print(f"\nthe recipe's PPO stage (MaskablePPO, 64 games, opponents pretrained:search=0 and weighted), "
              f"{total:.0f} s profiled, {steps / total:,.0f} learner steps/s:")
        for part, spent in parts.items():
            print(f"  {part:<58} {spent / total:6.1%}")
        record["ppo_stage"] = {"seconds": round(total, 1), "learner_steps_per_s": round(steps / total),
                               "shares": {part: round(spent / total, 3) for part, spent in parts.items()}}
    if args.out:
        print(f"wrote {write_results(args.out, record)}")
        if os.path.abspath(args.out) == RESULTS:
            write_doc(record)
            write_readme_row(record)
            print(f"rewrote the speed table of {DOC} and the README's row")


if __name__ == "__main__":
    main()
