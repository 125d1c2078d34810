#!/bin/bash
# Issue 47: a fourth DAgger round. The round-3 clone (results/dagger_s3/bc) plays the same kind
# of games on new seeds; the same teacher (pretrained:search=1) labels them; the round-3 clone is
# fine-tuned on the teacher run and all four rounds' rows; evaluated on the seeds of the rounds
# before. Each step resumes or skips when its output is there.
set -e
cd /work/main
B=results/dagger_s4
python -m catan_env.agents.distill --out $B/data --teacher pretrained:search=1 \
    --roll-in ppo:path=results/dagger_s3/bc/actor.npz --opponents jsettlers jsettlers pretrained:search=0 \
    --games 4000 --shard-games 200 --batch 128 --seed 50
# (all five folders, 5,978,374 rows, did not fit in 24 GB: the run was killed for memory; the
# teacher run's rows are left out)
python examples/distill_policy.py --data results/dagger_s1/data results/dagger_s2/data results/dagger_s3/data $B/data \
    --init results/dagger_s3/bc/model.zip --out $B/bc --hidden 512 --epochs 2 --batch 1024 --lr 3e-4 \
    --eval-games 0 --threads 1 --seed 0
python benchmarks/value_strength.py --specs "ppo:path=$B/bc/actor.npz" --opponent jsettlers --games 400 \
    --seed 61000 --out $B/vs_jsettlers_seed61000.jsonl
python benchmarks/value_strength.py --specs "ppo:path=$B/bc/actor.npz" --opponent jsettlers --games 1000 \
    --seed 64000 --out $B/vs_jsettlers_seed64000.jsonl
python benchmarks/value_strength.py --specs "ppo:path=$B/bc/actor.npz" --opponent jsettlers --games 400 \
    --seed 62000 --out $B/vs_jsettlers_seed62000.jsonl
