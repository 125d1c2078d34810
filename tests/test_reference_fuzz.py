"""Jitted rules against slow references on random states, long random-play fuzzing with
invariant checks, and property-based tests."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from catan_env import core as C
from catan_env.core import layout as L
from catan_env.core import placement as P
from catan_env.core.fuzz import CODES, fuzz_games, invariant_code
from catan_env.core.invariants import problems
from catan_env.core.options import PIONEERS_RULES, GameOptions
from catan_env.core.topology import EDGE_VERTICES, HEX_VERTICES
from helpers import play_random
from catan_env.core.reference import (ref_legal_actions, ref_longest_road, ref_production,
                                      ref_public_vp)
from helpers import edge_between


OFFICIAL = GameOptions().rule_variants()
PIONEERS = GameOptions(**PIONEERS_RULES, sevens_rule=1).rule_variants()


def _random_states(n_games, seed, every=7, max_steps=3000, **rules):
    """States sampled along random games (2-4 players, trade on/off, rule variants)."""
    rng = np.random.default_rng(seed)
    for g in range(n_games):
        s = C.new_game(seed=int(rng.integers(1 << 30)), players=int(rng.integers(2, 5)),
                       domestic_trade=bool(g % 2), friendly_robber=bool(g % 3 == 0), **rules)
        for k in range(max_steps):
            if C.is_over(s):
                break
            if k % every == 0:
                yield s
            C.step(s, int(rng.choice(C.legal_actions(s))))
        yield s


@pytest.mark.parametrize("rules", [{}, PIONEERS_RULES], ids=["official", "pioneers"])
def test_legal_mask_matches_reference_and_python_invariants(rules):
    checked = 0
    for s in _random_states(8, seed=11, **rules):
        assert set(C.legal_actions(s).tolist()) == ref_legal_actions(s)
        mask = C.legal_mask(s)
        assert mask.dtype == np.int8 and mask.sum() == len(ref_legal_actions(s))
        assert problems(s) == []
        assert invariant_code(s) == 0
        checked += 1
    assert checked > 500


def test_bitmask_placement_agrees_with_the_spot_by_spot_rules():
    """The bitmask enumerations (``road_reach`` / ``road_spots``, ``settlement_spots``,
    ``vertex_masks``) against the spot-by-spot rules ``road_spot_ok``,
    ``settlement_spot_ok`` and the vertex owners, for every seat of many positions."""
    checked = 0
    for s in _random_states(4, seed=14, every=5):
        for p in range(C.n_players(s)):
            reach = P.road_reach(s, p)
            low, high = P.road_spots(s, reach)
            for e in range(len(P.EDGE_VERTICES)):
                bit = (low >> e) & 1 if e < 64 else (high >> (e - 64)) & 1
                assert P.road_spot_in(s, reach, e) == P.road_spot_ok(s, p, e) == bool(bit)
                checked += 1
            occupied, own, settlements = P.vertex_masks(s, p)
            spots = P.settlement_spots(occupied, P.road_ends(s, p))
            for v in range(len(P.VERTEX_EDGES)):
                owner, level = s[L.V_OWNER + v], s[L.V_LEVEL + v]
                assert bool((spots >> v) & 1) == P.settlement_spot_ok(s, p, v)
                assert bool((occupied >> v) & 1) == (owner >= 0)
                assert bool((own >> v) & 1) == (owner == p)
                assert bool((settlements >> v) & 1) == (owner == p and level == 1)
    assert checked > 50_000


@pytest.mark.parametrize("rules", [{}, PIONEERS_RULES], ids=["official", "pioneers"])
def test_longest_road_vp_and_production_match_references(rules):
    for s in _random_states(6, seed=12, every=13, **rules):
        n = C.n_players(s)
        for p in range(n):
            assert P.road_length(s, p) == ref_longest_road(s, p) == s[L.ROAD_LEN + p]
            assert s[L.PUBLIC_VP + p] == ref_public_vp(s, p)
        if s[L.PHASE] == L.PH_PRE_ROLL:
            for total in (2, 3, 4, 5, 6, 8, 9, 10, 11, 12):
                t = s.copy()
                before = L.view(t, "hand").copy()
                expected = np.array(ref_production(t, total))
                C.step(t, 0, outcome=total)
                after = L.view(t, "hand")
                assert (after - before).tolist() == expected.tolist()


@pytest.mark.parametrize("rules", [{}, PIONEERS_RULES], ids=["official", "pioneers"])
def test_production_at_the_packing_limit(rules):
    """A roll owing the most a seat can be owed (every hex ore with number 8, nine
    buildings of one seat, four of them cities, each on three hexes; the others' too):
    the packed per-seat counts do not overflow and match the reference, with a bank
    short (shortage rules) and a bank that can pay everyone."""
    s = C.new_game(seed=0, **rules)
    for h in range(len(HEX_VERTICES)):
        s[L.HEX_TERRAIN + h], s[L.HEX_NUMBER + h] = 4, 8
    inner = [v for v in range(len(P.VERTEX_EDGES)) if (P.VERTEX_EDGES[v] >= 0).all()]
    rng = np.random.default_rng(0)
    for k, v in enumerate(rng.permutation(inner)[:30]):
        s[L.V_OWNER + v], s[L.V_LEVEL + v] = k % 4, 2 if k < 16 else 1  # 7-8 each, 4 cities
    s[L.ROBBER] = -1
    s[L.PHASE], s[L.DECIDER] = L.PH_PRE_ROLL, s[L.TURN_PLAYER]
    for bank in (19, 1000):
        t = s.copy()
        t[L.BANK + 4] = bank
        expected = np.array(ref_production(t, 8))
        assert bank == 19 or expected.max() >= 27
        before = L.view(t, "hand").copy()
        C.step(t, 0, outcome=8)
        assert (L.view(t, "hand") - before).tolist() == expected.tolist()


def _check_samples_against_slow_references(samples, n):
    """States sampled inside the jitted fuzz loop, checked by the slow Python references
    (the jitted invariant check recomputes road length with the kernel itself)."""
    assert n > 100
    for s in samples[:n]:
        assert problems(s) == []
        for p in range(C.n_players(s)):
            assert s[L.ROAD_LEN + p] == ref_longest_road(s, p)
            assert s[L.PUBLIC_VP + p] == ref_public_vp(s, p)


def test_fuzz_1000_games_with_invariants_after_every_action():
    samples = np.zeros((300, L.STATE_SIZE), dtype=np.int64)
    games, steps, bad, code, wins, n = fuzz_games(1000, 2026, 400, 0, 1999, samples, *OFFICIAL)
    assert bad == -1, f"game {bad}: {CODES.get(code)}"
    assert games == 1000 and steps > 500_000 and wins > 500
    _check_samples_against_slow_references(samples, n)


def test_fuzz_games_with_trading_on():
    samples = np.zeros((200, L.STATE_SIZE), dtype=np.int64)
    games, steps, bad, code, wins, n = fuzz_games(300, 7, 400, 1, 1499, samples, *OFFICIAL)
    assert bad == -1, f"game {bad}: {CODES.get(code)}"
    assert wins > 150
    _check_samples_against_slow_references(samples, n)


def test_fuzz_games_with_the_pioneers_rules():
    """Every Pioneers variant at once (and the sevens rule), trading on."""
    samples = np.zeros((200, L.STATE_SIZE), dtype=np.int64)
    games, steps, bad, code, wins, n = fuzz_games(300, 9, 400, 1, 1499, samples, *PIONEERS)
    assert bad == -1, f"game {bad}: {CODES.get(code)}"
    assert wins > 150
    _check_samples_against_slow_references(samples, n)


def test_invariant_checker_catches_corruption():
    s = C.new_game(seed=0)
    s[L.BANK] -= 1
    assert invariant_code(s) == 1 and problems(s)
    s = C.new_game(seed=0)
    s[L.PUBLIC_VP] = 3
    assert invariant_code(s) == 4 and problems(s)


def _roads(seed, edges, blockers):
    """A new game with seat 0's roads on edges and seat 1's settlements on blockers."""
    s = C.new_game(seed=seed)
    for e in edges:
        s[L.E_OWNER + e] = 0
    for v in blockers:
        s[L.V_OWNER + v] = 1
        s[L.V_LEVEL + v] = 1
    return s


@settings(max_examples=60, deadline=None)
@given(edges=st.sets(st.integers(0, 71), max_size=15),
       blockers=st.sets(st.integers(0, 53), max_size=6), seed=st.integers(0, 3))
def test_road_length_property(edges, blockers, seed):
    """Any road set with any opponent buildings: jitted length == exhaustive search."""
    s = _roads(seed, edges, blockers)
    assert P.road_length(s, 0) == ref_longest_road(s, 0)
    assert P.road_length(s, 0) <= len(edges)


def _hex_ring(h):
    """The six edges around hex h."""
    ring = [int(v) for v in HEX_VERTICES[h]]
    return {edge_between(ring[k], ring[(k + 1) % 6]) for k in range(6)}


@settings(max_examples=60, deadline=None)
@given(hexes=st.sets(st.integers(0, 18), min_size=1, max_size=3),
       extra=st.sets(st.integers(0, 71), max_size=6),
       blockers=st.sets(st.integers(0, 53), max_size=3), seed=st.integers(0, 3))
def test_road_length_with_cycles(hexes, extra, blockers, seed):
    """Rings of roads around hexes (bare cycles, cycles sharing edges, cycles with tails,
    cut by opponents): the start-pruned search == exhaustive search."""
    edges = set(extra)
    for h in hexes:
        edges |= _hex_ring(h)
    s = _roads(seed, edges, blockers)
    assert P.road_length(s, 0) == ref_longest_road(s, 0)


@settings(max_examples=150, deadline=None)
@given(edges=st.lists(st.integers(0, 71), min_size=1, max_size=15, unique=True),
       rings=st.sets(st.integers(0, 18), max_size=2),
       blockers=st.sets(st.integers(0, 53), max_size=5), seed=st.integers(0, 3))
def test_longest_after_road_equals_the_exhaustive_search(edges, rings, blockers, seed):
    """Roads added one at a time (paths, forks, rings, cut by opponents): the incremental
    length after each road (forced runs without a search, else the full search) equals
    the exhaustive reference."""
    order = [e for h in sorted(rings) for e in sorted(_hex_ring(h))] + edges
    s = _roads(seed, (), blockers)
    for e in dict.fromkeys(order):
        s[L.E_OWNER + e] = 0
        through = P.longest_through(s, 0, e)
        before = s[L.ROAD_LEN]
        s[L.ROAD_LEN] = P.longest_after_road(s, 0, e)
        assert s[L.ROAD_LEN] == ref_longest_road(s, 0) == max(before, through)


def test_longest_after_road_walks_forced_runs_only():
    """A straight run is extended without a search; a ring falls back to the search."""
    ring = sorted(_hex_ring(9))
    s = _roads(0, ring[:-1], ())
    s[L.ROAD_LEN] = P.road_length(s, 0)
    assert s[L.ROAD_LEN] == 5
    s[L.E_OWNER + ring[-1]] = 0  # closes the ring: the walk meets the new road again
    assert P._walk(s, 0, int(EDGE_VERTICES[ring[-1], 0]), ring[-1]) == -1
    assert P.longest_after_road(s, 0, ring[-1]) == 6


def test_bare_ring_is_six_long():
    assert P.road_length(_roads(0, _hex_ring(9), ()), 0) == 6


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2 ** 40), warmup=st.integers(20, 3000),
       choices=st.lists(st.integers(0, 10 ** 6), min_size=1, max_size=300),
       players=st.integers(2, 4), trade=st.booleans())
def test_random_action_sequences_keep_invariants(seed, warmup, choices, players, trade):
    """Hypothesis drives the actions from a random mid-game state (a seeded random
    warm-up of 20-3000 actions, so set-up is always over), checking every invariant."""
    s = play_random(C.new_game(seed=seed, players=players, domestic_trade=trade), warmup,
                    np.random.default_rng(seed))
    assert s[L.TURN] >= 1 and s[L.PHASE] not in (L.PH_SETUP_SETTLEMENT, L.PH_SETUP_ROAD)
    assert problems(s) == []
    for c in choices:
        acts = C.legal_actions(s)
        if len(acts) == 0:
            assert C.is_over(s)
            break
        C.step(s, int(acts[c % len(acts)]))
        assert invariant_code(s) == 0
    assert problems(s) == []


def test_trade_menu_comes_in_runs_giving_the_same_cards():
    """legal_actions checks a hand once per run of N_RES - 1 menu entries (offers and
    counter-offers): each run gives the same cards, in ascending menu order."""
    from catan_env.core import actions as A
    run = L.N_RES - 1
    assert A.N_MENU % run == 0
    for m0 in range(0, A.N_MENU, run):
        assert len({(int(A.MENU_GIVE_RES[m]), int(A.MENU_GIVE_N[m])) for m in range(m0, m0 + run)}) == 1
