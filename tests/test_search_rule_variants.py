"""Every search mode follows the game's rule variants.

The search never restates a rule: worlds come from ``determinize``, moves from
``legal_actions`` and chance from ``apply_action``, all reading the variant bits in the
state.  These tests watch the leaves a search reaches (a leaf evaluator hook that returns
1 for the searcher when a leaf breaks a variant, so the root's reward sum counts the
violations) under every mode: a determinization per iteration or per search, open-loop
or sparse chance nodes, every playout policy.  Each variant's check is first shown to
fire on a root that breaks it (a search ignoring the variant would produce such leaves),
then shown silent on searches from legal roots."""
import functools

import numpy as np
import pytest
from numba import njit

from catan_env import InfoSet
from catan_env.agents.mcts import MCTSAgent, make_config, make_grow, run_search
from catan_env.core import actions as A
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.core.options import PIONEERS_RULES
from helpers import game_after_setup, give, observation, quiet_roll, take_all

MODES = {  # name: preset and options (each a distinct search mode)
    "per-iteration, open loop, random playouts": ("ismcts", {}),
    "per-search, sparse chance, random playouts": ("plain_uct", {}),
    "per-search, pruning playouts": ("mp_uct", {}),
    "weighted playouts": ("szita", {}),
    "mixture playouts": ("dipl_v8", {}),
    "best": ("best", {}),
}
V_DECK, V_DESERT, V_SEVENS, V_STRICT, V_SHOWN = 1, 2, 4, 8, 16


@njit(cache=True)
def violations(s):
    """Bits of the variants the state s breaks (0: none)."""
    bad = 0
    for t in range(L.N_DEV):  # the game's own deck, card by card (the Pioneers 24, 13 knights)
        held = 0
        for p in range(L.MAX_PLAYERS):
            held += s[L.dev_i(p, t)]
        if s[L.DECK + t] + held + s[L.DEV_USED + t] != s[L.DECK_START + t]:
            bad |= V_DECK
    if (s[L.OPT_RULES] & L.RULE_NO_DESERT_ROBBER) != 0 and s[L.HEX_TERRAIN + s[L.ROBBER]] == L.DESERT:
        bad |= V_DESERT
    if s[L.ROLLED] != 0 and s[L.LAST_ROLL] == 7 and s[L.OPT_SEVENS] != 0:
        round_ = (s[L.TURN] - 1) // s[L.OPT_PLAYERS] + 1
        if s[L.OPT_SEVENS] == 2 or round_ <= 2:
            bad |= V_SEVENS
    if (s[L.OPT_RULES] & L.RULE_STRICT_TRADE) != 0 and s[L.BUILT] != 0 and (
            s[L.PHASE] == L.PH_TRADE_RESPONSE or s[L.PHASE] == L.PH_TRADE_CONFIRM):
        bad |= V_STRICT
    shown = 0
    for p in range(L.MAX_PLAYERS):
        shown += s[L.VP_REVEALED + p]
    if shown != s[L.DEV_USED + L.VICTORY_POINT]:
        bad |= V_SHOWN
    return bad


@njit
def flag_violations(s, seat):
    out = np.zeros(L.MAX_PLAYERS)
    if violations(s) != 0:
        out[seat] = 1.0
    return out


def _count(view, seat, variant, options, playouts=200, seed=1, rollout_turns=0):
    """Leaves that break a variant, in a search of view.  rollout_turns 0 scores the tree's
    own nodes (the dice the tree rolls are seen there); 2 scores states after two turns
    of the playout policy."""
    grow = make_grow(evaluate=flag_violations)
    cfg = make_config(variant, playouts=playouts, rollout_turns=rollout_turns, **options)
    res = run_search(view, seat, cfg, seed=seed, grow=grow)
    return sum(float(t.wins[0, seat]) for t in res.trees)


def _root(pre_roll=False, **rules):
    """Seat 0 in its main phase (or about to roll), cards in hand, robber off the desert,
    a development card bought earlier, under the given variants."""
    s = game_after_setup(**rules)
    if not pre_roll:
        quiet_roll(s)
    give(s, 0, brick=2, lumber=2, wool=2, grain=2, ore=1)
    for p in (1, 2, 3):
        give(s, p, brick=1, wool=1, grain=1, ore=1)
    desert = int(np.flatnonzero(L.view(s, "hex_terrain") == L.DESERT)[0])
    s[L.ROBBER] = (desert + 1) % 19
    L.view(s, "deck")[L.KNIGHT] -= 1       # seat 2 bought a knight some turns ago
    s[L.dev_i(2, L.KNIGHT)] += 1
    return s


VARIANTS = {
    "pioneers deck": (dict(dev_deck="pioneers"), V_DECK),
    "robber never on the desert": (dict(robber_on_desert=False), V_DESERT),
    "sevens rule 1": (dict(sevens_rule=1), V_SEVENS),
    "sevens rule 2": (dict(sevens_rule=2), V_SEVENS),
    "strict trade": (dict(strict_trade=True), V_STRICT),
    "VP cards counted when shown": (dict(vp_cards="played"), V_SHOWN),
}


def _broken(s, bit):
    """The root as a search ignoring the variant would leave it."""
    t = s.copy()
    if bit == V_DECK:    # a determinization dealing from the official deck: one knight too many
        t[L.dev_i(3, L.KNIGHT)] += 1
    elif bit == V_DESERT:
        t[L.ROBBER] = int(np.flatnonzero(L.view(t, "hex_terrain") == L.DESERT)[0])
    elif bit == V_SEVENS:  # a seven let through in round 1
        t[L.LAST_ROLL], t[L.ROLLED], t[L.TURN] = 7, 1, 1
    elif bit == V_STRICT:  # an offer opened after building
        G.step(t, A.OFFER0 + A.menu_index(1, 0, 1, 4))
        t[L.BUILT] = 1
    elif bit == V_SHOWN:   # a shown VP card dealt back into a hidden hand
        t[L.VP_REVEALED + 1] += 1
    return t


@pytest.mark.parametrize("variant", sorted(VARIANTS))
def test_the_check_fires_on_a_root_that_breaks_the_variant(variant):
    rules, bit = VARIANTS[variant]
    s = _root(**rules)
    assert violations(s) == 0
    broken = _broken(s, bit)
    assert violations(broken) & bit
    view = G.determinize(broken, 0, 3) if bit != V_DECK else broken
    assert _count(view, 0, "ismcts", {}, playouts=50) > 0


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("mode", sorted(MODES))
def test_every_search_mode_follows_the_variant(variant, mode):
    rules, _ = VARIANTS[variant]
    sevens = "sevens" in variant
    s = _root(pre_roll=sevens, **rules)  # about to roll in round 1: the tree's first move rolls
    preset, options = MODES[mode]
    view = G.determinize(s, 0, 5)
    for rollout_turns in (0, 2):
        assert _count(view, 0, preset, options, rollout_turns=rollout_turns) == 0, rollout_turns


def test_all_pioneers_variants_together_in_every_mode():
    s = _root(**PIONEERS_RULES, sevens_rule=2)
    view = G.determinize(s, 0, 9)
    for preset, options in MODES.values():
        for rollout_turns in (0, 2):
            assert _count(view, 0, preset, options, playouts=300, seed=4, rollout_turns=rollout_turns) == 0, preset


def _direct_city_endgame():
    """Seat 0 (a city and a settlement, 5 VP to win) wins now only by a city straight on
    an empty spot (direct cities), paying a settlement and a city; anything else lets
    seat 1 (4 VP with Largest Army, a city's cards in hand) win on its turn."""
    s = game_after_setup(vp_to_win=5, direct_city=True, domestic_trade=False)
    v = int(np.flatnonzero(L.view(s, "v_owner") == 0)[0])
    s[L.V_LEVEL + v] = 2
    s[L.PUBLIC_VP] += 1
    s[L.CITIES_LEFT] -= 1
    s[L.SETTLEMENTS_LEFT] += 1
    s[L.KNIGHTS + 1] = 3
    s[L.DEV_USED + L.KNIGHT] = 3
    s[L.DECK + L.KNIGHT] -= 3
    s[L.LA_HOLDER] = 1
    s[L.PUBLIC_VP + 1] += 2
    quiet_roll(s)
    for p in range(4):
        take_all(s, p)
    rng = np.random.default_rng(0)
    while not any(A.SETTLEMENT0 <= a < A.CITY0 for a in _legal_with(s, brick=1, lumber=1, wool=1, grain=1)):
        give(s, 0, brick=1, lumber=1)
        roads = [a for a in G.legal_actions(s) if A.ROAD0 <= a < A.SETTLEMENT0]
        G.step(s, int(roads[rng.integers(len(roads))]))
        take_all(s, 0)
    give(s, 0, brick=1, lumber=1, wool=1, grain=3, ore=3)
    give(s, 1, grain=2, ore=3)
    return s


def _legal_with(s, **cards):
    t = s.copy()
    give(t, 0, **cards)
    return G.legal_actions(t)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_direct_cities_are_searched(mode):
    s = _direct_city_endgame()
    winning = {int(a) for a in G.legal_actions(s)
               if G.winner(_after(s, a)) == 0}
    assert winning and all(A.CITY0 <= a < A.BUY_DEV and s[L.V_OWNER + a - A.CITY0] < 0 for a in winning)
    preset, options = MODES[mode]
    a = MCTSAgent(seed=3, variant=preset, playouts=300, **options).act(observation(s, 0), InfoSet(s, 0, 1))
    assert a in winning, A.action_name(a)


def _after(s, a):
    t = s.copy()
    G.step(t, int(a))
    return t


# ---- the value agent's search: the same leaves watched, through a leaf hook
@njit
def _flag_leaf(ev, s, root):
    """The value search's leaf, replaced: 1 for the root where the leaf breaks a variant."""
    return 1.0 if violations(s) != 0 else 0.0


@functools.lru_cache(maxsize=None)
def _hooked_value_search(leaf):
    """``search_values`` and the one-ply value it builds on, compiled with ``leaf`` in place
    of the network's leaf value (as ``make_grow`` swaps MCTS's evaluator)."""
    import types
    from catan_env.agents.value import search as S
    from catan_env.learned import value as LV
    g1 = dict(LV.one_ply_value.py_func.__globals__, leaf_value=leaf)
    one_ply = njit(types.FunctionType(LV.one_ply_value.py_func.__code__, g1, "one_ply_hooked"))
    g2 = dict(S.search_values.py_func.__globals__, leaf_value=leaf, one_ply_value=one_ply)
    for name in ("_leaf", "_one_ply", "_searchable", "_expected", "_v2", "_q2", "_v3", "_q3", "search_values"):
        g2[name] = njit(types.FunctionType(getattr(S, name).py_func.__code__, g2, name))
    return g2["search_values"]


def _value_count(search, s, seat, depth):
    """Expected violations of each move the value search weighs from s, summed."""
    from catan_env.learned.network import load_network
    from catan_env.learned.value import SEARCHABLE
    net = load_network()
    moves = np.array([a for a in G.legal_actions(s) if SEARCHABLE[a]], np.int64)
    q = np.zeros(moves.shape[0])
    search(net.evaluator(), s, seat, moves, depth, 3, q)
    return float(np.sum(q + (q < 0)))  # moves outside the beam carry their value minus 1


@pytest.mark.parametrize("variant", sorted(v for v in VARIANTS if v != "strict trade"))
def test_the_value_search_check_fires_on_a_root_that_breaks_the_variant(variant):
    """(Strict trade breaks only with an offer open, where the value search has no move to
    weigh: it leaves domestic trade out of its candidates.)"""
    rules, bit = VARIANTS[variant]
    s = _root(**rules)
    broken = _broken(s, bit)
    view = G.determinize(broken, 0, 3) if bit != V_DECK else broken
    assert _value_count(_hooked_value_search(_flag_leaf), view, 0, 1) > 0


@pytest.mark.parametrize("variant", sorted(VARIANTS))
@pytest.mark.parametrize("depth", [1, 2, 3])
def test_the_value_search_follows_the_variant(variant, depth):
    """The value agent's search (the shipped ``pretrained``'s) reaches no leaf that breaks
    a variant: its chance is the core's (a 7 under the sevens rule never comes up), its
    moves the rules'."""
    rules, _ = VARIANTS[variant]
    s = _root(pre_roll="sevens" in variant, **rules)
    assert _value_count(_hooked_value_search(_flag_leaf), G.determinize(s, 0, 5), 0, depth) == 0
