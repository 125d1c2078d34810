"""``opening=rollout``: set-up placements valued at the end of the set-up, every later
placement by its seat's greedy choice; checked against a plain-Python reference over
whole forward passes, and the agent's budget, choices and errors."""

import numpy as np
import pytest

from catan_env import InfoSet
from catan_env.agents import make_agent
from catan_env.agents.arena import play_game
from catan_env.agents.value.setup_rollout import greedy_setup_move, in_setup, setup_rollout_value
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.core import actions as A
from catan_env.core.cards import current_decider
from catan_env.core.rules import FROM_RNG, apply_action, legal_actions
from catan_env.learned.network import PRETRAINED, load_network
from catan_env.learned.value import SEARCHABLE, Evaluator, state_win_probs
from helpers import observation

needs_weights = pytest.mark.skipif(not __import__("os").path.exists(PRETRAINED), reason="no shipped weights")


def reference_setup_rollout_value(ev: Evaluator, s: np.ndarray, root: int, a: int) -> float:
    """The same value by plain Python over whole forward passes (the tests' reference):
    each seat's placements scored by its full-network win chance after them."""
    c = s.copy()
    apply_action(c, a, FROM_RNG)
    buf = np.empty(A.N_ACTIONS, np.int64)
    while in_setup(c):
        seat = current_decider(c)
        n = legal_actions(c, buf)
        values = []
        for b in buf[:n]:
            d = c.copy()
            apply_action(d, int(b), FROM_RNG)
            values.append(float(state_win_probs(ev, d, seat)[seat]))
        apply_action(c, int(buf[int(np.argmax(values))]), FROM_RNG)
    return float(state_win_probs(ev, c, root)[root])


def setup_positions(seed, players=4):
    """Every set-up position of a game whose placements are drawn at random."""
    rng = np.random.default_rng(seed)
    s = G.new_game({"players": players}, seed=seed)
    out = []
    while in_setup(s):
        out.append(s.copy())
        G.step(s, int(rng.choice(G.legal_actions(s))))
    return out


@needs_weights
@pytest.mark.parametrize("players", [3, 4])
def test_rollout_value_matches_the_reference(players):
    net = load_network(None)
    ev = net.evaluator()
    positions = setup_positions(5 + players, players)
    assert len(positions) == 4 * players  # a settlement and a road, twice, for every seat
    for s in positions[::3]:
        seat = current_decider(s)
        for a in G.legal_actions(s)[:4]:
            fast, leaves = setup_rollout_value(ev, s, seat, int(a))
            slow = reference_setup_rollout_value(net.evaluator(), s, seat, int(a))
            assert abs(fast - slow) < 1e-4, (int(s[L.PHASE]), int(a), fast, slow)
            assert leaves >= 1


@needs_weights
def test_greedy_setup_move_is_the_best_one_ply_placement():
    net = load_network(None)
    ev = net.evaluator()
    for s in setup_positions(3)[:6]:
        seat = current_decider(s)
        legal = G.legal_actions(s)
        values = []
        for a in legal:
            c = s.copy()
            G.step(c, int(a))
            values.append(net.win_probs(c, seat)[seat])
        chosen = greedy_setup_move(ev, s, seat, np.empty(500, np.int64), np.empty_like(s))
        # the chosen placement is (within float32 rounding of the two forward passes) the best
        assert values[list(legal).index(chosen)] >= max(values) - 1e-5


@needs_weights
def test_the_rollout_ends_where_the_set_up_ends():
    """A road that completes the set-up is valued at the position itself: no placement left."""
    net = load_network(None)
    last = setup_positions(4)[-1]  # the last seat's second road
    assert int(last[L.PHASE]) == L.PH_SETUP_ROAD
    a = int(G.legal_actions(last)[0])
    v, leaves = setup_rollout_value(net.evaluator(), last, current_decider(last), a)
    c = last.copy()
    G.step(c, a)
    assert not in_setup(c) and leaves == 1
    assert abs(v - net.win_probs(c, current_decider(last))[current_decider(last)]) < 1e-5


def _set_up_decision(leaves=0):
    """A second seat's first settlement, the agent (``leaves``: its budget, 0: none) and
    the moves it searches there."""
    s = setup_positions(2)[0]
    seat = current_decider(s)
    spec = "pretrained:search=1:opening=rollout" if leaves == 0 else f"pretrained:leaves={leaves}:opening=rollout"
    agent = make_agent(spec, seed=0)
    legal = G.legal_actions(s)
    return s, seat, agent, legal[SEARCHABLE[legal] == 1]


@needs_weights
def test_without_a_budget_every_move_is_rolled_out_and_the_best_played():
    """Every placement's value is its rollout's (the reference's, within float32 rounding),
    and the agent plays the best of them."""
    net = load_network(None)
    s, seat, agent, moves = _set_up_decision()
    values = np.array([reference_setup_rollout_value(net.evaluator(), s, seat, int(a)) for a in moves])
    np.testing.assert_allclose(agent._setup_rollouts(s, seat, moves), values, atol=1e-4)
    chosen = _set_up_decision()[2].act(observation(s, seat), InfoSet(s, seat, secret_seed=0))
    assert values[list(moves).index(chosen)] >= values.max() - 1e-4


@needs_weights
def test_the_budget_bounds_the_rollouts():
    """With a leaves budget the set-up decision stops rolling out once the budget is spent
    (one rollout past it at most), and a smaller budget rolls out fewer moves."""
    net = load_network(None)
    s, seat, _, moves = _set_up_decision()
    longest = max(setup_rollout_value(net.evaluator(), s, seat, int(a))[1] for a in moves)
    rolled = {}
    for leaves in (600, 6000):
        _, _, agent, _ = _set_up_decision(leaves)
        agent.act(observation(s, seat), InfoSet(s, seat, secret_seed=0))
        assert agent._leaves <= leaves + longest
        rolled[leaves] = int((agent._setup_rollouts(s, seat, moves) >= 0).sum())  # (a move not rolled out: < 0)
    assert 1 <= rolled[600] < rolled[6000] < len(moves)


@needs_weights
def test_rollout_opening_plays_whole_legal_games_the_same_on_the_same_seed():
    games = [play_game([make_agent("pretrained:leaves=1500:opening=rollout", seed=4), "weighted", "jsettlers"],
                       seed=9, max_turns=80) for _ in range(2)]
    assert games[0]["vp"] == games[1]["vp"] and games[0]["turns"] == games[1]["turns"]
    assert games[0]["fallbacks"][0] == 0


def test_an_unknown_opening_is_named():
    with pytest.raises(ValueError, match="opening must be one of search, jsettlers, rollout, got 'book'"):
        make_agent("pretrained:opening=book")
