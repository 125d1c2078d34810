#!/bin/bash
# Issue 47, "a policy near its teacher": more PPO from the shipped pretrained_policy, with the
# evaluation's own opponent (jsettlers) in the league, then the shipped and the new policy on the
# same 1,000 fresh seeds (64,000) against three jsettlers. Each step skips when its output is there.
set -e
cd /work/main
B=results/policy_more
if [ ! -f $B/ppo/actor.npz ]; then
python examples/train_maskable_ppo.py --init results/policy_big/ppo/model.zip --batched 64 \
    --opponents pretrained:search=0,weighted,jsettlers --self-play-every 50000 --lr 2e-5 --clip 0.1 --gamma 0.999 \
    --vp-reward 0 --potential pretrained --minutes 50 --eval-games 0 --out $B/ppo
fi
for spec in "ppo:path=$B/ppo/actor.npz" pretrained_policy; do
python benchmarks/value_strength.py --specs "$spec" --opponent jsettlers --games 1000 --seed 64000 \
    --out $B/vs_jsettlers_seed64000.jsonl
done
