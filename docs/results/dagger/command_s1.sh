#!/bin/bash
# Issue 47, "a policy near its teacher": a DAgger round labelled by the searching teacher.
# The same positions as results/dagger (same roll-in, opponents and seed: the labels never steer
# the games), labelled by pretrained:search=1 (0.67 against three jsettlers) instead of the greedy
# network (0.47); the clone fine-tuned on the teacher run plus these rows; PPO as before; evaluated
# on the same seeds. Each step resumes or skips when its output is there.
set -e
cd /work/main
B=results/dagger_s1
python -m catan_env.agents.distill --out $B/data --teacher pretrained:search=1 --roll-in pretrained_policy \
    --opponents jsettlers jsettlers pretrained:search=0 --games 4000 --shard-games 200 --batch 128 --seed 47
python examples/distill_policy.py --data results/teacher_big $B/data --init results/policy_big/bc/model.zip \
    --out $B/bc --hidden 512 --epochs 2 --batch 1024 --lr 3e-4 --eval-games 0 --threads 1 --seed 0
python benchmarks/value_strength.py --specs "ppo:path=$B/bc/actor.npz" --opponent jsettlers --games 400 \
    --seed 61000 --out $B/vs_jsettlers_seed61000.jsonl
if [ ! -f $B/ppo/actor.npz ]; then
python examples/train_maskable_ppo.py --init $B/bc/model.zip --batched 64 --opponents pretrained:search=0,weighted \
    --self-play-every 50000 --lr 2e-5 --clip 0.1 --gamma 0.999 --vp-reward 0 --potential pretrained \
    --minutes 25 --eval-games 0 --out $B/ppo
fi
python benchmarks/value_strength.py --specs "ppo:path=$B/ppo/actor.npz" --opponent jsettlers --games 400 \
    --seed 61000 --out $B/vs_jsettlers_seed61000.jsonl
# then, run by hand after it: the new policy on the 1,000 fresh seeds of docs/results/policy_more
python benchmarks/value_strength.py --specs "ppo:path=$B/ppo/actor.npz" --opponent jsettlers --games 1000 \
    --seed 64000 --out $B/vs_jsettlers_seed64000.jsonl
# the per-game files in docs/results/dagger/ are these runs' files with their decision times dropped
