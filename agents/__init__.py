"""Agents for catan_env: one protocol (``Agent.act(observation, infoset)``), random and
weighted baselines, a JSettlers-style heuristic robot, a trading baseline, and the arena.

Installed as ``catan_env.agents`` (the folder is ``agents/`` at the repository's top)."""
import os as _os

from catan_env.core.cache_guard import clear_stale as _clear_stale

# jitted agents (here and in subpackages such as jsettlers/) bake in core constants
_clear_stale(_os.path.dirname(_os.path.abspath(__file__)))
from .base import Agent
from .jsettlers import JSettlersAgent
from .mcts import MCTSAgent
from .random_agents import RandomAgent, WeightedRandomAgent
from .registry import available_agents, make_agent, register_agent
from .trader import TraderAgent

__all__ = ["Agent", "RandomAgent", "WeightedRandomAgent", "JSettlersAgent", "TraderAgent", "MCTSAgent",
           "make_agent", "register_agent", "available_agents"]
