"""Fallbacks: an agent that replaces a move it planned says so, the env counts it per
seat, the arena reports it; the heuristic robots never need one."""
import numpy as np
import pytest

from catan_env.agents import JSettlersAgent, RandomAgent
from catan_env.agents.arena import format_table, play_game, summarise
from catan_env.core import actions as A

ROBOTS = ["jsettlers", "jsettlers:strategy=smart", "trader"]
GAMES_PER_ROBOT = 120


class _BrokenPlanner(JSettlersAgent):
    """A robot whose main-phase plan is always to roll, which is never legal after the roll."""

    def _main(self):
        return A.ROLL


def test_a_replaced_move_is_counted_per_seat_and_reported():
    agents = [_BrokenPlanner(seed=0), RandomAgent(seed=1)]
    stats = play_game(agents, seed=3, max_turns=30)  # the replacements are legal moves
    assert stats["fallbacks"][0] > 0 and stats["fallbacks"][1] == 0
    assert stats["fallbacks"][0] == sum(agents[0].fallbacks.values())
    assert set(stats["fallback_reasons"]) == {"illegal plan in main"}


def test_the_arena_reports_fallbacks_per_agent():
    results = [play_game(["random", "jsettlers"], seed=s, max_turns=40) for s in range(2)]
    results[0]["fallbacks"] = [0, 3]  # as a broken agent would have reported
    results[0]["fallback_reasons"] = {"illegal plan in main": 3}
    summary = summarise(results, ["random", "jsettlers"])
    assert summary["agents"]["jsettlers"]["fallbacks"] == 3 and summary["agents"]["random"]["fallbacks"] == 0
    assert summary["fallbacks"] == 3
    table = format_table(summary)
    assert "fallbacks" in table.splitlines()[1] and "illegal plan in main 3" in table


@pytest.mark.parametrize("trading", [True, False])
@pytest.mark.parametrize("spec", ROBOTS)
def test_heuristic_robots_never_fall_back(spec, trading):
    """GAMES_PER_ROBOT whole games per robot (half with trading on, half off), 2-4 players: not one
    replaced move."""
    rng = np.random.default_rng(sum(map(ord, spec)) + trading)
    reasons = {}
    for g in range(GAMES_PER_ROBOT // 2):
        n = 2 + g % 3
        res = play_game([spec] * n, seed=int(rng.integers(2 ** 40)), options={"domestic_trade": trading})
        for k, v in res["fallback_reasons"].items():
            reasons[k] = reasons.get(k, 0) + v
    assert reasons == {}, f"{spec} replaced planned moves: {reasons}"
