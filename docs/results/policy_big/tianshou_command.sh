#!/bin/bash
# Issue 47's second library: Tianshou fine-tuning the 5,160-game clone against SB3's league.
cd /work/main
B=results/tianshou_league
/tmp/extvenv/bin/python examples/train_tianshou.py --init results/policy_big/bc --hidden 512 512 \
    --opponents pretrained:search=0,weighted --self-play-every 50000 --pool-size 4 \
    --lr 2e-5 --ent-coef 0 --clip 0.1 --vp-reward 0 --minutes 25 --eval-opponent jsettlers --eval-games 50 \
    --threads 1 --out $B/run
python benchmarks/value_strength.py --specs "ppo:path=$B/run/actor.npz" --opponent jsettlers --games 400 \
    --seed 61000 --out $B/vs_jsettlers.jsonl
