"""The backward-induction placement solver: objective, modality agreement, call counts."""
import numpy as np
import pytest

from catan_env.agents.opening import SolverOpeningAgent
from catan_env.agents.opening_solver import OpeningSolver, pair_matrix, vertex_features
from catan_env import InfoSet
from catan_env.core import actions as A
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.core.topology import VERTEX_HEXES

BASELINE_CALLS = 5_634_937   # the paper's count, board independent
MEMO_CALLS = 983_839          # the paper's count with memoisation, board independent


def _board(seed):
    s = G.new_game(seed=seed)
    return s[L.HEX_TERRAIN:L.HEX_TERRAIN + 19].copy(), s[L.HEX_NUMBER:L.HEX_NUMBER + 19].copy()


def test_objective_by_hand():
    # vertex 12 touches hexes 0, 3, 4; give them brick 6, lumber 8, grain 6
    terrain = np.full(19, 2, dtype=np.int64)   # wool everywhere else
    numbers = np.full(19, 2, dtype=np.int64)
    hexes = [int(h) for h in VERTEX_HEXES[12] if h >= 0]
    for h, t, n in zip(hexes, (0, 1, 3), (6, 8, 6)):
        terrain[h], numbers[h] = t, n
    res, exp, nums = vertex_features(terrain, numbers)
    assert res[12] == 0b1011 and nums[12] == (1 << 6) | (1 << 8)
    assert exp[12] == pytest.approx(15 / 36)
    q = pair_matrix(res, exp, nums, 0.5, 0.3, 0.2)
    far = 53
    far_hexes = [int(h) for h in VERTEX_HEXES[far] if h >= 0]
    assert all(h not in hexes for h in far_hexes)
    diversity = 4  # brick, lumber, grain + wool from the far vertex
    e = 15 / 36 + sum(1 / 36 for _ in far_hexes)         # wool hexes carry 2s: 1/36 each
    p_any = (5 + 5 + 1) / 36                              # unique numbers 6, 8, 2
    assert q[12, far] == pytest.approx(0.5 * diversity + 0.3 * e + 0.2 * p_any)
    assert q[12, 12] == -np.inf
    from catan_env.core.topology import VERTEX_VERTICES
    assert all(q[12, w] == -np.inf for w in VERTEX_VERTICES[12] if w >= 0)  # distance rule


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_three_modalities_agree(seed):
    terrain, numbers = _board(seed)
    results = [OpeningSolver(modality=m).solve(terrain, numbers) for m in (1, 2, 3)]
    first = results[0]
    for r in results[1:]:
        assert r["first"] == first["first"] and r["second"] == first["second"]
        assert r["objective"] == pytest.approx(first["objective"])
    calls = [r["calls"] for r in results]
    assert calls[0] == BASELINE_CALLS and calls[1] == MEMO_CALLS
    assert calls[2] < 5000
    # every placement respects the distance rule
    placed = first["first"] + first["second"]
    assert len(set(placed)) == 8


def test_solution_is_a_best_response_for_the_last_player():
    """Player 4 (last) picks its pair after players 1-3's firsts: no feasible pair is better."""
    terrain, numbers = _board(5)
    solver = OpeningSolver(modality=3)
    res = solver.solve(terrain, numbers)
    q, _ = solver.tables(terrain, numbers)
    taken = res["first"][:3]
    from catan_env.core.topology import VERTEX_VERTICES
    blocked = set(taken) | {int(w) for v in taken for w in VERTEX_VERTICES[v] if w >= 0}
    free = [v for v in range(54) if v not in blocked]
    best = max(q[a, b] for a in free for b in free if a != b and q[a, b] > -np.inf)
    assert q[res["first"][3], res["second"][3]] == pytest.approx(best)


def test_memo_keyed_by_available_vertices_merges_more_states():
    terrain, numbers = _board(4)
    a = OpeningSolver(modality=2, memo_key="available").solve(terrain, numbers)
    b = OpeningSolver(modality=2).solve(terrain, numbers)
    assert a["calls"] == 983_023 < b["calls"]
    assert a["first"] == b["first"] and a["second"] == b["second"]


def test_competitive_variant_runs_and_respects_rules():
    terrain, numbers = _board(1)
    res = OpeningSolver(modality=3, competitive=True).solve(terrain, numbers, players=3)
    assert len(set(res["first"] + res["second"])) == 6
    with pytest.raises(ValueError, match="modality"):
        OpeningSolver(modality=4)


def test_solver_opening_agent_uses_the_solver():
    s = G.new_game(seed=0)
    agent = SolverOpeningAgent(seed=0, base="random")
    mask = G.legal_mask(s)
    obs = {"observation": G.observe(s, 0), "action_mask": mask}
    a = agent.act(obs, InfoSet(s, 0, 1))
    expected = OpeningSolver(modality=3).solve_state(s)["first"][0]
    assert a == A.SETTLEMENT0 + expected
