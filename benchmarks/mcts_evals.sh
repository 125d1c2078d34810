#!/bin/sh
# The README's MCTS tables, in priority order, resumable: rerun to continue, raise the
# game counts to extend.  Run at low priority:  nice -n 19 sh benchmarks/mcts_evals.sh
# (sh reads a script in blocks: edit this file only while it is not running.)
# In the background: setsid nohup nice -n 19 sh benchmarks/mcts_evals.sh > evals.log 2>&1 &
# then echo 19 > /proc/$!/autogroup (with autogroup scheduling, nice alone does not yield
# the CPU to other sessions).
set -e
W=${WORKERS:-2}
E="python benchmarks/mcts_eval.py"
$E variants --playouts 1000 --games ${GAMES_1K:-60} --workers $W
$E seats --variant best --playouts 50 --labels random --games ${GAMES_SEATS_RANDOM:-2000} --workers $W
$E seats --variant best --playouts 50 --labels best@50 --games ${GAMES_SEATS:-60} --workers $W
$E budget --variant best --budgets 25 50 100 200 --games ${GAMES_BUDGET:-30} --workers $W
$E cp --playouts 1000 --games ${GAMES_CP:-20} --workers $W
$E variants --playouts 10000 --variants best plain_uct --games ${GAMES_10K:-10} --workers $W --tag _10k
$E variants --playouts 10000 --variants best --games ${GAMES_10K_BEST:-30} --workers $W --tag _10k
$E variants --playouts 1000 --variants best mp_uct --games ${GAMES_1K_TOP:-200} --workers $W
$E variants --playouts 1000 --variants ismcts plain_uct --games ${GAMES_1K_TOP:-200} --workers $W
$E cp --playouts 1000 --games ${GAMES_CP_MORE:-40} --workers $W
$E seats --variant best --playouts 50 --labels best@50 --games ${GAMES_SEATS_MORE:-200} --workers $W
$E budget --variant best --budgets 25 50 100 200 --games ${GAMES_BUDGET_MORE:-60} --workers $W
# tries at the 45% goal at 1,000 playouts, and more games at 10,000 playouts
$E variants --playouts 1000 --variants best:opening=jsettlers --games 200 --workers $W --tag _opening
$E variants --playouts 1000 --variants best:rollout_turns=30 best:reward=vp best:c=0.5 best:rollout_turns=10 --games 200 --workers $W --tag _candidates
$E variants --playouts 10000 --variants best plain_uct --games ${GAMES_10K_MORE:-100} --workers $W --tag _10k
$E variants --playouts 10000 --variants mp_uct mpt_ensemble mp_ensemble ismcts vw_uct szita dipl_v5 dipl_v8 --games ${GAMES_10K_REST:-40} --workers $W --tag _10k
