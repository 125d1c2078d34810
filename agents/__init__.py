"""Agents for catan_env: one protocol (``Agent.act(observation, infoset)``), random and
weighted baselines, a JSettlers-style heuristic robot, a trading baseline, and the arena.

Installed as ``catan_env.agents`` (the folder is ``agents/`` at the repository's top)."""
if __name__ != "catan_env.agents":  # one file under two module names poisons numba's cache
    raise ImportError(f"import catan_env.agents, not {__name__} (the agents/ folder installs inside "
                      "the catan_env package)")
from .base import Agent
from .jsettlers import JSettlersAgent
from .mcts import MCTSAgent
from .random_agents import RandomAgent, WeightedRandomAgent
from .registry import available_agents, make_agent, register_agent
from .trader import TraderAgent

__all__ = ["Agent", "RandomAgent", "WeightedRandomAgent", "JSettlersAgent", "TraderAgent", "MCTSAgent",
           "make_agent", "register_agent", "available_agents"]
