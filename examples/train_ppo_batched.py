"""PPO with action masking on the batched numba env, in one readable file (CleanRL style).

    pip install torch==2.13.0 && pip install -e ".[rl]"
    python examples/train_ppo_batched.py --minutes 10 --out runs/ppo_batched

One learner seat per game (random each episode) against opponents stepped inside numba.
``--opponents`` is the starting pool ("random", "weighted", "pruning", "jsettlers", or a
comma list); ``--self-play`` adds a frozen snapshot of the policy to the pool every
``--snapshot-every`` updates (exported to numba, so snapshots play at numba speed), the
newest snapshots drawn most, beside the anchors of ``--opponents``.
Every ``--eval-every`` seconds the greedy policy plays ``--eval-games`` fresh games
against three random and three weighted opponents (and JSettlers with
``--eval-jsettlers``); lines go to stdout and ``<out>/curve.csv``.  The policy is saved as
``<out>/actor.npz`` (numpy arrays: loads without torch as the arena agent
``ppo:path=<out>/actor.npz``) and ``<out>/agent.pt``; ``--resume`` continues from it.
"""
import argparse
import csv
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn

from catan_env.agents.arena import wilson, win_rate
from catan_env.batched import BatchedCatan, snapshot_pool
from catan_env.learned.mlp import from_torch
from catan_env.core.actions import N_ACTIONS
from catan_env.core.observe import VECTOR_SIZE
from catan_env.cli import HelpFormatter


def parse_args(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    p.add_argument("--minutes", type=float, default=10.0, help="wall-clock training budget")
    p.add_argument("--total-steps", type=int, default=10 ** 12, help="learner-step budget")
    p.add_argument("--num-envs", type=int, default=64, help="games stepped per numba call")
    p.add_argument("--num-steps", type=int, default=128, help="rollout length per env")
    p.add_argument("--lr", type=float, default=3e-4, help="Adam learning rate")
    p.add_argument("--gamma", type=float, default=0.999, help="discount")
    p.add_argument("--gae-lambda", type=float, default=0.95, help="GAE lambda")
    p.add_argument("--epochs", type=int, default=4, help="passes over each rollout")
    p.add_argument("--minibatches", type=int, default=4, help="minibatches per pass")
    p.add_argument("--clip", type=float, default=0.2, help="PPO clip range")
    p.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus")
    p.add_argument("--vf-coef", type=float, default=0.5, help="value-loss weight")
    p.add_argument("--max-grad-norm", type=float, default=0.5, help="gradient clipping norm")
    p.add_argument("--hidden", type=int, default=256, help="width of the 2-layer actor and critic")
    p.add_argument("--vp-reward", type=float, default=0.05, help="VP-difference shaping")
    p.add_argument("--max-turns", type=int, default=400, help="turn cap (a capped game is truncated and bootstrapped)")
    p.add_argument("--opponents", default="random", help="comma list of anchors for the pool")
    p.add_argument("--self-play", action="store_true", help="add policy snapshots to the pool")
    p.add_argument("--snapshot-every", type=int, default=20, help="updates between snapshots")
    p.add_argument("--pool-size", type=int, default=8, help="snapshots kept in the pool")
    p.add_argument("--anchor-weight", type=float, default=0.5, help="pool share of the anchors")
    p.add_argument("--eval-every", type=float, default=60.0, help="seconds between evaluations")
    p.add_argument("--eval-games", type=int, default=200, help="games per opponent at each evaluation")
    p.add_argument("--eval-jsettlers", type=int, default=0, help="games vs 3 JSettlers per eval")
    p.add_argument("--target", type=float, default=float("inf"), help="stop once the win rate vs random reaches this")
    p.add_argument("--arena-eval-seed", type=int, default=None,
                   help="evaluate on the arena's seeded games (catan_env.agents.arena.win_rate) instead of fresh numba games")
    p.add_argument("--seed", type=int, default=1, help="seed of the games and of torch")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    p.add_argument("--out", default="runs/ppo_batched", help="folder for curve.csv, agent.pt and actor.npz")
    p.add_argument("--resume", action="store_true", help="continue from <out>/agent.pt")
    p.add_argument("--init", help="start from another run's agent.pt, or a folder with actor.npz and critic.npz "
                                   "(a cloned policy: examples/distill_policy.py)")
    return p.parse_args(argv)


class Agent(nn.Module):
    """Separate actor and critic MLPs over the flat observation; the actor is a plain
    Sequential so that it exports to numba (``from_torch``)."""

    def __init__(self, hidden):
        super().__init__()
        self.actor = nn.Sequential(nn.Linear(VECTOR_SIZE, hidden), nn.ReLU(),
                                   nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, N_ACTIONS))
        self.critic = nn.Sequential(nn.Linear(VECTOR_SIZE, hidden), nn.ReLU(),
                                    nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))
        nn.init.orthogonal_(self.actor[-1].weight, 0.01)
        nn.init.orthogonal_(self.critic[-1].weight, 1.0)

    def value(self, obs):
        return self.critic(obs).squeeze(-1)

    def dist(self, obs, mask):
        logits = self.actor(obs).masked_fill(~mask, -1e8)
        return torch.distributions.Categorical(logits=logits)


@torch.no_grad()
def evaluate(agent, opponents, games, seed, max_turns):
    """Greedy policy vs three `opponents`, one fresh game per slot (seats random):
    returns (wins, games)."""
    env = BatchedCatan(games, opponents=opponents, seed=seed, skip_forced=True, max_turns=max_turns)
    obs, masks = env.reset(seed=seed)
    result = np.full(games, -1)
    while (result < 0).any():
        logits = agent.actor(torch.as_tensor(obs)).masked_fill(~torch.as_tensor(masks), -1e8)
        obs, _, term, trunc, masks = env.step(logits.argmax(-1).numpy())
        for i, st in env.episode_stats().items():
            if result[i] < 0:
                result[i] = int(st["won"])
    return int(result.sum()), games


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    anchors = [a.strip() for a in args.opponents.split(",") if a.strip()]
    snapshots = []

    envs = BatchedCatan(args.num_envs, opponents=snapshot_pool(anchors, snapshots, args.anchor_weight),
                        skip_forced=True, vp_reward=args.vp_reward, max_turns=args.max_turns,
                        seed=args.seed)
    agent = Agent(args.hidden)
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    step, elapsed_before = 0, 0.0
    if args.init and os.path.isdir(args.init):
        from catan_env.learned.mlp import MLPWeights, load_into
        load_into(agent.actor, MLPWeights.load(os.path.join(args.init, "actor.npz")), "actor")
        load_into(agent.critic, MLPWeights.load(os.path.join(args.init, "critic.npz")), "critic")
        print(f"initialised from the exported actor and critic in {args.init}")
    elif args.init:
        agent.load_state_dict(torch.load(args.init)["agent"])
        print(f"initialised from {args.init}")
    if args.resume and os.path.exists(os.path.join(args.out, "agent.pt")):
        ckpt = torch.load(os.path.join(args.out, "agent.pt"))
        agent.load_state_dict(ckpt["agent"])
        optimizer.load_state_dict(ckpt["optimizer"])
        step, elapsed_before = ckpt["step"], ckpt["elapsed"]
        print(f"resumed at step {step} ({elapsed_before / 60:.1f} min trained)")

    T, N = args.num_steps, args.num_envs
    obs_buf = torch.zeros((T, N, VECTOR_SIZE))
    mask_buf = torch.zeros((T, N, N_ACTIONS), dtype=torch.bool)
    act_buf = torch.zeros((T, N), dtype=torch.long)
    logp_buf, rew_buf, done_buf, val_buf = (torch.zeros((T, N)) for _ in range(4))

    curve_path = os.path.join(args.out, "curve.csv")
    new_curve = not (args.resume and os.path.exists(curve_path))
    curve = open(curve_path, "w" if new_curve else "a", newline="")
    writer = csv.writer(curve)
    if new_curve:
        writer.writerow(["minutes", "steps", "opponent", "wins", "games", "win_rate", "lo", "hi"])

    def run_eval(minutes):
        tests = [("random", args.eval_games), ("weighted", args.eval_games)]
        if args.eval_jsettlers:
            tests.append(("jsettlers", args.eval_jsettlers))
        rates = {}
        for opp, games in tests:
            if args.arena_eval_seed is not None:  # the arena's seeded games, as the other libraries' curves
                from_torch(agent.actor).save(os.path.join(args.out, "actor.npz"))
                res = win_rate(f"ppo:path={os.path.join(args.out, 'actor.npz')}", opp, games,
                               seed=args.arena_eval_seed)
                wins, n = res["wins"], res["games"]
            else:
                wins, n = evaluate(agent, opp, games, 10 ** 9 + 7, args.max_turns)
            rates[opp] = wins / n
            lo, hi = wilson(wins, n)
            writer.writerow([f"{minutes:.2f}", step, opp, wins, n, f"{wins / n:.3f}", f"{lo:.3f}", f"{hi:.3f}"])
            print(f"  eval vs 3 {opp}: {wins}/{n} = {wins / n:.1%} (95% CI {lo:.1%}-{hi:.1%})", flush=True)
        curve.flush()
        return rates["random"]

    rate = 0.0
    if not args.resume or step == 0:
        rate = run_eval(elapsed_before / 60)  # where the curve starts
    obs, masks = envs.reset(seed=args.seed)
    obs, masks = torch.as_tensor(obs.copy()), torch.as_tensor(masks.copy())
    start = time.time()
    next_eval = args.eval_every
    episodes, recent = 0, []
    update = 0
    while (step < args.total_steps and elapsed_before + time.time() - start < args.minutes * 60
           and rate < args.target):
        # ---- rollout: T steps of every game
        for t in range(T):
            obs_buf[t], mask_buf[t] = obs, masks
            with torch.no_grad():
                dist = agent.dist(obs, masks)
                action = dist.sample()
                logp_buf[t], val_buf[t] = dist.log_prob(action), agent.value(obs)
            act_buf[t] = action
            o, r, term, trunc, m = envs.step(action.numpy())
            r = torch.as_tensor(r, dtype=torch.float32)
            if trunc.any():  # bootstrap a cut-off game from its last observation's value
                idx = np.flatnonzero(trunc)
                with torch.no_grad():
                    final = torch.as_tensor(envs.final_obs[idx, 0])
                    r[idx] += args.gamma * agent.value(final)
            rew_buf[t] = r
            done_buf[t] = torch.as_tensor(term | trunc, dtype=torch.float32)
            for st in envs.episode_stats().values():
                recent = (recent + [st["won"]])[-200:]
                episodes += 1
            obs, masks = torch.as_tensor(o.copy()), torch.as_tensor(m.copy())
        step += T * N

        # ---- advantages (GAE); done_buf[t] = the game ended at step t
        with torch.no_grad():
            next_value = agent.value(obs)
            adv = torch.zeros((T, N))
            last = torch.zeros(N)
            for t in reversed(range(T)):
                nv = next_value if t == T - 1 else val_buf[t + 1]
                live = 1.0 - done_buf[t]
                delta = rew_buf[t] + args.gamma * nv * live - val_buf[t]
                last = delta + args.gamma * args.gae_lambda * live * last
                adv[t] = last
            ret = adv + val_buf

        # ---- PPO update
        b_obs, b_mask = obs_buf.reshape(-1, VECTOR_SIZE), mask_buf.reshape(-1, N_ACTIONS)
        b_act, b_logp = act_buf.reshape(-1), logp_buf.reshape(-1)
        b_adv, b_ret = adv.reshape(-1), ret.reshape(-1)
        batch = T * N
        mb = batch // args.minibatches
        for _ in range(args.epochs):
            perm = torch.randperm(batch)
            for k in range(0, batch, mb):
                j = perm[k:k + mb]
                dist = agent.dist(b_obs[j], b_mask[j])
                ratio = (dist.log_prob(b_act[j]) - b_logp[j]).exp()
                a = b_adv[j]
                a = (a - a.mean()) / (a.std() + 1e-8)
                pg_loss = torch.max(-a * ratio, -a * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                v_loss = 0.5 * ((agent.value(b_obs[j]) - b_ret[j]) ** 2).mean()
                entropy = dist.entropy().mean()
                loss = pg_loss - args.ent_coef * entropy + args.vf_coef * v_loss
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        update += 1

        # ---- self-play pool
        if args.self_play and update % args.snapshot_every == 0:
            snapshots = (snapshots + [from_torch(agent.actor)])[-args.pool_size:]
            envs.set_opponents(snapshot_pool(anchors, snapshots, args.anchor_weight))

        minutes = (elapsed_before + time.time() - start) / 60
        sps = step / max(elapsed_before + time.time() - start, 1e-9)
        win = np.mean(recent) if recent else float("nan")
        print(f"{minutes:6.2f} min  step {step:>9d}  {sps:7.0f} steps/s  episodes {episodes:>6d}  "
              f"train win rate (last 200) {win:.2f}  entropy {entropy.item():.2f}  "
              f"value loss {v_loss.item():.3f}  pool {len(snapshots)}", flush=True)
        if time.time() - start >= next_eval:
            next_eval += args.eval_every
            eval_start = time.time()
            rate = run_eval(minutes)
            start += time.time() - eval_start  # evaluations do not count as training time
            save(agent, optimizer, step, elapsed_before + time.time() - start, args)

    minutes = (elapsed_before + time.time() - start) / 60
    save(agent, optimizer, step, elapsed_before + time.time() - start, args)
    if rate < args.target:
        run_eval(minutes)
    curve.close()
    print(f"saved {args.out}/actor.npz (arena agent: ppo:path={args.out}/actor.npz)")


def save(agent, optimizer, step, elapsed, args):
    """actor.npz (numpy, for the arena and numba opponents) and agent.pt (to resume)."""
    from_torch(agent.actor).save(os.path.join(args.out, "actor.npz"))
    torch.save({"agent": agent.state_dict(), "optimizer": optimizer.state_dict(), "step": step,
                "elapsed": elapsed}, os.path.join(args.out, "agent.pt"))
    with open(os.path.join(args.out, "args.json"), "w") as f:
        json.dump(vars(args), f, indent=1)


if __name__ == "__main__":
    main()
