#!/bin/bash
# (As run on 2026-11-30, stopped after the clone's evaluation: the greedy-labelled round was the
# control of the search-labelled one, so its PPO and the later evaluations below were not run.)
# Issue 47, "a policy near its teacher": one DAgger round. The shipped pretrained_policy plays one
# seat against jsettlers (2/3) and the teacher (1/3); the teacher (pretrained:search=0) labels every
# position the policy reached; the 6-epoch clone of results/teacher_big is fine-tuned on both runs'
# rows; then PPO as the shipped policy had it; each evaluated on the seeds of the shipped one's
# figures (61,000 with 400 games, 64,000 with 1,000). Each step resumes or skips when its output is there.
set -e
cd /work/main
B=results/dagger
python -m catan_env.agents.distill --out $B/data --teacher pretrained:search=0 --roll-in pretrained_policy \
    --opponents jsettlers jsettlers pretrained:search=0 --games 4000 --shard-games 200 --batch 128 --seed 47
python examples/distill_policy.py --data results/teacher_big $B/data --init results/policy_big/bc/model.zip \
    --out $B/bc --hidden 512 --epochs 2 --batch 1024 --lr 3e-4 --eval-games 0 --threads 1 --seed 0
for spec in "ppo:path=$B/bc/actor.npz" pretrained_policy; do
python benchmarks/value_strength.py --specs "$spec" --opponent jsettlers --games 400 --seed 61000 \
    --out $B/vs_jsettlers_seed61000.jsonl
done
if [ ! -f $B/ppo/actor.npz ]; then
python examples/train_maskable_ppo.py --init $B/bc/model.zip --batched 64 --opponents pretrained:search=0,weighted \
    --self-play-every 50000 --lr 2e-5 --clip 0.1 --gamma 0.999 --vp-reward 0 --potential pretrained \
    --minutes 25 --eval-games 0 --out $B/ppo
fi
python benchmarks/value_strength.py --specs "ppo:path=$B/ppo/actor.npz" --opponent jsettlers --games 400 \
    --seed 61000 --out $B/vs_jsettlers_seed61000.jsonl
for spec in "ppo:path=$B/ppo/actor.npz" "ppo:path=$B/bc/actor.npz"; do
python benchmarks/value_strength.py --specs "$spec" --opponent jsettlers --games 1000 --seed 64000 \
    --out $B/vs_jsettlers_seed64000.jsonl
done
