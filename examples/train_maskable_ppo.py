"""Train sb3-contrib's MaskablePPO on one seat against three random opponents.

    pip install torch==2.13.0 && pip install -e ".[rl]"
    python examples/train_maskable_ppo.py --timesteps 200000

The learner sees the seat-relative vector observation; illegal actions are masked via
the env's ``action_masks()``.  At the end the policy is evaluated over a few games
against the same opponents and its win rate printed (25% is parity with random).
"""
import argparse
from dataclasses import dataclass

import gymnasium

import catan_env  # noqa: F401  (registers catan_env/Catan-v0)


@dataclass
class Args:
    timesteps: int = 200_000      # learner steps to train for
    eval_games: int = 50          # games to evaluate the final policy on
    seed: int = 0                 # seed for the env and the learner
    vp_reward: float = 0.05       # VP-difference shaping (0 for the pure win/loss signal)


def make_env(args):
    return gymnasium.make("catan_env/Catan-v0", opponents=["random"] * 3, vp_reward=args.vp_reward,
                          max_turns=300)


def evaluate(model, env, games, seed):
    wins = 0
    for g in range(games):
        obs, info = env.reset(seed=seed + g)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
            obs, reward, term, trunc, info = env.step(int(action))
            done = term or trunc
        wins += int(info["winner"] == info["learner_seat"])
    return wins / games


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    for name, default in Args.__dataclass_fields__.items():
        ap.add_argument(f"--{name.replace('_', '-')}", type=type(default.default), default=default.default)
    args = Args(**vars(ap.parse_args()))
    from sb3_contrib import MaskablePPO
    env = make_env(args)
    model = MaskablePPO("MlpPolicy", env, seed=args.seed, n_steps=512, batch_size=128, verbose=0)
    model.learn(total_timesteps=args.timesteps)
    rate = evaluate(model, env, args.eval_games, seed=10_000)
    print(f"MaskablePPO after {args.timesteps} steps: win rate {rate:.2%} vs 3 random opponents "
          f"over {args.eval_games} games")
    return rate


if __name__ == "__main__":
    main()
