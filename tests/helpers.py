"""Scenario builders shared by the rule tests."""

from catan_env import core as C
from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core import rules as R
from catan_env.core.topology import EDGE_VERTICES, VERTEX_EDGES

RES = {"brick": 0, "lumber": 1, "wool": 2, "grain": 3, "ore": 4}


def edge_between(a, b):
    for e in range(72):
        if set(EDGE_VERTICES[e].tolist()) == {a, b}:
            return e
    raise ValueError(f"no edge {a}-{b}")


def setup(s, vertices, roads=None):
    """Play the whole set-up: vertices in snake order; roads[i] is the edge for the i-th
    settlement (default: the lowest free edge touching it)."""
    for i, v in enumerate(vertices):
        C.step(s, A.SETTLEMENT0 + v)
        if roads is not None and roads[i] is not None:
            e = roads[i]
        else:
            e = min(int(f) for f in VERTEX_EDGES[v] if f >= 0 and s[L.E_OWNER + f] < 0)
        C.step(s, A.ROAD0 + e)
    return s


def game_after_setup(players=4, seed=0, vertices=None, **options):
    """Beginner board, set-up done on well-separated vertices, seat 0 about to roll."""
    s = C.new_game(seed=seed, players=players, board=options.pop("board", "beginner"), **options)
    spots = vertices or [12, 29, 42, 24, 44, 0, 50, 20][:2 * players]
    order = list(range(players)) + list(reversed(range(players)))
    assert len(spots) == 2 * players
    setup(s, spots)
    assert s[L.PHASE] == L.PH_PRE_ROLL and order
    return s


def give(s, p, **cards):
    """Move cards from the bank to seat p in public (knowledge updated)."""
    for name, n in cards.items():
        R._gain(s, p, RES[name], n)


def take_all(s, p):
    """Return all of p's cards to the bank in public."""
    cost = s[L.HAND + p * 5:L.HAND + p * 5 + 5].copy()
    R._pay(s, p, cost)


def hand(s, p):
    return s[L.HAND + p * 5:L.HAND + p * 5 + 5].tolist()


def roll(s, total):
    """Seat on turn rolls a forced total (production applies)."""
    C.step(s, A.ROLL, outcome=total)


def quiet_roll(s):
    """Roll a number that produces nothing for anyone, going to the main phase."""
    for total in (2, 3, 4, 5, 6, 8, 9, 10, 11, 12):
        t = s.copy()
        C.step(t, A.ROLL, outcome=total)
        if t[L.BANK:L.BANK + 5].tolist() == s[L.BANK:L.BANK + 5].tolist():
            s[:] = t
            return total
    raise AssertionError("every number produces")


def give_dev(s, p, card, old=True):
    """Give seat p a development card from the deck (old=True: playable this turn)."""
    t = L.DEV_NAMES.index(card)
    assert s[L.DECK + t] > 0
    s[L.DECK + t] -= 1
    s[L.DEV_HAND + p * 5 + t] += 1
    if not old:
        s[L.DEV_NEW + p * 5 + t] += 1


def legal(s):
    return set(C.legal_actions(s).tolist())
