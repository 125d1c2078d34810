"""The trade-optimistic search's trade logic ("Optimizing UCT for Settlers of Catan").

A build or card the seat cannot afford but could after 1:1 trades (it holds at least as
many cards as the price, of any types) is a *trade-optimistic* move: the search may pick
it at the root as if the trades had been made.  When it does, the agent queues one 1:1
offer to all players per missing card (a spare card of its own for the missing one) and
makes them in turn, then searches again without optimistic moves.  All from the seat's
own hand and public facts: nothing hidden is read.
"""
from typing import List, Optional

import numpy as np
from numpy.typing import ArrayLike

from catan_env.core import actions as A
from catan_env.core.layout import N_RES, hand_i
from catan_env.core.rules import action_cost, legal_actions

BUILDS = (A.ROAD0, A.BUY_DEV + 1)   # roads, settlements, cities, development card


def _is_build(a: int) -> bool:
    return BUILDS[0] <= a < BUILDS[1]


def hand_of(state: np.ndarray, seat: int) -> np.ndarray:
    return np.array([state[hand_i(seat, r)] for r in range(N_RES)], dtype=np.int64)


def optimistic_moves(view: np.ndarray, seat: int, max_trades: Optional[int] = None) -> np.ndarray:
    """Build and card moves that are legal but for the price, and whose price the seat
    could meet by 1:1 trades (hand size >= price); with max_trades, only those missing at
    most that many cards (the offers left this turn: a queue the rules cut short cannot
    complete the move)."""
    buf = np.empty(A.N_ACTIONS, dtype=np.int64)
    affordable = set(buf[:legal_actions(view, buf)].tolist())
    hand = hand_of(view, seat)
    rich = view.copy()
    for r in range(N_RES):
        rich[hand_i(seat, r)] = hand[r] + 5
    out = []
    for a in buf[:legal_actions(rich, buf)].tolist():
        cost = action_cost(a)
        within = max_trades is None or missing_cards(hand, cost).sum() <= max_trades
        if _is_build(a) and a not in affordable and hand.sum() >= cost.sum() and within:
            out.append(a)
    return np.array(out, dtype=np.int64)


def missing_cards(hand: ArrayLike, cost: ArrayLike) -> np.ndarray:
    return np.maximum(np.asarray(cost) - np.asarray(hand), 0)


def trades_needed(hand: ArrayLike, action: int, rng: np.random.Generator) -> List[int]:
    """The queue of 1:1 offers (TRADE_OFFER ids) that would make ``action`` affordable:
    for each missing card, one offer giving a spare card (one the price does not need,
    drawn at random) for it."""
    hand = np.asarray(hand, dtype=np.int64)
    cost = action_cost(action)
    need = missing_cards(hand, cost)
    spares = [r for r in range(N_RES) for _ in range(max(int(hand[r] - cost[r]), 0))]
    offers: List[int] = []
    for r in range(N_RES):
        for _ in range(int(need[r])):
            if not spares:
                return offers
            give = spares.pop(int(rng.integers(len(spares))))
            offers.append(A.OFFER0 + A.menu_index(1, give, 1, r))
    return offers
