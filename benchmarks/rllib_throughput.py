"""RLlib env steps/s on this machine, with 0 (sampling in the driver), 1 and 2 env-runner
processes, for three env paths (``--envs``):

- ``multi``: the turn-based multi-agent env (one shared masked policy, four seats), one
  game per env runner;
- ``sync``: one learner seat against three random seats inside ``catan_env/Catan-v0``,
  ``--games`` of them per env runner in gymnasium's sync vector env;
- ``batched``: the same seat and opponents, ``--games`` games per env runner stepped in
  one numba call (``CatanBatchedVectorEnv``, RLlib's ``vector_entry_point`` mode).

Two figures per setting, both ending in ``steps/s``:

- sampling: every env runner samples ``--sample-steps`` env steps at once (the policy's
  forward pass included, no learning);
- training: env steps per second of whole ``algo.train()`` iterations (sampling plus
  the PPO update on the learner, ``--batch`` steps per iteration).

Needs the [rllib] extra.  Usage: python benchmarks/rllib_throughput.py [--runners 0,1,2] [--envs multi,sync,batched]
"""
import argparse
import time

import ray
from ray.tune.registry import register_env

from catan_env.wrappers.rllib import ppo_config, rllib_batched_env, rllib_env, rllib_single_env, single_agent_ppo_config
from catan_env.cli import HelpFormatter


def make_config(envs, runners, batch, games):
    training = {"train_batch_size_per_learner": batch, "minibatch_size": 500, "num_epochs": 1}
    if envs == "multi":
        return (ppo_config("catan", {"players": 4, "max_turns": 200}, **training)
                .env_runners(num_env_runners=runners, num_envs_per_env_runner=1))
    name = "catan_batched" if envs == "batched" else "catan_single"
    return (single_agent_ppo_config(name, {"opponents": "random" if envs == "batched" else ["random"] * 3,
                                           "max_turns": 200}, envs_per_runner=games,
                                    batched=envs == "batched", **training)
            .env_runners(num_env_runners=runners))


def measure(envs, runners, batch, iterations, sample_steps, games):
    config = make_config(envs, runners, batch, games)
    algo = config.build_algo()
    algo.train()  # warm-up: numba caches, torch, connectors
    group = algo.env_runner_group
    local = runners == 0
    t0 = time.perf_counter()
    sampled = group.foreach_env_runner(
        lambda r: sum(len(e) for e in r.sample(num_timesteps=sample_steps)), local_env_runner=local)
    sample_rate = sum(sampled) / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    before = algo.train()["num_env_steps_sampled_lifetime"]
    for _ in range(iterations - 1):
        after = algo.train()["num_env_steps_sampled_lifetime"]
    train_rate = (after - before + batch) / (time.perf_counter() - t0) if iterations > 1 else float("nan")
    algo.stop()
    return sample_rate, train_rate


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--runners", default="0,1,2", help="env-runner counts to measure, comma-separated")
    ap.add_argument("--batch", type=int, default=4000, help="train batch size")
    ap.add_argument("--iterations", type=int, default=3, help="training iterations per measurement")
    ap.add_argument("--sample-steps", type=int, default=4000, help="env steps per sampling measurement")
    ap.add_argument("--envs", default="multi,sync,batched", help="env paths to measure, comma-separated")
    ap.add_argument("--games", type=int, default=64, help="games per env runner (sync and batched)")
    args = ap.parse_args()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    register_env("catan", rllib_env)
    register_env("catan_single", rllib_single_env)
    register_env("catan_batched", rllib_batched_env)
    for envs in args.envs.split(","):
        for runners in (int(r) for r in args.runners.split(",")):
            sample_rate, train_rate = measure(envs, runners, args.batch, args.iterations, args.sample_steps,
                                              args.games)
            where = "in the driver" if runners == 0 else f"{runners} env runner{'s' * (runners > 1)}"
            print(f"RLlib sampling, {envs} env, {where}: {sample_rate:,.0f} steps/s")
            print(f"RLlib training iterations, {envs} env, {where}: {train_rate:,.0f} steps/s", flush=True)
    ray.shutdown()


if __name__ == "__main__":
    main()
