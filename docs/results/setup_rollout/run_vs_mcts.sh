#!/usr/bin/env bash
# opening=rollout against three `best` MCTS at 1,000 playouts, on the seeds (53,000) where the
# shipped `pretrained` already played the same 200 games (docs/results/exit_mcts/round9_vs_best1000_53000.jsonl):
# a paired comparison of the set-up placements alone (every later move made by the same search).
cd "$(dirname "$0")/../../.."
python benchmarks/value_strength.py --specs pretrained:opening=rollout \
    --opponent mcts:variant=best:playouts=1000 --games 200 --seed 53000 --workers 2 \
    --out docs/results/setup_rollout/rollout_vs_best1000_53000.jsonl
# the report (report.txt; per-decision times were dropped from the committed file afterwards)
python benchmarks/value_strength.py --report --out docs/results/setup_rollout/rollout_vs_best1000_53000.jsonl \
    > docs/results/setup_rollout/report.txt
