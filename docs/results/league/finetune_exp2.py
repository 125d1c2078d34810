"""Offline, continued: is it the mix of opponents (train on the vs-JSettlers games only) or
the target (the search's estimate alone) that moves the paired evaluation?"""
import json, os, sys
sys.path.insert(0, "examples")
from catan_env.learned.network import ValueNetwork
from catan_env.agents.value.positions import load_positions
from catan_env.agents.value.train import evaluate as heldout_figures, train
import value_league as VL

out = "results/league_exp"
prev = ValueNetwork.load("results/league/round-0.npz")
runs = [("jsettlers-only", ["jsettlers"], dict(lr=1e-5, dropout=0.3, value_weight=0.3)),
        ("search-target", list(VL.TABLE), dict(lr=1e-5, dropout=0.3, value_weight=1.0))]
for name, entries, st in runs:
    rows = load_positions(*[os.path.join("results/league", f"data-{j}", e) for j in (1, 2) for e in entries])
    path = os.path.join(out, f"exp-{name}.npz")
    fit = train(rows, hidden=[256, 128], epochs=2, lr=st["lr"], dropout=st["dropout"], weight_decay=1e-3,
                value_weight=st["value_weight"], seed=100_002, init=prev, progress=print)
    before = heldout_figures(prev, rows, fit["heldout_mask"])["log_loss"]
    fit["network"].save(path)
    class A: search = 1; determinizations = 2; eval_games = 400; workers = 1
    line = {"run": name, "positions": int(len(rows["game"])), "setting": st, "heldout_log_loss": fit["heldout"]["log_loss"],
            "round0_log_loss": before, "eval": VL.evaluate(path, A, 0)}
    print(json.dumps(line), flush=True)
    with open(os.path.join(out, "exp.jsonl"), "a") as f:
        f.write(json.dumps(line) + "\n")
