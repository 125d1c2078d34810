"""The search kernel: one numba function grows one tree by n iterations.

A tree lives in preallocated arrays (:class:`agents.mcts.tree.Tree`), so a search can be
grown in chunks (budgets in seconds), several trees can grow in parallel threads (the
kernel releases the GIL) and be merged at the root (Ensemble UCT).  Every option of the
paper variants is a number in two config arrays (``ci`` ints, ``cf`` floats; indices
below), so one cached kernel serves every preset.

Per iteration:
  1. a world: a fresh determinization of the searcher's view (ISMCTS), or a copy of the
     tree's one world with a fresh RNG (determinized UCT); never the true state;
  2. selection from the root: children legal in this world gain availability; the
     decider maximises its own mean + ``c*sqrt(ln avail / visits)`` (UCB) or, with a
     prior, ``Q + c*P*sqrt(N_parent)/(1+N)`` (PUCT, unvisited children valued at ``fpu``);
     chance the searcher sees (any dice roll, its own steals and draws) becomes an outcome
     node sampled by the simulator (sparse UCT, at most ``chance_width`` outcomes, at most
     ``chance_depth`` chance layers on a path), the rest is open loop;
  3. expansion of one child (random untried action, or the highest domain weight first),
     optionally with virtual wins and progressive widening;
  4. a playout (random / pruning / weighted, or per seat drawn from a mixture), to the
     end or cut after ``rollout_turns`` turns and scored by the evaluator;
  5. backup of the reward vector (one-hot winner or VP-scaled) along the path.
"""
import types
from collections import namedtuple
from typing import Any, Callable, Dict, Optional, Tuple

import numpy as np
from numba import njit

from catan_env.core import actions as A
from catan_env.core.arrays import copy_into
from catan_env.core.cards import current_decider, total_vp
from catan_env.core.chance import CHANCE_DRAW, CHANCE_NONE, CHANCE_STEAL, chance_kind, recorded_outcome
from catan_env.core.determinize import determinize
from catan_env.core.layout import (
    BANK, MAX_PLAYERS, N_RES, OPT_PLAYERS, OPT_TRADE,
    OPT_VP, PHASE, PH_GAME_OVER, RNG, STATE_SIZE, TURN, WINNER, hand_i,
)
from catan_env.core.playout import action_weights, pick_action
from catan_env.core.rng import randint, seed_rng
from catan_env.core.rules import FROM_RNG, action_cost, apply_action, legal_actions

# ---- integer options (ci)
I_DET = 0            # 0: a determinization per iteration (ISMCTS); 1: one per tree
I_CHANCE = 1         # 0: open loop; 1: sparse chance nodes for chance the searcher sees
I_CHANCE_WIDTH = 2   # most outcome children per chance node
I_CHANCE_DEPTH = 3   # most chance layers on a path (deeper chance is open loop)
I_VIRTUAL = 4        # virtual wins on expansion (20 settlement, 10 city), not backed up
I_PRUNE = 5          # move pruning in the tree: cities, else settlements, else all
I_EXPAND = 6         # 0: random untried action; 1: highest domain weight first
I_POLICY = 7         # playout policy 0 random, 1 pruning, 2 weighted, 3 mixture per seat
I_REWARD = 8         # 0: win (one-hot; capped game 1/n); 1: VP share of the target
I_ROLLOUT_TURNS = 9  # -1 play to the end; 0 evaluate the leaf; k: cut after k turns
I_TURN_CAP = 10      # absolute turn cap of playouts
I_PRIOR = 11         # 0: UCB; 1: PUCT with the prior hook
I_NO_TRADE = 12      # 1: no domestic offers below the root (the search's trade model)
N_CI = 13
# ---- float options (cf)
F_C = 0              # exploration constant (Cp)
F_PW_C = 1           # progressive widening: at most ceil(pw_c * N^pw_alpha) children
F_PW_ALPHA = 2       #   (pw_alpha == 0: off)
F_MIX = 3            # mixture weights of the three playout policies (3 floats)
F_FPU = 6            # PUCT value of an unvisited child
N_CF = 7

OPTIMISTIC = A.N_ACTIONS   # key of an optimistic root move: OPTIMISTIC + action id
VIRTUAL_SETTLEMENT = 20.0
VIRTUAL_CITY = 10.0
OUTCOME_NONE = -1


@njit(cache=True)
def key_action(k: int) -> int:
    """The action behind a root key (a trade-optimistic key stands for its build)."""
    return k - OPTIMISTIC if k >= OPTIMISTIC else k


@njit(cache=True)
def virtual_wins(a: int) -> float:
    if A.SETTLEMENT0 <= a < A.CITY0:
        return VIRTUAL_SETTLEMENT
    if A.CITY0 <= a < A.BUY_DEV:
        return VIRTUAL_CITY
    return 0.0


@njit(cache=True)
def prune_moves(buf: np.ndarray, n: int) -> int:
    """MP-UCT's move pruning in place: only cities if any, else only settlements if
    any, else everything.  Returns the new count."""
    m = 0
    for i in range(n):
        if A.CITY0 <= buf[i] < A.BUY_DEV:
            buf[m] = buf[i]
            m += 1
    if m > 0:
        return m
    for i in range(n):
        if A.SETTLEMENT0 <= buf[i] < A.CITY0:
            buf[m] = buf[i]
            m += 1
    return m if m > 0 else n


@njit(cache=True)
def optimistic_swap(s: np.ndarray, p: int, a: int) -> bool:
    """Make action a affordable for p by 1:1 swaps of spare cards (the trade-optimistic
    assumption): each missing card comes from an opponent who holds it (nearest seat
    after p), else from the bank, in exchange for a spare card of p's.  Returns False
    (state unspecified) when some missing card exists nowhere."""
    cost = action_cost(a)
    n = s[OPT_PLAYERS]
    for r in range(N_RES):
        while s[hand_i(p, r)] < cost[r]:
            spare = -1
            best = 0
            for q in range(N_RES):
                extra = s[hand_i(p, q)] - cost[q]
                if extra > best:
                    best = extra
                    spare = q
            if spare < 0:
                return False
            partner = -1
            for k in range(1, n):
                o = (p + k) % n
                if s[hand_i(o, r)] > 0:
                    partner = o
                    break
            if partner >= 0:
                s[hand_i(partner, r)] -= 1
                s[hand_i(partner, spare)] += 1
            elif s[BANK + r] > 0:
                s[BANK + r] -= 1
                s[BANK + spare] += 1
            else:
                return False
            s[hand_i(p, spare)] -= 1
            s[hand_i(p, r)] += 1
    return True


@njit(cache=True)
def builtin_evaluate(s: np.ndarray, seat: int) -> np.ndarray:
    """Default leaf value: each seat's share of the VP on the board (a crude win chance)."""
    out = np.zeros(MAX_PLAYERS)
    n = s[OPT_PLAYERS]
    total = 0.0
    for p in range(n):
        out[p] = total_vp(s, p) + 1.0
        total += out[p]
    for p in range(n):
        out[p] /= total
    return out


@njit(cache=True)
def builtin_prior(s: np.ndarray, seat: int, actions: np.ndarray, n: int, out: np.ndarray) -> None:
    """Default prior: Szita et al.'s domain weights of the actions, normalised."""
    total = action_weights(s, seat, actions, n, out)
    for i in range(n):
        out[i] /= total


@njit(cache=True)
def _outcome_kind(s: np.ndarray, a: int, seat: int) -> int:
    """The chance the searcher observes after action a (``core.chance`` kinds): the dice,
    its own steal (thief or victim), its own draw; CHANCE_NONE for none or unseen (it
    stays open loop)."""
    kind = chance_kind(s, a)
    if kind == CHANCE_DRAW:
        return kind if current_decider(s) == seat else CHANCE_NONE
    if kind == CHANCE_STEAL:
        mover = current_decider(s)
        victim = A.robber_victim_seat(a, mover, s[OPT_PLAYERS])
        return kind if (mover == seat or victim == seat) else CHANCE_NONE
    return kind


@njit(cache=True)
def _find_child(key: np.ndarray, first: np.ndarray, nxt: np.ndarray, node: int, k: int) -> int:
    c = first[node]
    while c >= 0 and key[c] != k:
        c = nxt[c]
    return c




@njit(cache=True)
def _reward(s: np.ndarray, mode: int, out: np.ndarray) -> None:
    n = s[OPT_PLAYERS]
    out[:] = 0.0
    w = s[WINNER]
    if mode == 1:
        for p in range(n):
            out[p] = min(total_vp(s, p), s[OPT_VP]) / s[OPT_VP]
        if w >= 0:
            out[w] = 1.0
    elif w >= 0:
        out[w] = 1.0
    else:
        for p in range(n):
            out[p] = 1.0 / n


@njit(cache=True)
def _new_node(key: np.ndarray, first: np.ndarray, nxt: np.ndarray, chance: np.ndarray, visits: np.ndarray,
              real: np.ndarray, avail: np.ndarray, wins: np.ndarray, count: np.ndarray, parent: int, k: int) -> int:
    c = count[0]
    count[0] += 1
    key[c] = k
    first[c] = -1
    nxt[c] = first[parent]
    first[parent] = c
    chance[c] = 0
    visits[c] = 0.0
    real[c] = 0.0
    avail[c] = 0.0
    wins[c, :] = 0.0
    return c


@njit(cache=True)
def _playout(s: np.ndarray, ci: np.ndarray, cf: np.ndarray, rng: np.ndarray, buf: np.ndarray, weights: np.ndarray,
             reward: np.ndarray) -> bool:
    """Play out from s and write the reward vector; returns True when the evaluator
    must score s instead (a cut playout)."""
    turns = ci[I_ROLLOUT_TURNS]
    if s[PHASE] != PH_GAME_OVER and turns == 0:
        return True
    cap = ci[I_TURN_CAP]
    if turns > 0 and s[TURN] + turns < cap:
        cap = s[TURN] + turns
    policies = np.empty(MAX_PLAYERS, dtype=np.int64)
    for p in range(MAX_PLAYERS):
        policies[p] = ci[I_POLICY]
        if ci[I_POLICY] == 3:
            x = randint(rng, 1 << 30) / float(1 << 30) * (cf[F_MIX] + cf[F_MIX + 1] + cf[F_MIX + 2])
            policies[p] = 2
            for j in range(2):
                if x < cf[F_MIX + j]:
                    policies[p] = j
                    break
                x -= cf[F_MIX + j]
    while s[PHASE] != PH_GAME_OVER and s[TURN] <= cap:
        n = legal_actions(s, buf)
        d = current_decider(s)
        apply_action(s, pick_action(s, buf, n, policies[d], rng, weights), FROM_RNG)
    if s[PHASE] != PH_GAME_OVER and s[TURN] < ci[I_TURN_CAP] and turns > 0:
        return True
    _reward(s, ci[I_REWARD], reward)
    return False


evaluate_hook = builtin_evaluate
prior_hook = builtin_prior


# ---- per-iteration seeds and buffer sizes
ROLLOUT_SEED_STRIDE = 7919        # iteration i of a search seeded s: playout RNG seed s * 7919 + i
WORLD_SEED_STRIDE = 1_000_003     # and world (determinization) seed s * 1_000_003 + i
MAX_DEPTH = 8000                  # deepest path in the tree (a guard; real paths are short)
PATH_SIZE = MAX_DEPTH + 2         # a step adds an action node and, at chance, an outcome node


@njit(cache=True)
def _start_world(world: np.ndarray, view: np.ndarray, seat: int, seed: int, done: int, ci: np.ndarray) -> np.ndarray:
    """The iteration's world: a fresh determinization of the view (ISMCTS) or the tree's
    one world with a fresh RNG; never the true state."""
    if ci[I_DET] == 1:
        s = world.copy()
        seed_rng(s, seed * WORLD_SEED_STRIDE + done)
    else:
        s = determinize(view, seat, seed * WORLD_SEED_STRIDE + done)
    if ci[I_NO_TRADE] == 1:
        s[OPT_TRADE] = 0
    return s


@njit(cache=True)
def _candidate_moves(s: np.ndarray, node: int, buf: np.ndarray, ci: np.ndarray, optimistic: np.ndarray,
                     root_allowed: np.ndarray) -> int:
    """The moves considered at node: the legal ones (at the root only those allowed),
    pruned (MP), plus the trade-optimistic root moves.  Returns their count in buf."""
    n = legal_actions(s, buf)
    if node == 0:
        m = 0
        for i in range(n):
            if root_allowed[buf[i]]:
                buf[m] = buf[i]
                m += 1
        n = m
    if ci[I_PRUNE] == 1 and n > 0:
        n = prune_moves(buf, n)
    if node == 0:
        for i in range(optimistic.shape[0]):
            buf[n] = OPTIMISTIC + optimistic[i]
            n += 1
    return n


@njit(cache=True)
def _index_children(key: np.ndarray, first: np.ndarray, nxt: np.ndarray, avail: np.ndarray, node: int,
                    buf: np.ndarray, n: int, child_of: np.ndarray) -> Tuple[int, int]:
    """Map each candidate to its child (child_of[key], -1 when untried), count one more
    availability for the tried ones; returns (children, untried)."""
    n_children = 0
    k = first[node]
    while k >= 0:
        child_of[key[k]] = k
        n_children += 1
        k = nxt[k]
    untried = 0
    for i in range(n):
        ch = child_of[buf[i]]
        if ch < 0:
            untried += 1
        else:
            avail[ch] += 1.0
    return n_children, untried


@njit(cache=True)
def _clear_children(key: np.ndarray, first: np.ndarray, nxt: np.ndarray, node: int, child_of: np.ndarray) -> None:
    k = first[node]
    while k >= 0:
        child_of[key[k]] = -1
        k = nxt[k]


@njit(cache=True)
def _untried_move(s: np.ndarray, d: int, buf: np.ndarray, n: int, child_of: np.ndarray, by_weight: bool,
                  rng: np.ndarray, weights: np.ndarray, cand: np.ndarray, plain: np.ndarray) -> int:
    """An untried candidate to expand: at random, or the highest domain weight (ties at
    random)."""
    if by_weight:
        m = 0
        for i in range(n):
            if child_of[buf[i]] < 0:
                cand[m] = buf[i]
                plain[m] = key_action(buf[i])
                m += 1
        action_weights(s, d, plain, m, weights)
        top = -1.0
        ties = 0
        for i in range(m):
            if weights[i] > top:
                top = weights[i]
                ties = 1
            elif weights[i] == top:
                ties += 1
        pick = randint(rng, ties)
        for i in range(m):
            if weights[i] == top:
                if pick == 0:
                    return cand[i]
                pick -= 1
        return -1
    untried = 0
    for i in range(n):
        if child_of[buf[i]] < 0:
            untried += 1
    pick = randint(rng, untried)
    for i in range(n):
        if child_of[buf[i]] < 0:
            if pick == 0:
                return buf[i]
            pick -= 1
    return -1


@njit(cache=True)
def _ucb_child(visits: np.ndarray, avail: np.ndarray, wins: np.ndarray, d: int, buf: np.ndarray, n: int,
               child_of: np.ndarray, c: float) -> int:
    """The tried child maximising UCB with availability counts (ISMCTS), or -1."""
    best = -1e300
    chosen = -1
    for i in range(n):
        ch = child_of[buf[i]]
        if ch < 0:
            continue
        if visits[ch] <= 0:
            score = 1e300
        else:
            score = wins[ch, d] / visits[ch] + c * np.sqrt(np.log(avail[ch]) / visits[ch])
        if score > best:
            best = score
            chosen = ch
    return chosen


@njit(cache=True)
def _chance_child(key: np.ndarray, first: np.ndarray, nxt: np.ndarray, chance: np.ndarray, visits: np.ndarray,
                  real: np.ndarray, avail: np.ndarray, wins: np.ndarray, count: np.ndarray, s: np.ndarray, a: int,
                  chosen: int, kind: int, width: int) -> int:
    """Apply action a (a chance event the searcher sees) and return the outcome node
    below chosen (sparse UCT: at most width outcomes; once full, the simulator is
    resampled until a kept outcome comes up, keeping their relative odds), or -1 where
    the path goes on open loop."""
    chance[chosen] = 1
    n_out = 0
    k = first[chosen]
    while k >= 0:
        n_out += 1
        k = nxt[k]
    if n_out < width:
        apply_action(s, a, FROM_RNG)
        oc = _find_child(key, first, nxt, chosen, recorded_outcome(s, kind))
        if oc < 0 and count[0] < key.shape[0]:
            oc = _new_node(key, first, nxt, chance, visits, real, avail, wins, count,
                           chosen, recorded_outcome(s, kind))
        return oc
    for attempt in range(32):
        trial = s.copy()
        apply_action(trial, a, FROM_RNG)
        oc = _find_child(key, first, nxt, chosen, recorded_outcome(trial, kind))
        if oc >= 0:
            copy_into(s, trial)
            return oc
        s[RNG] = trial[RNG]            # the next try draws afresh
    apply_action(s, a, FROM_RNG)             # open loop from here
    return -1


@njit(cache=True)
def _backup(visits: np.ndarray, real: np.ndarray, wins: np.ndarray, path: np.ndarray, depth: int,
            reward: np.ndarray) -> None:
    for j in range(depth + 1):
        nd = path[j]
        visits[nd] += 1.0
        real[nd] += 1.0
        for p in range(MAX_PLAYERS):
            wins[nd, p] += reward[p]


# a search tree's arrays, indexed by node (see tree.Tree), as grow takes them
TreeArrays = namedtuple("TreeArrays", ["key", "first", "nxt", "chance", "visits", "real", "avail", "wins",
                                       "count", "world"])


@njit(cache=True, nogil=True)
def grow(tree: TreeArrays, view: np.ndarray, seat: int, n_iter: int, seed: int, ci: np.ndarray, cf: np.ndarray,
         optimistic: np.ndarray, root_allowed: np.ndarray) -> int:
    """Grow the tree by n_iter iterations from the searcher's view (see the module doc).
    optimistic: action ids offered at the root as trade-optimistic moves.
    root_allowed[a] == 0 keeps action a out of the root.  Returns the iterations done.
    Leaves are scored by ``evaluate_hook`` and PUCT reads ``prior_hook``: the built-ins
    here (cached), or your own in a kernel from :func:`make_grow` (the two hooks are
    called here, in grow itself, so that make_grow can swap them)."""
    key, first, nxt, chance, visits, real, avail, wins, count, world = tree
    max_nodes = key.shape[0]
    width = A.N_ACTIONS + optimistic.shape[0]
    buf = np.empty(width, dtype=np.int64)
    child_of = np.full(2 * A.N_ACTIONS, -1, dtype=np.int64)
    weights = np.empty(width)
    probs = np.empty(width)
    cand = np.empty(width, dtype=np.int64)
    plain = np.empty(width, dtype=np.int64)
    path = np.empty(PATH_SIZE, dtype=np.int64)
    rng = np.zeros(STATE_SIZE, dtype=np.int64)
    reward = np.zeros(MAX_PLAYERS)
    c = cf[F_C]
    for it in range(n_iter):
        done = count[1]
        seed_rng(rng, seed * ROLLOUT_SEED_STRIDE + done)
        s = _start_world(world, view, seat, seed, done, ci)
        node = np.int64(0)  # int64 from the start: a literal 0 compiles the tree helpers twice
        depth = 0
        path[0] = 0
        layers = 0
        while s[PHASE] != PH_GAME_OVER and s[TURN] <= ci[I_TURN_CAP] and depth < MAX_DEPTH:
            # --- selection / expansion at node
            n = _candidate_moves(s, node, buf, ci, optimistic, root_allowed)
            if n == 0:
                break
            d = current_decider(s)
            n_children, untried = _index_children(key, first, nxt, avail, node, buf, n, child_of)
            can_add = count[0] + 3 <= max_nodes
            if cf[F_PW_ALPHA] > 0.0 and untried < n:   # progressive widening
                can_add = can_add and n_children < np.ceil(cf[F_PW_C] * (real[node] + 1.0) ** cf[F_PW_ALPHA])
            chosen = -1
            new_key = -1
            if ci[I_PRIOR] == 1:                        # PUCT over the prior hook
                for i in range(n):
                    plain[i] = key_action(buf[i])
                prior_hook(s, d, plain, n, probs)
                sq = np.sqrt(max(real[node], 1.0))
                best = -1e300
                for i in range(n):
                    ch = child_of[buf[i]]
                    if ch < 0:
                        if not can_add:
                            continue
                        score = cf[F_FPU] + c * probs[i] * sq
                    else:
                        score = wins[ch, d] / visits[ch] + c * probs[i] * sq / (1.0 + visits[ch])
                    if score > best:
                        best = score
                        if ch < 0:
                            new_key = buf[i]
                            chosen = -1
                        else:
                            chosen = ch
                            new_key = -1
            elif untried > 0 and can_add:
                new_key = _untried_move(s, d, buf, n, child_of, ci[I_EXPAND] == 1, rng, weights, cand, plain)
            else:
                chosen = _ucb_child(visits, avail, wins, d, buf, n, child_of, c)
                if chosen < 0 and untried > 0 and count[0] + 3 <= max_nodes:
                    new_key = buf[randint(rng, n)]   # widening left nothing legal here
                    while child_of[new_key] >= 0:
                        new_key = buf[randint(rng, n)]
            _clear_children(key, first, nxt, node, child_of)
            expanded = False
            if new_key >= 0:
                chosen = _new_node(key, first, nxt, chance, visits, real, avail, wins, count, node, new_key)
                avail[chosen] = 1.0
                expanded = True
                if ci[I_VIRTUAL] == 1:
                    v = virtual_wins(key_action(new_key))
                    visits[chosen] = v
                    wins[chosen, d] = v
            if chosen < 0:
                break
            # --- the move (and the chance outcome the searcher sees)
            a = key_action(key[chosen])
            if key[chosen] >= OPTIMISTIC:
                if not optimistic_swap(s, d, a):
                    break   # the cards cannot be had in this world: score it from here
            kind = CHANCE_NONE
            if ci[I_CHANCE] == 1 and layers < ci[I_CHANCE_DEPTH]:
                kind = _outcome_kind(s, a, seat)
            depth += 1
            path[depth] = chosen
            node = chosen
            if kind == CHANCE_NONE:
                apply_action(s, a, FROM_RNG)
            else:
                layers += 1
                oc = _chance_child(key, first, nxt, chance, visits, real, avail, wins, count, s, a,
                                   chosen, kind, ci[I_CHANCE_WIDTH])
                if oc < 0:
                    break
                depth += 1
                path[depth] = oc
                node = oc
            if expanded:
                break
        # --- playout, leaf value, backup
        if _playout(s, ci, cf, rng, buf, weights, reward):
            values = evaluate_hook(s, seat)
            if values.shape[0] != reward.shape[0]:
                raise ValueError("the evaluate hook must return one value per seat (MAX_PLAYERS)")
            copy_into(reward, values)
        _backup(visits, real, wins, path, depth, reward)
        count[1] += 1
    return n_iter


# a search kernel: grow's signature, the built-in hooks' or your own compiled in
GrowKernel = Callable[[TreeArrays, np.ndarray, int, int, int, np.ndarray, np.ndarray, np.ndarray, np.ndarray], int]
# (evaluate, prior) -> compiled kernel: one compilation per pair and process
_CUSTOM: Dict[Tuple[Optional[Callable[..., Any]], Optional[Callable[..., Any]]], GrowKernel] = {}


def make_grow(evaluate: Optional[Callable[..., Any]] = None,
              prior: Optional[Callable[..., Any]] = None) -> GrowKernel:
    """A kernel with your own hooks: ``evaluate(state, seat) -> float64[4]`` values in
    [0, 1] per seat, ``prior(state, seat, actions, n, out)`` writing n probabilities;
    both ``@njit`` functions.  It is :func:`grow`'s code compiled with these hooks in
    place of the built-ins, once per pair of hooks and process (not cached on disk)."""
    key = (evaluate, prior)
    if key not in _CUSTOM:
        hooks = dict(grow.py_func.__globals__)
        hooks["evaluate_hook"] = evaluate if evaluate is not None else builtin_evaluate
        hooks["prior_hook"] = prior if prior is not None else builtin_prior
        code = grow.py_func
        fn = types.FunctionType(code.__code__, hooks, "grow_custom", code.__defaults__, code.__closure__)
        _CUSTOM[key] = njit(nogil=True)(fn)
    return _CUSTOM[key]
