"""Masked PPO on Tianshou 2, each seat learning from its own transitions.

    pip install torch==2.13.0 && pip install -e ".[tianshou]"
    python examples/train_tianshou.py --minutes 15 --target 0.8 --out runs/tianshou

One learner seat per game (drawn each game) against three random seats, 16 games at a
time (``--opponents``: any agent spec, or a comma list drawn per seat and game, with
``--self-play-every`` adding frozen snapshots of the policy to that pool as SB3's
league does; ``--init runs/bc`` starts actor and critic from a
cloned policy, step 3 of docs/rl-recipe.md).  ``PerSeatCollector`` stores the learner's transitions from one of its decisions to
its next (rewards received on other seats' moves included, the same seat's next
observation as ``obs_next``), so Tianshou's GAE follows one seat; ``--learners all``
makes every seat a learner (shared-policy self-play).  PPO rather than DQN: the masked
policy gradient is what learns here (the single-file batched PPO beats random in a
minute); DQN's 432-way Q-values learn far slower from these sparse rewards.

Every ``--eval-every`` seconds the greedy policy (exported to ``<out>/actor.npz``, the
arena agent ``ppo:path=<out>/actor.npz``) plays ``--eval-games`` seat-randomised games
against three random agents (``catan_env.agents.arena.win_rate``; the same games for
every library in ``benchmarks/rl_libraries.py``); training stops at ``--target`` or
after ``--minutes``.  Lines go to stdout and ``<out>/curve.csv``; ``--resume`` continues.
"""
import argparse
import os
import time

import torch
from tianshou.algorithm import PPO
from tianshou.algorithm.modelfree.reinforce import DiscreteActorPolicy
from tianshou.algorithm.optim import AdamOptimizerFactory
from tianshou.utils.torch_utils import policy_within_training_step

from catan_env.agents.arena import WinRateCurve
from catan_env.batched import snapshot_pool
from catan_env.learned.mlp import from_torch
from catan_env.cli import HelpFormatter
from catan_env.wrappers.per_seat import PerSeatGames
from catan_env.wrappers.tianshou import ACTION_SPACE, MaskedActor, MaskedCritic, PerSeatCollector


def parse_args(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--minutes", type=float, default=15.0, help="wall-clock training budget (evaluations excluded)")
    ap.add_argument("--target", type=float, default=0.8, help="stop once the evaluation win rate reaches this")
    ap.add_argument("--games", type=int, default=16, help="games played at a time")
    ap.add_argument("--learners", default="random", help="'random' (one learner seat per game) or 'all' (self-play)")
    ap.add_argument("--opponents", default="random",
                    help="agent spec of the other seats; a comma list is a pool each seat is drawn from per game")
    ap.add_argument("--self-play-every", type=int, default=0,
                    help=">0: every this many learner steps a frozen snapshot of the policy joins the pool "
                         "(the newest --pool-size, drawn by recency, beside the --opponents anchors)")
    ap.add_argument("--pool-size", type=int, default=8, help="snapshots kept in the self-play pool")
    ap.add_argument("--anchor-weight", type=float, default=0.5,
                    help="share of the draws the --opponents anchors keep once snapshots join")
    ap.add_argument("--steps-per-update", type=int, default=4096, help="learner transitions per PPO update")
    ap.add_argument("--repeat", type=int, default=4, help="passes over each batch")
    ap.add_argument("--batch-size", type=int, default=1024, help="minibatch size")
    ap.add_argument("--lr", type=float, default=3e-4, help="Adam learning rate")
    ap.add_argument("--gamma", type=float, default=0.999, help="discount")
    ap.add_argument("--vp-reward", type=float, default=0.05, help="VP-difference shaping")
    ap.add_argument("--max-turns", type=int, default=400, help="turn cap (a capped game is truncated)")
    ap.add_argument("--hidden", type=int, nargs="*", default=[256, 256], help="hidden layers of actor and critic")
    ap.add_argument("--eval-every", type=float, default=60.0, help="seconds of training between evaluations")
    ap.add_argument("--eval-games", type=int, default=100, help="games per evaluation (vs three random)")
    ap.add_argument("--eval-seed", type=int, default=2026, help="tournament seed of the evaluation games")
    ap.add_argument("--seed", type=int, default=1, help="seed of the games and of torch")
    ap.add_argument("--threads", type=int, default=1, help="torch threads")
    ap.add_argument("--out", default="runs/tianshou", help="folder for curve.csv, actor.npz and agent.pt")
    ap.add_argument("--resume", action="store_true", help="continue from <out>/agent.pt")
    ap.add_argument("--init", help="start from a folder with actor.npz and critic.npz (a cloned policy: "
                                   "examples/distill_policy.py)")
    ap.add_argument("--ent-coef", type=float, default=0.01, help="entropy bonus (fine-tuning a cloned policy: 0)")
    ap.add_argument("--clip", type=float, default=0.2, help="PPO clip range (fine-tuning a cloned policy: 0.1)")
    ap.add_argument("--eval-opponent", default="random", help="the three opponents of the evaluation games")
    return ap.parse_args(argv)


def league_anchors(args):
    """The --opponents specs: the league's anchors (one alone: every opponent seat)."""
    return [a.strip() for a in args.opponents.split(",") if a.strip()]


def build(args):
    """The PPO algorithm (masked actor, critic) and the per-seat collector."""
    actor, critic = MaskedActor(args.hidden), MaskedCritic(args.hidden)
    policy = DiscreteActorPolicy(actor=actor, action_space=ACTION_SPACE, deterministic_eval=True)
    algorithm = PPO(policy=policy, critic=critic, optim=AdamOptimizerFactory(lr=args.lr, eps=1e-5),
                    gamma=args.gamma, gae_lambda=0.95, ent_coef=args.ent_coef, eps_clip=args.clip, vf_coef=0.5, max_grad_norm=0.5,
                    max_batchsize=4096)
    learners = args.learners if args.learners in ("random", "all") else int(args.learners)
    anchors = league_anchors(args)
    opponents = anchors[0] if len(anchors) == 1 and not args.self_play_every else snapshot_pool(anchors, [])
    games = PerSeatGames(args.games, opponents=opponents, learners=learners, players=4,
                         vp_reward=args.vp_reward, max_turns=args.max_turns)
    per_stream = 2 * args.steps_per_update // games.n_streams + 2048
    collector = PerSeatCollector(algorithm, games, buffer_size=per_stream * games.n_streams, seed=args.seed)
    return algorithm, actor, collector


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    algorithm, actor, collector = build(args)
    ckpt_path, actor_path = os.path.join(args.out, "agent.pt"), os.path.join(args.out, "actor.npz")
    steps, trained = 0, 0.0
    if args.resume and os.path.exists(ckpt_path):
        ckpt = torch.load(ckpt_path)
        algorithm.load_state_dict(ckpt["algorithm"])
        steps, trained = ckpt["steps"], ckpt["trained"]
        print(f"resumed at {steps} steps ({trained / 60:.1f} min trained)")
    elif args.init:
        from catan_env.learned.mlp import MLPWeights, load_into
        load_into(actor.net, MLPWeights.load(os.path.join(args.init, "actor.npz")), "actor")
        load_into(algorithm.critic.net, MLPWeights.load(os.path.join(args.init, "critic.npz")), "critic")
        print(f"initialised from the exported actor and critic in {args.init}")
    curve = WinRateCurve(args.out, args.resume, args.eval_games, args.eval_seed, args.eval_opponent)

    def evaluate():
        from_torch(actor.net).save(actor_path)
        torch.save({"algorithm": algorithm.state_dict(), "steps": steps, "trained": trained}, ckpt_path)
        return curve.evaluate(f"ppo:path={actor_path}", trained / 60, steps)

    rate = evaluate() if curve.new else 0.0
    collector.reset()
    next_eval = trained + args.eval_every
    anchors = league_anchors(args)
    snapshots = []  # the league's frozen copies of the policy, newest last
    next_snapshot = steps + args.self_play_every
    while rate < args.target and trained < args.minutes * 60:
        t0 = time.time()
        with policy_within_training_step(algorithm.policy):
            stats = collector.collect(n_step=args.steps_per_update)
            algorithm.update(buffer=collector.buffer, batch_size=args.batch_size, repeat=args.repeat)
        collector.reset_buffer(keep_statistics=True)
        steps += stats.n_collected_steps
        if args.self_play_every and steps >= next_snapshot:
            next_snapshot = steps + args.self_play_every
            snapshots = (snapshots + [from_torch(actor.net)])[-args.pool_size:]
            collector.games.set_opponents(snapshot_pool(anchors, snapshots, args.anchor_weight))
        trained += time.time() - t0
        if trained >= next_eval or trained >= args.minutes * 60:
            next_eval = trained + args.eval_every
            rate = evaluate()
    curve.close()
    print(f"arena agent: ppo:path={actor_path}")
    return {"rate": rate, "steps": steps, "minutes": trained / 60, "actor": actor_path, "snapshots": len(snapshots)}


if __name__ == "__main__":
    main()
