"""Train sb3-contrib's MaskablePPO on one seat against three opponents.

    pip install torch==2.13.0 && pip install -e ".[rl]"
    python examples/train_maskable_ppo.py --timesteps 200000 --out runs/ppo

The learner sees the seat-relative vector observation; illegal actions are masked via
the env's ``action_masks()``.  ``--batched 64`` trains on 64 games stepped together in
numba (``make_batched_vec_env``) instead of one Python env; with it, ``--self-play-every
50000`` adds a frozen snapshot of the policy to the opponent pool every 50,000 steps.  ``--init runs/bc/model.zip`` starts from a cloned policy (step 3 of docs/rl-recipe.md:
fine-tuning against a league such as ``--opponents pretrained:search=0,weighted`` with
``--lr 2e-5 --clip 0.1``).  Progress is printed every ``--log-every`` learner steps
(episodes finished, mean episode reward, win rate over the last 100 episodes); at the end
the model is saved (``<out>/model.zip``, loadable as ``PolicyAgent("<out>/model.zip")``),
the learning curve drawn (``<out>/learning_curve.png``, with matplotlib) and the policy
evaluated over a few games against the same opponents (25% is parity).
"""
import argparse
import os
import time
from dataclasses import dataclass, field

import gymnasium

import catan_env  # noqa: F401  (registers catan_env/Catan-v0)
from catan_env.cli import HelpFormatter
from catan_env.plotting import pyplot, save


@dataclass
class Args:
    timesteps: int = field(default=200_000, metadata={"help": "learner steps to train for"})
    eval_games: int = field(default=50, metadata={"help": "games to evaluate the final policy on"})
    seed: int = field(default=0, metadata={"help": "seed for the env and the learner"})
    vp_reward: float = field(default=0.05, metadata={"help": "VP-difference shaping (0 for the pure win/loss signal)"})
    opponents: str = field(default="random", metadata={
        "help": "agent spec for the three opponents (weighted, jsettlers, pretrained:search=0, ...); with --batched a "
                "comma list is a pool drawn per game (the Python envs and the final evaluation take the first)"})
    log_every: int = field(default=10_000, metadata={"help": "print a progress line every this many learner steps"})
    out: str = field(default="runs/maskable_ppo", metadata={"help": "folder for model.zip, learning_curve.png, curve.csv"})
    torch_threads: int = field(default=1, metadata={"help": "torch threads (one: on 2 cores, torch threads fight the env's work)"})
    batched: int = field(default=0, metadata={"help": ">0: that many games in one numba-stepped VecEnv (much faster)"})
    envs: int = field(default=1, metadata={"help": "Python envs in a DummyVecEnv (without --batched)"})
    minutes: float = field(default=0.0, metadata={
        "help": ">0: train for this many minutes (evaluations excluded) instead of --timesteps"})
    target: float = field(default=0.0, metadata={"help": ">0: stop once the evaluation win rate reaches this"})
    eval_every: float = field(default=60.0, metadata={
        "help": "with --minutes/--target: seconds of training between evaluations (arena, vs three random)"})
    curve_games: int = field(default=100, metadata={"help": "games per evaluation with --minutes/--target"})
    eval_seed: int = field(default=2026, metadata={"help": "tournament seed of the evaluation games"})
    resume: bool = field(default=False, metadata={"help": "continue from <out>/model.zip"})
    init: str = field(default="", metadata={
        "help": "start from this MaskablePPO model.zip (the cloned policy of examples/distill_policy.py)"})
    lr: float = field(default=3e-4, metadata={"help": "learning rate (fine-tuning a cloned policy: 1e-5 to 3e-5)"})
    ent_coef: float = field(default=0.0, metadata={"help": "entropy bonus"})
    clip: float = field(default=0.2, metadata={"help": "PPO clip range (fine-tuning: 0.1)"})
    gamma: float = field(default=0.99, metadata={"help": "discount (a cloned value head predicts the undiscounted result: 0.999)"})
    potential: str = field(default="", metadata={
        "help": "with --batched: 'pretrained' adds potential-based shaping by the win-probability network"})
    curve_opponent: str = field(default="random", metadata={
        "help": "with --minutes/--target: the three opponents of the evaluation games"})
    self_play_every: int = field(default=0, metadata={
        "help": ">0 (with --batched): snapshot the policy into the opponent pool every this many steps "
                "(opponents stay as anchors)"})


def make_env(args):
    """One Gymnasium env against three of the first --opponents spec (a batched run's pool
    may list several)."""
    return gymnasium.make("catan_env/Catan-v0", opponents=args.opponents.split(",")[0], vp_reward=args.vp_reward,
                          max_turns=300)


def make_train_env(args):
    """The single env (or --envs of them), or with --batched N a numba-stepped batch of N
    games (SB3 VecEnv)."""
    if not args.batched:
        if args.envs <= 1:
            return make_env(args)
        from catan_env.wrappers.sb3 import make_vec_env
        return make_vec_env(args.envs, vec="dummy", seed=args.seed, opponents=args.opponents.split(",")[0],
                            vp_reward=args.vp_reward, max_turns=300)
    from catan_env.wrappers.sb3 import make_batched_vec_env
    return make_batched_vec_env(args.batched, seed=args.seed, opponents=args.opponents.split(","),
                                vp_reward=args.vp_reward, max_turns=300, skip_forced=True,
                                potential=args.potential or None, potential_gamma=args.gamma)


def progress_callback(args, curve):
    """An SB3 callback printing a line every log_every steps and collecting the curve."""
    from stable_baselines3.common.callbacks import BaseCallback

    class Progress(BaseCallback):
        def __init__(self):
            super().__init__()
            self.rewards, self.wins, self.next_log = [], [], args.log_every
            self.episode_reward = None

        def _on_step(self):
            rewards = self.locals["rewards"]
            if self.episode_reward is None:
                self.episode_reward = [0.0] * len(rewards)
            for i, done in enumerate(self.locals["dones"]):
                self.episode_reward[i] += float(rewards[i])
                if done:
                    info = self.locals["infos"][i]
                    won = info.get("is_success", info.get("winner") == info.get("learner_seat"))
                    self.rewards.append(self.episode_reward[i])
                    self.wins.append(int(won))
                    self.episode_reward[i] = 0.0
            if self.num_timesteps >= self.next_log:
                self.next_log += args.log_every
                if not self.rewards:
                    print(f"step {self.num_timesteps:>8d}  episodes     0 (the first is still running)",
                          flush=True)
                    return True
                recent = self.wins[-100:]
                row = (self.num_timesteps, len(self.rewards), sum(self.rewards[-100:]) / len(self.rewards[-100:]),
                       sum(recent) / len(recent))
                curve.append(row)
                print(f"step {row[0]:>8d}  episodes {row[1]:>5d}  mean reward (last 100) {row[2]:+.3f}  "
                      f"win rate (last 100) {row[3]:.0%}", flush=True)
            return True
    return Progress()


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


def warn_too_short(timesteps, n_envs):
    """Say so when no game finished: the curve is empty and the policy barely trained."""
    print(f"warning: no episode finished in {timesteps} learner steps ({n_envs} games side by side, "
          f"{timesteps // n_envs} steps each): the learning curve is empty and the evaluation below "
          f"measures a barely trained policy. Train longer (--timesteps, or --minutes); "
          f"docs/rl-recipe.md gives the scales that show learning.", flush=True)


def save_curve(curve, out):
    with open(os.path.join(out, "curve.csv"), "w") as f:
        f.write("step,episodes,mean_reward_last100,win_rate_last100\n")
        f.writelines(",".join(str(x) for x in row) + "\n" for row in curve)
    plt = pyplot()
    if plt is None:
        print('matplotlib not installed: no learning_curve.png (pip install "catan_env[viz]")')
        return None
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot([r[0] for r in curve], [r[3] for r in curve], marker="o")
    ax.axhline(0.25, color="grey", linestyle="--", label="parity (4 players)")
    ax.set_xlabel("learner steps")
    ax.set_ylabel("win rate, last 100 episodes")
    ax.set_title("MaskablePPO learning curve")
    ax.legend()
    return save(fig, os.path.join(out, "learning_curve.png"))


def main(argv=None):
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0],
                                 formatter_class=HelpFormatter)
    for name, default in Args.__dataclass_fields__.items():
        flag, value = f"--{name.replace('_', '-')}", default.default
        if isinstance(value, bool):
            ap.add_argument(flag, action="store_true", help=default.metadata["help"])
        else:
            ap.add_argument(flag, type=type(value), default=value, help=default.metadata["help"])
    args = Args(**vars(ap.parse_args(argv)))
    if args.potential and not args.batched:
        ap.error("--potential needs --batched (the shaping lives in the batched VecEnv)")
    if args.init and args.resume:
        ap.error("give --init (start from a cloned policy) or --resume (continue this run), not both")
    import torch
    from sb3_contrib import MaskablePPO
    torch.set_num_threads(args.torch_threads)
    os.makedirs(args.out, exist_ok=True)
    train_env = make_train_env(args)
    n_steps = 512 if not args.batched else max(16, 4096 // args.batched)
    tuned = dict(learning_rate=args.lr, ent_coef=args.ent_coef, clip_range=args.clip, gamma=args.gamma, n_steps=n_steps,
                 batch_size=128)
    if args.resume and os.path.exists(os.path.join(args.out, "model.zip")):
        model = MaskablePPO.load(os.path.join(args.out, "model.zip"), env=train_env)
        print(f"resumed at {model.num_timesteps} steps")
    elif args.init:  # the cloned policy and value heads, fine-tuned with this run's settings
        model = MaskablePPO.load(args.init, env=train_env, custom_objects=tuned, seed=args.seed)
        model.num_timesteps = 0
        print(f"initialised from {args.init}")
    else:
        model = MaskablePPO("MlpPolicy", train_env, seed=args.seed, verbose=0, **tuned)
    curve = []
    callbacks = [progress_callback(args, curve)]
    if args.batched and args.self_play_every:
        from catan_env.wrappers.sb3 import self_play_callback
        callbacks.append(self_play_callback(train_env, anchors=args.opponents.split(","),
                                            every=args.self_play_every))
    if args.minutes > 0 or args.target > 0:
        return train_until(model, args, callbacks)
    start = time.time()
    model.learn(total_timesteps=args.timesteps, callback=callbacks)
    print(f"trained {args.timesteps} steps in {(time.time() - start) / 60:.1f} min")
    if not callbacks[0].rewards:  # (the progress callback's finished episodes)
        warn_too_short(args.timesteps, train_env.num_envs)
    env = make_env(args)
    model.save(os.path.join(args.out, "model.zip"))
    png = save_curve(curve, args.out)
    rate = evaluate(model, env, args.eval_games, seed=10_000)
    print(f"MaskablePPO after {args.timesteps} steps: win rate {rate:.2%} vs 3 {args.opponents.split(',')[0]} opponents "
          f"over {args.eval_games} games")
    print(f"wrote {args.out}/model.zip, curve.csv" + (", learning_curve.png" if png else ""))
    return rate


def train_until(model, args, callbacks):
    """Train in stretches of --eval-every seconds; after each, the greedy policy (exported
    to <out>/actor.npz, the arena agent ppo:path=...) plays --curve-games seeded arena games
    against three random; stop at --target or after --minutes.  Appends <out>/curve.csv."""
    from stable_baselines3.common.callbacks import BaseCallback

    from catan_env.agents.arena import WinRateCurve
    from catan_env.learned.mlp import from_torch

    class StopAt(BaseCallback):
        def __init__(self):
            super().__init__()
            self.deadline = float("inf")

        def _on_step(self):
            return time.time() < self.deadline

    stop = StopAt()
    progress_file = os.path.join(args.out, "progress.txt")
    trained = 0.0
    if args.resume and os.path.exists(progress_file):
        with open(progress_file) as f:
            trained = float(f.read())
    curve = WinRateCurve(args.out, args.resume, args.curve_games, args.eval_seed, args.curve_opponent)
    budget = args.minutes * 60 if args.minutes > 0 else float("inf")
    target = args.target if args.target > 0 else float("inf")
    rate = 0.0
    while rate < target and trained < budget:
        t0 = time.time()
        stop.deadline = t0 + min(args.eval_every, budget - trained)
        model.learn(total_timesteps=10 ** 12, callback=[stop, *callbacks], reset_num_timesteps=False)
        trained += time.time() - t0
        model.save(os.path.join(args.out, "model.zip"))
        actor = os.path.join(args.out, "actor.npz")
        from_torch(model.policy).save(actor)
        with open(progress_file, "w") as p:
            p.write(str(trained))
        rate = curve.evaluate(f"ppo:path={actor}", trained / 60, model.num_timesteps)
    curve.close()
    print(f"arena agent: ppo:path={os.path.join(args.out, 'actor.npz')}")
    return rate


if __name__ == "__main__":
    main()
