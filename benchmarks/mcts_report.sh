#!/bin/sh
# Tables (stdout) and figures (docs/mcts_*.png) of whatever mcts_evals.sh has played so far.
E="python benchmarks/mcts_eval.py"
mkdir -p docs
$E variants --playouts 1000 --report --plot docs/mcts_variants_1k.png
$E variants --playouts 10000 --tag _10k --report --plot docs/mcts_variants_10k.png
$E cp --playouts 1000 --report --plot docs/mcts_cp_sweep.png
$E budget --variant best --budgets 25 50 100 200 --report --plot docs/mcts_budget.png
$E seats --variant best --playouts 50 --report --plot docs/mcts_seats.png
$E variants --playouts 1000 --variants best:opening=jsettlers --tag _opening --report
$E variants --playouts 1000 --variants best:rollout_turns=30 best:reward=vp best:c=0.5 best:rollout_turns=10 --tag _candidates --report
