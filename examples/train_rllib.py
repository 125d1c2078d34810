"""Multi-agent PPO with action masking on RLlib (new API stack), locally or on a Ray cluster.

    # one shared masked policy for every seat (self-play), two env-runner processes
    python examples/train_rllib.py --iterations 20 --env-runners 2 --out results/rllib/selfplay

    # policy mapping: seats 0 and 1 learn (their own policies), seats 2 and 3 are
    # frozen JSettlers-style robots played inside the env by our agents
    python examples/train_rllib.py --opponents 2=jsettlers,3=jsettlers --per-seat-policies

    # on a running Ray cluster (see docs/learning.md: ray start --head / --address)
    python examples/train_rllib.py --address 127.0.0.1:6379 --env-runners 2

    # one learner seat against three random seats stepped inside the batched numba env,
    # 64 games per env runner (RLlib's vectorised single-agent runners), until the greedy
    # policy wins 80% of the evaluation games
    python examples/train_rllib.py --vs random --env-runners 2 --target 0.8 --minutes 15

The checkpoint it saves loads as an arena agent:
    catan-arena --players rllib:path=results/rllib/selfplay,random,random,random

Needs the [rllib] extra, in its own environment (ray pins gymnasium 1.2.2):
    pip install torch==2.13.0 && pip install -e ".[rllib]"
"""
import argparse
import os
import time

import ray
from ray.tune.registry import register_env

from catan_env.agents.arena import WinRateCurve
from catan_env.wrappers.rllib import (SHARED_POLICY, export_policy, ppo_config, rllib_batched_env, rllib_env,
                                      single_agent_ppo_config)
from catan_env.cli import HelpFormatter

SINGLE_POLICY = "default_policy"  # RLlib's module id in a single-agent checkpoint


def parse_opponents(text):
    """'2=jsettlers,3=weighted' -> {2: 'jsettlers', 3: 'weighted'}."""
    out = {}
    for part in filter(None, (p.strip() for p in (text or "").split(","))):
        seat, _, spec = part.partition("=")
        if not spec:
            raise SystemExit(f"--opponents: {part!r} must look like SEAT=AGENT_SPEC")
        out[int(seat)] = spec
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--players", type=int, default=4, choices=(2, 3, 4), help="players per game")
    ap.add_argument("--opponents", default="", help="frozen seats: SEAT=SPEC,... played by our agents")
    ap.add_argument("--per-seat-policies", action="store_true",
                    help="one policy per learner seat (policy mapping) instead of one shared policy")
    ap.add_argument("--iterations", type=int, default=10, help="PPO training iterations")
    ap.add_argument("--env-runners", type=int, default=1, help="env-runner processes (0: in the driver)")
    ap.add_argument("--batch", type=int, default=4000, help="env steps per training iteration")
    ap.add_argument("--minibatch", type=int, default=512, help="SGD minibatch size")
    ap.add_argument("--epochs", type=int, default=4, help="passes over each train batch")
    ap.add_argument("--lr", type=float, default=3e-4, help="learning rate")
    ap.add_argument("--max-turns", type=int, default=200, help="turn cap per game")
    ap.add_argument("--vp-reward", type=float, default=0.05, help="reward per VP gained (shaping)")
    ap.add_argument("--hidden", type=int, nargs="*", default=[256, 256], help="hidden layer sizes of the policy and value MLPs")
    ap.add_argument("--vs", default=None,
                    help="train one learner seat against three opponents of this spec stepped inside the "
                         "batched env (RLlib's vectorised single-agent env runners) instead of the multi-agent env")
    ap.add_argument("--games-per-runner", type=int, default=64, help="games per env runner with --vs")
    ap.add_argument("--minutes", type=float, default=None, help="with --vs: training budget (evaluations excluded)")
    ap.add_argument("--target", type=float, default=None, help="with --vs: stop once the evaluation win rate reaches this")
    ap.add_argument("--eval-every", type=float, default=60.0, help="with --vs: seconds of training between evaluations")
    ap.add_argument("--eval-games", type=int, default=100, help="with --vs: games per evaluation (vs three random)")
    ap.add_argument("--eval-seed", type=int, default=2026, help="tournament seed of the evaluation games")
    ap.add_argument("--resume", action="store_true", help="with --vs: continue from the checkpoint in --out")
    ap.add_argument("--address", default=None,
                    help="Ray cluster address (default: $RAY_ADDRESS, else start a local Ray)")
    ap.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray (no --address)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the envs and the algorithm")
    ap.add_argument("--out", default="results/rllib/checkpoint", help="checkpoint folder")
    args = ap.parse_args(argv)

    if args.vs:
        return train_single(args)
    opponents = parse_opponents(args.opponents)
    env_config = {"players": args.players, "max_turns": args.max_turns, "vp_reward": args.vp_reward,
                  "opponents": opponents}
    learners = [f"player_{i}" for i in range(args.players) if i not in opponents]
    if args.per_seat_policies:
        policies = [f"learner_{a.split('_')[1]}" for a in learners]
        mapping = dict(zip(learners, policies))
    else:
        policies, mapping = [SHARED_POLICY], {}
    print(f"seats: learners {learners} -> policies {mapping or {a: SHARED_POLICY for a in learners}}; "
          f"frozen {opponents or 'none'}")

    start_ray(args)
    register_env("catan", rllib_env)
    config = (ppo_config("catan", env_config, policies=policies, policy_mapping=mapping,
                         model={"fcnet_hiddens": list(args.hidden)},
                         train_batch_size_per_learner=args.batch, minibatch_size=args.minibatch,
                         num_epochs=args.epochs, lr=args.lr)
              .env_runners(num_env_runners=args.env_runners)
              .debugging(seed=args.seed))
    algo = config.build_algo()
    runners = algo.env_runner_group.foreach_env_runner(lambda r: os.getpid(), local_env_runner=False)
    print(f"driver pid {os.getpid()}; env-runner pids {runners or '(in the driver)'}")

    start, steps = time.perf_counter(), 0
    for it in range(1, args.iterations + 1):
        result = algo.train()
        stats = result.get("env_runners", {})
        steps = int(result.get("num_env_steps_sampled_lifetime", stats.get("num_env_steps_sampled_lifetime", 0)))
        returns = stats.get("agent_episode_returns_mean", {})
        shown = ", ".join(f"{k} {v:+.2f}" for k, v in sorted(returns.items())) or "n/a"
        elapsed = time.perf_counter() - start
        print(f"iter {it:3d}  env steps {steps:8d}  {steps / elapsed:7.0f} steps/s  "
              f"episodes {int(stats.get('num_episodes_lifetime', 0)):5d}  "
              f"length {float(stats.get('episode_len_mean', float('nan'))):6.0f}  return {shown}", flush=True)

    path = algo.save(os.path.abspath(args.out)).checkpoint.path
    print(f"checkpoint: {path}")
    for p in policies:
        suffix = "" if p == SHARED_POLICY else f":policy={p}"
        print(f"arena agent: rllib:path={path}{suffix}")
    algo.stop()
    ray.shutdown()
    return path


def start_ray(args):
    address = args.address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)


def train_single(args):
    """One learner seat against three ``--vs`` seats inside the batched env; evaluated on
    the arena's seeded games every ``--eval-every`` seconds of training; stops at
    ``--target`` or after ``--minutes``.  Writes ``<out>/curve.csv``."""
    start_ray(args)
    register_env("catan_batched", rllib_batched_env)
    env_config = {"opponents": args.vs, "max_turns": args.max_turns, "vp_reward": args.vp_reward}
    config = (single_agent_ppo_config("catan_batched", env_config, model={"fcnet_hiddens": list(args.hidden)},
                                      envs_per_runner=args.games_per_runner,
                                      train_batch_size_per_learner=args.batch, minibatch_size=args.minibatch,
                                      num_epochs=args.epochs, lr=args.lr, gamma=0.999)
              .env_runners(num_env_runners=args.env_runners)
              .debugging(seed=args.seed))
    algo = config.build_algo()
    out = os.path.abspath(args.out)
    steps, trained, rate = 0, 0.0, 0.0
    state_file = os.path.join(out, "progress.txt")
    if args.resume and os.path.exists(state_file):
        algo.restore(out)
        with open(state_file) as f:
            steps, trained = int(f.readline()), float(f.readline())
        print(f"resumed at {steps} env steps ({trained / 60:.1f} min trained)")
    os.makedirs(out, exist_ok=True)
    curve = WinRateCurve(out, args.resume, args.eval_games, args.eval_seed)
    minutes = args.minutes if args.minutes is not None else float("inf")
    target = args.target if args.target is not None else float("inf")
    iterations = args.iterations if args.minutes is None and args.target is None else 10 ** 9
    next_eval = trained + args.eval_every
    it = 0
    while rate < target and trained < minutes * 60 and it < iterations:
        t0 = time.perf_counter()
        result = algo.train()
        trained += time.perf_counter() - t0
        it += 1
        steps = int(result.get("num_env_steps_sampled_lifetime", steps))
        ret = result.get("env_runners", {}).get("episode_return_mean", float("nan"))
        print(f"iter {it:3d}  env steps {steps:8d}  {steps / max(trained, 1e-9):7.0f} steps/s  "
              f"return {ret:+.2f}", flush=True)
        if trained >= next_eval or trained >= minutes * 60 or it >= iterations:
            next_eval = trained + args.eval_every
            algo.save(out)
            with open(state_file, "w") as f:
                f.write(f"{steps}\n{trained}\n")
            actor = export_policy(out, os.path.join(out, "actor.npz"), SINGLE_POLICY)
            rate = curve.evaluate(f"ppo:path={actor}", trained / 60, steps)
    curve.close()
    print(f"arena agents: rllib:path={out}:policy={SINGLE_POLICY} or ppo:path={out}/actor.npz (exported)")
    algo.stop()
    ray.shutdown()
    return {"rate": rate, "steps": steps, "minutes": trained / 60, "checkpoint": out}


if __name__ == "__main__":
    main()
