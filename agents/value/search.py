"""Depth-limited expectimax over the win-probability network, in numba.

The searching seat (``root``) maximises its own chance to win as the network rates it
from its own view.  A ply is one of its decisions; chance after a move is expanded
exactly: the dice (11 totals by their odds), a development card drawn (by the deck's
composition in the state searched), a stolen card (by the victim's hand there).  The
search continues while the root decides (a turn's build after build, a knight then
the robber, a discard after a discard) and stops at ``depth`` plies or when another
seat decides: the leaf is the network's value, a finished game 1 or 0.  Other seats'
moves are not searched: the network's value is the estimate of what follows.

Macro moves: a build reachable by up to four maritime trades is scored as one move (the
trades, the build, its chance, the leaf); when one beats every direct move the agent plays
its first trade and plans again (``macro_values``).

Beam: at the root every candidate gets its one-ply value; the ``beam`` best are searched
one ply deeper (and at depth 3 the ``beam`` best of each of those again).  Domestic
trade offers are left out of the candidates (the agent answers offers separately).
States come from a determinization of the root's information set (``agent.py``); the
leaves read only what the root may know, so only the chance odds depend on it.
"""
import numpy as np
from numba import njit

from catan_env.core import actions as A
from catan_env.core.cards import current_decider
from catan_env.core.layout import (
    BANK, DECK, MAX_PLAYERS, N_DEV, N_RES, OPT_PLAYERS, PHASE, PH_GAME_OVER, WINNER, hand_i,
)
from catan_env.core.rules import FROM_RNG, action_cost, apply_action, legal_actions, trade_rate
from catan_env.core.tables import DICE_WAYS

from .features import N_FEATURES, encode_features
from .net import relative_win_probs

MAX_OUTCOMES = 11
SEARCHABLE = np.ones(A.N_ACTIONS, dtype=np.int8)  # candidates: everything but domestic trade
SEARCHABLE[A.OFFER0:A.TRADE_CANCEL + 1] = 0


@njit(cache=True)
def chance_outcomes(s, a, outs, probs):
    """The chance outcomes of action a in s and their odds into outs, probs; returns
    how many (0: the action has no chance)."""
    if a == A.ROLL:
        for t in range(2, 13):
            outs[t - 2] = t
            probs[t - 2] = DICE_WAYS[t] / 36.0
        return 11
    if a == A.BUY_DEV:
        total = 0
        for t in range(N_DEV):
            total += s[DECK + t]
        k = 0
        for t in range(N_DEV):
            if s[DECK + t] > 0:
                outs[k] = t
                probs[k] = s[DECK + t] / total
                k += 1
        return k
    if A.is_robber(a) and A.robber_victim(a) > 0:
        victim = A.robber_victim_seat(a, current_decider(s), s[OPT_PLAYERS])
        total = 0
        for r in range(N_RES):
            total += s[hand_i(victim, r)]
        k = 0
        for r in range(N_RES):
            if s[hand_i(victim, r)] > 0:
                outs[k] = r
                probs[k] = s[hand_i(victim, r)] / total
                k += 1
        return k
    return 0


@njit(cache=True)
def leaf_value(params, layers, net, s, root, x, h1, h2, rel):
    """root's chance to win in s: 1 or 0 when the game is over, else the network's.  A
    ``rel`` scratch one longer than MAX_PLAYERS counts the leaves in its last entry (the
    anytime search's budget in work, :func:`move_value`)."""
    if rel.shape[0] > MAX_PLAYERS:
        rel[MAX_PLAYERS] += 1.0
    if s[PHASE] == PH_GAME_OVER:
        return 1.0 if s[WINNER] == root else 0.0
    encode_features(s, root, x)
    relative_win_probs(params, layers, net, x, s[OPT_PLAYERS], h1, h2, rel)
    return rel[0]


@njit(cache=True)
def _after(s, a, outs, i, c):
    """c = s after action a with chance outcome outs[i] (i < 0: no chance)."""
    c[:] = s
    apply_action(c, a, outs[i] if i >= 0 else FROM_RNG)


@njit(cache=True)
def _q1(params, layers, net, s, a, root, x, h1, h2, rel, c):
    """Expected leaf value of action a (one ply)."""
    outs = np.empty(MAX_OUTCOMES, np.int64)
    probs = np.empty(MAX_OUTCOMES)
    k = chance_outcomes(s, a, outs, probs)
    if k == 0:
        _after(s, a, outs, -1, c)
        return leaf_value(params, layers, net, c, root, x, h1, h2, rel)
    total = 0.0
    for i in range(k):
        _after(s, a, outs, i, c)
        total += probs[i] * leaf_value(params, layers, net, c, root, x, h1, h2, rel)
    return total


@njit(cache=True)
def _v2(params, layers, net, s, root, x, h1, h2, rel):
    """Value of s with one more ply of root's own: the best one-ply move while root
    decides, else the leaf."""
    if current_decider(s) != root:
        return leaf_value(params, layers, net, s, root, x, h1, h2, rel)
    buf = np.empty(A.N_ACTIONS, np.int64)
    n = legal_actions(s, buf)
    c = np.empty_like(s)
    best = -1.0
    for j in range(n):
        if SEARCHABLE[buf[j]]:
            best = max(best, _q1(params, layers, net, s, buf[j], root, x, h1, h2, rel, c))
    if best < 0.0:
        return leaf_value(params, layers, net, s, root, x, h1, h2, rel)
    return best


@njit(cache=True)
def _q2(params, layers, net, s, a, root, x, h1, h2, rel):
    """Expected two-ply value of action a."""
    outs = np.empty(MAX_OUTCOMES, np.int64)
    probs = np.empty(MAX_OUTCOMES)
    c = np.empty_like(s)
    k = chance_outcomes(s, a, outs, probs)
    if k == 0:
        _after(s, a, outs, -1, c)
        return _v2(params, layers, net, c, root, x, h1, h2, rel)
    total = 0.0
    for i in range(k):
        _after(s, a, outs, i, c)
        total += probs[i] * _v2(params, layers, net, c, root, x, h1, h2, rel)
    return total


@njit(cache=True)
def _v3(params, layers, net, s, root, beam, x, h1, h2, rel):
    """Value of s with two more plies of root's own (beam-limited)."""
    if current_decider(s) != root:
        return leaf_value(params, layers, net, s, root, x, h1, h2, rel)
    buf = np.empty(A.N_ACTIONS, np.int64)
    n = legal_actions(s, buf)
    moves = np.empty(n, np.int64)
    m = 0
    for j in range(n):
        if SEARCHABLE[buf[j]]:
            moves[m] = buf[j]
            m += 1
    if m == 0:
        return leaf_value(params, layers, net, s, root, x, h1, h2, rel)
    q = np.empty(m)
    c = np.empty_like(s)
    for j in range(m):
        q[j] = _q1(params, layers, net, s, moves[j], root, x, h1, h2, rel, c)
    order = np.argsort(-q)
    best = -1.0
    for j in range(min(beam, m)):
        best = max(best, _q2(params, layers, net, s, moves[order[j]], root, x, h1, h2, rel))
    return best


@njit(cache=True)
def _q3(params, layers, net, s, a, root, beam, x, h1, h2, rel):
    outs = np.empty(MAX_OUTCOMES, np.int64)
    probs = np.empty(MAX_OUTCOMES)
    c = np.empty_like(s)
    k = chance_outcomes(s, a, outs, probs)
    if k == 0:
        _after(s, a, outs, -1, c)
        return _v3(params, layers, net, c, root, beam, x, h1, h2, rel)
    total = 0.0
    for i in range(k):
        _after(s, a, outs, i, c)
        total += probs[i] * _v3(params, layers, net, c, root, beam, x, h1, h2, rel)
    return total


@njit(cache=True)
def search_values(params, layers, net, width, s, root, moves, depth, beam, q):
    """q[i] := root's expected chance to win after moves[i] searched ``depth`` plies
    (1-3); moves outside the beam keep their one-ply value minus 1 (ranked below every
    searched move).  Returns the number of leaf evaluations' worth of work done (moves)."""
    x = np.empty(N_FEATURES, np.float32)
    h1 = np.empty(width, np.float32)
    h2 = np.empty(width, np.float32)
    rel = np.empty(MAX_PLAYERS)
    c = np.empty_like(s)
    m = moves.shape[0]
    for i in range(m):
        q[i] = _q1(params, layers, net, s, moves[i], root, x, h1, h2, rel, c)
    if depth <= 1 or m <= 1:
        return m
    order = np.argsort(-q[:m])
    for j in range(m):
        q[j] -= 1.0
    for j in range(min(beam, m)):
        i = order[j]
        if depth == 2:
            q[i] = _q2(params, layers, net, s, moves[i], root, x, h1, h2, rel)
        else:
            q[i] = _q3(params, layers, net, s, moves[i], root, beam, x, h1, h2, rel)
    return m


@njit(cache=True)
def move_value(params, layers, net, width, s, root, a, depth, beam):
    """(root's expected chance to win after action a searched ``depth`` plies (1-3), the
    leaves evaluated): one move's share of :func:`search_values`, for a caller that
    watches its budget between moves (the anytime mode)."""
    x = np.empty(N_FEATURES, np.float32)
    h1 = np.empty(width, np.float32)
    h2 = np.empty(width, np.float32)
    rel = np.zeros(MAX_PLAYERS + 1)  # the last entry counts the leaves
    if depth <= 1:
        v = _q1(params, layers, net, s, a, root, x, h1, h2, rel, np.empty_like(s))
    elif depth == 2:
        v = _q2(params, layers, net, s, a, root, x, h1, h2, rel)
    else:
        v = _q3(params, layers, net, s, a, root, beam, x, h1, h2, rel)
    return v, rel[MAX_PLAYERS]


MAX_PLAN = 4  # maritime trades a macro move may chain before its build


@njit(cache=True)
def trade_plan(s, p, cost, plan):
    """Maritime trades that let p pay ``cost`` from its hand: the missing cards bought one
    at a time with the resource p holds most spare of (at its best rate), the bank
    permitting.  Writes the MARITIME_TRADE ids into plan; returns their number, or -1
    when p cannot pay that way (or would need more than MAX_PLAN trades)."""
    spare = np.empty(N_RES, np.int64)
    bank = np.empty(N_RES, np.int64)
    k = 0
    for r in range(N_RES):
        spare[r] = s[hand_i(p, r)] - cost[r]
        bank[r] = s[BANK + r]
    for r in range(N_RES):
        while spare[r] < 0:
            best, best_left = -1, -1
            for g in range(N_RES):
                if g == r:
                    continue
                left = spare[g] - trade_rate(s, p, g)
                if left >= 0 and left > best_left:
                    best, best_left = g, left
            if best < 0 or bank[r] <= 0 or k >= MAX_PLAN:
                return -1
            rate = trade_rate(s, p, best)
            spare[best] -= rate
            bank[best] += rate
            bank[r] -= 1
            spare[r] += 1
            plan[k] = A.MARITIME0 + best * (N_RES - 1) + (r if r < best else r - 1)
            k += 1
    return k


@njit(cache=True)
def macro_values(params, layers, net, width, s, root, first, value):
    """Builds root can reach by maritime trades first: for each build or card purchase
    that is not affordable now but is after at most MAX_PLAN trades, its value (the
    trades, then the build, chance expanded, then the leaf).  first[i] = the first trade
    of macro i, value[i] its value; returns the number of macros.  (One-ply search does
    not see a build two or three trades away: without these moves a hand of 15 ore is
    held until a seven takes half of it.)"""
    x = np.empty(N_FEATURES, np.float32)
    h1 = np.empty(width, np.float32)
    h2 = np.empty(width, np.float32)
    rel = np.empty(MAX_PLAYERS)
    rich = s.copy()  # the same position with every resource plentiful: which builds are placeable
    for r in range(N_RES):
        rich[hand_i(root, r)] += 20
    buf = np.empty(A.N_ACTIONS, np.int64)
    n = legal_actions(rich, buf)
    plan = np.empty(MAX_PLAN, np.int64)
    trades = np.empty(A.N_ACTIONS, np.int64)
    c = np.empty_like(s)
    d = np.empty_like(s)
    m = 0
    for j in range(n):
        a = buf[j]
        if not (A.ROAD0 <= a <= A.BUY_DEV):
            continue
        k = trade_plan(s, root, action_cost(a), plan)
        if k <= 0:
            continue  # affordable now (the plain search covers it) or not at all
        c[:] = s
        ok = True
        for t in range(k):  # each trade must be legal where it is made (strict-trade rules, ...)
            legal = legal_actions(c, trades)
            found = False
            for i in range(legal):
                if trades[i] == plan[t]:
                    found = True
            if not found:
                ok = False
                break
            apply_action(c, plan[t], FROM_RNG)
        if not ok:
            continue
        first[m] = plan[0]
        value[m] = _q1(params, layers, net, c, a, root, x, h1, h2, rel, d)
        m += 1
    return m
