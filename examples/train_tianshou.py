"""Minimal multi-agent training on Tianshou 2: a masked DQN seat against random seats.

    pip install torch==2.13.0 && pip install -e ".[tianshou]"
    python examples/train_tianshou.py --epochs 5

Tianshou's own ``PettingZooEnv`` adapter reads our observation dict as it is (the
``action_mask`` becomes its ``mask``); its DQN policy pushes masked actions' Q-values below
every legal one, and ``MARLRandomDiscreteMaskedOffPolicyAlgorithm`` plays a random legal
move for the other seats.  Prints the learner's win rate and mean final VP against
random seats before and after training, over the same seeded test games.

A limit of Tianshou's multi-agent collector: each transition keeps the reward of the
step it belongs to, so a reward that reaches a seat during another seat's move (losing
the game, say) does not reach that seat's learning; the VP shaping (``--vp-reward``)
rewards the learner on its own moves.
"""
import argparse
import logging
import os

import numpy as np
import torch
from tianshou.algorithm import DQN, MARLRandomDiscreteMaskedOffPolicyAlgorithm, MultiAgentOffPolicyAlgorithm
from tianshou.algorithm.modelfree.dqn import DiscreteQLearningPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.data import Batch, Collector, VectorReplayBuffer
from tianshou.env import DummyVectorEnv, PettingZooEnv
from tianshou.trainer import OffPolicyTrainerParams
from tianshou.utils.net.common import Net

import catan_env
from catan_env.cli import HelpFormatter

# the collector's per-seat return matrix is summarised flattened, with a warning each time
logging.getLogger("tianshou.data.stats").setLevel(logging.ERROR)


def make_env(players, max_turns, vp_reward, trade):
    return PettingZooEnv(catan_env.env(players=players, max_turns=max_turns, vp_reward=vp_reward,
                                       domestic_trade=trade))


def evaluate(policy, players, max_turns, trade, games, seed):
    """The learner (seat 0, greedy) against random legal moves over seeded test games:
    (win rate, mean final VP)."""
    policy.eval()
    rng = np.random.default_rng(seed)
    wins, vps = 0, []
    for g in range(games):
        env = make_env(players, max_turns, 0.0, trade)
        obs, _ = env.reset(seed=seed + g)
        while True:
            mask = np.asarray(obs["mask"], dtype=bool)
            if obs["agent_id"] == "player_0":
                batch = Batch(obs=Batch(obs=np.asarray(obs["obs"])[None], mask=mask[None]), info={})
                action = int(policy(batch).act[0])
            else:
                action = int(rng.choice(np.flatnonzero(mask)))
            obs, _, term, trunc, _ = env.step(action)
            if term or trunc:
                break
        stats = env.env.game_stats()
        wins += stats["winner"] == 0
        vps.append(stats["vp"][0])
    return wins / games, float(np.mean(vps))


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--players", type=int, default=2, choices=(2, 3, 4), help="players per game")
    ap.add_argument("--max-turns", type=int, default=150, help="turn cap per game")
    ap.add_argument("--vp-reward", type=float, default=0.1, help="reward per VP gained (shaping)")
    ap.add_argument("--trade", action="store_true", help="allow domestic trade (off: a smaller game)")
    ap.add_argument("--epochs", type=int, default=5, help="training epochs")
    ap.add_argument("--steps-per-epoch", type=int, default=5000, help="env steps collected per epoch")
    ap.add_argument("--envs", type=int, default=4, help="parallel training envs")
    ap.add_argument("--hidden", type=int, nargs="*", default=[256, 256], help="hidden layer sizes of the Q network")
    ap.add_argument("--lr", type=float, default=1e-4, help="Adam learning rate")
    ap.add_argument("--test-games", type=int, default=40, help="seeded test games before and after training")
    ap.add_argument("--seed", type=int, default=0, help="seed of the envs and torch")
    ap.add_argument("--out", default="results/tianshou/dqn.pt", help="where the trained policy is saved")
    args = ap.parse_args(argv)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)

    env = make_env(args.players, args.max_turns, args.vp_reward, args.trade)
    obs_size = env.observation_space["observation"].shape[0]
    net = Net(state_shape=obs_size, action_shape=env.action_space.n, hidden_sizes=args.hidden)
    policy = DiscreteQLearningPolicy(model=net, action_space=env.action_space, eps_training=0.1)
    learner = DQN(policy=policy, optim=AdamOptimizerFactory(lr=args.lr), gamma=0.99,
                  n_step_return_horizon=3, target_update_freq=320)
    others = [MARLRandomDiscreteMaskedOffPolicyAlgorithm(action_space=env.action_space)
              for _ in range(args.players - 1)]
    algorithm = MultiAgentOffPolicyAlgorithm(algorithms=[learner, *others], env=env)

    test = (args.players, args.max_turns, args.trade, args.test_games, 10_000 + args.seed)
    before = evaluate(policy, *test)
    print(f"before training: learner won {before[0]:.0%} of {args.test_games} test games, "
          f"mean VP {before[1]:.2f}")

    train_envs = DummyVectorEnv([lambda: make_env(args.players, args.max_turns, args.vp_reward, args.trade)
                                 for _ in range(args.envs)])
    train_envs.seed(args.seed)
    collector = Collector(algorithm, train_envs, VectorReplayBuffer(50_000, args.envs), exploration_noise=True)
    collector.reset()
    result = algorithm.run_training(OffPolicyTrainerParams(
        training_collector=collector, max_epochs=args.epochs, epoch_num_steps=args.steps_per_epoch,
        collection_step_num_env_steps=64, update_step_num_gradient_steps_per_sample=0.25, batch_size=64,
        multi_agent_return_reduction=lambda returns: returns[:, 0], verbose=True, show_progress=False,
        test_in_training=False))
    train_envs.close()
    print(f"trained {result.timing.total_time:.0f} s, {result.train_step} env steps")

    after = evaluate(policy, *test)
    print(f"after training: learner won {after[0]:.0%} of {args.test_games} test games, "
          f"mean VP {after[1]:.2f}")
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    torch.save(policy.state_dict(), args.out)
    print(f"saved the learner's Q-network to {args.out}")
    return {"before": before, "after": after, "policy": policy, "env_steps": result.train_step}


if __name__ == "__main__":
    main()
