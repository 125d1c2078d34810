"""Clone a teacher into a masked policy network: step 2 of the recipe (docs/rl-recipe.md).

    pip install torch==2.13.0 && pip install -e ".[rl]"
    python -m catan_env.agents.distill --out data/distill --games 2000       # step 1: the teacher's games
    python examples/distill_policy.py --data data/distill --out runs/bc       # step 2: this script
    python examples/train_maskable_ppo.py --init runs/bc/model.zip ...         # step 3: PPO fine-tuning

A DAgger round (optional, between steps 2 and 3): the policy plays, the teacher labels
the positions it reaches, and the clone is fine-tuned on both runs' rows:

  python -m catan_env.agents.distill --out data/dagger --roll-in ppo:path=runs/bc/actor.npz --games 2000
  python examples/distill_policy.py --data data/distill data/dagger --init runs/bc/model.zip --epochs 2 --out runs/bc2

The network is Stable-Baselines3's own ``MaskableActorCriticPolicy`` (sb3-contrib), so the
saved ``model.zip`` is a MaskablePPO model that PPO fine-tunes as it is: the policy head
learns the teacher's move (cross-entropy over the legal moves only, the mask applied as
the env applies it) and how the teacher rated the moves it compared (soft targets: the
softmax of its scores over ``--temperature``), the value head the game's result from the seat's view (+1 won, -1
lost, 0 when the turn cap ended it: the env's terminal reward), from the observation
vector and mask the envs give (rebuilt from the shards' states).  A tenth of the games
is held out: each epoch prints the held-out loss and how often the greedy policy picks
the teacher's move.  Resumable: the model is saved after every epoch with the epoch in
``state.json``.  At the end the policy is exported as numpy weights (``actor.npz``,
played by the ``ppo:path=`` agent and usable as a batched-env opponent, no torch), the
value head as ``critic.npz`` (the single-file PPO and the Tianshou example start from the
pair with ``--init <out>``), and the policy played against three weighted agents
(``--eval-games``).
"""
import argparse
import json
import os
import time

import numpy as np

from catan_env.cli import HelpFormatter


def parse_args(argv=None):
    p = argparse.ArgumentParser(allow_abbrev=False, description=__doc__, formatter_class=HelpFormatter)
    p.add_argument("--data", nargs="+", default=["data/distill"], help="distillation data folders")
    p.add_argument("--out", default="runs/bc", help="folder for model.zip, actor.npz, curve.csv, state.json")
    p.add_argument("--hidden", type=int, default=256, help="width of the policy's and the value's two layers")
    p.add_argument("--init", default="",
                   help="start from this MaskablePPO model.zip (a clone or a PPO policy; its own network shape), "
                        "or from exported weights: an actor.npz, a folder with actor.npz (and critic.npz, "
                        "if there is one), or 'pretrained_policy' (the shipped policy); exported weights "
                        "are two equal-width ReLU layers, whose width replaces --hidden; with a fresh "
                        "optimizer and schedule: a DAgger round fine-tunes the policy on the aggregated data")
    p.add_argument("--epochs", type=int, default=8, help="passes over the training rows")
    p.add_argument("--batch", type=int, default=1024, help="rows per gradient step")
    p.add_argument("--lr", type=float, default=1e-3, help="Adam learning rate (decays to a tenth over the epochs)")
    p.add_argument("--value-weight", type=float, default=0.5, help="weight of the value head's squared error")
    p.add_argument("--soft-weight", type=float, default=1.0,
                   help="weight of the soft targets' cross-entropy (the teacher's scores of the moves it compared)")
    p.add_argument("--temperature", type=float, default=0.01,
                   help="soft targets: softmax of the teacher's scores / this (scores are win chances or gains)")
    p.add_argument("--weight-decay", type=float, default=0.0, help="AdamW weight decay")
    p.add_argument("--max-rows", type=int, default=0, help=">0: use at most this many rows (the first games)")
    p.add_argument("--minutes", type=float, default=0.0,
                   help=">0: stop training after this many minutes (the epoch it stops in counts as done)")
    p.add_argument("--eval-games", type=int, default=100, help="games against three weighted at the end")
    p.add_argument("--seed", type=int, default=0, help="seed of the split, the shuffles and torch")
    p.add_argument("--threads", type=int, default=1, help="torch threads")
    return p.parse_args(argv)


def make_model(hidden, seed):
    """A MaskablePPO whose policy has the shape PPO fine-tunes (two ReLU layers each)."""
    import torch.nn as nn
    from sb3_contrib import MaskablePPO
    from catan_env.wrappers.sb3 import make_batched_vec_env
    env = make_batched_vec_env(8, seed=seed, opponents=["weighted"], vp_reward=0.0, max_turns=300, skip_forced=True)
    kwargs = dict(net_arch=dict(pi=[hidden, hidden], vf=[hidden, hidden]), activation_fn=nn.ReLU)
    return MaskablePPO("MlpPolicy", env, policy_kwargs=kwargs, seed=seed, verbose=0)


def exported_weights(init):
    """(actor path, critic path or None) of --init given as exported weights, or None when
    it is a model.zip; a path that is neither raises ValueError naming it."""
    if init == "pretrained_policy":
        from catan_env.learned.network import PRETRAINED_POLICY
        return PRETRAINED_POLICY, None
    if os.path.isdir(init):
        actor, critic = os.path.join(init, "actor.npz"), os.path.join(init, "critic.npz")
        if not os.path.exists(actor):
            raise ValueError(f"--init {init}: the folder has no actor.npz")
        return actor, critic if os.path.exists(critic) else None
    if init.endswith(".npz"):
        if not os.path.exists(init):
            raise ValueError(f"--init {init}: no such file")
        return init, None
    if os.path.exists(init) or os.path.exists(init + ".zip"):  # (SB3 adds the suffix)
        return None
    raise ValueError(f"--init {init}: no such model.zip, actor.npz or folder with actor.npz "
                     f"(or give 'pretrained_policy')")


def model_from_weights(actor_path, critic_path, seed):
    """A MaskablePPO whose policy branch holds the exported actor (its widths taken from
    it), and whose value branch holds the critic when there is one (else fresh)."""
    import torch.nn as nn
    from catan_env.learned.mlp import MLPWeights, load_into
    actor = MLPWeights.load(actor_path)
    model = make_model(actor.layers[0][0].shape[1], seed)
    policy = model.policy
    load_into(nn.Sequential(*policy.mlp_extractor.policy_net, policy.action_net), actor, "policy")
    if critic_path:
        load_into(nn.Sequential(*policy.mlp_extractor.value_net, policy.value_net),
                  MLPWeights.load(critic_path), "value network")
    return model


def soft_targets(ids, values, temperature):
    """(ids with -1 made 0, probabilities): the softmax of each row's scores over its
    scored moves (rows without scores: all zero, so they add no soft loss)."""
    valid = ids >= 0
    z = np.where(valid, values / temperature, -np.inf)
    top = np.max(np.where(valid, z, -1e30), axis=1, keepdims=True)
    e = np.where(valid, np.exp(z - top), 0.0)
    total = e.sum(axis=1, keepdims=True)
    probs = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return np.where(valid, ids, 0).astype(np.int64), probs.astype(np.float32)


def bc_loss(policy, data, idx, value_weight, soft_weight=0.0, temperature=0.01):
    """(total loss, policy cross-entropy, value error, agreement with the teacher) on rows
    idx: the teacher's move's cross-entropy, plus soft_weight x the cross-entropy of the
    soft targets, plus value_weight x the value head's squared error."""
    import torch
    from catan_env.agents.distill import observations
    obs, masks = observations(data["state"][idx], data["seat"][idx])
    actions = data["action"][idx]
    target = np.where(data["winner"][idx] == data["seat"][idx], 1.0,
                      np.where(data["winner"][idx] < 0, 0.0, -1.0)).astype(np.float32)
    obs_t = torch.as_tensor(obs)
    dist = policy.get_distribution(obs_t, action_masks=masks)
    logp = dist.log_prob(torch.as_tensor(actions))
    values = policy.predict_values(obs_t).squeeze(-1)
    ce = -logp.mean()
    mse = ((values - torch.as_tensor(target)) ** 2).mean()
    agree = (dist.distribution.probs.argmax(-1).numpy() == actions).mean()
    loss = ce + value_weight * mse
    if soft_weight:
        ids, probs = soft_targets(data["score_ids"][idx], data["score_values"][idx], temperature)
        logp_all = torch.log_softmax(dist.distribution.logits, dim=-1)
        loss = loss - soft_weight * (torch.as_tensor(probs) * logp_all.gather(1, torch.as_tensor(ids))).sum(1).mean()
    return loss, float(ce.detach()), float(mse.detach()), float(agree)


def held_out_games(game, folders, seed):
    """Which rows' games are held out: a tenth of each folder's games, drawn per folder,
    so a folder added later (a DAgger round's) leaves the earlier folders' split as their
    own run had it, and a clone fine-tuned with --init is never scored on its training games."""
    from catan_env.agents.distill import KIND
    from catan_env.agents.training.fit import split_games
    from catan_env.agents.training.shards import shard_files
    bases = sorted({base for _, _, base in shard_files(folders, KIND)}) + [np.inf]
    val = np.zeros(len(game), bool)
    for lo, hi in zip(bases[:-1], bases[1:]):
        rows = (game >= lo) & (game < hi)
        val[rows] = split_games(game[rows] - lo, holdout=0.1, seed=seed)
    return val


def main(argv=None):
    args = parse_args(argv)
    exported = exported_weights(args.init) if args.init else None  # a bad --init fails before the data loads
    import torch
    from catan_env.agents import distill
    from catan_env.agents.training.fit import fit, linear_to
    from catan_env.learned.mlp import from_torch
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    data = distill.load(*args.data)
    if args.max_rows:
        data = {k: v[:args.max_rows] for k, v in data.items()}
    val = held_out_games(data["game"], args.data, args.seed)
    train = ~val
    train_rows, val_rows = np.flatnonzero(train), np.flatnonzero(val)[:20000]
    print(f"{len(data['seat'])} rows from {len(np.unique(data['game']))} games: {len(train_rows)} train, "
          f"{len(val_rows)} held out", flush=True)
    state_path = os.path.join(args.out, "state.json")
    state = json.load(open(state_path)) if os.path.exists(state_path) else {"epoch": 0, "curve": []}
    from sb3_contrib import MaskablePPO
    model_path = os.path.join(args.out, "model.zip")
    if state["epoch"] and os.path.exists(model_path):
        model = MaskablePPO.load(model_path, env=make_model(args.hidden, args.seed).get_env())
        print(f"resumed after epoch {state['epoch']}" + (f" (--init {args.init} was where it started)"
                                                          if args.init else ""), flush=True)
        if state["epoch"] >= args.epochs:
            print(f"{args.out} has trained {state['epoch']} epochs already (--epochs {args.epochs}): "
                  f"nothing to train, its weights are exported again", flush=True)
    elif exported:
        actor_path, critic_path = exported
        model = model_from_weights(actor_path, critic_path, args.seed)
        print(f"starting from the exported policy {actor_path}"
              + (f" and value network {critic_path}" if critic_path else " (the value head starts fresh)"),
              flush=True)
    elif args.init:
        model = MaskablePPO.load(args.init, env=make_model(args.hidden, args.seed).get_env())
        print(f"starting from {args.init}", flush=True)
    else:
        model = make_model(args.hidden, args.seed)
    policy = model.policy
    optim = torch.optim.AdamW(policy.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    optim_path = os.path.join(args.out, "optimizer.pt")
    if state["epoch"] and os.path.exists(optim_path):
        optim.load_state_dict(torch.load(optim_path))
        for group in optim.param_groups:  # the schedule's base is --lr, not the rate it had decayed to
            group["initial_lr"] = args.lr

    def train_loss(policy, rows):
        return bc_loss(policy, data, rows, args.value_weight, args.soft_weight, args.temperature)[0]

    def heldout(policy):
        _, ce, mse, agree = bc_loss(policy, data, val_rows, args.value_weight)
        return {"val_ce": ce, "val_value_mse": mse, "val_agreement": agree}

    def checkpoint(entry):  # after every epoch: the model, the optimizer and the curve
        row = dict(epoch=entry["epoch"], train_loss=entry["train_loss"], **entry["heldout"],
                   minutes=(time.time() - start) / 60)
        state["curve"].append(row)
        state["epoch"] = entry["epoch"]
        model.save(model_path)
        torch.save(optim.state_dict(), optim_path)
        json.dump(state, open(state_path, "w"), indent=1)
        print(f"epoch {row['epoch']}: train loss {row['train_loss']:.3f}  held-out cross-entropy {row['val_ce']:.3f}, "
              f"value error {row['val_value_mse']:.3f}, picks the teacher's move {row['val_agreement']:.1%}  "
              f"({row['minutes']:.1f} min)", flush=True)

    start = time.time()
    fit(policy, train_rows, train_loss, epochs=args.epochs, batch=args.batch, optimizer=optim,
        lr_schedule=linear_to(0.1), clip_grad=1.0, seconds=args.minutes * 60 if args.minutes else None,
        first_epoch=state["epoch"] + 1, rng=np.random.default_rng([args.seed, state["epoch"]]),
        heldout=heldout, progress=checkpoint)
    from_torch(policy).save(os.path.join(args.out, "actor.npz"))
    critic = torch.nn.Sequential(*policy.mlp_extractor.value_net, policy.value_net)
    from_torch(critic).save(os.path.join(args.out, "critic.npz"))
    print(f"saved {model_path}, actor.npz and critic.npz in {args.out}", flush=True)
    if args.eval_games:
        from catan_env.agents.arena import win_rate
        r = win_rate(f"ppo:path={os.path.join(args.out, 'actor.npz')}", "weighted", games=args.eval_games, seed=2026)
        print(f"greedy policy vs three weighted: {r['rate']:.1%} [{r['lo']:.1%}, {r['hi']:.1%}] "
              f"over {r['games']} games")


if __name__ == "__main__":
    main()
