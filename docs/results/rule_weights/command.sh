#!/usr/bin/env bash
# 2026-12-07: the shipped network's five rule-bit weights trained on Pioneers-rules games
# (3,000 games of two pretrained:search=1 and two jsettlers, seed 30), copied here, then judged
# under the Pioneers rules against the shipped network, paired, on fresh seeds (91,000).
# (net.npz's meta was rewritten afterwards to keep the shipped network's under "init";
# its weights, and so its digest c2c6723696d9, are the run's.)
set -e
cd "$(dirname "$0")/../../.."
nice -n 19 python examples/value_rule_weights.py --out results/rule_weights --games 3000 --workers 1
cp results/rule_weights/net.npz results/rule_weights/train.json docs/results/rule_weights/
cp results/rule_weights/data/manifest.json docs/results/rule_weights/data_manifest.json
nice -n 19 python benchmarks/value_strength.py --rules pioneers --interleave --workers 2 --games 1000 --seed 91000 \
    --specs pretrained:search=1,value:path=docs/results/rule_weights/net.npz:search=1 \
    --out docs/results/rule_weights/vs_jsettlers_pioneers_91000.jsonl
