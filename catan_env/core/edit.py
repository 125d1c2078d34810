"""A small public API for editing a state outside the actions: for mirrors of games
played elsewhere (the Pioneers bridge) and for building scenarios.

Each edit is a public event: it moves cards between the bank and seats (or between
seats) and keeps every knowledge row true, exactly as the core's own actions do.  None
of them checks that the move is legal now; the caller answers for that.
"""
import numpy as np
from numpy.typing import ArrayLike

from . import cards as _cards
from . import layout as L
from . import rules as _rules


def gain_from_bank(s: np.ndarray, p: int, r: int, n: int) -> None:
    """Seat p takes n cards of resource r from the bank, in public."""
    _cards._gain(s, int(p), int(r), int(n))


def pay_to_bank(s: np.ndarray, p: int, cards: ArrayLike) -> None:
    """Seat p returns the cards (5 counts) to the bank, in public."""
    _cards._pay(s, int(p), np.asarray(cards, dtype=np.int64))


def bank_trade(s: np.ndarray, p: int, give: int, n: int, get: int) -> None:
    """Seat p gives n cards of resource give to the bank for one of resource get, in
    public, at whatever rate the caller names (a maritime trade seen elsewhere)."""
    cost = np.zeros(L.N_RES, dtype=np.int64)
    cost[int(give)] = int(n)
    pay_to_bank(s, p, cost)
    gain_from_bank(s, p, get, 1)


def transfer(s: np.ndarray, src: int, dst: int, r: int, n: int) -> None:
    """n cards of resource r pass from seat src to seat dst, in public (a trade)."""
    _cards._transfer(s, int(src), int(dst), int(r), int(n))


def play_dev_card(s: np.ndarray, p: int, t: int) -> None:
    """Seat p plays a development card of type t: it leaves the hand and counts as the
    turn's card and as used (its effect is the caller's)."""
    _rules._use_dev(s, int(p), int(t))


def reveal_vp_card(s: np.ndarray, p: int) -> None:
    """Seat p shows one victory-point card (it then counts in the public VP)."""
    _rules.reveal_vp_card(s, int(p))


def check_win(s: np.ndarray) -> None:
    """End the game when the turn player has the target VP (the core's own check)."""
    _rules._check_win(s)


def forget_cards(s: np.ndarray, p: int, k: int) -> None:
    """k of seat p's cards are about to leave unseen by the others (a discard a server
    hides): every other observer's known count of each resource shrinks by up to k,
    into p's unknown count, so each stays a true lower bound whatever the types were."""
    n = int(s[L.OPT_PLAYERS])
    for o in list(range(n)) + [L.PUBLIC]:
        if o == p:
            continue
        for r in range(L.N_RES):
            i = L.know_i(o, p, r)
            drop = min(int(s[i]), int(k))
            s[i] -= drop
            s[L.know_i(o, p, L.UNKNOWN)] += drop
