"""Search trees as preallocated arrays, their root statistics, and the ensemble merge.

A :class:`Tree` holds parallel arrays indexed by node (node 0 is the root): ``key``
(action id, trade-optimistic key, or chance outcome), ``first``/``nxt`` (child lists),
``chance`` (1 where the children are chance outcomes), ``visits`` (virtual wins
included), ``real`` (true visits), ``avail`` (availability), ``wins`` (reward sums per
seat), ``count`` ([nodes used, iterations done]) and ``world`` (the tree's one
determinization, when searching one world per tree).
"""
from dataclasses import dataclass
from typing import Iterable, List, Optional

import numpy as np

from catan_env.core.layout import MAX_PLAYERS, STATE_SIZE

from .kernel import TreeArrays


class Tree:
    """One search tree (see the module docstring)."""

    def __init__(self, max_nodes: int) -> None:
        if max_nodes < 4:
            raise ValueError(f"max_nodes must be >= 4, got {max_nodes}")
        self.key = np.empty(max_nodes, dtype=np.int64)
        self.first = np.empty(max_nodes, dtype=np.int64)
        self.nxt = np.empty(max_nodes, dtype=np.int64)
        self.chance = np.zeros(max_nodes, dtype=np.int8)
        self.visits = np.zeros(max_nodes)
        self.real = np.zeros(max_nodes)
        self.avail = np.zeros(max_nodes)
        self.wins = np.zeros((max_nodes, MAX_PLAYERS))
        self.count = np.zeros(2, dtype=np.int64)
        self.world = np.zeros(STATE_SIZE, dtype=np.int64)
        self.reset()

    def reset(self, world: Optional[np.ndarray] = None) -> None:
        """An empty tree (root only); ``world`` is the determinization it searches when
        the search uses one world per tree."""
        self.key[0] = -1
        self.first[0] = -1
        self.nxt[0] = -1
        self.chance[0] = 0
        self.visits[0] = self.real[0] = self.avail[0] = 0.0
        self.wins[0] = 0.0
        self.count[:] = (1, 0)
        if world is not None:
            self.world[:] = world

    @property
    def arrays(self) -> TreeArrays:
        """The arrays as the search kernel takes them (one named tuple)."""
        return TreeArrays(self.key, self.first, self.nxt, self.chance, self.visits, self.real,
                          self.avail, self.wins, self.count, self.world)

    @property
    def nodes(self) -> int:
        return int(self.count[0])

    @property
    def iterations(self) -> int:
        return int(self.count[1])

    def children(self, node: int = 0) -> List[int]:
        """Child node indices of a node, newest first."""
        out: List[int] = []
        k = self.first[node]
        while k >= 0:
            out.append(int(k))
            k = self.nxt[k]
        return out

    def root_stats(self) -> "RootStats":
        """The root's children as a :class:`RootStats`."""
        kids = self.children(0)
        return RootStats(keys=self.key[kids].copy(), visits=self.real[kids].copy(),
                         wins=self.wins[kids].copy(), avail=self.avail[kids].copy())


@dataclass
class RootStats:
    """Per root child: key, true visits, reward sums per seat, availability."""

    keys: np.ndarray
    visits: np.ndarray
    wins: np.ndarray
    avail: np.ndarray

    def best(self, seat: int, rng: Optional[np.random.Generator] = None) -> int:
        """Most visited key; ties broken by the seat's mean, then at random."""
        if len(self.keys) == 0:
            raise ValueError("no root children: the search ran no iteration")
        v = self.visits
        mean = self.wins[:, seat] / np.maximum(v, 1e-9)
        top = np.flatnonzero(v == v.max())
        top = top[mean[top] == mean[top].max()]
        pick = top[0] if rng is None else top[rng.integers(len(top))]
        return int(self.keys[pick])


def merge_roots(stats: Iterable[RootStats]) -> RootStats:
    """Ensemble UCT's merge: the root children of several trees, visits, reward sums
    and availabilities summed per key."""
    stats = list(stats)
    keys = sorted({int(k) for s in stats for k in s.keys})
    index = {k: i for i, k in enumerate(keys)}
    visits = np.zeros(len(keys))
    wins = np.zeros((len(keys), MAX_PLAYERS))
    avail = np.zeros(len(keys))
    for s in stats:
        for j, k in enumerate(s.keys):
            i = index[int(k)]
            visits[i] += s.visits[j]
            wins[i] += s.wins[j]
            avail[i] += s.avail[j]
    return RootStats(keys=np.array(keys, dtype=np.int64), visits=visits, wins=wins, avail=avail)
