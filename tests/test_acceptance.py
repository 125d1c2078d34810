"""Acceptance models (``catan_env.learned.acceptance``): the fit recovers a known model,
the samples read a bridge's offer log as it is written, the decision-time features are
the offer's and the partner's as the view holds them, bad files are named, and the value
agent's acceptance-weighted offers follow the model."""
import json

import numpy as np
import pytest

from catan_env.agents import make_agent
from catan_env.core import actions as A
from catan_env.core import game as G
from catan_env.core import layout as L
from catan_env.infoset import InfoSet
from catan_env.learned import acceptance as M
from helpers import observation


def _random_features(rng, n):
    return np.array([M.offer_features(int(rng.integers(A.N_MENU)), int(rng.integers(0, 12)), int(rng.integers(0, 4)),
                                      int(rng.integers(2, 10)), int(rng.integers(2, 10)), int(rng.integers(0, 150)))
                     for _ in range(n)])


def test_the_fit_recovers_a_known_model():
    rng = np.random.default_rng(0)
    x = _random_features(rng, 20000)
    truth = np.zeros(M.N_FEATURES)
    truth[[0, 1, 3, M.FEATURES.index("own_vp")]] = [-2.0, 2.5, -0.8, -1.5]
    y = (rng.random(len(x)) < M.AcceptanceModel(truth).probability(x)).astype(float)
    got = M.fit(x, y, l2=0.1)
    for name in ("bias", "can_pay", "cards", "own_vp"):
        i = M.FEATURES.index(name)
        assert abs(got[i] - truth[i]) < 0.35, (name, got[i], truth[i])
    assert M.log_loss(M.AcceptanceModel(got), x, y) < M.log_loss(M.AcceptanceModel(np.zeros(M.N_FEATURES)), x, y)


def test_samples_read_the_offer_log_as_the_bridge_writes_it():
    menu = 7
    line = {"offer_log": [[30, menu, [5, 1, 2, 3], [4, 6, 2, 0], [3, 5, 4, 2], [0, 2, 1, 0]]]}
    x, y = M.samples([line])
    assert y.tolist() == [0.0, 1.0, 0.0]  # seat 1 rejected, 2 accepted, 3 countered (not taken)
    for row, q in zip(x, (1, 2, 3)):
        np.testing.assert_array_equal(row, M.offer_features(menu, [4, 6, 2, 0][q], [0, 2, 1, 0][q], [3, 5, 4, 2][q], 3, 30))
    # a seat that gave no answer (0) is no sample, nor one of our own seats
    x3, y3 = M.samples([{"our_seats": [0, 3], "offer_log": [[30, menu, [5, 0, 2, 3], [4, 6, 2, 0], [3, 5, 4, 2],
                                                            [0, 2, 1, 0]]]}])
    assert y3.tolist() == [1.0] and np.array_equal(x3[0], x[1])
    # a seat the offer was not for (6) is no sample
    x2, y2 = M.samples([{"offer_log": [[30, menu, [5, 6, 2, 6], [4, 6, 2, 0], [3, 5, 4, 2], [0, 2, 1, 0]]]}])
    assert y2.tolist() == [1.0] and np.array_equal(x2[0], x[1])
    want = int(A.MENU_GET_N[menu])
    assert x[0, M.FEATURES.index("can_pay")] == float(2 >= want)
    assert x[0, M.FEATURES.index("asks_" + L.RESOURCE_NAMES[A.MENU_GET_RES[menu]])] == 1.0
    assert x[0, M.FEATURES.index("gives_" + L.RESOURCE_NAMES[A.MENU_GIVE_RES[menu]])] == 1.0


def _main_phase_state(players=4, seed=3):
    rng = np.random.default_rng(seed)
    s = G.new_game(seed=seed, players=players)
    while not (s[L.PHASE] == L.PH_MAIN and any(A.OFFER0 <= a < A.OFFER0 + A.N_MENU for a in G.legal_actions(s))):
        legal = G.legal_actions(s)
        G.step(s, int(legal[rng.integers(len(legal))]))
    return s


def test_probabilities_are_the_partners_features_in_the_view():
    model = M.AcceptanceModel(np.random.default_rng(1).normal(size=M.N_FEATURES))
    for players in (3, 4):
        s = _main_phase_state(players)
        seat = int(G.decider(s))
        offers = np.array([a for a in G.legal_actions(s) if A.OFFER0 <= a < A.OFFER0 + A.N_MENU], np.int64)
        got = model.probabilities(s, seat, offers)
        assert got.shape == (len(offers), 3)
        for i, a in enumerate(offers):
            m = int(a) - A.OFFER0
            for k in range(1, 4):
                if k >= players:
                    assert got[i, k - 1] == 0.0
                    continue
                q = (seat + k) % players
                hand = [int(s[L.hand_i(q, r)]) for r in range(L.N_RES)]
                x = M.offer_features(m, sum(hand), hand[A.MENU_GET_RES[m]], int(s[L.PUBLIC_VP + q]),
                                     int(s[L.PUBLIC_VP + seat]), int(s[L.TURN]))
                assert got[i, k - 1] == pytest.approx(1 / (1 + np.exp(-x @ model.coef)))


def test_bad_models_are_named(tmp_path):
    with pytest.raises(ValueError, match="shipped kinds are .*jsettlers-smart"):
        M.load_acceptance("nobody")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.json: not an acceptance model"):
        M.load_acceptance(str(bad))
    bad.write_text(json.dumps({"features": ["bias"], "coef": [0.0]}))
    with pytest.raises(ValueError, match="not this version's"):
        M.load_acceptance(str(bad))
    with pytest.raises(ValueError, match="19 coefficients"):
        M.AcceptanceModel([0.0, 1.0])
    with pytest.raises(ValueError, match="shipped kinds"):
        make_agent("pretrained:accept=nobody")


def test_the_shipped_model_says_what_it_was_fitted_on():
    model = M.load_acceptance("jsettlers-smart")
    meta = model.meta
    assert meta["kind"] == "jsettlers-smart" and meta["answers"] > 1000 and 0 < meta["taken"] < meta["answers"]
    assert meta["held_out_log_loss"] < meta["held_out_log_loss_base_rate"]  # it beats the base rate
    assert "catan_env.learned.acceptance fit" in meta["command"]
    assert model.coef[M.FEATURES.index("can_pay")] > 0  # a robot that cannot pay does not accept


def _agent_with(bias, tmp_path):
    coef = np.zeros(M.N_FEATURES)
    coef[0] = bias
    path = tmp_path / f"acceptance-{bias}.json"
    M.AcceptanceModel(coef).save(str(path))
    return make_agent(f"pretrained:search=0:accept={path}:offers=3", seed=1)


def test_the_agent_offers_by_the_models_expected_gain(tmp_path):
    """A model by which nobody accepts makes no offer; one by which everybody does makes
    the offer whose partner gains sum highest (each partner's gain, a loss included)."""
    from catan_env.learned.trading import offer_partner_gains

    def observe(state, seat):
        return observation(state, seat), InfoSet(state, seat, secret_seed=5)
    s = _main_phase_state()
    seat = int(G.decider(s))
    never, always = _agent_with(-30.0, tmp_path), _agent_with(30.0, tmp_path)
    obs, info = observe(s, seat)
    a = never.act(obs, info)
    assert not A.OFFER0 <= a < A.OFFER0 + A.N_MENU and never.trade_counts["offers"] == 0
    offers = np.array([x for x in G.legal_actions(s) if A.OFFER0 <= x < A.OFFER0 + A.N_MENU], np.int64)
    gains = np.empty((len(offers), 3))
    view = info.determinize(0)  # (every hand is known this early: each sample is the true state's)
    assert all(view[L.hand_i(p, r)] == s[L.hand_i(p, r)] for p in range(4) for r in range(L.N_RES))
    offer_partner_gains(always._evaluator, view, seat, offers, gains)
    expected = np.where(gains > -1.0, gains, 0.0).sum(1)
    obs, info = observe(s, seat)
    a = always.act(obs, info)
    assert expected.max() > always.offer_gain  # (an offer pays here)
    assert a == offers[int(np.argmax(expected))] and always.trade_counts["offers"] == 1


def test_offers_to_the_gainers_name_them_and_sum_only_their_gains(tmp_path):
    from catan_env.learned.trading import offer_partner_gains
    coef = np.zeros(M.N_FEATURES)
    coef[0] = 30.0
    path = tmp_path / "always.json"
    M.AcceptanceModel(coef).save(str(path))
    agent = make_agent(f"pretrained:search=0:accept={path}:offers=3:offer_to=gainers", seed=1)
    s = _main_phase_state()
    seat = int(G.decider(s))
    offers = np.array([x for x in G.legal_actions(s) if A.OFFER0 <= x < A.OFFER0 + A.N_MENU], np.int64)
    gains = np.empty((len(offers), 3))
    offer_partner_gains(agent._evaluator, s, seat, offers, gains)
    expected = np.where(gains > 0, gains, 0.0).sum(1)
    a = agent.act(observation(s, seat), InfoSet(s, seat, secret_seed=5))
    i = int(np.argmax(expected))
    assert a == offers[i]
    assert agent.offer_recipients == [(seat + k) % 4 for k in (1, 2, 3) if gains[i, k - 1] > 0]
    # the next decision that makes no offer names nobody (a bridge never reads stale partners)
    G.step(s, int(a))
    responder = int(G.decider(s))
    agent.act(observation(s, responder), InfoSet(s, responder, secret_seed=5))
    assert agent.offer_recipients is None
    with pytest.raises(ValueError, match="needs an acceptance model"):
        make_agent("pretrained:offer_to=gainers")
    with pytest.raises(ValueError, match="offer_to must be one of all, gainers"):
        make_agent("pretrained:accept=jsettlers-smart:offer_to=some")


def _menu(give, give_n, get, get_n):
    return next(m for m in range(A.N_MENU) if (A.MENU_GIVE_RES[m], A.MENU_GIVE_N[m], A.MENU_GET_RES[m], A.MENU_GET_N[m])
                == (give, give_n, get, get_n))


def test_version_2_reads_what_the_trade_does_to_the_partners_next_build():
    brick, lumber, wool, grain, ore = range(5)
    # the partner holds a city but one ore, and a card: our ore for its spare wool brings the
    # city one card nearer and leaves its card as near (its next build, held already)
    hand = [0, 0, 2, 2, 2]
    f = dict(zip(M.FEATURES_V2[M.N_FEATURES:], M.build_features(hand, _menu(ore, 1, wool, 1), own_vp=5)))
    assert f == {"nearer_road": 0, "nearer_settlement": 0, "nearer_city": 1, "nearer_card": 0,
                 "nearer_next_build": 0, "offerer_near_win": 0.0}
    # one wool short of a card: our wool for its lumber makes it its next build
    f = dict(zip(M.FEATURES_V2[M.N_FEATURES:], M.build_features([0, 1, 0, 1, 1], _menu(wool, 1, lumber, 1), own_vp=5)))
    assert f["nearer_card"] == 1 and f["nearer_next_build"] == 1 and f["nearer_road"] == -1
    # asking for its grain (2 of them for our brick) takes its city and card further away
    f = dict(zip(M.FEATURES_V2[M.N_FEATURES:], M.build_features(hand, _menu(brick, 1, grain, 2), own_vp=8)))
    assert f["nearer_city"] == -2 and f["nearer_card"] == -1 and f["nearer_road"] == 1 and f["offerer_near_win"] == 1.0
    # against the obvious count, on many hands and offers
    rng = np.random.default_rng(2)
    for _ in range(300):
        hand, m = rng.integers(0, 4, 5).tolist(), int(rng.integers(A.N_MENU))
        after = list(hand)
        after[A.MENU_GET_RES[m]] = max(after[A.MENU_GET_RES[m]] - A.MENU_GET_N[m], 0)
        after[A.MENU_GIVE_RES[m]] += A.MENU_GIVE_N[m]
        lack = [[sum(max(c - h[r], 0) for r, c in enumerate(cost)) for cost in M.BUILDS.values()] for h in (hand, after)]
        want = [b - a for b, a in zip(*lack)] + [min(lack[0]) - min(lack[1]), 0.0]
        assert M.build_features(hand, m, own_vp=3) == want


def test_a_version_2_model_reads_the_partners_hand_from_the_view(tmp_path):
    coef = np.random.default_rng(4).normal(size=len(M.FEATURES_V2))
    model = M.AcceptanceModel(coef, version=2)
    model.save(str(tmp_path / "v2.json"))
    back = M.load_acceptance(str(tmp_path / "v2.json"))
    assert back.version == 2 and np.allclose(back.coef, coef, atol=1e-6)
    s = _main_phase_state()
    seat = int(G.decider(s))
    offers = np.array([a for a in G.legal_actions(s) if A.OFFER0 <= a < A.OFFER0 + A.N_MENU], np.int64)
    got = model.probabilities(s, seat, offers)
    q = (seat + 1) % 4
    hand = [int(s[L.hand_i(q, r)]) for r in range(L.N_RES)]
    m = int(offers[0]) - A.OFFER0
    x = M.offer_features(m, sum(hand), hand[A.MENU_GET_RES[m]], int(s[L.PUBLIC_VP + q]), int(s[L.PUBLIC_VP + seat]),
                         int(s[L.TURN]), hand, version=2)
    assert got[0, 0] == pytest.approx(1 / (1 + np.exp(-x @ coef)))
    with pytest.raises(ValueError, match="whole hand"):
        M.offer_features(m, 1, 1, 2, 2, 10, version=2)
    with pytest.raises(ValueError, match="knows \\[1, 2\\]"):
        M.AcceptanceModel(coef, version=3)


def test_an_arena_game_logs_its_offers_and_every_answer(tmp_path):
    """play_game's offer log holds one record per offer made in the game, every answer
    the responders gave, and the confirmed counter as taken; the arena writes them where
    the acceptance fit reads them, each seat's spec named."""
    from catan_env.agents.arena import play_game, run_tournament, summarise, write_outputs
    res = play_game(["jsettlers", "jsettlers", "random", "random"], seed=5)
    log = res["offer_log"]
    assert len(log) == sum(res["offers"]) > 0
    answered = [a for rec in log for a in rec[2] if a not in (M.ANSWER_SELF,)]
    assert set(answered) <= {M.ANSWER_NONE, M.ANSWER_REJECT, M.ANSWER_ACCEPT, M.ANSWER_COUNTER, M.ANSWER_COUNTER_TAKEN}
    taken = sum(a in (M.ANSWER_ACCEPT, M.ANSWER_COUNTER_TAKEN) for rec in log for a in rec[2])
    assert taken >= res["trades_completed"]  # (an accept the offerer did not confirm is no trade)
    for rec in log:  # in the core every partner answers, each at its own seat
        seat = rec[2].index(M.ANSWER_SELF)
        assert rec[2].count(M.ANSWER_SELF) == 1 and M.ANSWER_NONE not in rec[2], rec
        assert [sum(h) for h in rec[6]] == rec[3] and rec[5][seat] == rec[6][seat][A.MENU_GET_RES[rec[1]]]
    results = run_tournament(["jsettlers", "random", "random", "random"], 2, seed=3, progress=False)
    write_outputs(results, summarise(results, ["jsettlers", "random", "random", "random"]), str(tmp_path))
    lines = [json.loads(t) for t in open(tmp_path / "offers.jsonl")]
    assert [len(g["offer_log"]) for g in lines] == [len(r["offer_log"]) for r in results]
    x_all, _ = M.samples(lines)
    x_js, _ = M.samples(lines, responder="jsettlers")
    x_random, _ = M.samples(lines, responder="random")
    assert len(x_js) + len(x_random) == len(x_all)


def test_bad_options_are_named(tmp_path, capsys):
    with pytest.raises(ValueError, match="offer_gain must be a number >= 0"):
        make_agent("pretrained:accept=jsettlers-smart:offer_gain=-0.1")
    with pytest.raises(ValueError, match="value_trader's own options: playouts, variant, accept"):
        make_agent("value_trader:offer_margin=0.1")
    with pytest.raises(SystemExit):
        M.main(["fit", "--kind", "k", "x.jsonl", "--holdout", "1.5"])
    assert "--holdout is the share of games held out" in capsys.readouterr().err
    assert make_agent("pretrained:accept=none").acceptance is None


def test_the_fit_command_names_bad_input(tmp_path, capsys):
    assert M.main(["fit", "--kind", "k", str(tmp_path / "none.jsonl"), "--out", str(tmp_path / "m.json")]) == 2
    assert "cannot read the games" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text("{not json\n")
    assert M.main(["fit", "--kind", "k", str(bad), "--out", str(tmp_path / "m.json")]) == 2
    empty = tmp_path / "empty.jsonl"
    empty.write_text(json.dumps({"offer_log": []}) + "\n")
    assert M.main(["fit", "--kind", "k", str(empty), "--out", str(tmp_path / "m.json")]) == 2
    assert "nothing to fit" in capsys.readouterr().err and not (tmp_path / "m.json").exists()
