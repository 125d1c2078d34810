#!/bin/bash
# Issue 47: a fifth DAgger round, from the second round's policy (shipped as pretrained_policy until this
# round replaced it). The fourth round's weights and all the rounds' rows lived only under results/, which a
# new checkout does not carry, so this round starts again from the second round's weights: that policy plays
# one seat of new games (seed 51), the same teacher (pretrained:search=1) labels them, and it is fine-tuned
# on those rows alone. Evaluated on the seeds of the rounds before and on 1,000 fresh seeds (65,000), the
# second round beside it on the fresh ones (`pretrained_policy` in that file). The collection was started
# for 8,000 games and stopped after 6,000 (time); the schedule's first games do not depend on the total, so
# --games 6000 gives the same shards. In the session the second round's 65,000 games were played first
# (one worker, beside the collection), and the round's games were appended to the files below, their
# per-decision times dropped afterwards (as in every committed file). Each step resumes or skips when its
# output is there.
set -e
cd /work/main
B=results/dagger_s5
mkdir -p $B
git show 400dd8e:catan_env/learned/weights/pretrained_policy.npz > $B/round2.npz  # the second round's weights
python benchmarks/value_strength.py --specs pretrained_policy --opponent jsettlers --games 1000 \
    --seed 65000 --out docs/results/dagger/vs_jsettlers_seed65000.jsonl  # (run with the second round shipped)
python -m catan_env.agents.distill --out $B/data --teacher pretrained:search=1 \
    --roll-in ppo:path=$B/round2.npz --opponents jsettlers jsettlers pretrained:search=0 \
    --games 6000 --shard-games 200 --batch 128 --seed 51 --workers 2
# the second round's own figures on this round's held-out games: learning rate 0, one epoch (s5_before_state.json)
python examples/distill_policy.py --data $B/data --init $B/round2.npz --out $B/bc_lr0 --epochs 1 --batch 1024 \
    --lr 0 --eval-games 0 --threads 1 --seed 0
python examples/distill_policy.py --data $B/data --init $B/round2.npz --out $B/bc --epochs 2 --batch 1024 \
    --lr 3e-4 --eval-games 0 --threads 2 --seed 0   # (s5_clone_state.json)
for seeds in "65000 1000" "61000 400" "64000 1000" "62000 400"; do
    set -- $seeds
    python benchmarks/value_strength.py --specs "ppo:path=$B/bc/actor.npz" --opponent jsettlers --games $2 \
        --seed $1 --workers 2 --out docs/results/dagger/vs_jsettlers_seed$1.jsonl
done
# shipping it (the pooled paired sign test over the four seed sets, p < 0.05, fixed before these games):
cp $B/bc/actor.npz catan_env/learned/weights/pretrained_policy.npz
git mv docs/results/strength/policy_vs_jsettlers.jsonl docs/results/strength/policy_1130r2_vs_jsettlers.jsonl
git mv docs/results/strength/policy_vs_weighted.jsonl docs/results/strength/policy_1130r2_vs_weighted.jsonl
for opponent in jsettlers weighted; do  # the README's rows
    python benchmarks/value_strength.py --specs pretrained_policy --opponent $opponent --games 400 \
        --seed 62000 --out docs/results/strength/policy_vs_$opponent.jsonl
done
# the real robots: the second round's line-up retired as Lineup(..., weights="2026-11-30-round2"), its folder
# moved to pretrained_policy_weights-2026-11-30-round2, then the new weights' 100 games:
python benchmarks/jsettlers_strength.py --only pretrained_policy
python benchmarks/strength_table.py --write
