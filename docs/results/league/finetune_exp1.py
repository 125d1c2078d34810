"""Offline: fine-tune the shipped network (round 0) on the league's rounds 1-2 data with
gentler settings; print held-out log loss against round 0's on the same games, then the
400 paired evaluation games of the league for any setting that beats round 0's loss."""
import json, os, sys, time
sys.path.insert(0, "examples")
import numpy as np
from catan_env.learned.network import ValueNetwork
from catan_env.agents.value.positions import load_positions
from catan_env.agents.value.train import evaluate as heldout_figures, train
import value_league as VL

out = "results/league_exp"
folders = [os.path.join("results/league", f"data-{j}", name) for j in (1, 2) for name in VL.TABLE]
rows = load_positions(*folders)
prev = ValueNetwork.load("results/league/round-0.npz")
settings = [dict(lr=1e-5, dropout=0.3, epochs=2), dict(lr=1e-5, dropout=0.0, epochs=2), dict(lr=3e-6, dropout=0.0, epochs=2)]
for k, st in enumerate(settings):
    path = os.path.join(out, f"exp-{k}.npz")
    fit = train(rows, hidden=[256, 128], epochs=st["epochs"], lr=st["lr"], dropout=st["dropout"], weight_decay=1e-3,
                value_weight=0.3, seed=100_002, init=prev, progress=print)
    before = heldout_figures(prev, rows, fit["heldout_mask"])["log_loss"]
    after = fit["heldout"]["log_loss"]
    fit["network"].save(path)
    line = {"setting": st, "heldout_log_loss": after, "round0_log_loss": before}
    if after < before:
        class A: search = 1; determinizations = 2; eval_games = 400; workers = 1
        line["eval"] = VL.evaluate(path, A, 0)
    print(json.dumps(line), flush=True)
    with open(os.path.join(out, "exp.jsonl"), "a") as f:
        f.write(json.dumps(line) + "\n")
