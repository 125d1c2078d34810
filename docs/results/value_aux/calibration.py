"""The shipped network's calibration on round 8's held-out games (the games its training held
out: seed 0's split), drawn into docs/value_calibration.png; the figures to calibration.json.

    python docs/results/value_aux/calibration.py results/value_exit8 catan_env/learned/weights/pretrained.npz
"""
import json
import os
import sys

from catan_env.agents.training.fit import split_games
from catan_env.agents.training.rounds import RoundLog
from catan_env.agents.value.positions import round_rows
from catan_env.agents.value.train import evaluate, reliability_plot
from catan_env.learned.network import ValueNetwork

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

run, path = sys.argv[1], sys.argv[2]
settings = RoundLog(os.path.join(run, "rounds.json")).settings
rows = round_rows(run, 8, settings.get("extra_data") or [], settings["self_weight"], workers=2)
held = split_games(rows["game"], 0.1, 0)  # value_retrain's split for seed 0 (train's default holdout)
figures = evaluate(ValueNetwork.load(path), rows, held)
with open(os.path.join(HERE, "calibration.json"), "w") as f:
    json.dump({"network": path, "run": run, "round": 8, **figures}, f, indent=1)
print(reliability_plot(figures["calibration"], os.path.join(ROOT, "docs", "value_calibration.png"),
                       title=f"VP-head network, {figures['games']} held-out games"))
print({k: v for k, v in figures.items() if k != "calibration"})
