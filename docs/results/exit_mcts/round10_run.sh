#!/bin/bash
# results/exit_mcts2/command.txt's steps, each resumable.
echo 19 > /proc/$$/autogroup
cd /tmp/mc
export PYTHONPATH=/tmp/mc
PY="nice -n 19 /work/main/.venv/bin/python"
R9=/work/main/results/exit_mcts/net/vw0.3-s0-e4-vp4.npz
NEW=/work/main/results/exit_mcts2/net/vw0.3-s0-e4-vp4.npz
$PY -c "from catan_env.agents.value.positions import generate; generate('/work/main/results/exit_mcts2/data-10', ['value:path=$R9:search=1:determinizations=2'] * 2 + ['mcts:variant=best:playouts=300'] * 2, 2000, seed=10, sample=0.1, workers=2, progress=print, note='round 10 against MCTS: round-9 agent x2, best@300 x2')" || exit 1
$PY examples/value_retrain.py --run /work/main/results/exit_mcts_run2 --round 10 --out /work/main/results/exit_mcts2/net --vp-weight 4 --threads 2 0.3:0 || exit 1
$PY benchmarks/value_strength.py --specs "value:path=$NEW:leaves=6000,pretrained" --opponent "mcts:variant=best:playouts=1000" --games 300 --seed 54000 --interleave --workers 2 --out /work/main/results/exit_mcts2/judge_best1000_54000.jsonl || exit 1
$PY benchmarks/value_strength.py --specs "value:path=$NEW:search=1:determinizations=2,value:path=/work/main/results/exp11/vw0.3-s0-e4-vp4.npz:search=1:determinizations=2" --opponent jsettlers --games 2000 --seed 88000 --interleave --workers 2 --out /work/main/results/exit_mcts2/judge_js_88000.jsonl
