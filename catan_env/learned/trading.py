"""Domestic trade by the win-probability network: which offer to make, whether to accept
one, which answer to confirm, each by the network's value of the position after the
trade against the position without it, from the trading seat's own view.

A trade helps both sides, so a trade is worth making only when it raises the root's
share of the win probability: the network rates every seat, and its softmax takes from
the partner what it gives the root.  All three functions take a determinization of the
root's information set; the cards the others hold there are a sample, so a partner that
the sample cannot pay from is not counted as a possible partner for an offer, and a
partner that accepted is given the cards it showed it has where the sample lacks them.
"""
import numpy as np
from numba import njit

from catan_env.core.jit_options import NO_RUNTIME

from catan_env.core import actions as A
from catan_env.core.arrays import copy_into
from catan_env.core.layout import (
    OPT_PLAYERS, RESP_ACCEPT, RESP_COUNTER, RESP_REJECT, TRADE_GET_N, TRADE_GET_RES, TRADE_GIVE_N,
    TRADE_GIVE_RES, TRADE_RESP, TURN_PLAYER, hand_i,
)
from catan_env.core.rules import FROM_RNG, close_trade, confirm_trade, apply_action

from .value import Evaluator, leaf_value, set_base


# inline='always' (numba inlines their IR into the valuations that call them): each
# compiled on its own would link the rules core under it and LLVM would optimise it
# again (docs/benchmarks.md, compile time)
@njit(cache=True, inline='always')
def _lapse_into(s: np.ndarray, out: np.ndarray) -> None:
    """out := s with the open offer closed unanswered (everyone rejects)."""
    copy_into(out, s)
    close_trade(out)  # clears the offer and every answer


@njit(cache=True, inline='always')
def _confirm_in_place(done: np.ndarray, proposer: int, partner: int) -> None:
    """done after the proposer confirms partner's answer (accept or counter), in place;
    the partner's sampled hand is topped up to what its answer shows it holds."""
    n = done[OPT_PLAYERS]
    resp = done[TRADE_RESP + partner]
    if resp == RESP_ACCEPT:
        res, need = done[TRADE_GET_RES], done[TRADE_GET_N]
        pay, owe = done[TRADE_GIVE_RES], done[TRADE_GIVE_N]
    else:
        m = resp - RESP_COUNTER
        res, need = A.MENU_GIVE_RES[m], A.MENU_GIVE_N[m]
        pay, owe = A.MENU_GET_RES[m], A.MENU_GET_N[m]
    if done[hand_i(partner, res)] < need:
        done[hand_i(partner, res)] = need
    if done[hand_i(proposer, pay)] < owe:  # the offer showed the proposer holds what it gives
        done[hand_i(proposer, pay)] = owe
    confirm_trade(done, proposer, A.confirm_action((partner - proposer) % n))


# The positions valued below are built in the evaluator's two rows of state scratch
# (``ev.work``; so s must not be one of them): a decision's trade valuations allocate
# nothing of their own, so they are compiled
# without reference counting (``**NO_RUNTIME``, see ``features.encode_features_into``).
# Compiled on their own rather than inlined into the greedy choices: inlined, the
# evaluator's arrays were counted at every leaf; on their own they add about a second to
# a first greedy decision's compile time from an empty cache (45 s here, 2026-12-01).
@njit(cache=True, **NO_RUNTIME)
def answer_gains(ev: Evaluator, s: np.ndarray, root: int,
                 answers: np.ndarray, out: np.ndarray) -> None:
    """out[i] := root's value if the proposer closes the open offer on ``answers[i]``
    (TRADE_ACCEPT or a TRADE_COUNTER id of root's), minus its value if the offer lapses;
    root answers an offer."""
    set_base(ev, s, root)
    c = ev.work[0]
    _lapse_into(s, c)
    base = leaf_value(ev, c, root)
    proposer = s[TURN_PLAYER]
    for i in range(answers.shape[0]):
        a = answers[i]
        if a != A.TRADE_ACCEPT:
            m = a - A.COUNTER0
            if s[hand_i(proposer, A.MENU_GET_RES[m])] < A.MENU_GET_N[m]:
                out[i] = -1.0  # the sampled proposer could not pay it: not worth asking
                continue
        copy_into(c, s)
        c[TRADE_RESP + root] = RESP_ACCEPT if a == A.TRADE_ACCEPT else RESP_COUNTER + (a - A.COUNTER0)
        _confirm_in_place(c, proposer, root)
        out[i] = leaf_value(ev, c, root) - base


@njit(cache=True, inline='always')
def _taken_value(ev: Evaluator, s: np.ndarray, made: np.ndarray, c: np.ndarray, root: int, q: int) -> float:
    """root's value after partner q takes the offer open in ``made`` (built in c), -1
    when q cannot pay it in s (the sample)."""
    if s[hand_i(q, made[TRADE_GET_RES])] < made[TRADE_GET_N]:
        return -1.0
    n = s[OPT_PLAYERS]
    copy_into(c, made)
    for p in range(n):
        if p != root:
            c[TRADE_RESP + p] = RESP_ACCEPT if p == q else RESP_REJECT
    _confirm_in_place(c, root, q)
    return leaf_value(ev, c, root)


@njit(cache=True, inline='always')
def _make_offer(ev: Evaluator, s: np.ndarray, root: int, offer: int, made: np.ndarray, c: np.ndarray,
                base: float) -> float:
    """made := s with root's offer open; returns the value of the offer lapsing (computed
    into c on the first call, base < 0: the same position whatever was offered)."""
    copy_into(made, s)
    apply_action(made, offer, FROM_RNG)
    if base < 0.0:
        _lapse_into(made, c)
        base = leaf_value(ev, c, root)
    return base


@njit(cache=True, **NO_RUNTIME)
def offer_gains(ev: Evaluator, s: np.ndarray, root: int,
                offers: np.ndarray, out: np.ndarray) -> None:
    """out[i] := how much offer ``offers[i]`` (TRADE_OFFER ids, legal for root in s) raises
    root's value if some partner takes it: the mean over the partners that can pay of the
    value after the trade, minus the value after the same offer lapses; -1 where no
    partner can pay."""
    set_base(ev, s, root)
    n = s[OPT_PLAYERS]
    made, c = ev.work[0], ev.work[1]
    base = -1.0
    for i in range(offers.shape[0]):
        base = _make_offer(ev, s, root, offers[i], made, c, base)
        total, partners = 0.0, 0
        for k in range(1, n):
            v = _taken_value(ev, s, made, c, root, (root + k) % n)
            if v >= 0.0:
                total += v
                partners += 1
        out[i] = total / partners - base if partners else -1.0


@njit(cache=True, **NO_RUNTIME)
def offer_partner_gains(ev: Evaluator, s: np.ndarray, root: int,
                        offers: np.ndarray, out: np.ndarray) -> None:
    """out[i, k - 1] := how much offer ``offers[i]`` raises root's value if partner
    (root + k) % players takes it, against the offer lapsing; -1 where that partner
    cannot pay (and for seats past the game's players).  What an offer is worth to whom,
    for weighting by each partner's chance to accept."""
    set_base(ev, s, root)
    n = s[OPT_PLAYERS]
    made, c = ev.work[0], ev.work[1]
    base = -1.0
    for i in range(offers.shape[0]):
        base = _make_offer(ev, s, root, offers[i], made, c, base)
        for k in range(1, out.shape[1] + 1):
            v = _taken_value(ev, s, made, c, root, (root + k) % n) if k < n else -1.0
            out[i, k - 1] = v - base if v >= 0.0 else -1.0


@njit(cache=True, **NO_RUNTIME)
def confirm_gains(ev: Evaluator, s: np.ndarray, root: int,
                  confirms: np.ndarray, out: np.ndarray) -> None:
    """out[i] := root's value after confirming ``confirms[i]`` (TRADE_CONFIRM ids) minus its
    value if it cancels."""
    set_base(ev, s, root)
    c = ev.work[0]
    _lapse_into(s, c)
    base = leaf_value(ev, c, root)
    n = s[OPT_PLAYERS]
    for i in range(confirms.shape[0]):
        partner = A.confirm_partner(confirms[i], root, n)
        copy_into(c, s)
        _confirm_in_place(c, root, partner)
        out[i] = leaf_value(ev, c, root) - base
