"""MCTS in numba: the variants of the Catan MCTS papers as presets of one search.

``MCTSAgent`` (agent.py) plays; ``run_search`` (search.py) searches a view under a budget;
``kernel.py`` grows one tree; ``tree.py`` holds trees and merges ensembles;
``config.py`` lists the options and the presets with their papers; ``trading.py`` is the
trade-optimistic search's trade logic.
"""
from .agent import MCTSAgent
from .config import PRESETS, SearchConfig, make_config
from .kernel import make_grow
from .search import SearchResult, run_search
from .tree import RootStats, Tree, merge_roots

__all__ = ["MCTSAgent", "PRESETS", "SearchConfig", "make_config", "make_grow", "run_search",
           "SearchResult", "RootStats", "Tree", "merge_roots"]
