"""Plug an MCTS preset into a plain PettingZoo loop against baseline agents.

    python examples/mcts_in_env_loop.py --games 4 --variant mp_ensemble --playouts 200

The agent sees only its seat's observation and information set; every decision it
samples determinizations from the information set and searches them in numba.  Presets
(``--variant``): see ``catan_env.agents.mcts.PRESETS`` and docs/search.md.
"""
import argparse
import time

import catan_env
from catan_env.agents import JSettlersAgent, MCTSAgent, RandomAgent
from catan_env.cli import HelpFormatter


def play(seed, variant, playouts):
    env = catan_env.env(players=4)
    env.reset(seed=seed)
    players = {"player_0": MCTSAgent(seed=seed, variant=variant, playouts=playouts),
               "player_1": JSettlersAgent(seed=seed + 1),
               "player_2": RandomAgent(seed=seed + 2),
               "player_3": RandomAgent(seed=seed + 3)}
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        action = None
        if not (terminated or truncated):
            action = players[agent].act(obs, env.unwrapped.infoset(agent))
        env.step(action)
    return totals, env.unwrapped


def main():
    ap = argparse.ArgumentParser(allow_abbrev=False, description=__doc__.split("\n\n")[0], formatter_class=HelpFormatter)
    ap.add_argument("--games", type=int, default=2, help="games to play")
    ap.add_argument("--variant", default="best", help="MCTS preset (see docs/search.md)")
    ap.add_argument("--playouts", "--iterations", type=int, default=100, help="playouts per decision")
    args = ap.parse_args()
    wins = {}
    for g in range(args.games):
        t0 = time.perf_counter()
        rewards, raw = play(g, args.variant, args.playouts)
        winner = max(rewards, key=rewards.get)
        wins[winner] = wins.get(winner, 0) + 1
        print(f"game {g}: winner {winner} (player_0 = MCTS, player_1 = JSettlers), "
              f"VP {catan_env.core.victory_points(raw._state)}, {time.perf_counter() - t0:.1f}s")
    print("wins:", wins)


if __name__ == "__main__":
    main()
