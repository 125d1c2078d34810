#!/bin/bash
# Issue 47: PPO (as the shipped policies had it) from the second DAgger round's clone, evaluated
# on the recipe's seeds. Each step skips when its output is there.
set -e
cd /work/main
B=results/dagger_s2
if [ ! -f $B/ppo/actor.npz ]; then
python examples/train_maskable_ppo.py --init $B/bc/model.zip --batched 64 --opponents pretrained:search=0,weighted \
    --self-play-every 50000 --lr 2e-5 --clip 0.1 --gamma 0.999 --vp-reward 0 --potential pretrained \
    --minutes 25 --eval-games 0 --out $B/ppo
fi
python benchmarks/value_strength.py --specs "ppo:path=$B/ppo/actor.npz" --opponent jsettlers --games 400 \
    --seed 61000 --out $B/vs_jsettlers_seed61000.jsonl
