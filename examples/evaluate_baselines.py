"""The standard baseline table (the README's main job; also ``catan-baselines``).

    python examples/evaluate_baselines.py --games 400 --workers 2 --out results/baselines

Runs every line-up in ``catan_env.agents.baselines.LINEUPS`` (JSettlers vs random / weighted,
SMART vs FAST, traders vs JSettlers, solver openings vs weighted, weighted vs random),
seats randomised per game, and prints win rates with 95% Wilson intervals.
"""
from catan_env.agents.baselines import main

if __name__ == "__main__":
    raise SystemExit(main())
