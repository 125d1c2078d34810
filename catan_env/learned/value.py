"""The win-probability network's value of a position and of a move, in numba.

A forward pass from one seat's features (``features.encode_features``) to a logit per
relative seat, and the softmax over the seats in the game: each player's chance to win,
the observer first (``relative_win_probs``, ``state_win_probs``).  A move's one-ply value
is the expected network value of its result with its chance expanded exactly
(``core.chance.chance_outcomes``: the dice by their odds under the game's sevens rule, a
development card by the deck in the state, a stolen card by the victim's hand there); a finished game is worth 1 or 0.
Builds that up to ``MAX_PLAN`` maritime trades would pay for are valued as one macro
move (``macro_values``).  The agents' deeper search (``agents/value/search.py``), the
greedy decision (``greedy``) and the batched env's value opponents all use these.
"""
import numpy as np
from numba import njit

from catan_env.core.jit_options import NO_RUNTIME

from collections import namedtuple

from .mlp import _activate, _layer, after_first, dense_layer, eight_rows, mlp_forward, output_layer
from catan_env.core import actions as A
from catan_env.core.arrays import copy_into
from catan_env.core.layout import (
    BANK, MAX_PLAYERS, N_RES, OPT_PLAYERS, PHASE, PH_GAME_OVER, STATE_SIZE, WINNER, hand_i,
)
from catan_env.core.rules import FROM_RNG, action_cost, apply_action, legal_actions, trade_rate
from catan_env.core.chance import (  # noqa: F401 (the one chance model)
    CHANCE_DICE, CHANCE_NONE, MAX_OUTCOMES, chance_kind, chance_outcomes,
)

from .features import (
    N_FEATURES, encode_features_into, encode_features_keyed, new_feature_scratch, new_seat_key, set_seat_key,
)


@njit(cache=True, **NO_RUNTIME)
def seat_softmax(logits: np.ndarray, n_players: int, out: np.ndarray) -> None:
    """out[p] = softmax of logits over the first n_players seats; the other entries 0."""
    top = logits[0]
    for p in range(1, n_players):
        top = max(top, logits[p])
    total = 0.0
    for p in range(logits.shape[0]):
        out[p] = np.exp(np.float64(logits[p] - top)) if p < n_players else 0.0
        total += out[p]
    for p in range(n_players):
        out[p] /= total


@njit(cache=True)
def relative_win_probs(params: np.ndarray, layers: np.ndarray, net: np.ndarray, x: np.ndarray, n: int,
                       h1: np.ndarray, h2: np.ndarray, out: np.ndarray) -> None:
    """Softmax over the first n logits of the net on features x into out (relative seats)."""
    logits = np.empty(MAX_PLAYERS, np.float32)
    mlp_forward(params, layers, net, x, logits, h1, h2)
    seat_softmax(logits, n, out)


SEARCHABLE = np.ones(A.N_ACTIONS, dtype=np.int8)  # candidates: everything but domestic trade
SEARCHABLE[A.OFFER0:A.TRADE_CANCEL + 1] = 0


@njit(cache=True)
def same_on_every_view(s: np.ndarray, a: int) -> bool:
    """Whether action a's one-ply value is the same on every determinization of the
    decider's information set: a move with no chance, or the dice, lands in positions whose
    features (what the seat knows) do not depend on the hidden cards, save a monopoly
    (what it takes is in the others' hands).  A card drawn or stolen does depend on them.
    (``tests/test_distill.py`` checks it on every kind of decision.)"""
    if A.MONOPOLY0 <= a < A.MONOPOLY0 + N_RES:
        return False
    kind = chance_kind(s, a)
    return kind == CHANCE_NONE or kind == CHANCE_DICE


# The network and the work buffers every valuing function shares, passed as one value:
#   params, layers, net  the network (``mlp.pack``)
#   x, h1, h2            a position's features and hidden layers
#   rel                  the seats' chances (relative seats), then the count of leaves valued
#   base_x, base_z       the features of a decision's root position and the first layer's
#                        sums there (before the activation); base_seat[0] the observer they
#                        are for (-1: none).  A leaf differs from its root in about 13 of
#                        about 135 nonzero features (measured on random games), so its first
#                        layer is base_z plus the rows of the features that changed.
#   base_key             the root's seat key (``features.set_seat_key``): a leaf with the
#                        same board copies its per-seat columns from base_x
#   idx, logits          the dense layers' index scratch (``mlp.dense_layer``) and the
#                        output layer's logits
#   fs                   the feature encoders' scratch (``features.FeatureScratch``)
#   outs, probs          a move's chance outcomes and their odds (``one_ply_value``)
#   work                 two states' worth of scratch (the trade valuations' positions):
#                        a leaf allocates nothing
Evaluator = namedtuple("Evaluator", ["params", "layers", "net", "x", "h1", "h2", "rel", "base_x", "base_z",
                                     "base_seat", "base_key", "idx", "logits", "fs", "outs", "probs", "work"])


@njit(cache=True)
def new_evaluator(params: np.ndarray, layers: np.ndarray, net: np.ndarray, width: int) -> Evaluator:
    """An Evaluator of net (one per caller that values positions; not shared across threads)."""
    first = net[0]
    return Evaluator(params, layers, net, np.zeros(N_FEATURES, np.float32), np.zeros(width, np.float32),
                     np.zeros(width, np.float32), np.zeros(MAX_PLAYERS + 1), np.zeros(N_FEATURES, np.float32),
                     np.zeros(layers[first, 1], np.float32), np.full(1, -1, np.int64), new_seat_key(),
                     np.zeros(max(N_FEATURES, width), np.int64), np.zeros(MAX_PLAYERS, np.float32),
                     new_feature_scratch(), np.zeros(MAX_OUTCOMES, np.int64), np.zeros(MAX_OUTCOMES),
                     np.zeros((2, STATE_SIZE), np.int64))


@njit(cache=True, **NO_RUNTIME)
def set_base(ev: Evaluator, s: np.ndarray, observer: int) -> None:
    """Make s, seen by observer, the root the leaves that follow differ from (a decision
    sets its root view first; a leaf's value then depends on the leaf and that root only,
    whoever evaluates it).  The root's seat key is recorded every time; the first
    layer's sums only when the root's features are not already the base's."""
    x, base_x = ev.x, ev.base_x
    encode_features_into(s, observer, x, ev.fs)
    set_seat_key(s, observer, ev.base_key)  # (base_x will hold s's own features)
    if ev.base_seat[0] == observer:
        same = True
        for i in range(x.shape[0]):
            if x[i] != base_x[i]:
                same = False
                break
        if same:
            return
    copy_into(base_x, x)
    row = ev.net[0]
    dense_layer(ev.params, ev.layers[row, 3], ev.layers[row, 0], ev.layers[row, 1], base_x, ev.base_z, ev.idx)
    ev.base_seat[0] = observer


@njit(cache=True, **NO_RUNTIME)
def _first_layer_from_base(ev: Evaluator) -> None:
    """ev.h1 := the first layer's output on ev.x: its sums at the base plus each changed
    feature's row of weights times the change, then the activation.  The changed features
    (about 13 of a leaf's) are listed first by a branch-free pass (a scan that skipped
    eight unchanged features at a time and branched on the rest took most of this
    function's time, 2026-12-01), then their rows are added eight to a pass over h, each
    sum still taken row after row in index order: the bits of one row a pass, with an
    eighth of the loads and stores of h.  (dense_layer's pairwise sums changed the bits.)"""
    row = ev.net[0]
    n_in, n_out, act, off = ev.layers[row, 0], ev.layers[row, 1], ev.layers[row, 2], ev.layers[row, 3]
    params, x, base_x, idx = ev.params, ev.x, ev.base_x, ev.idx
    m = 0
    for i in range(n_in):  # branch-free: each index written, the count moved on where x changed
        idx[m] = i
        m += x[i] != base_x[i]
    h = ev.h1[:n_out]
    copy_into(h, ev.base_z)
    k = 0
    while k + 8 <= m:
        i0, i1, i2, i3 = idx[k], idx[k + 1], idx[k + 2], idx[k + 3]
        i4, i5, i6, i7 = idx[k + 4], idx[k + 5], idx[k + 6], idx[k + 7]
        d0, d1, d2, d3 = x[i0] - base_x[i0], x[i1] - base_x[i1], x[i2] - base_x[i2], x[i3] - base_x[i3]
        d4, d5, d6, d7 = x[i4] - base_x[i4], x[i5] - base_x[i5], x[i6] - base_x[i6], x[i7] - base_x[i7]
        w0, w1, w2, w3, w4, w5, w6, w7 = eight_rows(params, off, n_out, idx, k)
        for j in range(n_out):
            h[j] = (((((((h[j] + d0 * w0[j]) + d1 * w1[j]) + d2 * w2[j]) + d3 * w3[j]) + d4 * w4[j]) + d5 * w5[j])
                    + d6 * w6[j]) + d7 * w7[j]
        k += 8
    while k < m:  # fewer than eight left
        i = idx[k]
        d = x[i] - base_x[i]
        w = params[off + i * n_out:off + (i + 1) * n_out]
        for j in range(n_out):
            h[j] += d * w[j]
        k += 1
    _activate(h, n_out, act)


@njit(cache=True, **NO_RUNTIME)
def evaluate_features(ev: Evaluator, root: int, n_players: int) -> float:
    """root's chance to win by the network on the features in ev.x (encoded for root):
    from the base when it is root's, else a full forward pass."""
    params, layers, net, rel = ev.params, ev.layers, ev.net, ev.rel
    logits = ev.logits
    if ev.base_seat[0] != root:  # a whole forward pass, relative_win_probs's sums in ev's buffers
        if net[1] == 1:
            output_layer(params, layers, net, ev.x, logits, ev.idx)
        else:
            _layer(params, layers, net[0], ev.x, ev.h1, ev.idx)
            output_layer(params, layers, net, after_first(params, layers, net, ev.h1, ev.h2, ev.idx), logits, ev.idx)
        seat_softmax(logits, n_players, rel)
        return rel[0]
    _first_layer_from_base(ev)
    if net[1] == 1:  # the first layer was the output layer
        copy_into(logits, ev.h1[:MAX_PLAYERS])
    else:
        output_layer(params, layers, net, after_first(params, layers, net, ev.h1, ev.h2, ev.idx), logits, ev.idx)
    seat_softmax(logits, n_players, rel)
    return rel[0]


@njit(cache=True, **NO_RUNTIME)
def leaf_value(ev: Evaluator, s: np.ndarray, root: int) -> float:
    """root's chance to win in s: 1 or 0 when the game is over, else the network's.
    Counts the leaves in ev.rel[MAX_PLAYERS] (the anytime search's budget in work,
    :func:`move_value`)."""
    ev.rel[MAX_PLAYERS] += 1.0
    if s[PHASE] == PH_GAME_OVER:
        return 1.0 if s[WINNER] == root else 0.0
    encode_features_keyed(s, root, ev.x, ev.base_key, ev.base_x, ev.fs)
    return evaluate_features(ev, root, s[OPT_PLAYERS])


@njit(cache=True)
def state_win_probs(ev: Evaluator, s: np.ndarray, observer: int) -> np.ndarray:
    """Each absolute seat's win chance by the network, from observer's features of s (a
    whole forward pass: no decision's base)."""
    encode_features_into(s, observer, ev.x, ev.fs)
    n = s[OPT_PLAYERS]
    relative_win_probs(ev.params, ev.layers, ev.net, ev.x, n, ev.h1, ev.h2, ev.rel)
    out = np.zeros(MAX_PLAYERS)
    for k in range(n):
        out[(observer + k) % n] = ev.rel[k]
    return out


@njit(cache=True, inline='always')
def move_outcomes(s: np.ndarray, a: int, outs: np.ndarray, probs: np.ndarray) -> int:
    """chance_outcomes, with a move that has no chance as one outcome of probability 1
    (the rules' own draw, ``FROM_RNG``, which such a move never makes): one loop, and
    one call site for what follows each outcome."""
    k = chance_outcomes(s, a, outs, probs)
    if k == 0:
        outs[0] = FROM_RNG
        probs[0] = 1.0
        k = 1
    return k


# inline='always' (numba inlines its IR into the caller): a function compiled on its own
# links the whole rules core under it and LLVM optimises that again, about 1.5 s of
# compile time for these two lines
@njit(cache=True, inline='always')
def after_move(s: np.ndarray, a: int, outs: np.ndarray, i: int, c: np.ndarray) -> None:
    """c = s after action a with chance outcome outs[i] (see move_outcomes)."""
    copy_into(c, s)
    apply_action(c, a, outs[i])


@njit(cache=True, **NO_RUNTIME)
def one_ply_value(ev: Evaluator, s: np.ndarray, a: int, root: int, c: np.ndarray) -> float:
    """Expected leaf value of action a (one ply); c: a state's worth of scratch (not one of
    ``ev.work``'s rows).  The chance outcomes go to ``ev.outs``/``ev.probs``, valid during
    this call only."""
    outs, probs = ev.outs, ev.probs
    k = move_outcomes(s, a, outs, probs)
    total = 0.0
    for i in range(k):
        after_move(s, a, outs, i, c)
        total += probs[i] * leaf_value(ev, c, root)
    return total


MAX_PLAN = 4  # maritime trades a macro move may chain before its build


@njit(cache=True)
def trade_plan(s: np.ndarray, p: int, cost: np.ndarray, plan: np.ndarray) -> int:
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
            plan[k] = A.maritime_action(best, r)
            k += 1
    return k


@njit(cache=True)
def macro_values(ev: Evaluator, s: np.ndarray, root: int, first: np.ndarray, value: np.ndarray) -> int:
    """Builds root can reach by maritime trades first: for each build or card purchase
    that is not affordable now but is after at most MAX_PLAN trades, its value (the
    trades, then the build, chance expanded, then the leaf).  first[i] = the first trade
    of macro i, value[i] its value; returns the number of macros.  (One-ply search does
    not see a build two or three trades away: without these moves a hand of 15 ore is
    held until a seven takes half of it.)  s is the decision's root (``set_base``)."""
    set_base(ev, s, root)
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
        copy_into(c, s)
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
        value[m] = one_ply_value(ev, c, a, root, d)
        m += 1
    return m


@njit(cache=True)
def seat_win_chances(ev: Evaluator, states: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
    """out[i] := seats[i]'s chance to win in states[i] by the network, from its own view
    (a potential for reward shaping, one call for a batch)."""
    for i in range(states.shape[0]):
        out[i] = state_win_probs(ev, states[i], seats[i])[seats[i]]
