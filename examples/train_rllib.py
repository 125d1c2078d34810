"""Multi-agent PPO with action masking on RLlib (new API stack), locally or on a Ray cluster.

    # one shared masked policy for every seat (self-play), two env-runner processes
    python examples/train_rllib.py --iterations 20 --env-runners 2 --out results/rllib/selfplay

    # policy mapping: seats 0 and 1 learn (their own policies), seats 2 and 3 are
    # frozen JSettlers-style robots played inside the env by our agents
    python examples/train_rllib.py --opponents 2=jsettlers,3=jsettlers --per-seat-policies

    # on a running Ray cluster (see the README: ray start --head / --address)
    python examples/train_rllib.py --address 127.0.0.1:6379 --env-runners 2

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

from catan_env.wrappers.rllib import SHARED_POLICY, ppo_config, rllib_env
from catan_env.cli import HelpFormatter


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
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
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
    ap.add_argument("--address", default=None,
                    help="Ray cluster address (default: $RAY_ADDRESS, else start a local Ray)")
    ap.add_argument("--num-cpus", type=int, default=None, help="CPUs of the local Ray (no --address)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the envs and the algorithm")
    ap.add_argument("--out", default="results/rllib/checkpoint", help="checkpoint folder")
    args = ap.parse_args(argv)

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

    address = args.address or os.environ.get("RAY_ADDRESS")
    if address:
        ray.init(address=address)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False)
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


if __name__ == "__main__":
    main()
