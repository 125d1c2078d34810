#!/bin/bash
# Issue 47: a fifth DAgger round, from the shipped policy (round 2). The fourth round's weights and all
# the rounds' rows lived only under results/, which a new checkout does not carry, so this round starts
# again from the shipped weights: the shipped policy plays one seat of new games (seed 51), the same
# teacher (pretrained:search=1) labels them, and the shipped policy is fine-tuned on those rows alone.
# Evaluated on the seeds of the rounds before and on 1,000 fresh seeds (65,000), the shipped policy
# beside it on the fresh ones. The collection was stopped after 6,000 of the 8,000 games asked (time);
# each step resumes or skips when its output is there. `pretrained_policy` below is the second round's
# weights, shipped until this round replaced them (git show 400dd8e:catan_env/learned/weights/pretrained_policy.npz);
# the shipped policy's games on 65,000 were played first, one worker, while the rows were collected.
set -e
cd /work/main
B=results/dagger_s5
python -m catan_env.agents.distill --out $B/data --teacher pretrained:search=1 \
    --roll-in pretrained_policy --opponents jsettlers jsettlers pretrained:search=0 \
    --games 8000 --shard-games 200 --batch 128 --seed 51 --workers 2
# the second round's own figures on this round's held-out games: learning rate 0, one epoch (s5_before_state.json)
python examples/distill_policy.py --data $B/data --init pretrained_policy --out $B/bc_lr0 --epochs 1 --batch 1024 \
    --lr 0 --eval-games 0 --threads 1 --seed 0
python examples/distill_policy.py --data $B/data --init pretrained_policy --out $B/bc --epochs 2 --batch 1024 \
    --lr 3e-4 --eval-games 0 --threads 2 --seed 0
for seeds in "61000 400" "64000 1000" "62000 400" "65000 1000"; do
    set -- $seeds
    python benchmarks/value_strength.py --specs "ppo:path=$B/bc/actor.npz" --opponent jsettlers --games $2 \
        --seed $1 --workers 2 --out docs/results/dagger/vs_jsettlers_seed$1.jsonl
done
python benchmarks/value_strength.py --specs pretrained_policy --opponent jsettlers --games 1000 \
    --seed 65000 --workers 2 --out docs/results/dagger/vs_jsettlers_seed65000.jsonl
