"""Behaviour cloning of the JSettlers-style robot: a warm start for PPO against it.

    python examples/clone_jsettlers.py --games 1000 --out runs/bc
    python examples/train_ppo_batched.py --init runs/bc/agent.pt --opponents jsettlers --out runs/ft

1. Data: games of four JSettlersAgents (seats' decisions with at least two legal
   actions; a sampled share of them), each stored as the deciding seat's observation
   (float16), its legal mask (packed bits), the robot's action and the game's outcome
   for that seat (+1 win, -1 otherwise).  Written to ``<out>/data.npz``; an existing file
   is reused (delete it to regenerate).
2. Training: the PPO script's actor learns the robot's moves (masked cross-entropy) and
   its critic the outcome (mean squared error), so PPO starts from a policy that plays
   like the robot and a value function that already knows who is winning.
``<out>/agent.pt`` loads with ``train_ppo_batched.py --init``; ``<out>/actor.npz`` plays in
the arena as ``ppo:path=<out>/actor.npz``.
"""
import argparse
import os
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

from catan_env.agents.arena import play_game, wilson
from catan_env.learned.mlp import from_torch
from catan_env.core.actions import N_ACTIONS
from catan_env.cli import HelpFormatter

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_ppo_batched import Agent, evaluate  # noqa: E402  (same networks, same evaluation)


def parse_args(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    p.add_argument("--games", type=int, default=1000, help="robot games to record")
    p.add_argument("--keep", type=float, default=0.6, help="share of decisions kept")
    p.add_argument("--teacher", default="jsettlers", help="agent spec of the robot to clone")
    p.add_argument("--epochs", type=int, default=6, help="passes over the recorded decisions")
    p.add_argument("--batch", type=int, default=1024, help="minibatch size")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate")
    p.add_argument("--hidden", type=int, default=256, help="width of the two hidden layers (as train_ppo_batched.py)")
    p.add_argument("--eval-games", type=int, default=60, help="games vs 3 teachers at the end")
    p.add_argument("--seed", type=int, default=0, help="seed of the games and of torch")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--out", default="runs/bc", help="folder for the data, agent.pt and actor.npz")
    return p.parse_args(argv)


def record_games(args):
    """(obs float16, packed masks, actions, outcomes) from teacher self-play."""
    rng = np.random.default_rng(args.seed)
    obs, masks, actions, seats_games, winners = [], [], [], [], []
    start = time.time()
    for g in range(args.games):
        def keep(seat, o, a, infoset, g=g):
            if o["action_mask"].sum() >= 2 and rng.random() < args.keep:
                obs.append(o["observation"].astype(np.float16))
                masks.append(np.packbits(o["action_mask"].astype(bool)))
                actions.append(a)
                seats_games.append((seat, g))
        result = play_game([args.teacher] * 4, seed=args.seed * 100_003 + g, on_decision=keep)
        winners.append(result["winner"])
        if (g + 1) % 100 == 0:
            print(f"  {g + 1} games, {len(actions)} decisions, {time.time() - start:.0f} s", flush=True)
    outcome = np.array([1.0 if winners[g] == seat else -1.0 for seat, g in seats_games], np.float32)
    return np.stack(obs), np.stack(masks), np.array(actions, np.int64), outcome


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    data = os.path.join(args.out, "data.npz")
    if os.path.exists(data):
        with np.load(data) as z:
            obs, masks, actions, outcome = z["obs"], z["masks"], z["actions"], z["outcome"]
        print(f"reusing {data}: {len(actions)} decisions")
    else:
        t = time.time()
        obs, masks, actions, outcome = record_games(args)
        np.savez(data, obs=obs, masks=masks, actions=actions, outcome=outcome)
        print(f"recorded {len(actions)} decisions of {args.games} games in {time.time() - t:.0f} s")

    agent = Agent(args.hidden)
    opt = torch.optim.Adam(agent.parameters(), lr=args.lr)
    n = len(actions)
    held = np.arange(n) >= int(n * 0.95)  # the last 5% (the last games) for validation
    train_idx, val_idx = np.flatnonzero(~held), np.flatnonzero(held)

    def batch(idx):
        x = torch.as_tensor(obs[idx].astype(np.float32))
        m = torch.as_tensor(np.unpackbits(masks[idx], axis=1)[:, :N_ACTIONS].astype(bool))
        return x, m, torch.as_tensor(actions[idx]), torch.as_tensor(outcome[idx])

    t = time.time()
    for epoch in range(args.epochs):
        np.random.default_rng(epoch).shuffle(train_idx)
        for k in range(0, len(train_idx), args.batch):
            x, m, a, z = batch(train_idx[k:k + args.batch])
            logits = agent.actor(x).masked_fill(~m, -1e8)
            loss = F.cross_entropy(logits, a) + 0.5 * F.mse_loss(agent.value(x), z)
            opt.zero_grad()
            loss.backward()
            opt.step()
        with torch.no_grad():
            x, m, a, z = batch(val_idx)
            logits = agent.actor(x).masked_fill(~m, -1e8)
            acc = (logits.argmax(-1) == a).float().mean().item()
            vloss = F.mse_loss(agent.value(x), z).item()
        print(f"epoch {epoch + 1}: held-out move agreement {acc:.1%}, value MSE {vloss:.3f} "
              f"({time.time() - t:.0f} s)", flush=True)

    from_torch(agent.actor).save(os.path.join(args.out, "actor.npz"))
    torch.save({"agent": agent.state_dict(), "step": 0, "elapsed": 0.0}, os.path.join(args.out, "agent.pt"))
    if args.eval_games:
        wins, games = evaluate(agent, args.teacher, args.eval_games, 10 ** 9 + 7, 400)
        lo, hi = wilson(wins, games)
        print(f"clone vs 3 {args.teacher}: {wins}/{games} = {wins / games:.1%} (95% CI {lo:.1%}-{hi:.1%})")
    print(f"saved {args.out}/agent.pt and {args.out}/actor.npz")


if __name__ == "__main__":
    main()
