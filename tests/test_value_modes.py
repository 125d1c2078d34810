"""The learned agent's newer modes: rule options in the features (and older weight files
widened to them), domestic offers made, answered and confirmed by the network's value,
the anytime search's budget, and no peeking or fallbacks in any of them."""

import numpy as np
import pytest

from catan_env import InfoSet
from catan_env.agents import make_agent
from catan_env.agents.arena import play_game
from catan_env.learned import features as F
from catan_env.learned.network import EARLIER_LAYOUTS, PRETRAINED, ValueNetwork, feature_digest
from catan_env.core import actions as A
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.core.options import PIONEERS_RULES
from helpers import hidden_variants, observation

needs_weights = pytest.mark.skipif(not __import__("os").path.exists(PRETRAINED), reason="no shipped weights")


def features(s, seat):
    out = np.zeros(F.N_FEATURES, np.float32)
    F.encode_features(s, seat, out)
    return out


def states_along(seed, n, options=None, p_keep=0.05):
    rng = np.random.default_rng(seed)
    s = G.new_game(options or {}, seed=seed)
    out = []
    while len(out) < n and not G.is_over(s):
        if rng.random() < p_keep:
            out.append(s.copy())
        G.step(s, int(rng.choice(G.legal_actions(s))))
    return out


def rule_slots(*names):
    """Indices of the named feature fields."""
    slots = []
    for name, offset, size, _ in F.FEATURE_FIELDS:
        if name in names:
            slots += range(offset, offset + size)
    return np.array(slots)


# ---- rule options in the features

def test_rule_options_change_only_their_feature_slots():
    rules = rule_slots("rules", "sevens_rule")
    deck = rule_slots("deck_start", "unseen_devs")
    for s in states_along(3, 12):
        for seat in range(G.n_players(s)):
            base = features(s, seat)
            other = s.copy()  # the Pioneers rule bits and sevens rule, the same position
            other[L.OPT_RULES] = (L.RULE_NO_DESERT_ROBBER | L.RULE_SHORTAGE_IN_ORDER | L.RULE_STRICT_TRADE
                                  | L.RULE_DIRECT_CITY | L.RULE_VP_PLAYED)
            other[L.OPT_SEVENS] = 2
            changed = np.flatnonzero(features(other, seat) != base)
            assert set(changed) == set(rules[np.isin(rules, changed)]) and len(changed) == 5 + 2
            other = s.copy()  # another development deck: its composition and the unseen share move
            other[L.DECK_START:L.DECK_START + L.N_DEV] += np.array([1, -1, 0, 0, 0])
            other[L.DECK + 0] += 1
            other[L.DECK + 1] -= 1
            changed = np.flatnonzero(features(other, seat) != base)
            assert len(changed) and set(changed) <= set(deck)


def test_a_pioneers_game_sets_its_rule_slots():
    official = features(G.new_game(seed=5), 0)
    pioneers = features(G.new_game(dict(PIONEERS_RULES, sevens_rule=1), seed=5), 0)
    f = {name: (offset, size) for name, offset, size, _ in F.FEATURE_FIELDS}
    o, n = f["rules"]
    assert official[o:o + n].tolist() == [0] * 5 and pioneers[o:o + n].tolist() == [1] * 5
    o, n = f["sevens_rule"]
    assert official[o:o + n].tolist() == [1, 0, 0] and pioneers[o:o + n].tolist() == [0, 1, 0]
    o, n = f["deck_start"]
    assert official[o:o + n].sum() * 25 == pytest.approx(25) and pioneers[o:o + n].sum() * 25 == pytest.approx(24)


def test_a_network_for_the_earlier_layout_loads_widened_and_computes_the_same(tmp_path):
    """A file made before the rule slots existed reads them with zero weights: the same
    win chances as its own forward pass on the slots it knows."""
    (digest, n_in), = EARLIER_LAYOUTS.items()
    rng = np.random.default_rng(0)
    layers = [(rng.normal(0, 0.1, (n_in, 8)), rng.normal(0, 0.1, 8), "relu"),
              (rng.normal(0, 0.5, (8, L.MAX_PLAYERS)), rng.normal(0, 0.1, L.MAX_PLAYERS), "identity")]
    arrays = {"n_layers": np.array(2)}
    for k, (w, b, act) in enumerate(layers):
        arrays[f"w{k}"], arrays[f"b{k}"], arrays[f"act{k}"] = w.astype(np.float32), b.astype(np.float32), np.array(act)
    arrays["meta"] = np.array('{"features": "%s", "n_features": %d}' % (digest, n_in))
    np.savez(tmp_path / "old.npz", **arrays)
    net = ValueNetwork.load(str(tmp_path / "old.npz"))
    assert net.meta["widened_from"] == digest and net.meta["features"] == feature_digest()
    for s in states_along(4, 5, dict(PIONEERS_RULES)):
        x = features(s, 1)
        h = np.maximum(x[:n_in].astype(np.float64) @ layers[0][0] + layers[0][1], 0) @ layers[1][0] + layers[1][1]
        n = G.n_players(s)
        p = np.exp(h[:n] - h[:n].max())
        np.testing.assert_allclose(net.predict(x[None], np.array([n]))[0, :n], p / p.sum(), rtol=1e-4, atol=1e-5)
    # a first layer that does not match the earlier layout's width is refused, not padded
    arrays["w0"] = arrays["w0"][:-1]
    np.savez(tmp_path / "bad.npz", **arrays)
    with pytest.raises(ValueError, match="another feature layout"):
        ValueNetwork.load(str(tmp_path / "bad.npz"))


# ---- trading

class _Recorder:
    """Wraps an agent: every action it chooses is kept with the seat's view (its own hand
    and the public trade fields are exact there)."""

    def __init__(self, agent, checks):
        self.agent, self.checks = agent, checks

    def reset(self, seed=None):
        self.agent.reset(seed)

    def act(self, obs, infoset):
        a = self.agent.act(obs, infoset)
        self.checks.append((infoset.seat, a, infoset.determinize(0), obs["action_mask"].copy()))
        return a

    def __getattr__(self, name):
        return getattr(self.agent, name)


@needs_weights
@pytest.mark.parametrize("options", [{}, dict(PIONEERS_RULES)], ids=["official", "pioneers"])
def test_offers_are_legal_and_never_give_what_the_agent_lacks(options):
    checks, made = [], {"offers": 0, "confirms": 0, "answers": 0}
    for g in range(3):
        agents = [_Recorder(make_agent("pretrained:search=1", seed=g), checks), "jsettlers", "trader", "jsettlers"]
        res = play_game(agents, seed=40 + g, options=options, max_turns=400)
        assert res["fallbacks"][0] == 0
    for seat, a, s, mask in checks:
        assert mask[a] == 1
        if A.OFFER0 <= a < A.OFFER0 + A.N_MENU:
            m = a - A.OFFER0
            assert s[L.hand_i(seat, A.MENU_GIVE_RES[m])] >= A.MENU_GIVE_N[m]
            made["offers"] += 1
        elif A.COUNTER0 <= a < A.COUNTER0 + A.N_MENU or a == A.TRADE_ACCEPT:
            m = a - A.COUNTER0
            give = (s[L.TRADE_GET_RES], s[L.TRADE_GET_N]) if a == A.TRADE_ACCEPT else \
                (A.MENU_GIVE_RES[m], A.MENU_GIVE_N[m])
            assert s[L.hand_i(seat, give[0])] >= give[1]
            made["answers"] += 1
        elif A.CONFIRM0 <= a < A.TRADE_CANCEL:
            made["confirms"] += 1
    assert made["offers"] > 0 and made["answers"] > 0 and made["confirms"] > 0, made


@needs_weights
def test_offers_are_bounded_per_turn_and_not_repeated():
    agent = make_agent("pretrained:offers=2:search=1", seed=0)
    per_turn = {}
    for g in range(2):
        checks = []
        play_game([_Recorder(agent, checks), "jsettlers", "jsettlers", "jsettlers"], seed=11 + g, max_turns=300)
        for seat, a, s, _ in checks:
            if A.OFFER0 <= a < A.OFFER0 + A.N_MENU:
                per_turn.setdefault((g, int(s[L.TURN])), []).append(a)
    assert per_turn and all(len(v) <= 2 for v in per_turn.values())
    assert any(len(v) == 2 for v in per_turn.values())  # the cap is reached, not just never tested
    assert all(len(set(v)) == len(v) for v in per_turn.values()), "an offer repeated within a turn"
    assert agent.trade_counts["offers"] == sum(len(v) for v in per_turn.values())
    quiet = make_agent("pretrained:offers=0:search=1", seed=0)
    play_game([quiet, "jsettlers", "jsettlers", "jsettlers"], seed=11, max_turns=300)
    assert quiet.trade_counts["offers"] == 0
    with pytest.raises(ValueError, match="offers must be"):
        make_agent("pretrained:offers=99")
    with pytest.raises(ValueError, match="offers must be a number"):
        make_agent("pretrained:offers=true")


@needs_weights
def test_the_agent_confirms_only_what_it_rates_up():
    """At every confirm decision the agent took, its choice is the best-rated answer when
    that one beats cancelling, and a cancel otherwise (checked on the same view)."""
    from catan_env.learned.trading import confirm_gains
    agent = make_agent("pretrained:search=1", seed=3)
    net = agent.network
    seen = 0
    checks = []
    for g in range(3):
        play_game([_Recorder(agent, checks), "jsettlers", "trader", "jsettlers"], seed=70 + g, max_turns=400)
    for seat, a, s, mask in checks:
        if s[L.PHASE] != L.PH_TRADE_CONFIRM:
            continue
        confirms = np.flatnonzero(mask[A.CONFIRM0:A.TRADE_CANCEL]) + A.CONFIRM0
        gains = np.empty(len(confirms))
        view = InfoSet(s, seat, secret_seed=0).determinize(1)
        confirm_gains(net.evaluator(), view, seat, confirms.astype(np.int64), gains)
        if a == A.TRADE_CANCEL:
            assert gains.max() <= 0.05  # the agent's own view differed; never a clear gain refused
        else:
            assert gains[list(confirms).index(a)] > -0.05
        seen += 1
    assert seen > 0


# ---- the anytime search

class TickClock:
    """A clock that advances ``dt`` at every reading: the anytime search decides the same
    way on every machine."""

    def __init__(self, dt):
        self.t, self.dt = 0.0, dt

    def __call__(self):
        self.t += self.dt
        return self.t


def _anytime(budget, dt, seed=7):
    agent = make_agent(f"pretrained:seconds={budget}:offers=0", seed=seed)
    agent.clock = TickClock(dt)
    return agent


def _main_phase_states(seed, n):
    return [s for s in states_along(seed, 20 * n, p_keep=0.2)
            if s[L.PHASE] == L.PH_MAIN and len(G.legal_actions(s)) > 3][:n]


@needs_weights
@pytest.mark.parametrize("spec", ["seconds", "leaves"])
def test_anytime_mode_reads_no_hidden_state(spec):
    rng = np.random.default_rng(5)
    compared = 0
    for s in states_along(9, 20, p_keep=0.04) + _main_phase_states(13, 4):
        seat = G.decider(s)
        for label, other in hidden_variants(s, seat, rng):
            acts = []
            for x in (s, other):
                agent = _anytime(0.2, 0.001) if spec == "seconds" else make_agent("pretrained:offers=0", seed=7)
                acts.append(agent.act(observation(x, seat), InfoSet(x, seat, secret_seed=99)))
            assert acts[0] == acts[1], f"the anytime search ({spec}) reads hidden {label}"
            compared += 1
    assert compared > 10


@needs_weights
def test_anytime_search_deepens_with_its_budget():
    """On a deterministic clock: a budget of a few readings stops at one ply, a large one
    reaches three plies and more views; in work, a larger budget does more."""
    states = _main_phase_states(12, 6)
    assert len(states) == 6
    small, large = _anytime(0.001, 0.001), _anytime(10.0, 0.0001)
    few, many = make_agent("pretrained:leaves=1:offers=0", seed=1), make_agent("pretrained:leaves=50000:offers=0", seed=1)
    for s in states:
        seat = G.decider(s)
        for agent in (small, large, few, many):
            a = agent.act(observation(s, seat), InfoSet(s, seat, secret_seed=1))
            assert G.legal_mask(s)[a] == 1
    assert small.depth_counts and set(small.depth_counts) == {1}
    assert large.depth_counts and max(large.depth_counts) == 3
    assert set(few.depth_counts) == {1} and max(many.depth_counts) == 3
    assert many._leaves > 3 * few._leaves


@needs_weights
def test_the_work_budget_is_honoured_and_follows_the_seed():
    """leaves=N: each decision evaluates at most N leaves past the first ply plus the
    move that cost more than the one before it, and the same seed plays the same game
    (no clock involved)."""
    from catan_env.agents.value.search import move_value
    agent = make_agent("pretrained:leaves=3000:offers=0", seed=2)
    spent = []
    for s in _main_phase_states(14, 6):
        seat = G.decider(s)
        before = agent._leaves
        agent.act(observation(s, seat), InfoSet(s, seat, secret_seed=3))
        spent.append(agent._leaves - before)
        net = agent.network
        moves = G.legal_actions(s)
        one_ply = sum(move_value(net.evaluator(), s, seat, int(a), 1, 6)[1] for a in moves)
        assert spent[-1] <= 3000 + one_ply + 2 * agent._leaf_cost.max(), (spent[-1], one_ply, agent._leaf_cost)
    assert max(spent) > 1000  # the budget is used, not just respected
    games = [play_game(["pretrained:leaves=2000", "jsettlers", "jsettlers"], seed=8, max_turns=60) for _ in range(2)]
    assert games[0]["vp"] == games[1]["vp"] and games[0]["steps"] == games[1]["steps"]


@needs_weights
def test_move_value_is_search_values_for_one_move():
    """The anytime search's per-move search equals the batch search on every move it ranks
    (depth 1 for all, depth 2 and 3 for the beam)."""
    from catan_env.agents.value.search import move_value, search_values
    from catan_env.learned.value import SEARCHABLE
    net = make_agent("pretrained:search=1").network
    for s in _main_phase_states(15, 4):
        seat = G.decider(s)
        legal = G.legal_actions(s)
        moves = legal[SEARCHABLE[legal] == 1].astype(np.int64)
        for depth in (1, 2, 3):
            q = np.empty(len(moves))
            search_values(net.evaluator(), s, seat, moves, depth, 3, q)
            for i, a in enumerate(moves):
                if depth == 1 or q[i] >= 0:  # outside the beam: q1 - 1
                    v, leaves = move_value(net.evaluator(), s, seat, int(a), depth, 3)
                    assert v == pytest.approx(q[i], abs=1e-9) and leaves >= 1


@needs_weights
@pytest.mark.parametrize("budget", [0.00005, 0.05])
def test_anytime_mode_honours_its_budget_and_plays_legal_moves(budget):
    """Real time: every move legal; with a budget above one ply's cost, the decisions
    that searched take at most 20% more than the budget on average and at the 90th
    percentile (the rare longer one is a move that took longer than the move before it)."""
    agent = make_agent(f"pretrained:seconds={budget}:offers=0", seed=1)
    play_game([agent, "jsettlers"], seed=2, max_turns=12)  # the kernels compile outside the timing
    res = play_game([agent, "jsettlers", "jsettlers"], seed=3, max_turns=400, time_decisions=True)
    assert res["fallbacks"][0] == 0 and res["steps"] > 50
    assert sum(agent.depth_counts.values()) > 10
    searched = np.array([t for t in res["decision_times"][0] if t > budget / 2])
    if budget >= 0.01:
        assert len(searched) > 10
        assert searched.mean() <= 1.2 * budget and np.percentile(searched, 90) <= 1.2 * budget, \
            (searched.mean(), np.percentile(searched, 90), searched.max())
    else:  # below one ply's cost in most positions: mostly the first ply, finished whatever the clock says
        assert agent.depth_counts.get(1, 0) > sum(agent.depth_counts.values()) / 2, agent.depth_counts
    with pytest.raises(ValueError, match="seconds in"):
        make_agent("pretrained:seconds=1000")
    with pytest.raises(ValueError, match="not both"):
        make_agent("pretrained:seconds=0.1:leaves=100")


# ---- no fallbacks in any mode

@needs_weights
@pytest.mark.parametrize("spec", ["pretrained", "pretrained:seconds=0.002", "pretrained:leaves=300",
                                  "pretrained:search=1", "pretrained:search=0:counters=false"])
def test_learned_agent_modes_never_fall_back(spec):
    """Whole games, 2-4 players, trading on and off, official and Pioneers rules: no
    replaced move (the default budget plays two of the six games; the same anytime search
    plays all six at the smaller budgets)."""
    reasons = {}
    # (the default budget, ~0.1 s a decision, plays two of the games: 3 players with the Pioneers
    # rules and no domestic trade, 4 players with the official rules and trade)
    for g in ((1, 2) if spec == "pretrained" else range(6)):
        n = 2 + g % 3
        options = dict(PIONEERS_RULES) if g % 2 else {}
        options["domestic_trade"] = g % 3 != 1
        res = play_game([spec] + ["jsettlers"] * (n - 1), seed=500 + g, options=options, max_turns=400)
        for k, v in res["fallback_reasons"].items():
            reasons[k] = reasons.get(k, 0) + v
    assert reasons == {}, f"{spec} replaced planned moves: {reasons}"


# ---- the league

def _league_module():
    import importlib.util
    import os
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "examples", "value_league.py")
    spec = importlib.util.spec_from_file_location("value_league", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_league_table_shares_and_stopping_rule():
    league = _league_module()
    shares = league.games_per_entry(1000, league.TABLE)
    assert sum(shares.values()) == 1000 and set(shares) == set(league.TABLE)
    assert shares["jsettlers"] > shares["weighted"] >= 1 and shares["pioneers"] > 0
    assert sum(league.games_per_entry(5, league.TABLE).values()) >= len(league.TABLE)  # one game each at least
    assert any(options for _, options, _ in league.TABLE.values())  # a share under other rules

    def rounds(*kept):
        return [{"round": k, "eval": {"kept": kept_k}} for k, kept_k in enumerate(kept)]
    assert not league.stopped(rounds(True, False), 2)
    assert league.stopped(rounds(True, False, False), 2)           # two rounds in a row not kept
    assert not league.stopped(rounds(True, False, True), 2)
    assert league.stopped(rounds(True, True, False, False), 2)
    assert not league.stopped(rounds(True, False, True, False), 2)  # round 2 was kept
    assert league.champion(rounds(True, True, False, True, False), 5)["round"] == 3
    assert league.champion(rounds(True, True, False, True, False), 3)["round"] == 1
    assert league.past_round(1, 0) == 0 and all(0 <= league.past_round(k, 3) < k - 1 for k in range(2, 9))


def test_a_league_round_replaces_the_champion_only_when_it_wins_the_paired_games():
    """Paired game by game over both judges: only the games one of the two won count."""
    from catan_env.agents.arena import sign_test
    league = _league_module()
    old = {"jsettlers": {"won": [1, 0, 1, 0, 0, 1] * 10}, "mcts": {"won": [0, 0, 1] * 10}}
    same = league.versus(old, old)
    assert same == {"games": 90, "only_new": 0, "only_old": 0, "p": 1.0} and not league.stronger(same, 0.05)
    better = {"jsettlers": {"won": [1, 1, 1, 0, 1, 1] * 10}, "mcts": {"won": [1, 0, 1] * 10}}
    c = league.versus(better, old)
    assert (c["games"], c["only_new"], c["only_old"]) == (90, 30, 0) and c["p"] < 1e-8 and league.stronger(c, 0.05)
    assert not league.stronger(league.versus(old, better), 0.05)  # behind: never kept, however clear
    # ten games won by the new round only, none by the old: kept; ten each: a tie, not kept
    slightly = {"jsettlers": {"won": [1, 1, 1, 0, 0, 1] * 10}, "mcts": {"won": [0, 0, 1] * 10}}
    c = league.versus(slightly, old)
    assert (c["only_new"], c["only_old"]) == (10, 0) and league.stronger(c, 0.05)
    c = league.versus({"jsettlers": {"won": [1, 1, 1, 0, 0, 0] * 10}, "mcts": old["mcts"]}, old)
    assert (c["only_new"], c["only_old"]) == (10, 10) and not league.stronger(c, 0.05)
    # ahead but not by enough (15 / 7: p = 0.134), and by enough (17 / 5: p = 0.017)
    assert not league.stronger({"only_new": 15, "only_old": 7, "p": sign_test(15, 7)}, 0.05)
    assert league.stronger({"only_new": 17, "only_old": 5, "p": sign_test(17, 5)}, 0.05)


def test_a_league_verdict_pairs_each_round_with_the_champion_before_it():
    league = _league_module()
    won = {0: [1, 0, 0, 1, 0] * 8, 1: [1, 1, 1, 1, 0] * 8, 2: [1, 0, 0, 1, 0] * 8}  # round 1 wins 16 more
    rounds = []
    for k in range(3):
        figures = {"judges": {"jsettlers": {"won": won[k]}}}
        rounds.append({"round": k, "eval": league.verdict(k, figures, rounds, 0.05)})
    assert rounds[0]["eval"]["kept"] and "vs_champion" not in rounds[0]["eval"]
    assert rounds[1]["eval"]["kept"] and rounds[1]["eval"]["vs_champion"]["champion"] == 0
    assert rounds[1]["eval"]["vs_champion"]["only_new"] == 16
    # round 2 plays as round 0 did: paired with round 1, the champion now, and not kept
    assert not rounds[2]["eval"]["kept"] and rounds[2]["eval"]["vs_champion"]["champion"] == 1
    assert league.champion(rounds, 3)["round"] == 1


def test_the_sign_test_matches_known_binomial_tails():
    from catan_env.agents.arena import sign_test
    # two-sided exact binomial p-values (as scipy.stats.binomtest(k, n, 0.5).pvalue gives them)
    known = {(5, 0): 0.0625, (10, 3): 0.09229, (3, 10): 0.09229, (15, 7): 0.13380, (17, 5): 0.01690,
             (60, 40): 0.05689, (97, 64): 0.01144, (20, 20): 1.0, (0, 0): 1.0}
    for (better, worse), p in known.items():
        assert sign_test(better, worse) == pytest.approx(p, abs=5e-5), (better, worse)


def test_tiny_league_round_end_to_end(tmp_path):
    pytest.importorskip("torch")
    import json
    import os
    import subprocess
    import sys
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    out = tmp_path / "league"
    cmd = [sys.executable, os.path.join(root, "examples", "value_league.py"), "--out", str(out), "--games", "7",
           "--eval-games", "2", "--mcts-eval-games", "1", "--mcts-playouts", "10", "--max-rounds", "1",
           "--epochs", "1", "--search", "0", "--determinizations", "1", "--vp-weight", "1"]
    run = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=root)
    assert run.returncode == 0, run.stderr[-3000:]
    log = json.loads((out / "league.json").read_text())
    assert [r["round"] for r in log["rounds"]] == [0, 1]
    for r in log["rounds"]:
        judged = r["eval"]["judges"]
        assert r["eval"]["games"] == 3 and [len(judged[j]["won"]) for j in ("jsettlers", "mcts")] == [2, 1]
    assert log["rounds"][0]["eval"]["kept"] is True
    paired = log["rounds"][1]["eval"]["vs_champion"]
    assert paired["champion"] == 0 and paired["games"] == 3
    assert log["rounds"][1]["eval"]["kept"] is False  # three games cannot pass the sign test
    assert "against round 0 on the same 3 games" in run.stdout and "not kept" in run.stdout
    assert "log_loss" in log["rounds"][1]["train"]["heldout_before"]
    league = _league_module()
    for name, (_, options, _) in league.TABLE.items():
        manifest = json.loads((out / "data-1" / name / "manifest.json").read_text())
        assert manifest["settings"]["options"] == options and manifest["shards"]
    assert ValueNetwork.load(str(out / "round-1.npz")).meta["round"] == 1
    assert ValueNetwork.load(str(out / "round-1.npz")).meta["vp_weight"] == 1.0  # fine-tuned with the VP head
    assert (out / "best.npz").read_bytes() == (out / "round-0.npz").read_bytes()  # the champion
    again = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=root)
    assert again.returncode == 0 and "fine-tuning" not in again.stdout  # every stage was done

    # a network trained elsewhere, judged on the same games: round 1's file plays round 1's games
    challenger = subprocess.run(cmd + ["--challenger", str(out / "round-1.npz")], capture_output=True, text=True,
                                timeout=300, cwd=root)
    assert challenger.returncode == 0, challenger.stderr[-3000:]
    records = list(out.glob("challenger-round-1-*.json"))
    assert len(records) == 1
    record = records[0]
    judged = json.loads(record.read_text())["eval"]
    assert judged["judges"] == log["rounds"][1]["eval"]["judges"] and judged["vs_champion"] == paired
    assert "challenger" in challenger.stdout and "against round 0 on the same 3 games" in challenger.stdout
    assert [r["round"] for r in json.loads((out / "league.json").read_text())["rounds"]] == [0, 1]  # no round added
    # judged once: the record is read back (here, edited to a clean sweep), not replayed
    import argparse
    args = argparse.Namespace(out=str(out), alpha=0.05, search=0, determinizations=1)
    saved = json.loads(record.read_text())
    for j in saved["eval"]["judges"].values():
        j["won"] = [1] * len(j["won"])
    record.write_text(json.dumps(saved))
    rounds = json.loads((out / "league.json").read_text())["rounds"]
    figures, _ = league.judge_challenger(str(out / "round-1.npz"), args, rounds)
    lost_by_round_0 = sum(len(j["won"]) - sum(j["won"]) for j in rounds[0]["eval"]["judges"].values())
    assert figures["vs_champion"]["only_old"] == 0 and figures["vs_champion"]["only_new"] == lost_by_round_0
    # a record that is not this network's, or not JSON, is refused by name, not paired
    saved["sha256"] = "0" * 64
    record.write_text(json.dumps(saved))
    with pytest.raises(ValueError, match="is not the record of"):
        league.judge_challenger(str(out / "round-1.npz"), args, rounds)
    record.write_text("{not json")
    with pytest.raises(ValueError, match="is not a challenger record"):
        league.judge_challenger(str(out / "round-1.npz"), args, rounds)
    with pytest.raises(ValueError, match="no judged round"):
        league.judge_challenger(str(out / "round-0.npz"), args, [{"round": 0}])
    bad = subprocess.run(cmd + ["--challenger", str(out / "league.json")], capture_output=True, text=True,
                         timeout=300, cwd=root)
    assert bad.returncode == 2 and "--challenger" in bad.stderr and "league.json" in bad.stderr


def test_lopsided_false_keeps_to_trades_a_person_might_take():
    """Offers and counters asking 2 cards for 1, and counters that withhold what the
    proposer asked for, are what proposers almost never take (benchmarks/counter_offers.py):
    ``lopsided=false`` never makes them, the default does."""
    import catan_env
    from catan_env.agents.arena import decisions
    from catan_env.agents.registry import make_agent
    from catan_env.core import actions as A
    from catan_env.core import layout as L

    def lopsided_made(spec):
        made = trades = 0
        for g in range(3):
            env = catan_env.raw_env()
            env.reset(seed=70 + g)
            agents = [make_agent(spec if p == g % 4 else "jsettlers", seed=g * 4 + p) for p in range(4)]
            for p, a, *_ in decisions(env, agents):
                kind = A.action_kind(a)
                if p == g % 4 and kind in ("TRADE_OFFER", "TRADE_COUNTER"):
                    trades += 1
                    m = a - (A.OFFER0 if kind == "TRADE_OFFER" else A.COUNTER0)
                    asks_two = A.MENU_GIVE_N[m] == 1 and A.MENU_GET_N[m] == 2
                    withholds = kind == "TRADE_COUNTER" and A.MENU_GIVE_RES[m] != env.game_state[L.TRADE_GET_RES]
                    made += int(asks_two or withholds)
        return made, trades
    made, trades = lopsided_made("pretrained:search=0")
    assert made > 0
    made, trades = lopsided_made("pretrained:search=0:lopsided=false")
    assert made == 0 and trades > 0
