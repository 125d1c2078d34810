#!/usr/bin/env bash
# 2026-12-07, set before any game: the shipped network at the leaves of the `best` MCTS
# (value_mcts, 1,000 playouts, the network's value at once: rollout_turns=0) against three
# `best` MCTS at 1,000 playouts, on the 200 games (seeds 53,000) where `pretrained` (the
# expectimax over the same network) played round 9's judge
# (docs/results/exit_mcts/round9_vs_best1000_53000.jsonl): is the search the lever against MCTS?
# Under the official rules the network shipped since 2026-12-07 computes what that one did.
cd "$(dirname "$0")/../../.."
python benchmarks/value_strength.py --specs value_mcts:playouts=1000 \
    --opponent mcts:variant=best:playouts=1000 --games 200 --seed 53000 --workers 2 \
    --out docs/results/value_mcts/vs_best1000_53000.jsonl
python benchmarks/value_strength.py --report --out docs/results/value_mcts/vs_best1000_53000.jsonl \
    > docs/results/value_mcts/report.txt
# (per-decision times dropped from the committed file afterwards; report.txt has their mean)
# Then, set after the 1,000-playout result (81 against 83 of 200, p = 0.91) and before any game:
# at about the expectimax's time a decision (0.0089 s at 1,000 playouts, `pretrained` about 0.03 s),
# 3,000 playouts on the same games.
python benchmarks/value_strength.py --specs value_mcts:playouts=3000 \
    --opponent mcts:variant=best:playouts=1000 --games 200 --seed 53000 --workers 2 \
    --out docs/results/value_mcts/vs_best1000_53000_p3000.jsonl
python benchmarks/value_strength.py --report --out docs/results/value_mcts/vs_best1000_53000_p3000.jsonl \
    > docs/results/value_mcts/report_p3000.txt
# Then, set after the 3,000-playout result (100 against 83 of 200, p = 0.078) and before any game:
# the same on the 200 games (seeds 52,000) of `pretrained`'s headline figure against MCTS
# (docs/results/strength/pretrained_vs_best1000.jsonl), pooled with the above.
python benchmarks/value_strength.py --specs value_mcts:playouts=3000 \
    --opponent mcts:variant=best:playouts=1000 --games 200 --seed 52000 --workers 2 \
    --out docs/results/value_mcts/vs_best1000_52000_p3000.jsonl
python benchmarks/value_strength.py --report --out docs/results/value_mcts/vs_best1000_52000_p3000.jsonl \
    > docs/results/value_mcts/report_52000_p3000.txt
