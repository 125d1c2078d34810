#!/bin/bash
# The pre-registered steps after the data (results/exit_mcts/command.txt), each resumable:
# a network file that exists is not trained again; the judged games are appended per game.
echo 19 > /proc/$$/autogroup
cd /tmp/mc
export PYTHONPATH=/tmp/mc
PY="nice -n 19 /work/main/.venv/bin/python"
while pgrep -f "round 9 against MCTS" > /dev/null; do sleep 30; done
$PY -c "import json,sys; m=json.load(open('/work/main/results/exit_mcts/data-9/manifest.json')); sys.exit(0 if sum(s['games'] for s in m['shards']) >= 1500 else 1)" || { echo "data-9 is not complete: run /tmp/mc/run.sh first"; exit 1; }
$PY examples/value_retrain.py --run /work/main/results/exit_mcts_run --round 9 --out /work/main/results/exit_mcts/net --vp-weight 4 --threads 2 0.3:0 || exit 1
$PY benchmarks/value_strength.py --specs "value:path=/work/main/results/exit_mcts/net/vw0.3-s0-e4-vp4.npz:search=1:determinizations=2,value:path=/work/main/results/exp11/vw0.3-s0-e4-vp4.npz:search=1:determinizations=2" --opponent jsettlers --games 2000 --seed 87000 --interleave --workers 2 --out /work/main/results/exit_mcts/judge_js_87000.jsonl || exit 1
$PY benchmarks/value_strength.py --specs "value:path=/work/main/results/exit_mcts/net/vw0.3-s0-e4-vp4.npz:leaves=6000,pretrained" --opponent "mcts:variant=best:playouts=1000" --games 200 --seed 53000 --interleave --workers 2 --out /work/main/results/exit_mcts/judge_best1000_53000.jsonl
