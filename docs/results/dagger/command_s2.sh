#!/bin/bash
# Issue 47: a second DAgger round. The round-1 clone (results/dagger_s1/bc, labelled by
# pretrained:search=1) plays the same kind of games on new seeds; the same teacher labels them;
# the round-1 clone is fine-tuned on the teacher run and both rounds' rows; evaluated on the seeds
# of the round before. Each step resumes or skips when its output is there.
set -e
cd /work/main
B=results/dagger_s2
python -m catan_env.agents.distill --out $B/data --teacher pretrained:search=1 \
    --roll-in ppo:path=results/dagger_s1/bc/actor.npz --opponents jsettlers jsettlers pretrained:search=0 \
    --games 4000 --shard-games 200 --batch 128 --seed 48
python examples/distill_policy.py --data results/teacher_big results/dagger_s1/data $B/data \
    --init results/dagger_s1/bc/model.zip --out $B/bc --hidden 512 --epochs 2 --batch 1024 --lr 3e-4 \
    --eval-games 0 --threads 1 --seed 0
python benchmarks/value_strength.py --specs "ppo:path=$B/bc/actor.npz" --opponent jsettlers --games 400 \
    --seed 61000 --out $B/vs_jsettlers_seed61000.jsonl
# then, run by hand after it: the same clone on the seeds of the other tables
python benchmarks/value_strength.py --specs "ppo:path=$B/bc/actor.npz" --opponent jsettlers --games 1000 \
    --seed 64000 --out $B/vs_jsettlers_seed64000.jsonl
python benchmarks/value_strength.py --specs "ppo:path=$B/bc/actor.npz" --opponent jsettlers --games 400 \
    --seed 62000 --out $B/vs_jsettlers_seed62000.jsonl
# shipped: cp $B/bc/actor.npz catan_env/learned/weights/pretrained_policy.npz; then, as pretrained_policy,
# the README table's rows: value_strength.py --specs pretrained_policy --opponent jsettlers|weighted --games 400
# --seed 62000 (docs/results/strength/policy_vs_*.jsonl, decision times dropped) and
# python benchmarks/jsettlers_strength.py --only pretrained_policy (the real robots)
# the per-game files in docs/results/dagger/ are these runs' files with their decision times dropped
