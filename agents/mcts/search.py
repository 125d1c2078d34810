"""Run one search (one tree or an ensemble) under a budget of playouts or seconds.

``run_search(view, seat, config, seed)`` grows ``config.ensemble`` trees from the seat's
view (a state that carries nothing beyond the seat's knowledge, e.g. an InfoSet's
determinization; each tree and each iteration re-samples the hidden part again), in
parallel threads when ``config.threads > 1``, and returns their merged root statistics.
"""
import time
from concurrent.futures import ThreadPoolExecutor
from typing import List, Optional, Sequence

import numpy as np
from numpy.typing import ArrayLike

from catan_env.core import actions as A
from catan_env.core.determinize import determinize
from catan_env.core.layout import TURN

from . import kernel as K
from .config import SearchConfig
from .tree import RootStats, Tree, merge_roots

CHUNK = 64                 # iterations between clock checks under a time budget
EST_PLAYOUTS_PER_S = 40_000
MAX_NODES_CAP = 2_000_000


class SearchResult:
    """Merged root statistics plus what the search cost."""

    def __init__(self, stats: RootStats, trees: List[Tree], seconds: float) -> None:
        self.stats = stats
        self.trees = trees
        self.seconds = seconds
        self.iterations = sum(t.iterations for t in trees)
        self.nodes = sum(t.nodes for t in trees)


def _shares(total: int, parts: int) -> List[int]:
    base, extra = divmod(total, parts)
    return [base + (k < extra) for k in range(parts)]


def _nodes_for(config: SearchConfig, iterations: int) -> int:
    if config.max_nodes:
        return config.max_nodes
    return min(3 * iterations + 64, MAX_NODES_CAP)


def run_search(view: np.ndarray, seat: int, config: SearchConfig, seed: int, allowed: Optional[np.ndarray] = None,
               optimistic: Optional[ArrayLike] = None, grow: Optional[K.GrowKernel] = None,
               pool: Optional[ThreadPoolExecutor] = None) -> SearchResult:
    """Search from ``view`` for ``seat``; returns a :class:`SearchResult`.
    allowed: int8 mask of root actions (default all); optimistic: trade-optimistic
    action ids for the root; grow: a kernel from ``kernel.make_grow`` (hooks)."""
    grow = grow or K.grow
    if allowed is None:
        allowed = np.ones(A.N_ACTIONS, dtype=np.int8)
    if optimistic is None:
        optimistic = np.zeros(0, dtype=np.int64)
    optimistic = np.asarray(optimistic, dtype=np.int64)
    ci, cf = config.arrays(int(view[TURN]))
    p = config.ensemble
    rng = np.random.default_rng(seed)
    seeds = [int(x) for x in rng.integers(1, 2 ** 40, size=p)]
    budget: Sequence[Optional[int]]  # iterations per tree (None: grown until its deadline)
    if config.seconds > 0:
        budget = [None] * p
        sizes = [_nodes_for(config, int(config.seconds * EST_PLAYOUTS_PER_S / p) + 1000)] * p
    else:
        budget = _shares(config.playouts, p)
        sizes = [_nodes_for(config, b) for b in budget]
    trees: List[Tree] = []
    for k in range(p):
        tree = Tree(sizes[k])
        world = determinize(view, seat, seeds[k]) if config.determinize == "search" else view
        tree.reset(world)
        trees.append(tree)
    t0 = time.perf_counter()
    workers = config.threads if config.threads > 1 and p > 1 else 1
    waves = -(-p // workers)
    # a time budget is split over the waves of trees that run one after another
    deadlines = [t0 + config.seconds * (k // workers + 1) / waves for k in range(p)]

    def grow_tree(k: int) -> None:
        tree = trees[k]
        n_iter = budget[k]
        if n_iter is not None:
            grow(tree.arrays, view, seat, n_iter, seeds[k], ci, cf, optimistic, allowed)
            return
        while True:
            grow(tree.arrays, view, seat, CHUNK, seeds[k], ci, cf, optimistic, allowed)
            if time.perf_counter() >= deadlines[k] or tree.nodes + 3 * CHUNK + 3 > len(tree.key):
                return

    if workers > 1:
        own = pool is None
        pool = pool or ThreadPoolExecutor(config.threads)
        try:
            list(pool.map(grow_tree, range(p)))
        finally:
            if own:
                pool.shutdown()
    else:
        for k in range(p):
            grow_tree(k)
    stats = merge_roots(t.root_stats() for t in trees)
    return SearchResult(stats, trees, time.perf_counter() - t0)
