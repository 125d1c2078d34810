"""The win-probability network's greedy decision, in numba: what ``pretrained:search=0``
plays, and what the batched env's value-network opponents play (one implementation).

``greedy_decision`` takes a state the seat may hold (the true state or an information
set's view: it only reads it through determinizations for the seat), the seat's legal
moves, the seeds of its determinizations, the per-turn memory of the offers it made and
its options, and returns the move with what kind of move it is:

- answering an offer: the accept or counter-offer that raises the seat's value most, by
  more than ``accept_margin``, else reject (``trading.answer_gains``);
- confirming: the partner's answer that raises its value most, else cancel;
- in the main phase, first an offer from the menu that raises its value by more than
  ``offer_margin`` when a partner takes it, at most ``offers`` a turn and never the same
  one twice a turn (``memory``: the turn, the count, the ids);
- otherwise the searchable move of the highest one-ply value (chance expanded, the mean
  over the determinizations, the first of equals), unless a macro move (maritime trades
  then a build) beats it on the last view: then that macro's first trade.

Every choice reads the network's value from the seat's own view only.
"""
from typing import Optional, Tuple

import numpy as np
from numba import njit
from numba.extending import register_jitable

from catan_env.core import actions as A
from catan_env.core.cards import current_decider
from catan_env.core.determinize import determinize
from catan_env.core.layout import PH_MAIN, PH_TRADE_CONFIRM, PH_TRADE_RESPONSE, PHASE, TURN
from catan_env.core.rules import legal_actions

from .mlp import MLPWeights
from .trading import answer_gains, confirm_gains, offer_gains
from .value import SEARCHABLE, Evaluator, macro_values, new_evaluator, one_ply_value, same_on_every_view, set_base

# what a decision was (the agent counts them)
K_MOVE, K_MACRO, K_OFFER, K_ACCEPT, K_COUNTER, K_REJECT, K_CONFIRM, K_CANCEL, K_FALLBACK = range(9)
KIND_NAMES = ("move", "macro", "offer", "accept", "counter", "reject", "confirm", "cancel", "fallback")

# options (float64 array)
O_OFFERS, O_OFFER_MARGIN, O_ACCEPT_MARGIN, O_COUNTERS, O_MACROS, O_VIEWS = range(6)
N_OPTIONS = 6
MAX_OFFERS = 20  # offers a turn the memory holds
# memory (int64 array): the turn it is for, offers made in it, their ids
M_TURN, M_COUNT, M_IDS = 0, 1, 2
MEMORY_SIZE = M_IDS + MAX_OFFERS

IS_OFFER = np.zeros(A.N_ACTIONS, dtype=np.bool_)
IS_OFFER[A.OFFER0:A.OFFER0 + A.N_MENU] = True
IS_ANSWER = np.zeros(A.N_ACTIONS, dtype=np.bool_)  # what a responder may say yes with
IS_ANSWER[A.TRADE_ACCEPT] = True
IS_ANSWER[A.COUNTER0:A.COUNTER0 + A.N_MENU] = True
IS_CONFIRM = np.zeros(A.N_ACTIONS, dtype=np.bool_)
IS_CONFIRM[A.CONFIRM0:A.TRADE_CANCEL] = True


def options(offers: int = 2, offer_margin: float = 0.02, accept_margin: float = 0.02, counters: bool = True,
            macros: bool = True, determinizations: int = 2) -> np.ndarray:
    """The options array ``greedy_decision`` reads (the agent's defaults)."""
    out = np.zeros(N_OPTIONS)
    out[O_OFFERS], out[O_OFFER_MARGIN], out[O_ACCEPT_MARGIN] = offers, offer_margin, accept_margin
    out[O_COUNTERS], out[O_MACROS], out[O_VIEWS] = float(counters), float(macros), determinizations
    return out


def new_memory() -> np.ndarray:
    """An empty offer memory (no turn yet)."""
    memory = np.zeros(MEMORY_SIZE, np.int64)
    memory[M_TURN] = -1
    return memory


@njit(cache=True)
def _record(scores: np.ndarray, moves: np.ndarray, values: np.ndarray) -> None:
    """scores[moves[i]] := values[i] (scores empty: nothing recorded)."""
    if scores.shape[0]:
        for i in range(moves.shape[0]):
            scores[moves[i]] = values[i]


@njit(cache=True)
def _pick(legal: np.ndarray, n: int, table: np.ndarray) -> np.ndarray:
    """The entries of legal[:n] the table marks, as a new array."""
    out = np.empty(n, np.int64)
    m = 0
    for j in range(n):
        if table[legal[j]]:
            out[m] = legal[j]
            m += 1
    return out[:m]


@njit(cache=True)
def answer_choice(ev: Evaluator, view: np.ndarray, seat: int,
                  legal: np.ndarray, n: int, accept_margin: float, counters: bool,
                  scores: np.ndarray) -> Tuple[int, int]:
    """(the answer to the open offer, its kind): the accept or counter that raises seat's
    value most, by more than accept_margin (counters False: accept only), else reject.
    scores (if not empty): each answer's gain, reject's the margin."""
    if counters:
        answers = _pick(legal, n, IS_ANSWER)
    else:
        answers = np.empty(0, np.int64)
        for j in range(n):
            if legal[j] == A.TRADE_ACCEPT:
                answers = np.array([A.TRADE_ACCEPT], np.int64)
    if answers.shape[0]:
        gains = np.empty(answers.shape[0])
        answer_gains(ev, view, seat, answers, gains)
        _record(scores, answers, gains)
        i = np.argmax(gains)
        if gains[i] > accept_margin:
            return answers[i], (K_ACCEPT if answers[i] == A.TRADE_ACCEPT else K_COUNTER)
    if scores.shape[0]:
        scores[A.TRADE_REJECT] = accept_margin
    return np.int64(A.TRADE_REJECT), K_REJECT


@njit(cache=True)
def confirm_choice(ev: Evaluator, view: np.ndarray,
                   seat: int, legal: np.ndarray, n: int, scores: np.ndarray) -> Tuple[int, int]:
    """(confirm the answer that raises seat's value most if one does, else cancel; kind);
    scores (if not empty): each confirmation's gain, cancel's 0."""
    confirms = _pick(legal, n, IS_CONFIRM)
    if confirms.shape[0]:
        gains = np.empty(confirms.shape[0])
        confirm_gains(ev, view, seat, confirms, gains)
        _record(scores, confirms, gains)
        i = np.argmax(gains)
        if gains[i] > 0.0:
            return confirms[i], K_CONFIRM
    if scores.shape[0]:
        scores[A.TRADE_CANCEL] = 0.0
    return np.int64(A.TRADE_CANCEL), K_CANCEL


@njit(cache=True)
def offer_choice(ev: Evaluator, view: np.ndarray, seat: int,
                 legal: np.ndarray, n: int, memory: np.ndarray, offers: float, margin: float,
                 scores: np.ndarray) -> int:
    """The offer to make now (-1: none): the menu entry not yet offered this turn whose
    gain is highest and above margin, while fewer than ``offers`` were made this turn;
    the memory records it.  scores (if not empty, and an offer is made): each
    candidate's gain."""
    if memory[M_TURN] != view[TURN]:
        memory[M_TURN] = view[TURN]
        memory[M_COUNT] = 0
    made = memory[M_COUNT]
    if made >= offers or made >= MAX_OFFERS:
        return -1
    candidates = np.empty(n, np.int64)
    m = 0
    for j in range(n):
        a = legal[j]
        if not IS_OFFER[a]:
            continue
        seen = False
        for k in range(made):
            if memory[M_IDS + k] == a:
                seen = True
        if not seen:
            candidates[m] = a
            m += 1
    if m == 0:
        return -1
    gains = np.empty(m)
    offer_gains(ev, view, seat, candidates[:m], gains)
    i = np.argmax(gains)
    if gains[i] <= margin:
        return -1
    _record(scores, candidates[:m], gains)
    memory[M_IDS + made] = candidates[i]
    memory[M_COUNT] = made + 1
    return candidates[i]


def greedy_decision(ev: Evaluator, base: np.ndarray,
                    seat: int, legal: np.ndarray, n: int, seeds: np.ndarray, memory: np.ndarray,
                    opts: np.ndarray) -> Tuple[int, int, float]:
    """(move, kind, value): seat's greedy move among legal[:n] (see the module docstring);
    the views are ``determinize(base, seat, seeds[k])``, one per determinization (the
    first for trade decisions).  value: the chosen move's mean one-ply value (or its
    macro's), -1 for a trade decision or a forced move.  (Plain Python around the one
    greedy kernel, ``greedy_scored``: a kernel around it would link all of it and LLVM
    would optimise it again, 3 s of a first run, benchmarks/cold_start.py.)"""
    return greedy_scored(ev, base, seat, legal, n, seeds, memory, opts, np.empty(0))


# The two branches below are compiled into greedy_scored where it calls them, and run as
# plain Python when the searching agent calls them: then each piece they dispatch to
# (answer_choice, offer_choice, macro_values, ...) is its own cached kernel.  As kernels of
# their own they re-optimised all that code again, 4 s of a first game's compile time.
@register_jitable
def trade_or_forced(ev: Evaluator, view: np.ndarray, seat: int, legal: np.ndarray, n: int, memory: np.ndarray,
                    opts: np.ndarray, scores: np.ndarray) -> Tuple[int, int]:
    """Every decision but a choice among searchable moves, on ``view`` (a determinization
    of the seat's information set): (move, kind) for a single legal move, a trade answer
    or confirmation, an offer, or the fallback when no move is searchable; (-1, K_MOVE)
    when the caller must value the searchable moves (``_pick(legal, n, SEARCHABLE)``, at
    least two) and pass their means to ``move_or_macro``.  The greedy decision and the
    searching agent share it."""
    if n == 1:
        if scores.shape[0]:
            scores[legal[0]] = 1.0
        return legal[0], K_MOVE
    phase = view[PHASE]
    if phase == PH_TRADE_RESPONSE:
        return answer_choice(ev, view, seat, legal, n, opts[O_ACCEPT_MARGIN], opts[O_COUNTERS] != 0.0, scores)
    if phase == PH_TRADE_CONFIRM:
        return confirm_choice(ev, view, seat, legal, n, scores)
    if phase == PH_MAIN and opts[O_OFFERS] > 0:
        a = offer_choice(ev, view, seat, legal, n, memory, opts[O_OFFERS], opts[O_OFFER_MARGIN], scores)
        if a >= 0:
            return a, K_OFFER
    moves = _pick(legal, n, SEARCHABLE)
    if moves.shape[0] == 0:
        if scores.shape[0]:
            scores[legal[0]] = 1.0
        return legal[0], K_FALLBACK
    if moves.shape[0] == 1:
        if scores.shape[0]:
            scores[moves[0]] = 1.0
        return moves[0], K_MOVE
    return np.int64(-1), K_MOVE


@register_jitable
def move_or_macro(ev: Evaluator, view: np.ndarray, seat: int, moves: np.ndarray, mean: np.ndarray,
                  opts: np.ndarray, scores: np.ndarray) -> Tuple[int, int, float]:
    """(move, kind, value): the searchable move of the highest mean value (the first of
    equals), unless a macro move (maritime trades, then a build) valued on ``view`` beats
    it in the main phase: then that macro's first trade (K_MACRO)."""
    best = np.argmax(mean)
    _record(scores, moves, mean)
    if view[PHASE] == PH_MAIN and opts[O_MACROS] != 0.0:
        first = np.empty(A.N_ACTIONS, np.int64)
        value = np.empty(A.N_ACTIONS)
        k = macro_values(ev, view, seat, first, value)
        if scores.shape[0]:
            for j in range(k):
                if not scores[first[j]] >= value[j]:  # (NaN: not a move scored above)
                    scores[first[j]] = value[j]
        if k:
            top = np.argmax(value[:k])
            if value[top] > mean[best]:
                return first[top], K_MACRO, value[top]
    return moves[best], K_MOVE, mean[best]


@njit(cache=True)
def greedy_scored(ev: Evaluator, base: np.ndarray, seat: int,
                  legal: np.ndarray, n: int, seeds: np.ndarray, memory: np.ndarray, opts: np.ndarray,
                  scores: np.ndarray) -> Tuple[int, int, float]:
    """greedy_decision, also writing what it compared into scores (N_ACTIONS floats, the
    caller fills them with NaN): the moves' mean one-ply values (a macro's first trade the
    better of its own and the macro's), the trade decisions' gains (reject at its margin,
    cancel at 0), the offers' gains when it offers; the move chosen scores highest.  Only
    one kind of choice is scored at a time.  (The distillation data's soft targets.)"""
    view = determinize(base, seat, seeds[0]) if n > 1 else base
    a, kind = trade_or_forced(ev, view, seat, legal, n, memory, opts, scores)
    if a >= 0:
        return a, kind, -1.0
    moves = _pick(legal, n, SEARCHABLE)
    m = moves.shape[0]
    c = np.empty_like(view)
    views = max(int(opts[O_VIEWS]), 1)
    total = np.zeros(m)
    on_first = np.empty(m)  # each move's value on the first view, reused where no view changes it
    for d in range(views):
        if d:
            view = determinize(base, seat, seeds[d])
        set_base(ev, view, seat)
        for i in range(m):
            if d and same_on_every_view(view, moves[i]):
                total[i] += on_first[i]
                continue
            v = one_ply_value(ev, view, moves[i], seat, c)
            on_first[i] = v
            total[i] += v
    return move_or_macro(ev, view, seat, moves, total / views, opts, scores)


@njit(cache=True)
def greedy_batch(ev: Evaluator, states: np.ndarray,
                 idx: np.ndarray, seeds: np.ndarray, memories: np.ndarray, mem_col: int, opts: np.ndarray,
                 actions: np.ndarray, values: np.ndarray, kinds: np.ndarray, scores: np.ndarray) -> None:
    """The greedy decision of the seat to act in each game idx[k] of a batch (the batched
    env's value opponents; a teacher for every seat): actions[k], values[k], kinds[k]
    (K_MOVE, ..., K_FALLBACK: the env counts fallbacks); seeds[k] its
    determinizations' seeds; memories[idx[k], mem_col:mem_col + MEMORY_SIZE] its game's
    offers this turn; scores (K, N_ACTIONS) or (0, 0): what each decision compared
    (``greedy_scored``; NaN where nothing)."""
    legal = np.empty(A.N_ACTIONS, np.int64)
    record = scores.shape[0] > 0
    nothing = np.empty(0)
    for k in range(idx.shape[0]):
        i = idx[k]
        s = states[i]
        n = legal_actions(s, legal)
        row = nothing
        if record:
            row = scores[k]
            row[:] = np.nan
        a, kind, value = greedy_scored(ev, s, current_decider(s), legal, n, seeds[k],
                                       memories[i, mem_col:mem_col + MEMORY_SIZE], opts, row)
        actions[k], values[k], kinds[k] = a, value, kind


class ValueOpponent:
    """A win-probability network played greedily for whole batches of games (the batched
    env's value-network opponents): its weights packed once, its options."""

    def __init__(self, weights: MLPWeights, opts: np.ndarray) -> None:
        from .mlp import pack
        params, layers, nets = pack([weights])
        self.evaluator = new_evaluator(params, layers, nets[0].copy(), weights.scratch_width)
        self.opts = np.asarray(opts, np.float64)
        self.views = max(int(self.opts[O_VIEWS]), 1)

    def decide(self, states: np.ndarray, idx: np.ndarray, seeds: np.ndarray, memories: np.ndarray, mem_col: int,
               actions: np.ndarray, values: np.ndarray, scores: Optional[np.ndarray] = None) -> np.ndarray:
        """actions[k], values[k] (and scores[k], if given): the decision of the seat to act
        in states[idx[k]]; returns each decision's kind (K_MOVE, ..., K_FALLBACK)."""
        kinds = np.empty(len(idx), np.int64)
        greedy_batch(self.evaluator, states, idx, seeds, memories, mem_col,
                     self.opts, actions, values, kinds, np.empty((0, 0)) if scores is None else scores)
        return kinds
