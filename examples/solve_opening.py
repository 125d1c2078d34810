"""Solve a board's optimal initial placements (backward induction, the placement paper)
and render it with each player's two settlements marked.

    python examples/solve_opening.py --seed 3 --png opening.png
"""
from catan_env.agents.opening import main

if __name__ == "__main__":
    raise SystemExit(main())
