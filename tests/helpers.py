"""Scenario builders shared by the rule tests."""
import numpy as np

from catan_env import core as C
from catan_env.core import actions as A
from catan_env.core import layout as L
from catan_env.core import edit as E
from catan_env.core.topology import EDGE_VERTICES, VERTEX_EDGES

RES = {"brick": 0, "lumber": 1, "wool": 2, "grain": 3, "ore": 4}


def edge_between(a, b):
    for e in range(len(EDGE_VERTICES)):
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
        E.gain_from_bank(s, p, RES[name], n)


def take_all(s, p):
    """Return all of p's cards to the bank in public."""
    E.pay_to_bank(s, p, L.view(s, "hand")[p].copy())


def hand(s, p):
    return L.view(s, "hand")[p].tolist()


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
    L.view(s, "dev_hand")[p, t] += 1
    if not old:
        L.view(s, "dev_new")[p, t] += 1


def observation(state, seat):
    """The PettingZoo observation dict of seat (the mask is empty unless seat decides)."""
    mask = np.zeros(A.N_ACTIONS, dtype=np.int8)
    if C.decider(state) == seat:
        mask = C.legal_mask(state)
    return {"observation": C.observe(state, seat), "action_mask": mask}


def legal(s):
    return set(C.legal_actions(s).tolist())


# ---------------------------------------------------------------- hidden-information pairs
def _settle_knowledge(x, seat):
    """After a hidden change, keep every other seat's knowledge a true lower bound (what
    they knew of a changed hand may no longer hold; the seat cannot see those rows)."""
    n = C.n_players(x)
    know, hands = L.view(x, "know"), L.view(x, "hand")
    for o in list(range(n)) + [L.PUBLIC]:
        if o == seat:
            continue
        for t in range(n):
            if o == t:
                know[o, t, :L.N_RES] = hands[t]
                know[o, t, L.UNKNOWN] = 0
                continue
            know[o, t, :L.N_RES] = np.minimum(know[o, t, :L.N_RES], hands[t])
            know[o, t, L.UNKNOWN] = hands[t].sum() - know[o, t, :L.N_RES].sum()


def hidden_variants(s, seat, rng):
    """True states that differ from s only in what ``seat`` cannot know, each built by
    hand (never through determinize): opponents' hand make-up, their development card
    types (swapped with the deck), the RNG, and other seats' private knowledge.
    Yields (label, state); every state satisfies the invariants."""
    n = C.n_players(s)
    know, hands = L.view(s, "know"), L.view(s, "hand")
    opps = [t for t in range(n) if t != seat]
    # 1. two opponents swap one card each among the cards the seat cannot place
    unknown = {t: [r for r in range(L.N_RES) if hands[t, r] > know[seat, t, r]] for t in opps}
    pairs = [(t, r1, u, r2) for t in opps for u in opps for r1 in unknown[t] for r2 in unknown[u]
             if r1 != r2 and t != u]
    if pairs:
        t, r1, u, r2 = pairs[rng.integers(len(pairs))]
        x = s.copy()
        h = L.view(x, "hand")
        h[t, r1] -= 1
        h[t, r2] += 1
        h[u, r2] -= 1
        h[u, r1] += 1
        _settle_knowledge(x, seat)
        yield "hand make-up", x
    # 2. an opponent's old development card swapped with a different type from the deck
    dev, new, deck = L.view(s, "dev_hand"), L.view(s, "dev_new"), L.view(s, "deck")
    tp = int(s[L.TURN_PLAYER])
    swaps = [(t, c1, c2) for t in opps for c1 in range(L.N_DEV) for c2 in range(L.N_DEV)
             if c1 != c2 and dev[t, c1] - new[t, c1] > 0 and deck[c2] > 0
             and not (t == tp and c2 == L.VICTORY_POINT)]
    if swaps:
        t, c1, c2 = swaps[rng.integers(len(swaps))]
        x = s.copy()
        L.view(x, "dev_hand")[t, c1] -= 1
        L.view(x, "dev_hand")[t, c2] += 1
        L.view(x, "deck")[c1] += 1
        L.view(x, "deck")[c2] -= 1
        yield "development card types", x
    # 3. the RNG (future dice, steals, draws: the deck's order)
    x = s.copy()
    x[L.RNG] = int(rng.integers(1, 2 ** 62))
    yield "rng", x
    # 4. other seats' private knowledge of each other: forget a known card
    rows = [(o, t) for o in opps for t in opps if o != t and know[o, t, :L.N_RES].sum() > 0]
    if rows:
        o, t = rows[rng.integers(len(rows))]
        x = s.copy()
        k = L.view(x, "know")[o, t]
        r = int(np.flatnonzero(k[:L.N_RES])[0])
        k[r] -= 1
        k[L.UNKNOWN] += 1
        yield "others' knowledge", x


def play_random(s, steps, rng):
    """Up to steps uniformly random legal actions on s (fewer if the game ends)."""
    for _ in range(steps):
        if C.is_over(s):
            break
        C.step(s, int(rng.choice(C.legal_actions(s))))
    return s


def load_benchmark(name):
    """The script benchmarks/<name>.py as a module, its folder on the path as when it runs
    (for the tests that check a page shows what the script's results file gives)."""
    import importlib.util
    import os
    import sys
    folder = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "benchmarks")
    if folder not in sys.path:
        sys.path.insert(0, folder)
    spec = importlib.util.spec_from_file_location(name, os.path.join(folder, f"{name}.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
