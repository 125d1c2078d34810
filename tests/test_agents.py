"""Agents: no peeking, heuristic scenarios, building-speed estimates, registry, arena."""
import json

import numpy as np
import pytest

import catan_env
from catan_env.agents import (Agent, JSettlersAgent, RandomAgent, WeightedRandomAgent,
                    available_agents, make_agent, register_agent)
from catan_env.agents.jsettlers import speed as SP
from catan_env.agents.arena import decisions, play_game, run_tournament, summarise, wilson, write_outputs
from catan_env.agents.jsettlers.planning import wgeta
from catan_env import InfoSet
from catan_env.core import actions as A
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.core.board import BEGINNER_BOARD
from catan_env.core.topology import HEX_VERTICES, VERTEX_HEXES
from helpers import game_after_setup, give, hidden_variants, observation, quiet_roll, take_all

AGENT_SPECS = ["random", "weighted", "jsettlers", "jsettlers:strategy=smart", "trader",
               "mcts:iterations=20", "opening_solver:base=random", "pretrained:search=1", "pretrained:search=0"]
# (``pretrained`` itself searches against the clock: its no-peek test runs on a
# deterministic clock in test_value_modes.py)


_obs = observation


def _decision_points(n_states=25, seed=0):
    rng = np.random.default_rng(seed)
    s = G.new_game(seed=seed)
    out = []
    while len(out) < n_states and not G.is_over(s):
        if rng.random() < 0.03:
            out.append(s.copy())
        G.step(s, int(rng.choice(G.legal_actions(s))))
    return out


@pytest.mark.parametrize("spec", AGENT_SPECS)
def test_agents_never_read_hidden_state(spec):
    """Pairs of true states that differ only in what the decider cannot know (opponents'
    hand make-up, their development card types, the deck, the RNG, other seats' private
    knowledge), each built by hand, give the same decision under the same seed."""
    rng = np.random.default_rng(3)
    kinds = set()
    for k, s in enumerate(_decision_points()):
        seat = G.decider(s)
        for label, other in hidden_variants(s, seat, rng):
            assert not np.array_equal(other, s)
            acts = []
            for state in (s, other):
                agent = make_agent(spec, seed=7)
                acts.append(agent.act(_obs(state, seat), InfoSet(state, seat, secret_seed=99)))
            assert acts[0] == acts[1], f"{spec} reads hidden {label}"
            assert G.legal_mask(s)[acts[0]] == 1
            kinds.add(label)
    assert kinds == {"hand make-up", "development card types", "rng", "others' knowledge"}


def test_decisions_show_each_move_before_it_is_played_and_end_with_the_game():
    """The loop body sees the state the move was chosen in (the move is legal there), each
    seat's own agent decides, and the game is over once the loop ends; the same game as
    play_game's for the same agents and seed."""
    env = catan_env.raw_env()
    env.reset(seed=11)
    agents = [RandomAgent(seed=11 * 31 + i) for i in range(4)]
    seen = 0
    for d in decisions(env, agents):
        assert d.seat == int(env.game_state[L.DECIDER])
        assert d.observation["action_mask"][d.action]
        assert d.seconds >= 0.0
        seen += 1
    assert seen > 50
    assert all(env.terminations.values()) or all(env.truncations.values())
    assert play_game(["random"] * 4, seed=11)["steps"] == int(env.game_state[L.STEPS])


def test_building_speed_estimate_by_hand():
    # a settlement on a 6-brick / 8-lumber corner: P = .14 each -> 7 rolls per card
    terrain = np.array([0, 1, 5] + [2] * 16, dtype=np.int64)
    numbers = np.array([6, 8, 0] + [2] * 16, dtype=np.int64)
    R = SP.rolls_per_resource(terrain, numbers, 2, np.array([0], np.int64), np.array([1], np.int64), True)
    v_hexes = [h for h in VERTEX_HEXES[0] if h >= 0]
    assert v_hexes == [0]  # vertex 0 touches hex 0 only
    assert R[0] == 7 and R[1] == 55555
    R = np.array([7, 7, 55555, 55555, 55555], dtype=np.int64)
    zero = np.zeros(5, dtype=np.int64)
    assert SP.eta(R, 0, zero, SP.ROAD, 40) == 7           # both arrive on roll 7
    assert SP.eta(R, 0, np.array([5, 0, 0, 0, 0]), SP.ROAD, 40) == 0  # 4:1 trade covers lumber
    assert SP.eta(R, 0, np.array([4, 0, 0, 0, 0]), SP.ROAD, 40) == 7  # 3 spare < 4
    assert SP.eta(R, 32, np.array([4, 0, 0, 0, 0]), SP.ROAD, 40) == 0  # 3:1 harbour
    assert SP.eta(R, 1, np.array([3, 0, 0, 0, 0]), SP.ROAD, 40) == 0  # 2:1 brick harbour
    # wool never produced and no surplus: cut off
    assert SP.eta(R, 0, zero, SP.CARD, 40) == 40
    # R = [3, 5]: brick at 3, 6, ...; lumber at 5 -> road at 5
    R2 = np.array([3, 5, 55555, 55555, 55555], dtype=np.int64)
    assert SP.eta(R2, 0, zero, SP.ROAD, 40) == 5
    # settlement needs wool+grain too: with only brick/lumber income, trades every 4 spare
    # brick at 3,6,9,12,15,18 (6), lumber at 5,10,15,20 -> by roll 15: brick 5, lumber 3:
    # spare brick 4 -> 1 trade, spare lumber 2: not enough for the second missing card
    assert SP.eta(R2, 0, zero, SP.SETTLEMENT, 40) > 15


def _beginner_with(numbers_override):
    b = json.loads(json.dumps(BEGINNER_BOARD))
    b.update(numbers_override)
    return b


def test_opening_prefers_the_rich_corner():
    """Put 6, 8 and 5 on three different resources around one corner: take it."""
    b = json.loads(json.dumps(BEGINNER_BOARD))
    # vertex 12 touches hexes 0, 3, 4 on this topology; give them 6 / 8 / 5 and
    # spread the other tokens elsewhere
    hexes = [h for h in VERTEX_HEXES[12] if h >= 0]
    assert len(hexes) == 3
    terrain = b["terrain"]
    assert "desert" not in [terrain[h] for h in hexes]
    assert len({terrain[h] for h in hexes}) == 3
    tokens = [2, 3, 3, 4, 4, 5, 5, 6, 6, 8, 8, 9, 9, 10, 10, 11, 11, 12]
    numbers = [0] * 19
    for h, n in zip(hexes, (6, 8, 5)):
        numbers[h] = n
        tokens.remove(n)
    # low numbers next to the corner, the rest anywhere (red numbers kept apart is not
    # needed for a custom board)
    rest = sorted(tokens)
    for h in range(19):
        if h not in hexes and terrain[h] != "desert":
            numbers[h] = rest.pop(0)
    b["numbers"] = numbers
    s = G.new_game(seed=0, board=b)
    agent = JSettlersAgent(seed=0)
    a = agent.act(_obs(s, 0), InfoSet(s, 0, 1))
    chosen = a - A.SETTLEMENT0
    assert chosen == 12 or set(h for h in VERTEX_HEXES[chosen] if h >= 0) == set(hexes)


def test_robber_targets_the_fastest_opponent_and_steals_from_them():
    s = game_after_setup()
    for p in range(4):
        take_all(s, p)
    for p in (1, 2, 3):
        give(s, p, ore=1)
    # make seat 3 clearly the fastest to win: largest army and a city
    s[L.KNIGHTS + 3] = 3
    s[L.DEV_USED] = 3
    s[L.DECK] -= 3
    s[L.LA_HOLDER] = 3
    s[L.PUBLIC_VP + 3] += 2
    G.step(s, A.ROLL, outcome=7)
    w = {p: wgeta(s, p) for p in (1, 2, 3)}
    target = min(w, key=w.get)
    assert target == 3
    agent = JSettlersAgent(seed=0)
    a = agent.act(_obs(s, 0), InfoSet(s, 0, 1))
    h, k = A.robber_hex(a), A.robber_victim(a)
    assert (0 + k) % 4 == target
    assert any(s[L.V_OWNER + v] == target for v in HEX_VERTICES[h])
    assert not any(s[L.V_OWNER + v] == 0 for v in HEX_VERTICES[h])


def test_discard_keeps_the_plan_cost():
    s = game_after_setup()
    for p in range(4):
        take_all(s, p)
    give(s, 1, grain=2, ore=3, wool=4)  # 9 cards: discard 4; a city is affordable
    quiet_roll(s)
    G.step(s, A.END_TURN)
    G.step(s, A.ROLL, outcome=7)
    assert s[L.PHASE] == L.PH_DISCARD and G.decider(s) == 1
    agent = JSettlersAgent(seed=0)
    agent.adopt_plan([("city", 29)])
    a = agent.act(_obs(s, 1), InfoSet(s, 1, 1))
    assert a == A.DISCARD0 + 2  # wool is not needed for the city


def _offer_state(give_n, give_r, get_n, get_r, responder_cards, proposer_vp_bonus=0):
    s = game_after_setup()
    for p in range(4):
        take_all(s, p)
    quiet_roll(s)
    give(s, 0, **{["brick", "lumber", "wool", "grain", "ore"][give_r]: give_n})
    give(s, 1, **responder_cards)
    if proposer_vp_bonus:  # seat 0: two cities and largest army, one VP from the win
        s[L.KNIGHTS] = 3
        s[L.DEV_USED] = 3
        s[L.DECK] -= 3
        s[L.LA_HOLDER] = 0
        for v in (12, 20):
            s[L.V_LEVEL + v] = 2
        s[L.CITIES_LEFT] -= 2
        s[L.SETTLEMENTS_LEFT] += 2
        s[L.PUBLIC_VP] += 4
        s[L.OPT_VP] = int(s[L.PUBLIC_VP]) + 1
    G.step(s, A.OFFER0 + A.menu_index(give_n, give_r, get_n, get_r))
    assert G.decider(s) == 1
    return s


def _answer(s, plan):
    agent = JSettlersAgent(seed=0)
    agent.adopt_plan(list(plan))
    return agent.act(_obs(s, 1), InfoSet(s, 1, 1))


def test_answer_accepts_an_offer_that_completes_the_plan():
    # seat 1 wants a city (2 grain, 3 ore), holds 2 grain 2 ore and a spare wool;
    # seat 0 offers 1 ore for 1 wool
    s = _offer_state(1, 4, 1, 2, {"grain": 2, "ore": 2, "wool": 1})
    assert _answer(s, [("city", 29)]) == A.TRADE_ACCEPT


def test_answer_rejects_a_player_close_to_winning():
    s = _offer_state(1, 4, 1, 2, {"grain": 2, "ore": 2, "wool": 1}, proposer_vp_bonus=True)
    assert wgeta(s, 0) <= 25
    assert _answer(s, [("city", 29)]) == A.TRADE_REJECT


def test_answer_counters_when_asked_for_a_needed_card():
    # seat 0 offers 1 ore for 1 grain; seat 1 needs its grain but has spare wool: it
    # counters "my wool for your ore"
    s = _offer_state(1, 4, 1, 3, {"grain": 2, "ore": 2, "wool": 2})
    a = _answer(s, [("city", 29)])
    assert A.COUNTER0 <= a < A.CONFIRM0
    m = a - A.COUNTER0
    assert (A.MENU_GIVE_RES[m], A.MENU_GET_RES[m]) == (2, 4)


def test_answer_rejects_a_useless_offer():
    s = _offer_state(1, 0, 1, 2, {"grain": 2, "ore": 2, "wool": 1})  # brick for wool
    assert _answer(s, [("city", 29)]) == A.TRADE_REJECT


def test_registry_and_custom_agents():
    assert {"random", "weighted", "jsettlers", "trader"} <= set(available_agents())
    a = make_agent("jsettlers:strategy=smart:trading=false", seed=1)
    assert isinstance(a, JSettlersAgent) and a.strategy == "smart" and a.trading is False
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("alphago")
    with pytest.raises(ValueError, match="strategy"):
        make_agent("jsettlers:strategy=clever")
    with pytest.raises(ValueError, match="key=value"):
        make_agent("jsettlers:smart")

    class FirstLegal(Agent):
        def act(self, observation, infoset):
            return int(np.flatnonzero(observation["action_mask"])[0])
    register_agent("firstlegal", FirstLegal)
    res = play_game(["firstlegal", "random"], seed=3, max_turns=30)
    assert res["specs"] == ["firstlegal", "random"]


def test_wilson_interval():
    lo, hi = wilson(95, 100)
    assert 0.88 < lo < 0.89 and 0.978 < hi < 0.979
    assert wilson(0, 0) == (0.0, 0.0)


def test_short_arena_report_adds_up(tmp_path):
    players = ["jsettlers", "random", "random", "random"]
    results = run_tournament(players, 6, workers=2, seed=5, max_turns=300, progress=False)
    again = run_tournament(players, 6, workers=1, seed=5, max_turns=300, progress=False)
    assert [r["winner"] for r in results] == [r["winner"] for r in again]  # reproducible
    summary = summarise(results, players)
    agents = summary["agents"]
    assert agents["random"]["seat_games"] == 18 and agents["jsettlers"]["seat_games"] == 6
    wins = sum(d["wins"] for d in agents.values())
    assert wins + summary["truncated_games"] == 6
    assert agents["jsettlers"]["wins"] >= 4
    seats_used = {tuple(r["specs"]).index("jsettlers") for r in results}
    assert len(seats_used) > 1  # seats are randomised
    for d in agents.values():
        assert 1.0 <= d["mean_rank"] <= 4.0
        lo, hi = d["win_rate_ci95"]
        assert lo <= d["win_rate"] <= hi
    write_outputs(results, summary, tmp_path)
    assert json.loads((tmp_path / "summary.json").read_text())["games"] == 6
    rows = (tmp_path / "games.csv").read_text().strip().splitlines()
    assert len(rows) == 1 + 6 * 4
    assert (tmp_path / "vp_distribution.png").exists() and (tmp_path / "win_rate_by_seat.png").exists()


def test_trading_agents_complete_domestic_trades():
    results = run_tournament(["trader", "trader", "jsettlers", "jsettlers"], 4, workers=1, seed=1,
                             max_turns=300, progress=False)
    by_trader = sum(r["trades"][seat] for r in results for seat, spec in enumerate(r["specs"]) if spec == "trader")
    assert by_trader > 0  # the trading agents themselves closed trades
    for r in results:  # each completed trade counts once for each side
        assert sum(r["trades"]) == 2 * r["trades_completed"]


def test_game_stats_come_from_the_game_for_every_agent():
    """Offers and trades are counted by the env from the actions, whoever made them:
    here uniformly random agents (no trading bookkeeping of their own)."""
    env = catan_env.raw_env(players=3)
    env.reset(seed=4)
    rng = np.random.default_rng(0)
    offers = [0, 0, 0]
    trades = [0, 0, 0]
    steps = 0
    for name in env.agent_iter(6000):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = env.agent_name_mapping[name]
        a = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        offers[seat] += int(A.OFFER0 <= a < A.TRADE_ACCEPT)
        if A.CONFIRM0 <= a < A.TRADE_CANCEL:
            trades[seat] += 1
            trades[A.confirm_partner(a, seat, 3)] += 1
        env.step(a)
        steps += 1
    stats = env.game_stats()
    assert stats["offers"] == offers and sum(offers) > 0
    assert stats["trades"] == trades and sum(trades) > 0
    assert stats["steps"] == steps and stats["turns"] == int(env.game_state[L.TURN])


def test_agents_in_a_plain_pettingzoo_loop():
    env = catan_env.env(players=3)
    env.reset(seed=2)
    agents = {"player_0": JSettlersAgent(seed=0), "player_1": RandomAgent(seed=1),
              "player_2": WeightedRandomAgent(seed=2)}
    for name in env.agent_iter(20000):
        obs, rew, term, trunc, info = env.last()
        action = None if term or trunc else agents[name].act(obs, env.unwrapped.infoset(name))
        env.step(action)
    assert all(env.terminations.values()) or all(env.truncations.values())


def test_console_entry_points_exit_cleanly(tmp_path, capsys):
    from catan_env.agents.arena import main as arena_main
    from catan_env.agents.opening import main as opening_main
    assert arena_main(["--players", "jsettlers,random", "--games", "2", "--out", str(tmp_path)]) == 0
    assert "win rate" in capsys.readouterr().out
    assert opening_main(["--seed", "1", "--players", "3"]) == 0
    with pytest.raises(SystemExit):
        arena_main(["--players", "jsettlers,nobody"])


def test_year_of_plenty_takes_the_two_missing_cards():
    from helpers import give_dev
    s = game_after_setup()
    for p in range(4):
        take_all(s, p)
    quiet_roll(s)
    give(s, 0, brick=1, lumber=1)   # a settlement misses wool and grain
    give_dev(s, 0, "year_of_plenty")
    agent = JSettlersAgent(seed=0)
    agent.adopt_plan([("settlement", 29)])
    a = agent.act(_obs(s, 0), InfoSet(s, 0, 1))
    i = a - A.YOP0
    assert 0 <= i < 15 and (int(A.YOP_R1[i]), int(A.YOP_R2[i])) == (2, 3)


def test_baseline_table_command(tmp_path, capsys):
    from catan_env.agents.baselines import main as baselines_main
    assert baselines_main(["--games", "2", "--workers", "1", "--out", str(tmp_path),
                           "--only", "jsettlers_vs_random", "weighted_vs_random"]) == 0
    text = (tmp_path / "table.md").read_text()
    assert "jsettlers_vs_random" in text and "weighted_vs_random" in text
    assert (tmp_path / "jsettlers_vs_random" / "summary.json").exists()


def test_mcts_finds_the_winning_build():
    """Seat 0 wins now with a city; anything else lets seat 1 win on its turn."""
    from catan_env.agents.mcts import MCTSAgent
    s = game_after_setup(vp_to_win=5, domestic_trade=False)
    quiet_roll(s)
    for p in range(4):
        take_all(s, p)
    s[L.KNIGHTS] = 3                      # seat 0: 2 settlements + largest army = 4 VP
    s[L.DEV_USED] = 3
    s[L.DECK] -= 3
    s[L.LA_HOLDER] = 0
    s[L.PUBLIC_VP] += 2
    s[L.DECK + L.VICTORY_POINT] -= 2      # seat 1: 2 settlements + 2 hidden VP cards = 4
    s[L.DEV_HAND + 5 + L.VICTORY_POINT] += 2
    give(s, 0, grain=2, ore=3)
    give(s, 1, grain=2, ore=3)
    obs = _obs(s, 0)
    legal = set(np.flatnonzero(obs["action_mask"]).tolist())
    cities = {a for a in legal if A.CITY0 <= a < A.BUY_DEV}
    assert cities and A.END_TURN in legal and len(legal) > len(cities) + 1
    agent = MCTSAgent(seed=3, iterations=200, virtual_wins=False)
    a = agent.act(obs, InfoSet(s, 0, 1))
    assert a in cities
    again = MCTSAgent(seed=3, iterations=200, virtual_wins=False).act(obs, InfoSet(s, 0, 1))
    assert again == a
    with pytest.raises(ValueError, match="playout"):
        MCTSAgent(playout="smart")


def test_mcts_example_runs():
    import os
    import subprocess
    import sys
    script = os.path.join(os.path.dirname(__file__), "..", "examples", "mcts_in_env_loop.py")
    out = subprocess.run([sys.executable, script, "--games", "1", "--iterations", "5"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "wins:" in out.stdout


def test_answer_rejects_a_player_racing_for_our_spot():
    from catan_env.agents.jsettlers.planning import settlement_spots
    # seat 0 offers 1 grain for 1 ore: it completes seat 1's settlement
    s = _offer_state(1, 3, 1, 4, {"brick": 1, "lumber": 1, "wool": 1, "ore": 1})
    contested = sorted(v for v, path in settlement_spots(s, 0, max_roads=1))
    assert contested
    free = next(v for v in range(54) if v not in contested)
    assert _answer(s, [("settlement", free)]) == A.TRADE_ACCEPT
    assert _answer(s, [("settlement", contested[0])]) == A.TRADE_REJECT


def test_offers_skip_opponents_who_refused_this_turn():
    s = game_after_setup()
    for p in range(4):
        take_all(s, p)
    quiet_roll(s)
    give(s, 0, brick=1, lumber=1, wool=1, ore=2)  # a settlement misses grain
    give(s, 1, grain=1)
    agent = JSettlersAgent(seed=0)
    agent.adopt_plan([("settlement", 8)])
    a = agent.act(_obs(s, 0), InfoSet(s, 0, 1))
    assert A.OFFER0 <= a < A.TRADE_ACCEPT
    m = a - A.OFFER0
    assert A.MENU_GET_RES[m] == 3  # asks for grain
    G.step(s, a)
    for _ in range(3):
        G.step(s, A.TRADE_REJECT)
    assert s[L.PHASE] == L.PH_MAIN
    agent.adopt_plan([("settlement", 8)])
    b = agent.act(_obs(s, 0), InfoSet(s, 0, 1))
    assert not (A.OFFER0 <= b < A.TRADE_ACCEPT)  # nobody is believed to hold grain now
    assert all((p, 3) in agent.not_holding for p in (1, 2, 3))


def _empty_the_deck(s):
    """Every card left in the deck goes (hidden) to the seat after the decider."""
    deck = L.view(s, "deck")
    L.view(s, "dev_hand")[(G.decider(s) + 1) % G.n_players(s)] += deck
    deck[:] = 0


def test_jsettlers_does_not_plan_a_card_from_an_empty_deck():
    """The deck size is public: with the deck empty the robot never plans to buy a
    development card (nor trades for one), in any position."""
    planned_cards = 0
    checked = 0
    for seed in range(3):
        for s in _decision_points(n_states=40, seed=seed):
            if s[L.PHASE] not in (L.PH_MAIN, L.PH_PRE_ROLL):
                continue
            for deck_empty in (False, True):
                t = s.copy()
                if deck_empty:
                    _empty_the_deck(t)
                    assert InfoSet(t, G.decider(t), 1).deck_size() == 0
                for strategy in ("fast", "smart"):
                    agent = JSettlersAgent(seed=0, strategy=strategy)
                    a = agent.act(_obs(t, G.decider(t)), InfoSet(t, G.decider(t), 1))
                    if deck_empty:
                        checked += 1
                        assert ("card",) not in agent.plan and a != A.BUY_DEV
                    else:
                        planned_cards += ("card",) in agent.plan
    assert checked > 20 and planned_cards > 0  # the same positions do aim for cards


def test_jsettlers_combined_etas_price_a_settlement_with_its_roads_from_the_hand():
    """combined_etas=true: a settlement that needs roads is estimated as the robot does,
    one ETA of the settlement and its roads together from the hand; the default adds a
    from-nothing road ETA per road.  Spots that need no road are the same either way."""
    from catan_env.agents.jsettlers import speed as SP
    from catan_env.agents.jsettlers.planning import PlayerModel, settlement_spots
    from catan_env.agents.jsettlers.robot import ROBOT_CUTOFF
    with_roads = differ = 0
    for s in _decision_points(n_states=40, seed=5):
        if s[L.PHASE] != L.PH_MAIN:
            continue
        me = G.decider(s)
        model, hand = PlayerModel(s, me), InfoSet(s, me, 1).hand()
        etas = {}
        for combined in (False, True):
            agent = JSettlersAgent(seed=0, combined_etas=combined)
            agent._s, agent._me, agent._hand = InfoSet(s, me, 1).public_state(), me, hand  # the view act() sets
            etas[combined] = {v: eta for eta, _, v, _ in agent._settlement_options(model)}
        for v, path in settlement_spots(s, me):
            if v not in etas[True]:
                continue
            if path:
                with_roads += 1
                assert etas[True][v] == model.eta(hand, SP.SETTLEMENT + len(path) * SP.ROAD, cutoff=ROBOT_CUTOFF)
                assert etas[False][v] == model.eta(hand, SP.SETTLEMENT) + len(path) * int(model.nothing[2])
                differ += etas[True][v] != etas[False][v]
            else:
                assert etas[True][v] == etas[False][v] == model.eta(hand, SP.SETTLEMENT)
    assert with_roads > 10 and differ > 0


@pytest.mark.parametrize("max_nodes", [5, 4000])
def test_mcts_counts_availability_once_per_iteration(max_nodes):
    """Each iteration passes the root once, so a root child is available at most once
    per iteration, and at least as often as it was visited (also once the tree is full:
    max_nodes=5 fills it after a few expansions)."""
    from catan_env.agents.mcts import make_config, run_search
    s = game_after_setup()
    quiet_roll(s)
    give(s, 0, brick=3, lumber=3, wool=2, grain=2)   # many legal actions at the root
    view = G.determinize(s, 0, 1)
    iterations = 300
    cfg = make_config("ismcts", playouts=iterations, playout="random", horizon=20,
                      max_nodes=max_nodes, virtual_wins=False)
    stats = run_search(view, 0, cfg, seed=3).stats
    assert len(stats.keys) >= 2
    assert (stats.avail <= iterations).all(), stats.avail.max()
    assert (stats.avail >= stats.visits).all()
    assert stats.visits.sum() == iterations


def test_speed_estimate_survives_more_than_two_cards_per_roll():
    """A player with cities all over rich ore hexes gets more than two ore per roll on
    average; the estimate then counts one roll per card (found by PPO training against
    JSettlers: the robot's model of that player divided by zero)."""
    s = catan_env.core.new_game(seed=0, board="beginner")
    terrain = catan_env.core.layout.view(s, "hex_terrain").copy()
    numbers = catan_env.core.layout.view(s, "hex_number").copy()
    ore = [h for h in range(19) if terrain[h] == 4]
    terrain[:] = 4
    numbers[:] = 6
    numbers[ore] = 8
    vertices = np.array([0, 10, 20, 30, 40, 50], dtype=np.int64)
    R = SP.rolls_per_resource(terrain, numbers, -1, vertices, np.full(6, 2, np.int64), False)
    assert R[4] == 1 and (R[:4] == SP.NONE).all()
    eta = SP.eta_table(R, 0, np.zeros(5, np.int64), 50)
    assert 0 < eta[1] < 50  # a city's grain comes from 4:1 trades of the ore flood


def test_jitted_spot_search_matches_the_python_search():
    """``spot_road_counts`` (jitted BFS, used by WGETA) gives the path lengths of
    ``settlement_spots`` (the obvious Python search) for every seat and road budget."""
    from catan_env.agents.jsettlers.planning import settlement_spots, spot_road_counts
    checked = 0
    for s in _decision_points(40, seed=3) + _decision_points(40, seed=4):
        for p in range(int(s[L.OPT_PLAYERS])):
            for max_roads in (0, 1, 3, 6):
                slow = sorted(len(path) for _, path in settlement_spots(s, p, max_roads))
                assert spot_road_counts(s, p, max_roads) == slow
                checked += bool(slow)
    assert checked > 100


def _knight_before_the_roll(robber_hex_of):
    """Seat 0 about to roll with a Knight, a settlement on the desert, the robber moved by
    robber_hex_of(state): whether JSettlersAgent plays the Knight first."""
    s = game_after_setup(vertices=[24, 29, 42, 12, 44, 0, 50, 20])  # seat 0's first: vertex 24
    desert = int(np.flatnonzero(L.view(s, "hex_terrain") == L.DESERT)[0])
    assert 24 in HEX_VERTICES[desert]
    s[L.dev_i(0, L.KNIGHT)] += 1
    s[L.ROBBER] = robber_hex_of(s, desert)
    return JSettlersAgent(seed=0).act(observation(s, 0), InfoSet(s, 0, 1)) == A.PLAY_KNIGHT


def test_the_robot_plays_a_knight_before_rolling_only_for_a_hex_that_pays_it():
    assert not _knight_before_the_roll(lambda s, desert: desert)  # the desert pays nothing

    def producing(s, desert):
        return next(int(h) for v in np.flatnonzero(L.view(s, "v_owner") == 0) for h in VERTEX_HEXES[v]
                    if h >= 0 and h != desert)
    assert _knight_before_the_roll(producing)
