#!/bin/bash
# Issue 47: a sixth DAgger round, from the fifth round's policy (shipped as pretrained_policy). That policy
# plays one seat of new games (seed 61), the same teacher (pretrained:search=1) labels them, and it is
# fine-tuned on the fifth and sixth rounds' rows together (DAgger's aggregate; the rounds before the fifth
# lost their rows, command_s5.sh). The rule, fixed before any of its games: ship it if it is ahead of the
# fifth round in the pooled paired games over the five seed sets (the four earlier sets and 1,000 fresh
# seeds, 66,000, that no choice was made on), with a two-sided sign test p < 0.05.
# The collection ran from a copy of the tree (git archive HEAD in /tmp, so the roll-in's path is absolute:
# the data folder's manifest records it as given, and a rerun must give the same string) at nice 19 beside
# other work; it
# was started for 6,000 games and stopped after 4,000 (time): the schedule's first games do not depend on
# the total, so --games 4000 gives the same shards.
# Each step resumes or skips when its output is there; per-decision times are dropped from the committed
# files afterwards, as in every committed file.
set -e
cd /work/main
B=results/dagger_s6
mkdir -p $B
cp results/dagger_s5/bc/actor.npz $B/round5.npz  # the fifth round's weights (= the shipped pretrained_policy.npz)
python -m catan_env.agents.distill --out $B/data --teacher pretrained:search=1 \
    --roll-in ppo:path=/work/main/$B/round5.npz --opponents jsettlers jsettlers pretrained:search=0 \
    --games 4000 --shard-games 200 --batch 128 --seed 61 --workers 2
# the fifth round's own figures on this round's held-out games: learning rate 0, one epoch (s6_before_state.json)
python examples/distill_policy.py --data results/dagger_s5/data $B/data --init $B/round5.npz --out $B/bc_lr0 \
    --epochs 1 --batch 1024 --lr 0 --eval-games 0 --threads 2 --seed 0
python examples/distill_policy.py --data results/dagger_s5/data $B/data --init $B/round5.npz --out $B/bc \
    --epochs 2 --batch 1024 --lr 3e-4 --eval-games 0 --threads 2 --seed 0   # (s6_clone_state.json)
# the fifth round on the fresh seeds, then the sixth on all five sets (the fifth's games on the other four
# are in these files already, under the same spec)
python benchmarks/value_strength.py --specs "ppo:path=results/dagger_s5/bc/actor.npz" --opponent jsettlers \
    --games 1000 --seed 66000 --workers 2 --out docs/results/dagger/vs_jsettlers_seed66000.jsonl
for seeds in "66000 1000" "65000 1000" "61000 400" "64000 1000" "62000 400"; do
    set -- $seeds
    python benchmarks/value_strength.py --specs "ppo:path=$B/bc/actor.npz" --opponent jsettlers --games $2 \
        --seed $1 --workers 2 --out docs/results/dagger/vs_jsettlers_seed$1.jsonl
done
# Not shipped: pooled over the five sets it won 1,927/3,800 (0.507) where the fifth round won 1,949 (0.513),
# games only one of them won 747 / 769, sign test p = 0.59 (benchmarks/strength_table.py: the recipe page's
# last paired table). The recipe page's DAgger tables (and the README's table, which this round leaves as it was):
python benchmarks/strength_table.py --write
python benchmarks/strength_table.py > docs/results/strength_table/table.txt
