#!/bin/bash
# The policy near its teacher (issue 47): clone the 5,160-game teacher run, PPO with shaping, evaluate.
# Every step resumes or skips when its output is there.
set -e
cd /work/main
B=results/policy_big
python examples/distill_policy.py --data results/teacher_big --out $B/bc --hidden 512 --epochs 6 --batch 1024 \
    --eval-games 0 --threads 1 --seed 0
if [ ! -f $B/ppo/actor.npz ]; then
python examples/train_maskable_ppo.py --init $B/bc/model.zip --batched 64 --opponents pretrained:search=0,weighted \
    --self-play-every 50000 --lr 2e-5 --clip 0.1 --gamma 0.999 --vp-reward 0 --potential pretrained \
    --minutes 25 --eval-games 0 --out $B/ppo
fi
for spec in "ppo:path=$B/ppo/actor.npz" "ppo:path=$B/bc/actor.npz" pretrained_policy; do
python benchmarks/value_strength.py --specs "$spec" --opponent jsettlers --games 400 --seed 61000 \
    --out $B/vs_jsettlers.jsonl
done
