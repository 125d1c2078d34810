#!/usr/bin/env bash
# 2026-12-07: the shipped network's five rule-bit weights trained on Pioneers-rules games
# (3,000 games of two pretrained:search=1 and two jsettlers, seed 30), then judged under the
# Pioneers rules against the shipped network, paired, on fresh seeds (91,000).
cd "$(dirname "$0")/../../.."
nice -n 19 python examples/value_rule_weights.py --out results/rule_weights --games 3000 --workers 1
nice -n 19 python benchmarks/value_strength.py --rules pioneers --interleave --workers 2 --games 1000 --seed 91000 \
    --specs pretrained:search=1,value:path=docs/results/rule_weights/net.npz:search=1 \
    --out docs/results/rule_weights/vs_jsettlers_pioneers_91000.jsonl
