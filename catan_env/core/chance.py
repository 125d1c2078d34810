"""Chance in one place: which moves have a random outcome, what the outcomes are and their
odds in a state, and where the state records the outcome a move had.

The dice follow the sevens rule (``OPT_SEVENS``: a 7 re-rolled in the first two rounds or
always, so it has no chance then); a development card is drawn from the deck in the state;
a stolen card from the victim's hand in the state (a determinization's, for a searcher).
``game.chance_outcome``, the MCTS kernel, the value network's one-ply values and the value
search all read chance through these functions, so none can disagree with the rules.
"""
import numpy as np
from numba import njit

from .jit_options import NO_RUNTIME

from . import actions as A
from .cards import current_decider
from .layout import (DECK, LAST_DRAW, LAST_ROLL, LAST_STEAL, N_DEV, N_RES, OPT_PLAYERS, OPT_SEVENS,
                     TURN, hand_i)
from .tables import DICE_WAYS

CHANCE_NONE, CHANCE_DICE, CHANCE_STEAL, CHANCE_DRAW = 0, 1, 2, 3  # what a move's chance is
MAX_OUTCOMES = 11  # the most outcomes of one move (the dice totals 2-12)


@njit(cache=True, **NO_RUNTIME)
def chance_kind(s: np.ndarray, a: int) -> int:
    """The kind of chance action a has in s: dice, a steal (a robber move with a victim),
    a draw, or none."""
    if a == A.ROLL:
        return CHANCE_DICE
    if a == A.BUY_DEV:
        return CHANCE_DRAW
    if A.is_robber(a) and A.robber_victim(a) > 0:
        return CHANCE_STEAL
    return CHANCE_NONE


@njit(cache=True, **NO_RUNTIME)
def sevens_rerolled(s: np.ndarray) -> bool:
    """Whether a 7 rolled now would be rolled again (the sevens rule of the state)."""
    rule = s[OPT_SEVENS]
    if rule == 0:
        return False
    return rule == 2 or (s[TURN] - 1) // s[OPT_PLAYERS] + 1 <= 2


@njit(cache=True, **NO_RUNTIME)
def chance_outcomes(s: np.ndarray, a: int, outs: np.ndarray, probs: np.ndarray) -> int:
    """The chance outcomes of action a in s and their odds into outs, probs (each at least
    MAX_OUTCOMES long); returns how many (0: the action has no chance)."""
    kind = chance_kind(s, a)
    k = 0
    if kind == CHANCE_DICE:
        no_seven = sevens_rerolled(s)
        ways = 30.0 if no_seven else 36.0
        for t in range(2, 13):
            if t == 7 and no_seven:
                continue
            outs[k] = t
            probs[k] = DICE_WAYS[t] / ways
            k += 1
    elif kind == CHANCE_DRAW:
        total = 0
        for t in range(N_DEV):
            total += s[DECK + t]
        for t in range(N_DEV):
            if s[DECK + t] > 0:
                outs[k] = t
                probs[k] = s[DECK + t] / total
                k += 1
    elif kind == CHANCE_STEAL:
        victim = A.robber_victim_seat(a, current_decider(s), s[OPT_PLAYERS])
        total = 0
        for r in range(N_RES):
            total += s[hand_i(victim, r)]
        for r in range(N_RES):
            if s[hand_i(victim, r)] > 0:
                outs[k] = r
                probs[k] = s[hand_i(victim, r)] / total
                k += 1
    return k


@njit(cache=True)
def recorded_outcome(s: np.ndarray, kind: int) -> int:
    """The outcome the last move of that kind had, as the state records it (read right
    after the move): the dice total, the stolen resource or the drawn card type."""
    if kind == CHANCE_DICE:
        return s[LAST_ROLL]
    if kind == CHANCE_STEAL:
        return s[LAST_STEAL]
    return s[LAST_DRAW]
