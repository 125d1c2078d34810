"""The MCTS family: winning moves, no peeking, tree accounting, ensembles, trade-optimistic
offers, budgets, chance nodes, hooks and option errors."""
import time

import numpy as np
import pytest
from numba import njit

from catan_env import InfoSet
import catan_env
from catan_env.core import actions as A
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.core.placement import road_length
from catan_env.core.tables import DICE_PROB
from catan_env.agents.mcts import (MCTSAgent, PRESETS, RootStats, Tree, make_config, make_grow,
                                   merge_roots, run_search)
from catan_env.agents.mcts import kernel as K
from catan_env.agents.mcts.trading import optimistic_moves, trades_needed
from helpers import game_after_setup, give, hidden_variants, observation, quiet_roll, take_all


_obs = observation


def _main_phase(**options):
    s = game_after_setup(**options)
    quiet_roll(s)
    for p in range(4):
        take_all(s, p)
    return s


def _after(s, a):
    t = s.copy()
    G.step(t, int(a))
    return t


def _wins_now(s, a):
    return G.winner(_after(s, a)) == G.decider(s)


def _city_endgame():
    """Seat 0 wins now with a city (5 VP target); anything else lets seat 1 win."""
    s = _main_phase(vp_to_win=5, domestic_trade=False)
    s[L.KNIGHTS] = 3
    s[L.DEV_USED] = 3
    s[L.DECK] -= 3
    s[L.LA_HOLDER] = 0
    s[L.PUBLIC_VP] += 2
    s[L.DECK + L.VICTORY_POINT] -= 2
    s[L.DEV_HAND + 5 + L.VICTORY_POINT] += 2
    give(s, 0, grain=2, ore=3)
    give(s, 1, grain=2, ore=3)
    return s


def _road_endgame():
    """Seat 0 (2 settlements, 4 VP target) wins now by the road that makes its road 5
    long, taking Longest Road; it holds one road's cards and nothing else."""
    s = _main_phase(vp_to_win=4, domestic_trade=False)
    rng = np.random.default_rng(0)
    while road_length(s, 0) < 4:
        give(s, 0, brick=1, lumber=1)
        roads = [a for a in G.legal_actions(s) if A.ROAD0 <= a < A.SETTLEMENT0]
        longer = [a for a in roads if road_length(_after(s, a), 0) > road_length(s, 0)]
        G.step(s, int(longer[rng.integers(len(longer))]))
    take_all(s, 0)
    give(s, 0, brick=1, lumber=1)
    return s


@pytest.mark.parametrize("variant", ["ismcts", "mp_uct", "mp_ensemble", "plain_uct", "best"])
@pytest.mark.parametrize("endgame", [_city_endgame, _road_endgame])
def test_finds_the_winning_move(variant, endgame):
    s = endgame()
    legal = G.legal_actions(s)
    winning = {int(a) for a in legal if _wins_now(s, a)}
    assert winning and len(winning) < len(legal)
    a = MCTSAgent(seed=3, variant=variant, playouts=300).act(_obs(s, 0), InfoSet(s, 0, 1))
    assert a in winning, A.action_name(a)


@pytest.mark.parametrize("variant", ["ismcts", "mp_ensemble", "mpt_ensemble"])
def test_decisions_ignore_what_the_seat_cannot_know(variant):
    """Pairs of true states the seat cannot tell apart give the same decision."""
    rng = np.random.default_rng(5)
    s = _main_phase()
    give(s, 0, brick=2, lumber=2, wool=1, grain=1)
    for p in (1, 2, 3):
        give(s, p, brick=1, wool=2, grain=1, ore=2)
        s[L.know_i(0, p, 0):L.know_i(0, p, 0) + 5] = 0          # seat 0 lost track of them
        s[L.know_i(0, p, L.UNKNOWN)] = 6
    seen = 0
    for label, other in hidden_variants(s, 0, rng):
        seen += 1
        picks = [MCTSAgent(seed=11, variant=variant, playouts=200).act(_obs(x, 0), InfoSet(x, 0, 7))
                 for x in (s, other)]
        assert picks[0] == picks[1], label
    assert seen >= 3


def _search_state():
    s = _main_phase()
    give(s, 0, brick=3, lumber=3, wool=2, grain=2)
    return G.determinize(s, 0, 1)


def test_virtual_wins_are_not_backed_up():
    view = _search_state()
    cfg = make_config("vw_uct", playouts=600, determinize="iteration", chance="open")
    res = run_search(view, 0, cfg, seed=3)
    t = res.trees[0]
    n = t.nodes
    extra = t.visits[:n] - t.real[:n]
    assert set(np.unique(extra)) <= {0.0, K.VIRTUAL_CITY, K.VIRTUAL_SETTLEMENT}
    assert (extra > 0).any()                      # some settlement child got them
    assert t.real[0] == t.visits[0] == 600        # the root never sees them
    assert np.isclose(t.wins[0].sum(), 600)       # one unit of reward per iteration
    for node in range(n):                         # parents count only real visits
        kids = t.children(node)
        if kids:
            assert t.real[kids].sum() <= t.real[node]
            assert t.visits[node] - t.real[node] == extra[node]


def test_ensemble_merge_sums_visits_and_rewards():
    view = _search_state()
    cfg = make_config("mp_ensemble", playouts=900)
    res = run_search(view, 0, cfg, seed=4)
    assert len(res.trees) == 10 and res.iterations == 900
    parts = [t.root_stats() for t in res.trees]
    merged = merge_roots(parts)
    for i, k in enumerate(merged.keys):
        rows = [(p.visits[j], p.wins[j]) for p in parts for j in np.flatnonzero(p.keys == k)]
        assert merged.visits[i] == sum(r[0] for r in rows)
        assert np.allclose(merged.wins[i], sum(r[1] for r in rows))
    assert merged.visits.sum() == res.stats.visits.sum() == 900
    a = RootStats(np.array([5, 9]), np.array([2.0, 3.0]), np.ones((2, 4)), np.array([2.0, 3.0]))
    b = RootStats(np.array([9, 7]), np.array([1.0, 4.0]), np.full((2, 4), 2.0), np.array([1.0, 5.0]))
    m = merge_roots([a, b])
    assert m.keys.tolist() == [5, 7, 9] and m.visits.tolist() == [2.0, 4.0, 4.0]
    assert m.wins[2].tolist() == [3.0] * 4


def test_threads_give_the_same_search_as_one_thread():
    view = _search_state()
    one = run_search(view, 0, make_config("mp_ensemble", playouts=400), seed=9).stats
    two = run_search(view, 0, make_config("mp_ensemble", playouts=400, threads=2), seed=9).stats
    assert one.keys.tolist() == two.keys.tolist() and np.array_equal(one.visits, two.visits)
    assert np.allclose(one.wins, two.wins)


def test_trade_optimistic_moves_and_queue():
    s = _main_phase()
    city_spot = A.CITY0 + 12                       # seat 0's first settlement
    give(s, 0, ore=2, wool=2, brick=1)             # 5 cards, a city needs 2 grain 3 ore
    opt = set(optimistic_moves(s, 0).tolist())
    assert city_spot in opt and A.BUY_DEV in opt   # 5 >= 5 and 5 >= 3 cards
    assert not any(A.ROAD0 <= a < A.SETTLEMENT0 for a in opt if a in G.legal_actions(s))
    queue = trades_needed([1, 0, 2, 0, 2], city_spot, np.random.default_rng(0))
    gets = sorted(A.MENU_GET_RES[a - A.OFFER0] for a in queue)
    gives = sorted(A.MENU_GIVE_RES[a - A.OFFER0] for a in queue)
    assert gets == [3, 3, 4]                       # grain, grain, ore missing
    assert gives == [0, 2, 2]                      # the spare brick and wools
    assert all(A.MENU_GIVE_N[a - A.OFFER0] == A.MENU_GET_N[a - A.OFFER0] == 1 for a in queue)
    assert city_spot not in set(optimistic_moves(s, 0, max_trades=2).tolist())   # needs 3 offers
    assert A.BUY_DEV in set(optimistic_moves(s, 0, max_trades=2).tolist())        # needs 1
    take_all(s, 0)
    give(s, 0, ore=2, wool=1)                      # 3 cards: no city, a card by trade
    opt = set(optimistic_moves(s, 0).tolist())
    assert city_spot not in opt and A.BUY_DEV in opt
    give(s, 0, grain=1)                            # the card is now affordable
    assert A.BUY_DEV not in set(optimistic_moves(s, 0).tolist())


def test_trading_agent_makes_and_answers_offers():
    """The trading MCTS variant offers on its own turns and answers the robots' offers
    (accepts, rejects or counters), every one a legal move of the env."""
    from catan_env.agents import make_agent
    env = catan_env.raw_env(max_turns=120)
    env.reset(seed=3)
    agents = [make_agent("mcts:variant=mpt_ensemble:playouts=100", seed=1)] + \
        [make_agent("jsettlers", seed=k) for k in (2, 3, 4)]
    offers = answers = 0
    for name in env.agent_iter(20000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[name]
        a = int(agents[seat].act(obs, env.infoset(name)))
        if seat == 0:
            offers += int(A.OFFER0 <= a < A.TRADE_ACCEPT)
            answers += int(a in (A.TRADE_ACCEPT, A.TRADE_REJECT) or A.COUNTER0 <= a < A.CONFIRM0)
        env.step(a)
    assert offers > 0 and answers > 0, (offers, answers)


@pytest.mark.parametrize("variant", ["ismcts", "mp_ensemble"])
def test_playout_budget_is_exact(variant):
    res = run_search(_search_state(), 0, make_config(variant, playouts=777), seed=1)
    assert res.iterations == 777 and res.stats.visits.sum() == 777


def test_seconds_budget_is_respected():
    view = _search_state()
    run_search(view, 0, make_config("ismcts", seconds=0.05), seed=1)     # compiled
    for cfg in (make_config("ismcts", seconds=0.3), make_config("mp_ensemble", seconds=0.3)):
        t0 = time.perf_counter()
        res = run_search(view, 0, cfg, seed=2)
        took = time.perf_counter() - t0
        # it searched until its clock ran out (a lower bound: a loaded machine only adds to it)
        assert res.iterations > 50 and took >= 0.3, (took, res.iterations)
    # (how close a search keeps to its budget is measured in benchmarks/mcts_speed.py, not asserted)


def test_chance_nodes_sample_the_dice_distribution():
    s = game_after_setup()                         # seat 0 about to roll
    assert G.legal_actions(s).tolist() == [A.ROLL]
    cfg = make_config("plain_uct", playouts=20000, rollout_turns=0, chance_width=11)
    t = run_search(G.determinize(s, 0, 0), 0, cfg, seed=5).trees[0]
    (roll,) = t.children(0)
    assert t.key[roll] == A.ROLL and t.chance[roll] == 1
    outcomes = t.children(roll)
    freq = np.zeros(13)
    for o in outcomes:
        freq[t.key[o]] = t.real[o]
    assert freq.sum() == 20000 and sorted(t.key[outcomes].tolist()) == list(range(2, 13))
    assert np.abs(freq / 20000 - DICE_PROB).max() < 0.012


def test_chance_width_caps_outcomes():
    s = game_after_setup()
    cfg = make_config("plain_uct", playouts=3000, rollout_turns=0, chance_width=3)
    t = run_search(G.determinize(s, 0, 0), 0, cfg, seed=5).trees[0]
    (roll,) = t.children(0)
    assert len(t.children(roll)) == 3 and t.real[t.children(roll)].sum() == 3000


def test_progressive_widening_limits_children():
    cfg = make_config("ismcts", playouts=400, pw_c=1.0, pw_alpha=0.3, virtual_wins=False)
    t = run_search(_search_state(), 0, cfg, seed=2).trees[0]
    assert 2 <= len(t.children(0)) <= np.ceil(401 ** 0.3)
    wide = run_search(_search_state(), 0, make_config("ismcts", playouts=400), seed=2).trees[0]
    assert len(wide.children(0)) > len(t.children(0))


@njit
def _seat0_wins(s, seat):
    out = np.zeros(4)
    out[0] = 1.0
    return out


@njit
def _all_on_end_turn(s, seat, actions, n, out):
    for i in range(n):
        out[i] = 1.0 if actions[i] == 1 else 0.0   # END_TURN


def test_evaluator_and_prior_hooks():
    view = _search_state()
    grow = make_grow(evaluate=_seat0_wins, prior=_all_on_end_turn)
    cfg = make_config("ismcts", playouts=300, rollout_turns=0, prior="weights", virtual_wins=False)
    res = run_search(view, 0, cfg, seed=1, grow=grow)
    t = res.trees[0]
    assert np.isclose(t.wins[0, 0], 300) and t.wins[0, 1:].sum() == 0
    stats = res.stats
    assert stats.keys[stats.visits.argmax()] == A.END_TURN
    default = run_search(view, 0, cfg, seed=1).trees[0]       # built-in VP-share leaves
    assert 0 < default.wins[0, 0] < 300


def test_options_are_checked():
    with pytest.raises(ValueError, match="unknown mcts variant"):
        make_config("alphazero")
    with pytest.raises(ValueError, match="unknown mcts option 'cpuct'"):
        make_config("ismcts", cpuct=1)
    with pytest.raises(ValueError, match="chance must be one of"):
        make_config("ismcts", chance="dense")
    with pytest.raises(ValueError, match="playouts"):
        make_config("ismcts", playouts=0)
    with pytest.raises(ValueError, match="must be an integer"):
        make_config("ismcts", ensemble=2.5)
    with pytest.raises(ValueError, match="ensemble"):
        make_config("mp_ensemble", playouts=5)
    assert make_config("mp_uct", iterations=50).playouts == 50
    assert set(PRESETS) >= {"plain_uct", "vw_uct", "mp_uct", "mp_ensemble", "mpt_ensemble",
                            "ismcts", "szita", "dipl_v5", "dipl_v8", "best"}


def test_tree_arrays_and_root_stats():
    t = Tree(8)
    assert t.nodes == 1 and t.children(0) == []
    with pytest.raises(ValueError, match="no root children"):
        t.root_stats().best(0)
    with pytest.raises(ValueError, match="max_nodes"):
        Tree(2)


def test_opening_can_be_handed_to_jsettlers():
    from catan_env.agents import JSettlersAgent
    s = G.new_game(seed=4)
    obs, info = _obs(s, 0), InfoSet(s, 0, 2)
    mine = MCTSAgent(seed=1, variant="best", playouts=50, opening="jsettlers").act(obs, info)
    assert mine == JSettlersAgent(seed=1).act(obs, info)
    with pytest.raises(ValueError, match="opening must be one of"):
        make_config("best", opening="book")


def test_answers_follow_the_accept_margin():
    stats = RootStats(np.array([A.TRADE_ACCEPT, A.TRADE_REJECT]), np.array([100.0, 300.0]),
                      np.array([[50.0, 0, 0, 0], [90.0, 0, 0, 0]]), np.array([400.0, 400.0]))
    # accept: mean 0.5 on 100 visits; reject: mean 0.3 on 300 visits
    assert MCTSAgent(seed=0, accept_margin=-1)._answer(stats, 0) == A.TRADE_REJECT   # most visited
    assert MCTSAgent(seed=0, accept_margin=0.1)._answer(stats, 0) == A.TRADE_ACCEPT
    assert MCTSAgent(seed=0, accept_margin=0.25)._answer(stats, 0) == A.TRADE_REJECT


def test_trade_queue_stops_when_spares_run_out():
    # 4 cards, a city needs 5 of them: only as many offers as spare cards
    queue = trades_needed([0, 0, 1, 0, 3], A.CITY0 + 12, np.random.default_rng(1))
    assert [A.MENU_GIVE_RES[a - A.OFFER0] for a in queue] == [2]
    assert [A.MENU_GET_RES[a - A.OFFER0] for a in queue] == [3]
