"""Depth-limited expectimax over the win-probability network, in numba.

The searching seat (``root``) maximises its own chance to win as the network rates it
from its own view.  A ply is one of its decisions; chance after a move is expanded
exactly: the dice (11 totals by their odds), a development card drawn (by the deck's
composition in the state searched), a stolen card (by the victim's hand there).  The
search continues while the root decides (a turn's build after build, a knight then
the robber, a discard after a discard) and stops at ``depth`` plies or when another
seat decides: the leaf is the network's value, a finished game 1 or 0.  Other seats'
moves are not searched: the network's value is the estimate of what follows.

The one-ply pieces (chance outcomes, leaf value, one move's value, macro moves) live in
``catan_env.learned.value``, shared with the greedy decision and the batched env.

Beam: at the root every candidate gets its one-ply value; the ``beam`` best are searched
one ply deeper (and at depth 3 the ``beam`` best of each of those again).  Domestic
trade offers are left out of the candidates (the agent answers offers separately).
States come from a determinization of the root's information set (``agent.py``); the
leaves read only what the root may know, so only the chance odds depend on it.
"""
from collections import namedtuple
from typing import Any, Tuple

import numpy as np
from numba import njit

from catan_env.core import actions as A
from catan_env.core.cards import current_decider
from catan_env.core.layout import MAX_PLAYERS
from catan_env.core.rules import legal_actions
from catan_env.learned.value import (
    MAX_OUTCOMES, SEARCHABLE, Evaluator, after_move, leaf_value, move_outcomes, one_ply_value, set_base,
)


# The plies are inline='always' (numba inlines their IR into search_values and move_value):
# compiled one by one, each would link the rules core and the network under it and LLVM
# would optimise the whole again at every level of the chain (about 12 s of a first run).

# what every ply reads: the network with its buffers, the searching seat, the beam
Ply = namedtuple("Ply", ["ev", "root", "beam"])


@njit(cache=True, inline='always')
def _leaf(p: Ply, s: np.ndarray) -> float:
    return leaf_value(p.ev, s, p.root)


@njit(cache=True, inline='always')
def _one_ply(p: Ply, s: np.ndarray, a: int, c: np.ndarray) -> float:
    return one_ply_value(p.ev, s, a, p.root, c)


@njit(cache=True, inline='always')
def _searchable(p: Ply, s: np.ndarray) -> Tuple[np.ndarray, int]:
    """(root's searchable moves in s, how many); none where another seat decides."""
    if current_decider(s) != p.root:
        return np.empty(0, np.int64), 0
    moves = np.empty(A.N_ACTIONS, np.int64)
    buf = np.empty(A.N_ACTIONS, np.int64)
    n = legal_actions(s, buf)
    m = 0
    for j in range(n):
        if SEARCHABLE[buf[j]]:
            moves[m] = buf[j]
            m += 1
    return moves, m


@njit(cache=True, inline='always')
def _expected(p: Ply, s: np.ndarray, a: int, value_after: Any) -> float:
    """Expected value of action a over its chance outcomes, each valued by ``value_after``
    (the ply below: ``_v2`` or ``_v3``, a function argument so one body serves both)."""
    outs = np.empty(MAX_OUTCOMES, np.int64)
    probs = np.empty(MAX_OUTCOMES)
    c = np.empty_like(s)
    k = move_outcomes(s, a, outs, probs)
    total = 0.0
    for i in range(k):
        after_move(s, a, outs, i, c)
        total += probs[i] * value_after(p, c)
    return total


@njit(cache=True, inline='always')
def _v2(p: Ply, s: np.ndarray) -> float:
    """Value of s with one more ply of root's own: the best one-ply move while root
    decides, else the leaf."""
    moves, m = _searchable(p, s)
    if m == 0:
        return _leaf(p, s)
    c = np.empty_like(s)
    best = -1.0
    for j in range(m):
        best = max(best, _one_ply(p, s, moves[j], c))
    return best


@njit(cache=True, inline='always')
def _q2(p: Ply, s: np.ndarray, a: int) -> float:
    """Expected two-ply value of action a."""
    return _expected(p, s, a, _v2)


@njit(cache=True, inline='always')
def _v3(p: Ply, s: np.ndarray) -> float:
    """Value of s with two more plies of root's own (beam-limited)."""
    moves, m = _searchable(p, s)
    if m == 0:
        return _leaf(p, s)
    q = np.empty(m)
    c = np.empty_like(s)
    for j in range(m):
        q[j] = _one_ply(p, s, moves[j], c)
    order = np.argsort(-q)
    best = -1.0
    for j in range(min(p.beam, m)):
        best = max(best, _q2(p, s, moves[order[j]]))
    return best


@njit(cache=True, inline='always')
def _q3(p: Ply, s: np.ndarray, a: int) -> float:
    """Expected three-ply value of action a (beam-limited)."""
    return _expected(p, s, a, _v3)


@njit(cache=True)
def search_values(ev: Evaluator, s: np.ndarray, root: int, moves: np.ndarray, depth: int, beam: int,
                  q: np.ndarray) -> int:
    """q[i] := root's expected chance to win after moves[i] searched ``depth`` plies
    (1-3); moves outside the beam keep their one-ply value minus 1 (ranked below every
    searched move).  Returns the number of leaf evaluations' worth of work done (moves)."""
    set_base(ev, s, root)
    c = np.empty_like(s)
    m = moves.shape[0]
    for i in range(m):
        q[i] = one_ply_value(ev, s, moves[i], root, c)
    if depth <= 1 or m <= 1:
        return m
    order = np.argsort(-q[:m])
    for j in range(m):
        q[j] -= 1.0
    p = Ply(ev, root, beam)
    for j in range(min(beam, m)):
        i = order[j]
        q[i] = _q2(p, s, moves[i]) if depth == 2 else _q3(p, s, moves[i])
    return m


@njit(cache=True)
def move_value(ev: Evaluator, s: np.ndarray, root: int, a: int, depth: int, beam: int) -> Tuple[float, float]:
    """(root's expected chance to win after action a searched ``depth`` plies (1-3), the
    leaves evaluated): one move's share of :func:`search_values`, for a caller that
    watches its budget between moves (the anytime mode)."""
    set_base(ev, s, root)
    before = ev.rel[MAX_PLAYERS]
    if depth <= 1:
        v = one_ply_value(ev, s, a, root, np.empty_like(s))
    elif depth == 2:
        v = _q2(Ply(ev, root, beam), s, a)
    else:
        v = _q3(Ply(ev, root, beam), s, a)
    return v, ev.rel[MAX_PLAYERS] - before
